package docs

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// markdown parses as GitHub renders: tables, and an id on every heading.
// goldmark's ids match GitHub's anchors for headings in ASCII without an
// underscore, which TestHeadingIDsAsOnGitHub keeps true.
var markdown = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
)

// htmlRef finds the targets of the few raw HTML elements the files use
// (an <img> with a width, say); the Markdown itself is goldmark's to read.
var htmlRef = regexp.MustCompile(`\b(?:src|href)="([^"]*)"`)

// page is one parsed Markdown file: its headings' ids and where it links.
type page struct {
	headings []string // the heading texts, for TestHeadingIDsAsOnGitHub
	ids      map[string]bool
	links    []string
}

func parse(t *testing.T, file string) page {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	p := page{ids: map[string]bool{}}
	doc := markdown.Parser().Parse(text.NewReader(src))
	err = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				p.ids[string(id.([]byte))] = true
			}
			var heading bytes.Buffer
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				heading.Write(seg.Value(src))
			}
			p.headings = append(p.headings, heading.String())
		case *ast.Link:
			p.links = append(p.links, string(n.Destination))
		case *ast.Image:
			p.links = append(p.links, string(n.Destination))
		case *ast.HTMLBlock:
			p.links = append(p.links, htmlLinks(n.Lines(), src)...)
		case *ast.RawHTML:
			p.links = append(p.links, htmlLinks(n.Segments, src)...)
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// htmlLinks are the targets of src and href attributes in raw HTML.
func htmlLinks(segs *text.Segments, src []byte) []string {
	var raw bytes.Buffer
	for i := range segs.Len() {
		seg := segs.At(i)
		raw.Write(seg.Value(src))
	}
	var out []string
	for _, m := range htmlRef.FindAllStringSubmatch(raw.String(), -1) {
		out = append(out, m[1])
	}
	return out
}

// files are README.md and every Markdown file of this folder, as paths
// from this folder (a test's working directory).
func files(t *testing.T) []string {
	t.Helper()
	md, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(md) == 0 {
		t.Fatal("no Markdown files in docs/")
	}
	return append([]string{filepath.Join("..", "README.md")}, md...)
}

// TestLinksResolve: every relative link in README.md and docs/*.md names a
// file or folder of the repository, and every #anchor a heading of the
// Markdown file it points into.
func TestLinksResolve(t *testing.T) {
	pages := map[string]page{}
	load := func(file string) page {
		if p, ok := pages[file]; ok {
			return p
		}
		p := parse(t, file)
		pages[file] = p
		return p
	}
	for _, file := range files(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			for _, link := range load(file).links {
				u, err := url.Parse(link)
				if err != nil {
					t.Errorf("%s: link %q does not parse: %v", file, link, err)
					continue
				}
				if u.Scheme != "" || u.Host != "" {
					continue // another site's: not this test's to check
				}
				target := file
				if u.Path != "" {
					target = filepath.Join(filepath.Dir(file), filepath.FromSlash(u.Path))
					if _, err := os.Stat(target); err != nil {
						t.Errorf("%s: link %q: no such file: %s", file, link, target)
						continue
					}
				}
				if u.Fragment == "" {
					continue
				}
				if !strings.HasSuffix(target, ".md") {
					t.Errorf("%s: link %q: an anchor into a file that is not Markdown", file, link)
					continue
				}
				if !load(target).ids[u.Fragment] {
					t.Errorf("%s: link %q: %s has no heading with the id %q", file, link, target, u.Fragment)
				}
			}
		})
	}
}

// TestEveryDocLinkedFromReadme: a file of docs/ that the README does not
// link is a file no newcomer finds.
func TestEveryDocLinkedFromReadme(t *testing.T) {
	readme := parse(t, filepath.Join("..", "README.md"))
	var linked []string
	for _, link := range readme.links {
		if u, err := url.Parse(link); err == nil && u.Scheme == "" {
			linked = append(linked, filepath.Clean(u.Path))
		}
	}
	for _, file := range files(t)[1:] {
		if !slices.Contains(linked, filepath.Join("docs", file)) {
			t.Errorf("README.md links no docs/%s", file)
		}
	}
}

// TestHeadingIDsAsOnGitHub: goldmark drops the characters outside ASCII
// from a heading's id, and turns an underscore into a hyphen, where GitHub
// keeps both; in such a heading an anchor checked here would not be the one
// GitHub renders.
func TestHeadingIDsAsOnGitHub(t *testing.T) {
	for _, file := range files(t) {
		for _, h := range parse(t, file).headings {
			for _, r := range h {
				if r > 0x7e || r == '_' {
					t.Errorf("%s: heading %q has %q, which goldmark and GitHub turn into different ids", file, h, r)
					break
				}
			}
		}
	}
}
