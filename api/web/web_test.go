package web

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for k, v := range header {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestHandlerServesPageAndAssets(t *testing.T) {
	h := Handler()
	tests := []struct {
		path, contentType string
	}{
		{"/", "text/html"},
		{"/assets/app.js", "text/javascript"},
		{"/assets/api.js", "text/javascript"},
		{"/assets/board.js", "text/javascript"},
		{"/assets/player.js", "text/javascript"},
		{"/assets/profile.js", "text/javascript"},
		{"/assets/challenges.js", "text/javascript"},
		{"/assets/ratings.js", "text/javascript"},
		{"/assets/style.css", "text/css"},
		{"/assets/icon.svg", "image/svg+xml"},
		{"/favicon.ico", "image/svg+xml"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			w := get(t, h, tt.path, nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", w.Code)
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, tt.contentType) {
				t.Errorf("Content-Type %q, want %s", ct, tt.contentType)
			}
			tag := w.Header().Get("ETag")
			if tag == "" {
				t.Fatal("no ETag")
			}
			if cc := w.Header().Get("Cache-Control"); cc != "no-cache" {
				t.Errorf("Cache-Control %q, want no-cache", cc)
			}
			again := get(t, h, tt.path, map[string]string{"If-None-Match": tag})
			if again.Code != http.StatusNotModified {
				t.Errorf("If-None-Match with the ETag: status %d, want 304", again.Code)
			}
		})
	}
}

// Browsers ask for /favicon.ico by themselves: it answers the page's icon,
// the same bytes and ETag as /assets/icon.svg.
func TestHandlerFaviconIsThePageIcon(t *testing.T) {
	h := Handler()
	icon, favicon := get(t, h, iconPath, nil), get(t, h, faviconPath, nil)
	if favicon.Code != http.StatusOK || favicon.Body.Len() == 0 || favicon.Body.String() != icon.Body.String() {
		t.Fatalf("%s: status %d, %d bytes; want the %d bytes of %s", faviconPath, favicon.Code, favicon.Body.Len(), icon.Body.Len(), iconPath)
	}
	if a, b := favicon.Header().Get("ETag"), icon.Header().Get("ETag"); a != b {
		t.Errorf("ETag %s, want %s's %s", a, iconPath, b)
	}
}

func TestHandlerPageHeaders(t *testing.T) {
	w := get(t, Handler(), "/", nil)
	csp := w.Header().Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if !strings.Contains(w.Body.String(), `<script type="module" src="/assets/app.js">`) {
		t.Error("the page does not load /assets/app.js as a module")
	}
}

func TestHandlerUnknownFileIsProblem(t *testing.T) {
	for _, p := range []string{"/assets/nope.js", "/assets/", "/assets", "/assets/../web.go", "/nope"} {
		t.Run(p, func(t *testing.T) {
			w := get(t, Handler(), p, nil)
			if w.Code != http.StatusNotFound {
				t.Fatalf("status %d, want 404", w.Code)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
				t.Errorf("Content-Type %q, want application/problem+json", ct)
			}
			var problem struct {
				Status int    `json:"status"`
				Code   string `json:"code"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &problem); err != nil || problem.Status != 404 || problem.Code != "route_not_found" {
				t.Errorf("body %s: %v", w.Body, err)
			}
		})
	}
}

// The page must fetch nothing from elsewhere: no absolute URL to another host
// in any file, and every local path it references is embedded.
func TestNothingFetchedFromOutside(t *testing.T) {
	files := FS()
	absolute := regexp.MustCompile(`(?i)(?:src|href|url|import|from|fetch)\s*[=(]?\s*["'(]\s*(?:https?:)?//`)
	refs := regexp.MustCompile(`(?:src|href)="(/[^"#?]*)"|from '\./([^']+)'|import\('\./([^']+)'\)`)
	err := fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		text := string(b)
		if m := absolute.FindString(text); m != "" {
			t.Errorf("%s refers to another host: %q", name, m)
		}
		for _, m := range refs.FindAllStringSubmatch(text, -1) {
			var target string
			switch {
			case m[1] != "":
				target = strings.TrimPrefix(m[1], "/")
				if target == "" || target == "docs" || target == "openapi.yaml" {
					continue // the page itself, and the API's own pages
				}
			case m[2] != "":
				target = path.Join(path.Dir(name), m[2])
			default:
				target = path.Join(path.Dir(name), m[3])
			}
			if _, err := fs.Stat(files, target); err != nil {
				t.Errorf("%s refers to %q, which is not embedded", name, target)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Only api.js may name the API's paths, so a front end copying this client
// adapts one file.
func TestOnlyAPIModuleNamesEndpoints(t *testing.T) {
	files := FS()
	matches, err := fs.Glob(files, "assets/*.js")
	if err != nil || len(matches) == 0 {
		t.Fatalf("no modules found: %v", err)
	}
	for _, name := range matches {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		has := strings.Contains(string(b), "/v1/")
		if name == "assets/api.js" && !has {
			t.Errorf("%s names no endpoint", name)
		}
		if name != "assets/api.js" && has {
			t.Errorf("%s names an endpoint; keep paths in api.js", name)
		}
	}
}

// The page's Content-Security-Policy runs no inline code: no script without
// a src, no event-handler attribute and no style attribute in the page, and
// no module that writes markup as text (where an attribute could slip in).
func TestPageRunsNoInlineCode(t *testing.T) {
	files := FS()
	page, err := fs.ReadFile(files, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*regexp.Regexp{
		regexp.MustCompile(`<script(?:\s[^>]*)?>`),
		regexp.MustCompile(`(?i)\son[a-z]+\s*=`),
		regexp.MustCompile(`(?i)\sstyle\s*=`),
	} {
		for _, m := range bad.FindAllString(string(page), -1) {
			if bad.String() == `<script(?:\s[^>]*)?>` && strings.Contains(m, ` src="`) {
				continue
			}
			t.Errorf("index.html has %q, which the policy refuses", m)
		}
	}
	modules, err := fs.Glob(files, "assets/*.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range modules {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write"} {
			if strings.Contains(string(b), sink) {
				t.Errorf("%s uses %s: build nodes instead", name, sink)
			}
		}
	}
}
