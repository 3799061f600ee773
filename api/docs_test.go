package api

import (
	"regexp"
	"strings"
	"testing"
)

// Descriptions are CommonMark: what the document writes as Markdown reaches
// the page as HTML, and what it writes as HTML reaches it as text.
func TestDocsMarkdown(t *testing.T) {
	spec, err := GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	spec.Info.Description = "Sow a *relay* of **legs** from pit `i`:\n\n" +
		"- first leg\n- second leg\n\n" +
		"Rules at https://example.com/rules and [the README](https://example.com/readme).\n\n" +
		"Inline <script>alert(1)</script> and a [bad link](javascript:alert(2)).\n\n" +
		"<script>\nalert(3)\n</script>\n"
	spec.Paths.Find("/v1/evaluate").Post.Description = "An *illegal* move is <b>not</b> an error."
	page, err := renderDocs(spec)
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
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
// anchors and paths, never to a site the project does not have.
func TestDocsLinksStayHome(t *testing.T) {
	spec, err := GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	page, err := renderDocs(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(string(page), -1) {
		if href := m[1]; !strings.HasPrefix(href, "#") && !strings.HasPrefix(href, "/") {
			t.Errorf("the page links to %s", href)
		}
	}
}
