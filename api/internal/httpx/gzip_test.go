package httpx

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// An answer is gzipped when the client accepts it and it reaches the
// minimum length, whether written at once or in pieces; anything else goes
// out as it is, with its status, its headers and, when the level leaves it
// alone, no Vary.
func TestGzip(t *testing.T) {
	const min = 16
	long := strings.Repeat("0123456789", 5)
	for _, tt := range []struct {
		name     string
		accept   string
		level    int
		code     int
		pieces   []string // written one after another; nil: no body
		flushAt  int      // flush after this many pieces; 0: never
		gzipped  bool
		noVary   bool
		withSize bool // the handler sets Content-Length
	}{
		{name: "large, at once", accept: "gzip, br", level: gzip.BestSpeed, code: 200, pieces: []string{long}, gzipped: true},
		{name: "large, in pieces", accept: "gzip", level: gzip.DefaultCompression, code: 201, pieces: []string{"[", long[:10], long[10:], "]"}, gzipped: true},
		{name: "large, Content-Length dropped", accept: "gzip", level: gzip.BestSpeed, code: 200, pieces: []string{long}, gzipped: true, withSize: true},
		{name: "small", accept: "gzip", level: gzip.BestSpeed, code: 200, pieces: []string{"{}"}},
		{name: "small, kept length", accept: "gzip", level: gzip.BestSpeed, code: 200, pieces: []string{"{}"}, withSize: true},
		{name: "small in pieces", accept: "gzip", level: gzip.BestSpeed, code: 400, pieces: []string{"{", "\"a\":1", "}"}},
		{name: "no body", accept: "gzip", level: gzip.BestSpeed, code: http.StatusNoContent},
		{name: "not accepted", accept: "br", level: gzip.BestSpeed, code: 200, pieces: []string{long}},
		{name: "no Accept-Encoding", level: gzip.BestSpeed, code: 200, pieces: []string{long}},
		{name: "left alone", accept: "gzip", level: gzip.NoCompression, code: 200, pieces: []string{long}, noVary: true},
		{name: "flushed before the minimum", accept: "gzip", level: gzip.BestSpeed, code: 200, pieces: []string{"data: 1\n\n", long}, flushAt: 1},
		{name: "flushed after the minimum", accept: "gzip", level: gzip.BestSpeed, code: 200, pieces: []string{long, "more"}, flushAt: 1, gzipped: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := echo.New()
			e.Use(Gzip(min, func(echo.Context) int { return tt.level }))
			e.GET("/", func(c echo.Context) error {
				h := c.Response().Header()
				h.Set(echo.HeaderContentType, "application/json")
				if tt.withSize {
					h.Set(echo.HeaderContentLength, strconv.Itoa(len(strings.Join(tt.pieces, ""))))
				}
				c.Response().WriteHeader(tt.code)
				for i, p := range tt.pieces {
					if _, err := c.Response().Write([]byte(p)); err != nil {
						return err
					}
					if i+1 == tt.flushAt {
						c.Response().Flush()
					}
				}
				return nil
			})
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != tt.code {
				t.Errorf("status %d, want %d", rec.Code, tt.code)
			}
			body := rec.Body.Bytes()
			if got := rec.Header().Get("Content-Encoding") == "gzip"; got != tt.gzipped {
				t.Fatalf("gzipped %v, want %v (Content-Encoding %q)", got, tt.gzipped, rec.Header().Get("Content-Encoding"))
			}
			if tt.gzipped {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
				if rec.Header().Get(echo.HeaderContentLength) != "" {
					t.Errorf("Content-Length %q on a gzipped answer", rec.Header().Get(echo.HeaderContentLength))
				}
			} else if tt.withSize && rec.Header().Get(echo.HeaderContentLength) == "" {
				t.Error("Content-Length dropped from an answer sent as it is")
			}
			if want := strings.Join(tt.pieces, ""); string(body) != want {
				t.Errorf("body %q, want %q", body, want)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type %q", got)
			}
			if vary := strings.Contains(rec.Header().Get("Vary"), "Accept-Encoding"); vary == tt.noVary {
				t.Errorf("Vary %q", rec.Header().Get("Vary"))
			}
		})
	}
}
