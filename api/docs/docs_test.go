package docs_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/api/docs"
	"github.com/ayoayo/ayoayo/api/oapi"
)

// render is the page of spec as the server renders it.
func render(t *testing.T, mutate func(*openapi3.T)) string {
	t.Helper()
	spec, err := oapi.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	mutate(spec)
	page, err := docs.Render(spec, api.ProblemCodes(), "problem-")
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

// Descriptions are CommonMark: what the document writes as Markdown reaches
// the page as HTML, and what it writes as HTML reaches it as text.
func TestDocsMarkdown(t *testing.T) {
	html := render(t, func(spec *openapi3.T) {
		spec.Info.Description = "Sow a *relay* of **legs** from pit `i`:\n\n" +
			"- first leg\n- second leg\n\n" +
			"Rules at https://example.com/rules and [the README](https://example.com/readme).\n\n" +
			"Inline <script>alert(1)</script> and a [bad link](javascript:alert(2)).\n\n" +
			"<script>\nalert(3)\n</script>\n"
		spec.Paths.Find("/v1/evaluate").Post.Description = "An *illegal* move is <b>not</b> an error."
	})
	for _, want := range []string{
		"<em>relay</em>",
		"<strong>legs</strong>",
		"<code>i</code>",
		"<ul>\n<li>first leg</li>\n<li>second leg</li>\n</ul>",
		`<a href="https://example.com/rules">https://example.com/rules</a>`,
		`<a href="https://example.com/readme">the README</a>`,
		"Inline &lt;script&gt;alert(1)&lt;/script&gt; and",
		"&lt;script&gt;\nalert(3)\n&lt;/script&gt;",
		"An <em>illegal</em> move is &lt;b&gt;not&lt;/b&gt; an error.",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "javascript:", "<b>"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
}

// The page of the real document links only within the server: to its own
// anchors and paths, never to a site the project does not have; and one of
// those links leads back to the game, the web client at /.
func TestDocsLinksStayHome(t *testing.T) {
	page := render(t, func(*openapi3.T) {})
	game := false
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		href := m[1]
		if !strings.HasPrefix(href, "#") && !strings.HasPrefix(href, "/") {
			t.Errorf("the page links to %s", href)
		}
		game = game || href == "/"
	}
	if !game {
		t.Error("the page has no link back to the game at /")
	}
}

// Every problem code has its row, under the anchor the problem types name.
func TestDocsProblemRows(t *testing.T) {
	page := render(t, func(*openapi3.T) {})
	for _, p := range api.ProblemCodes() {
		if !strings.Contains(page, `<tr id="problem-`+p.Code+`"><td><code>`+p.Code+`</code></td><td>`+p.Status+`</td>`) {
			t.Errorf("no row for %s (%s)", p.Code, p.Status)
		}
	}
}
