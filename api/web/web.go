// Package web holds the reference browser client: a page of plain HTML, CSS and
// JavaScript modules that plays Ayoayo and solves the daily puzzle through the
// public HTTP API only, exactly as a third-party front end would. The files are
// embedded in the binary, so the server needs nothing on disk and the page
// fetches nothing from elsewhere.
//
// The page is index.html at "/" and everything it loads lives under "/assets/";
// the icon is also at "/favicon.ico", where browsers look for one on their own
// whatever the page declares. A server mounts exactly these routes and leaves
// every other path to the API.
package web

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"io/fs"
	"net/http"
	"path"

	"github.com/ayoayo/ayoayo/api/internal/problem"
)

//go:embed static
var static embed.FS

// Routes are the paths a server routes to Handler: the page, its icon at the
// path browsers ask for by themselves, and its assets.
var Routes = []string{"/", faviconPath, "/assets/*", authorizePath}

// faviconPath is where a browser looks for a site's icon without being told
// (Chromium does at times even when the page names its icon): it is served
// the page's icon, so such a request is not an error in the console or in
// the server's log.
const (
	faviconPath = "/favicon.ico"
	iconPath    = "/assets/icon.svg"
	// authorizePath is OAuth's authorization page, where the player this
	// browser keeps approves an app (authorize.html).
	authorizePath = "/oauth/authorize"
	authorizeFile = "/authorize.html"
)

// FS returns the client's files, rooted at the folder that holds index.html.
func FS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		// fs.Sub fails only on an invalid path, and "static" is a constant.
		panic(err)
	}
	return sub
}

// csp says the page loads nothing from another origin and runs no inline code.
const csp = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// notFound answers as the API answers an unknown route: an RFC 9457 problem
// with the same code, written by the same writer, so a client sees one
// convention everywhere.
func notFound(w http.ResponseWriter, r *http.Request) {
	problem.Write(w, problem.New(http.StatusNotFound, problem.RouteNotFoundCode, problem.RouteNotFoundTitle,
		"the browser client has no file "+r.URL.Path))
}

// Handler serves the client. Embedded files carry no modification time, so
// each gets a strong ETag from its content and "no-cache": a browser
// revalidates cheaply (304) and a new binary never leaves it with a stale mix
// of old and new modules.
func Handler() http.Handler {
	files := FS()
	etags := map[string]string{}
	_ = fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		etags[name] = `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`
		return nil
	})
	server := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := path.Clean(r.URL.Path)
		switch name {
		case "/":
			name = "/index.html"
		case authorizePath:
			name = authorizeFile
			r = r.Clone(r.Context())
			r.URL.Path = authorizeFile
		case faviconPath:
			// The file server types a file by its name's extension: it
			// is asked for the icon's own path, and answers image/svg+xml.
			name = iconPath
			r = r.Clone(r.Context())
			r.URL.Path = iconPath
		}
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		tag, ok := etags[name[1:]]
		if !ok {
			// Not one of the client's files (a folder included: no listings).
			notFound(w, r)
			return
		}
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", tag)
		if name == "/index.html" || name == authorizeFile {
			h.Set("Content-Security-Policy", csp)
			h.Set("Referrer-Policy", "same-origin")
		}
		server.ServeHTTP(w, r)
	})
}
