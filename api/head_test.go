package api

import (
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/web"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/store/memory"
)

// TestHeadOnEveryGet: over real HTTP, HEAD on every GET operation of the
// document and on the browser client's routes answers the GET's status and
// headers with no body (RFC 9110 9.3.2), where it was 405.
func TestHeadOnEveryGet(t *testing.T) {
	clock := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{Now: func() time.Time { return clock }})
	gs := newGamesServer(t, Options{Puzzles: feed}, games.Options{}, nil)
	gs.trust = true // HEAD answers have no body for the document to check
	// A finished game, so that its event stream ends and can be compared.
	g, tokens := gs.twoSeats()
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", tokens[0], nil, nil), http.StatusOK, "")
	params := map[string]map[string]string{
		"/v1/games/":         {"{id}": g.Id},
		"/v1/puzzles/":       {"{id}": "p20260303", "{date}": "2026-03-02"},
		"/v1/players/":       {"{id}": "nobody"},
		"/v1/leaderboards/":  {"{category}": "live"},
		"/v1/seeks/":         {"{id}": "nothing"},
		"/v1/challenges/":    {"{id}": "nothing"},
		"/v1/tournaments/":   {"{id}": "nothing"},
		"/v1/bulk-pairings/": {"{id}": "nothing"},
	}

	var paths []string
	for path, item := range loadSpecFile(t).Paths.Map() {
		if item.Get == nil {
			continue
		}
		for prefix, values := range params {
			if strings.HasPrefix(path, prefix) {
				for name, v := range values {
					path = strings.ReplaceAll(path, name, v)
				}
			}
		}
		if strings.Contains(path, "{") {
			t.Fatalf("no value for a parameter of GET %s: add one to the test", path)
		}
		paths = append(paths, path)
	}
	paths = append(paths, "/", "/favicon.ico", "/oauth/authorize", "/assets/app.js", "/assets/nothing.js", "/v1/games/nothing", "/v1/puzzles/daily/2099-01-01", "/v1/games/"+strings.Repeat("A", 65))
	for _, r := range web.Routes {
		if !slices.ContainsFunc(paths, func(p string) bool { return p == r || strings.HasPrefix(p, strings.TrimSuffix(r, "*")) }) {
			t.Fatalf("no path of the browser client's route %s", r)
		}
	}
	slices.Sort(paths)

	for _, path := range paths {
		t.Run(path, func(t *testing.T) {
			get := gs.send(t, http.MethodGet, path)
			head := gs.send(t, http.MethodHead, path)
			if head.status == http.StatusMethodNotAllowed || head.status != get.status || len(head.body) != 0 {
				t.Fatalf("HEAD: %d with %d bytes; GET: %d", head.status, len(head.body), get.status)
			}
			for _, k := range slices.Sorted(maps.Keys(maps.Collect(func(yield func(string, []string) bool) {
				for k, v := range get.header {
					yield(k, v)
				}
				for k, v := range head.header {
					yield(k, v)
				}
			}))) {
				if k == "Date" || k == "X-Request-Id" {
					continue
				}
				if !slices.Equal(get.header[k], head.header[k]) {
					t.Errorf("%s: GET %q, HEAD %q", k, get.header[k], head.header[k])
				}
			}
		})
	}

	// HEAD on the event stream of a game that goes on: the headers, at
	// once, not a stream that never ends.
	seat := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
	var waiting oapi.GameSeat
	seat.decode(t, &waiting)
	start := time.Now()
	head := gs.send(t, http.MethodHead, "/v1/games/"+waiting.Game.Id+"/events")
	if head.status != http.StatusOK || head.header.Get("Content-Type") != "text/event-stream" || time.Since(start) > 5*time.Second {
		t.Fatalf("HEAD on a live stream: %d %q after %v", head.status, head.header.Get("Content-Type"), time.Since(start))
	}
}

// send sends a bodiless request and reads the whole answer, failing the
// test on any error; its client gives up after 10 s. It asks for the
// answer as it is: a gzipped GET has no Content-Length, which its HEAD,
// with no body to compress, still gives (compress_test.go tests gzip).
func (gs *gamesServer) send(t *testing.T, method, path string) answer {
	t.Helper()
	req, err := http.NewRequest(method, gs.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept-Encoding", "identity")
	client := *gs.client
	client.Timeout = 10 * time.Second
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: body}
}
