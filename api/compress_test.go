package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// gunzip returns the bytes b compresses.
func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Answers of a kilobyte or more are gzipped for a client that accepts it,
// and are the same once unzipped; a small one, or one to a client that did
// not ask, is sent as it is.
func TestCompression(t *testing.T) {
	ts := newTester(t, Options{})
	tests := []struct {
		name, method, path, body string
		gzipped                  bool
	}{
		{"the docs page", http.MethodGet, "/docs", "", true},
		{"the spec", http.MethodGet, "/openapi.yaml", "", true},
		{"a JSON answer", http.MethodPost, "/v1/moves", `{"position":` + startJSON + `}`, true},
		{"a small answer", http.MethodGet, "/livez", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := func(enc string) *httptest.ResponseRecorder {
				r := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
				if tt.body != "" {
					r.Header.Set("Content-Type", jsonType)
				}
				if enc != "" {
					r.Header.Set("Accept-Encoding", enc)
				}
				rec := httptest.NewRecorder()
				ts.e.ServeHTTP(rec, r)
				return rec
			}
			plain, zipped := req(""), req("gzip, deflate, br")
			if plain.Header().Get("Content-Encoding") != "" {
				t.Fatalf("compressed for a client that did not ask: %q", plain.Header().Get("Content-Encoding"))
			}
			body := zipped.Body.Bytes()
			if got := zipped.Header().Get("Content-Encoding"); (got == "gzip") != tt.gzipped {
				t.Fatalf("Content-Encoding %q for %d bytes, want gzip: %v", got, plain.Body.Len(), tt.gzipped)
			}
			if tt.gzipped {
				body = gunzip(t, body)
				t.Logf("%s: %d bytes, %d gzipped (%.0f %% saved)", tt.path, plain.Body.Len(), zipped.Body.Len(),
					100*(1-float64(zipped.Body.Len())/float64(plain.Body.Len())))
			}
			if zipped.Code != plain.Code || !bytes.Equal(body, plain.Body.Bytes()) || zipped.Header().Get("Content-Type") != plain.Header().Get("Content-Type") {
				t.Fatalf("compressed answer %d %q differs from the plain one %d %q", zipped.Code, zipped.Header().Get("Content-Type"), plain.Code, plain.Header().Get("Content-Type"))
			}
			if !strings.Contains(zipped.Header().Get("Vary"), "Accept-Encoding") {
				t.Errorf("Vary %q lacks Accept-Encoding", zipped.Header().Get("Vary"))
			}
		})
	}
}

// An event stream is never compressed, so each event reaches the follower
// when it happens, not when a gzip block fills.
func TestEventStreamNotCompressed(t *testing.T) {
	gs := newGamesServer(t, Options{EventHeartbeat: time.Hour}, games.Options{}, nil)
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
	var seat oapi.GameSeat
	a.decode(t, &seat)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, gs.ts.URL+"/v1/games/"+seat.Game.Id+"/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := gs.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if enc := resp.Header.Get("Content-Encoding"); enc != "" {
		t.Fatalf("event stream sent with Content-Encoding %q", enc)
	}
	got := make(chan sseEvent, 2)
	go func() {
		sent := 0
		_, _, _ = readEvents(resp.Body, func(ev []sseEvent) bool {
			for ; sent < len(ev); sent++ {
				got <- ev[sent]
			}
			return len(ev) > 1
		})
	}()
	// The game first; the join after it, so that its event comes on its own.
	// The stream stays open (the hour's heartbeat, no end): each event can
	// only arrive because it was flushed on its own.
	for i, want := range []string{"game", "joined"} {
		if i == 1 {
			gs.expect(gs.must(http.MethodPost, "/v1/games/"+seat.Game.Id+"/join", "", nil, nil), http.StatusCreated, "")
		}
		select {
		case e := <-got:
			if e.event != want {
				t.Fatalf("event %+v, want %s", e, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("the %s event did not arrive while the stream stayed open", want)
		}
	}
}

// The cost of compressing a game's answer (GET /v1/games/{id}), in time
// per request and in bytes sent, against sending it as it is.
func BenchmarkGameAnswerCompression(b *testing.B) {
	var opts Options
	withGames(&opts, memory.New(), games.Options{}, games.HubOptions{})
	e, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	rec := serve(e, postJSON("/v1/games", `{"opponent":{"type":"ai","level":1},"seat":"north"}`))
	var seat oapi.GameSeat
	if err := json.Unmarshal(rec.Body.Bytes(), &seat); err != nil {
		b.Fatal(err)
	}
	for _, enc := range []string{"identity", "gzip"} {
		b.Run(enc, func(b *testing.B) {
			var size int
			for b.Loop() {
				r := httptest.NewRequest(http.MethodGet, "/v1/games/"+seat.Game.Id, nil)
				r.Header.Set("Accept-Encoding", enc)
				w := httptest.NewRecorder()
				e.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d", w.Code)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "answer-bytes")
		})
	}
}
