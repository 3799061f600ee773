package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/memory"
)

// countingStore counts the puzzles written, to show that concurrent first
// requests share one generation.
type countingStore struct {
	*memory.Store
	adds atomic.Int32
}

func (c *countingStore) AddPuzzle(ctx context.Context, p gen.Puzzle, at time.Time) (puzzles.Stored, error) {
	c.adds.Add(1)
	return c.Store.AddPuzzle(ctx, p, at)
}

type feedServer struct {
	h     http.Handler
	store *countingStore
}

// newFeedServer serves the API with a fresh database and the clock stopped
// at now (RFC 3339).
func newFeedServer(t *testing.T, now string, from time.Time) *feedServer {
	t.Helper()
	clock, err := time.Parse(time.RFC3339, now)
	if err != nil {
		t.Fatal(err)
	}
	cs := &countingStore{Store: memory.New()}
	feed := puzzles.NewFeed(cs, testCPU(), puzzles.FeedOptions{First: from, Now: func() time.Time { return clock }})
	h, err := testNew(t, Options{Puzzles: feed})
	if err != nil {
		t.Fatal(err)
	}
	return &feedServer{h: h, store: cs}
}

// do sends one request and returns the recorder.
func (f *feedServer) do(t *testing.T, method, target, body string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, target, nil)
	} else {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

// decode reads a JSON answer of the expected status.
func decode[T any](t *testing.T, rec *httptest.ResponseRecorder, status int) T {
	t.Helper()
	var v T
	if rec.Code != status {
		t.Fatalf("status %d, want %d: %s", rec.Code, status, rec.Body.String())
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
		t.Fatalf("%v: %s", err, rec.Body.String())
	}
	return v
}

// wantProblem checks a problem+json answer's status and code.
func wantProblem(t *testing.T, rec *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	p := decode[problem.Problem](t, rec, status)
	if p.Code != code || !strings.HasPrefix(rec.Header().Get("Content-Type"), "application/problem+json") {
		t.Fatalf("problem %+v (%s), want code %s", p, rec.Header().Get("Content-Type"), code)
	}
}

// noSolution fails if a puzzle answer gives the solution away.
func noSolution(t *testing.T, body []byte) {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "date", "position", "rules", "goal", "prompt", "themes", "difficulty", "keyLegs", "plies", "stats", "rating"}
	if len(keys) != len(want) {
		t.Fatalf("puzzle has fields %v, want exactly %v", keys, want)
	}
	for _, k := range want {
		if _, ok := keys[k]; !ok {
			t.Fatalf("puzzle lacks %q: %s", k, body)
		}
	}
}

var feedStart = puzzles.DefaultFirstDay

func TestDailyPuzzle(t *testing.T) {
	f := newFeedServer(t, "2026-03-04T10:00:00Z", time.Time{})
	rec := f.do(t, "GET", "/v1/puzzles/daily", "")
	p := decode[oapi.Puzzle](t, rec, http.StatusOK)
	noSolution(t, rec.Body.Bytes())
	if p.Id != "p20260304" || dateOf(p) != "2026-03-04" || p.KeyLegs < gen.MinKeyLegs || p.Plies < 1 || p.Prompt == "" {
		t.Fatalf("daily puzzle %+v", p)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "public, max-age=50400" {
		t.Fatalf("Cache-Control %q, want the 14 hours to midnight", cc)
	}
	etag := rec.Header().Get("ETag")
	if len(etag) < 3 || etag[0] != '"' {
		t.Fatalf("ETag %q", etag)
	}

	again := f.do(t, "GET", "/v1/puzzles/daily", "", "If-None-Match", etag)
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 || again.Header().Get("ETag") != etag {
		t.Fatalf("conditional GET: %d %q etag %q", again.Code, again.Body.String(), again.Header().Get("ETag"))
	}
	// The stats change with an attempt, and so does the tag.
	f.do(t, "POST", "/v1/puzzles/p20260304/attempts", `{"moves":[],"giveUp":true}`)
	changed := f.do(t, "GET", "/v1/puzzles/daily", "", "If-None-Match", etag)
	if p := decode[oapi.Puzzle](t, changed, http.StatusOK); p.Stats.Attempts != 1 || changed.Header().Get("ETag") == etag {
		t.Fatalf("after an attempt: stats %+v, etag %q", p.Stats, changed.Header().Get("ETag"))
	}
	if n := f.store.adds.Load(); n != 1 {
		t.Fatalf("%d puzzles generated, want 1", n)
	}
}

func TestDailyPuzzleByDate(t *testing.T) {
	f := newFeedServer(t, "2026-03-04T23:59:30Z", time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC))
	tests := []struct {
		date   string
		status int
		code   string
		cache  string
	}{
		{"2026-03-04", http.StatusOK, "", "public, max-age=30"},
		{"2026-03-03", http.StatusOK, "", "public, max-age=3600"},
		{"2026-02-01", http.StatusOK, "", "public, max-age=3600"},
		{"2026-03-05", http.StatusNotFound, "puzzle_not_found", ""}, // tomorrow: no peeking
		{"2099-01-01", http.StatusNotFound, "puzzle_not_found", ""}, // far ahead
		{"2026-01-31", http.StatusNotFound, "puzzle_not_found", ""}, // before this feed's first day
		{"2026-02-30", http.StatusBadRequest, "invalid_date", ""},   // no such day
		{"2026-3-4", http.StatusBadRequest, "invalid_request", ""},  // not YYYY-MM-DD
		{"yesterday", http.StatusBadRequest, "invalid_request", ""}, // not a date at all
		{"1999-12-31", http.StatusBadRequest, "invalid_date", ""},   // outside the generator's calendar
		{"2026-03-04T00:00:00Z", http.StatusBadRequest, "invalid_request", ""},
	}
	for _, tt := range tests {
		t.Run(tt.date, func(t *testing.T) {
			rec := f.do(t, "GET", "/v1/puzzles/daily/"+tt.date, "")
			if tt.code != "" {
				wantProblem(t, rec, tt.status, tt.code)
				return
			}
			p := decode[oapi.Puzzle](t, rec, tt.status)
			noSolution(t, rec.Body.Bytes())
			if dateOf(p) != tt.date || rec.Header().Get("Cache-Control") != tt.cache || rec.Header().Get("ETag") == "" {
				t.Fatalf("date %s, Cache-Control %q, ETag %q", dateOf(p), rec.Header().Get("Cache-Control"), rec.Header().Get("ETag"))
			}
		})
	}
}

func TestListPuzzles(t *testing.T) {
	f := newFeedServer(t, "2026-01-05T08:00:00Z", time.Time{})
	type page struct {
		Puzzles []json.RawMessage `json:"puzzles"`
		Next    *string           `json:"next"`
	}
	ids := func(p page) []string {
		var out []string
		for _, raw := range p.Puzzles {
			noSolution(t, raw)
			var pz oapi.Puzzle
			if err := json.Unmarshal(raw, &pz); err != nil {
				t.Fatal(err)
			}
			out = append(out, pz.Id)
		}
		return out
	}
	first := decode[page](t, f.do(t, "GET", "/v1/puzzles?limit=3", ""), http.StatusOK)
	if got := ids(first); !reflect.DeepEqual(got, []string{"p20260105", "p20260104", "p20260103"}) || first.Next == nil || *first.Next != "2026-01-03" {
		t.Fatalf("first page %v next %v", got, first.Next)
	}
	last := decode[page](t, f.do(t, "GET", "/v1/puzzles?limit=3&before="+*first.Next, ""), http.StatusOK)
	if got := ids(last); !reflect.DeepEqual(got, []string{"p20260102", "p20260101"}) || last.Next != nil {
		t.Fatalf("last page %v next %v", got, last.Next)
	}
	// The pages generated five days; reading them again generates none.
	if n := f.store.adds.Load(); n != 5 {
		t.Fatalf("%d puzzles generated, want 5", n)
	}
	future := decode[page](t, f.do(t, "GET", "/v1/puzzles?before=2030-01-01&limit=2", ""), http.StatusOK)
	if got := ids(future); !reflect.DeepEqual(got, []string{"p20260105", "p20260104"}) {
		t.Fatalf("before a future day: %v, want today first", got)
	}
	defaults := decode[page](t, f.do(t, "GET", "/v1/puzzles", ""), http.StatusOK)
	if len(defaults.Puzzles) != 5 || f.store.adds.Load() != 5 {
		t.Fatalf("default page has %d puzzles (%d generated)", len(defaults.Puzzles), f.store.adds.Load())
	}
	empty := decode[page](t, f.do(t, "GET", "/v1/puzzles?before=2026-01-01", ""), http.StatusOK)
	if len(empty.Puzzles) != 0 || empty.Next != nil {
		t.Fatalf("before the first day: %+v", empty)
	}
	for _, q := range []string{"limit=0", "limit=31", "limit=x", "before=2026-1-1", "before=2026-02-30"} {
		rec := f.do(t, "GET", "/v1/puzzles?"+q, "")
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400: %s", q, rec.Code, rec.Body.String())
		}
	}
}

func TestPuzzleByIDAndSolution(t *testing.T) {
	f := newFeedServer(t, "2026-03-08T12:00:00Z", time.Time{})
	rec := f.do(t, "GET", "/v1/puzzles/p20260307", "")
	p := decode[oapi.Puzzle](t, rec, http.StatusOK)
	noSolution(t, rec.Body.Bytes())
	want, err := gen.Daily(context.Background(), nil, time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC), 1)
	if err != nil {
		t.Fatal(err)
	}
	if p.Id != want.ID || p.Plies != want.Plies() || p.KeyLegs != want.KeyLegs || string(p.Goal) != string(want.Goal) {
		t.Fatalf("served %+v, generated %+v", p, want)
	}

	sol := decode[oapi.PuzzleSolution](t, f.do(t, "GET", "/v1/puzzles/p20260307/solution", ""), http.StatusOK)
	if len(sol.Solution) != want.Plies() {
		t.Fatalf("%d solution steps, want %d", len(sol.Solution), want.Plies())
	}
	for i, s := range sol.Solution {
		if s.Pit != want.Solution[i] || !s.Legal || s.Legs == nil || s.Reply != (i%2 == 1) {
			t.Fatalf("step %d: %+v, want pit %d", i, s, want.Solution[i])
		}
	}
	if len(*sol.Solution[0].Legs) != want.KeyLegs {
		t.Fatalf("key move has %d legs, want %d", len(*sol.Solution[0].Legs), want.KeyLegs)
	}

	for _, tt := range []struct {
		id     string
		status int
		code   string
	}{
		{"p20260309", http.StatusNotFound, "puzzle_not_found"}, // tomorrow
		{"p20251231", http.StatusNotFound, "puzzle_not_found"}, // before the feed
		{"p20260230", http.StatusNotFound, "puzzle_not_found"}, // no such day
		{"x20260301", http.StatusBadRequest, "invalid_request"},
		{"p2026031", http.StatusBadRequest, "invalid_request"},
	} {
		wantProblem(t, f.do(t, "GET", "/v1/puzzles/"+tt.id, ""), tt.status, tt.code)
		wantProblem(t, f.do(t, "GET", "/v1/puzzles/"+tt.id+"/solution", ""), tt.status, tt.code)
		wantProblem(t, f.do(t, "POST", "/v1/puzzles/"+tt.id+"/attempts", `{"moves":[0]}`), tt.status, tt.code)
	}
}

func TestPuzzleAttempts(t *testing.T) {
	f := newFeedServer(t, "2026-03-08T12:00:00Z", time.Time{})
	date := time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC) // a win within 3
	pz, err := gen.Daily(context.Background(), nil, date, 1)
	if err != nil {
		t.Fatal(err)
	}
	if pz.Goal != gen.GoalWin || pz.Depth < 2 {
		t.Fatalf("the test wants a deep win puzzle on %s, got %s within %d", date, pz.Goal, pz.Depth)
	}
	target := "/v1/puzzles/" + pz.ID + "/attempts"
	var own []string
	for i := 0; i < len(pz.Solution); i += 2 {
		own = append(own, jsonInt(pz.Solution[i]))
	}
	wrong := -1
	for pit := pz.Position.ToMove.FirstPit(); pit < pz.Position.ToMove.FirstPit()+6; pit++ {
		if pit != pz.Key() && pz.Position.Pits[pit] > 0 {
			wrong = pit
		}
	}

	tests := []struct {
		name                        string
		body                        string
		correct, complete, solution bool
		steps                       int
		attempts, solved            int
	}{
		{"the key move", `{"moves":[` + own[0] + `]}`, true, false, false, 2, 1, 0},
		{"a wrong move", `{"moves":[` + jsonInt(wrong) + `]}`, false, false, false, -1, 2, 0},
		{"the whole line", `{"moves":[` + strings.Join(own, ",") + `]}`, true, true, true, len(pz.Solution), 3, 1},
		{"give up", `{"moves":[],"giveUp":true}`, true, false, true, 0, 4, 1},
		{"the whole line, giving up", `{"moves":[` + strings.Join(own, ",") + `],"giveUp":true}`, true, true, true, len(pz.Solution), 5, 1},
		{"an opponent's pit", `{"moves":[` + jsonInt((pz.Key()+6)%12) + `]}`, false, false, false, 1, 6, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, "POST", target, tt.body)
			a := decode[oapi.PuzzleAttemptAnswer](t, rec, http.StatusOK)
			if a.Correct != tt.correct || a.Complete != tt.complete || (a.Solution != nil) != tt.solution {
				t.Fatalf("%s", rec.Body.String())
			}
			if tt.steps >= 0 && len(a.Explanation) != tt.steps {
				t.Fatalf("%d explanation steps, want %d", len(a.Explanation), tt.steps)
			}
			if a.Stats != (oapi.PuzzleStats{Attempts: tt.attempts, Solved: tt.solved}) {
				t.Fatalf("stats %+v, want %d attempts, %d solved", a.Stats, tt.attempts, tt.solved)
			}
			for i, s := range a.Explanation {
				if s.Reply != (i%2 == 1) {
					t.Fatalf("step %d reply %v", i, s.Reply)
				}
			}
		})
	}
	// Refusals, on a one-move puzzle (2026-03-02, max_capture, key pit 8),
	// where two moves are already too many.
	one := "/v1/puzzles/p20260302/attempts"
	refused := []struct {
		name, body string
		status     int
		code       string
	}{
		{"too many moves", `{"moves":[8,0]}`, http.StatusUnprocessableEntity, "too_many_moves"},
		{"no move", `{"moves":[]}`, http.StatusUnprocessableEntity, "empty_attempt"},
		{"pit 12", `{"moves":[12]}`, http.StatusBadRequest, "invalid_request"},
		{"pit -1", `{"moves":[-1]}`, http.StatusBadRequest, "invalid_request"},
		{"six moves", `{"moves":[0,1,2,3,4,5]}`, http.StatusBadRequest, "invalid_request"},
		{"four moves", `{"moves":[0,1,2,3]}`, http.StatusUnprocessableEntity, "too_many_moves"},
		{"no moves field", `{"giveUp":true}`, http.StatusBadRequest, "invalid_request"},
		{"unknown field", `{"moves":[8],"hint":true}`, http.StatusBadRequest, "invalid_request"},
		{"a string for a pit", `{"moves":["8"]}`, http.StatusBadRequest, "invalid_request"},
		{"not JSON", `{"moves":`, http.StatusBadRequest, "malformed_json"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			wantProblem(t, f.do(t, "POST", one, tt.body), tt.status, tt.code)
		})
	}
	// Refused attempts are not counted.
	p := decode[oapi.Puzzle](t, f.do(t, "GET", "/v1/puzzles/p20260302", ""), http.StatusOK)
	if p.Stats.Attempts != 0 {
		t.Fatalf("refused attempts counted: %+v", p.Stats)
	}
}

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestConcurrentFirstRequests: many clients asking for a day nobody asked for
// before all get the same puzzle, and it is generated and stored once.
func TestConcurrentFirstRequests(t *testing.T) {
	f := newFeedServer(t, "2026-05-10T09:00:00Z", time.Time{})
	const n = 8
	var wg sync.WaitGroup
	bodies := make([]string, n)
	codes := make([]int, n)
	for i := range n {
		wg.Go(func() {
			path := "/v1/puzzles/daily"
			if i%2 == 1 {
				path = "/v1/puzzles/p20260510"
			}
			req := httptest.NewRequest("GET", path, nil)
			rec := httptest.NewRecorder()
			f.h.ServeHTTP(rec, req)
			codes[i], bodies[i] = rec.Code, rec.Body.String()
		})
	}
	wg.Wait()
	for i := range n {
		if codes[i] != http.StatusOK || bodies[i] != bodies[0] {
			t.Fatalf("request %d: %d %s\nwant %s", i, codes[i], bodies[i], bodies[0])
		}
	}
	if adds := f.store.adds.Load(); adds != 1 {
		t.Fatalf("%d generations stored, want 1", adds)
	}
}

// TestSameDaySameFeed: two servers with their own fresh databases serve the
// same puzzle for a day.
func TestSameDaySameFeed(t *testing.T) {
	var bodies [2]string
	for i := range bodies {
		f := newFeedServer(t, "2026-04-19T18:00:00Z", feedStart)
		rec := f.do(t, "GET", "/v1/puzzles/daily/2026-04-12", "")
		if rec.Code != http.StatusOK {
			t.Fatal(rec.Body.String())
		}
		bodies[i] = rec.Body.String()
	}
	if bodies[0] != bodies[1] {
		t.Fatalf("two feeds differ:\n%s\n%s", bodies[0], bodies[1])
	}
}

func TestPuzzlesWithoutAStore(t *testing.T) {
	h, err := testNew(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := &feedServer{h: h}
	for _, path := range []string{"/v1/puzzles/daily", "/v1/puzzles", "/v1/puzzles/p20260101"} {
		wantProblem(t, f.do(t, "GET", path, ""), http.StatusServiceUnavailable, "not_ready")
	}
}

// dateOf is a puzzle's date, "" when it has none.
func dateOf(p oapi.Puzzle) string {
	d, _ := p.Date.Get()
	return d
}
