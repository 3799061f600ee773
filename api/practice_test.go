package api

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase/tabletest"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/puzzles/puzzletest"
	"github.com/ayoayo/ayoayo/store/memory"
)

var practiceNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// newPracticeServer serves the API with a practice pool of made-up puzzles
// (real=false) or of real ones from the daily generator.
func newPracticeServer(t *testing.T, real bool, o Options) *feedServer {
	t.Helper()
	fo := puzzles.FeedOptions{Now: func() time.Time { return practiceNow }}
	if real {
		g := practiceGenerator(t)
		// Generous: the race detector makes a generation many times slower.
		fo.Generator, fo.Practice, fo.PracticeTimeout = g, g.Practice, 5*time.Minute
		// Version 2, the cheaper search: these tests are of the HTTP
		// layer, and version 3 holds out for seconds more per puzzle.
		fo.PracticeVersion = 2
	} else {
		fo.Practice, fo.VerifyPractice, fo.Cutover = puzzletest.MadeUpPractice, puzzletest.CheckMadeUp, practiceNow
	}
	cs := &countingStore{Store: memory.New()}
	o.Puzzles = puzzles.NewFeed(cs, testCPU(), fo)
	h, err := testNew(t, o)
	if err != nil {
		t.Fatal(err)
	}
	return &feedServer{h: h, store: cs}
}

// sharedGenerator is the generator the real-puzzle tests share: its endgame
// table takes seconds to build, a minute under the race detector, or is
// opened from the file AYOAYO_TEST_ENDGAME_TABLE names (package tabletest;
// .ci/run's race step does).
var sharedGenerator = sync.OnceValues(func() (*puzzles.Generator, error) {
	if os.Getenv(tabletest.Env) != "" {
		tb, err := tabletest.Endgame(context.Background(), gen.EndgameSeeds, testWorkers)
		if err != nil {
			return nil, err
		}
		return puzzles.NewGeneratorWith(tb)
	}
	g := puzzles.NewGenerator(testWorkers)
	_, err := g.EndgameTable(context.Background())
	return g, err
})

// practiceGenerator returns sharedGenerator with its table built, so that no
// request's time goes into building it.
func practiceGenerator(t *testing.T) *puzzles.Generator {
	t.Helper()
	g, err := sharedGenerator()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestPracticeAnother: "another" 1,000 times through the API, each after
// the last, without a repeat; each answer a puzzle of the filter, with no
// date, no counts and no solution.
func TestPracticeAnother(t *testing.T) {
	f := newPracticeServer(t, false, Options{})
	seen := map[engine.Position]string{}
	after := ""
	for i := range 1000 {
		target := "/v1/puzzles/practice?difficulty=4&goal=defend&theme=decoys"
		if after != "" {
			target += "&after=" + after
		}
		rec := f.do(t, "GET", target, "")
		p := decode[oapi.Puzzle](t, rec, http.StatusOK)
		if i == 0 {
			if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
				t.Fatalf("Cache-Control %q, want no-store", cc)
			}
			noSolution(t, rec.Body.Bytes())
			if !strings.Contains(rec.Body.String(), `"date":null`) {
				t.Fatalf("a practice puzzle's date: %s", rec.Body.String())
			}
		}
		pos, err := positionFromAPI(p.Position)
		if err != nil {
			t.Fatal(err)
		}
		if prev, ok := seen[pos]; ok {
			t.Fatalf("request %d: %s repeats %s", i, p.Id, prev)
		}
		seen[pos] = p.Id
		if !strings.HasPrefix(p.Id, fmt.Sprintf("x%d-d4-gdefend-tdecoys-", gen.PracticeVersion)) || p.Difficulty != 4 || p.Goal != oapi.PuzzleGoalDefend ||
			!p.Date.IsNull() || p.Stats != (oapi.PuzzleStats{}) {
			t.Fatalf("request %d: %+v", i, p)
		}
		after = p.Id
	}
}

func TestPracticeProblems(t *testing.T) {
	f := newPracticeServer(t, false, Options{})
	for _, tc := range []struct {
		name, query string
		status      int
		code        string
	}{
		{"difficulty 6", "difficulty=6", 400, "invalid_request"},
		{"difficulty 0", "difficulty=0", 400, "invalid_request"},
		{"difficulty not a number", "difficulty=hard", 400, "invalid_request"},
		{"unknown goal", "goal=chess", 400, "invalid_request"},
		{"unknown theme", "theme=fun", 400, "invalid_request"},
		{"after a daily id", "after=p20260302", 400, "invalid_request"},
		{"after an id spelled twice", "after=x1-d0-gany-tany-01", 400, "invalid_request"},
		{"after an unknown goal", "after=x1-d0-gchess-tany-1", 400, "invalid_practice_request"},
		{"after another filter's", "difficulty=2&after=x1-d3-gany-tany-1", 400, "invalid_practice_request"},
		{"a filter no puzzle meets", "difficulty=1&goal=defend", 422, "no_practice_puzzle"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantProblem(t, f.do(t, "GET", "/v1/puzzles/practice?"+tc.query, ""), tc.status, tc.code)
		})
	}
	t.Run("no pool", func(t *testing.T) {
		bare := newFeedServer(t, "2026-12-01T09:00:00Z", time.Time{})
		wantProblem(t, bare.do(t, "GET", "/v1/puzzles/practice", ""), 503, "not_ready")
		wantProblem(t, bare.do(t, "GET", "/v1/puzzles/x1-d0-gany-tany-5", ""), 503, "not_ready")
	})
	t.Run("rate", func(t *testing.T) {
		limited := newPracticeServer(t, false, Options{RateLimits: RateLimits{"practice": {Rate: 6, Burst: 2}}, Now: stoppedClock()})
		for range 2 {
			decode[oapi.Puzzle](t, limited.do(t, "GET", "/v1/puzzles/practice", ""), http.StatusOK)
		}
		rec := limited.do(t, "GET", "/v1/puzzles/practice", "")
		wantProblem(t, rec, http.StatusTooManyRequests, "rate_limited")
		if ra := rec.Header().Get("Retry-After"); ra == "" || ra == "0" {
			t.Fatalf("Retry-After %q", ra)
		}
		// Reading, attempting or solving a practice puzzle by id may cost
		// a generation too: the same limit; a daily id is not charged.
		for _, req := range []struct{ method, target, body string }{
			{"GET", "/v1/puzzles/x1-d0-gany-tany-5", ""},
			{"HEAD", "/v1/puzzles/x1-d0-gany-tany-5", ""},
			{"POST", "/v1/puzzles/x1-d0-gany-tany-5/attempts", `{"moves":[0]}`},
			{"GET", "/v1/puzzles/x1-d0-gany-tany-5/solution", ""},
		} {
			rec := limited.do(t, req.method, req.target, req.body)
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" {
				t.Fatalf("%s %s past the practice limit: %d %s", req.method, req.target, rec.Code, rec.Body.String())
			}
		}
		wantProblem(t, limited.do(t, "GET", "/v1/puzzles/p20990101", ""), http.StatusNotFound, "puzzle_not_found")
	})
	t.Run("by id within the limit", func(t *testing.T) {
		limited := newPracticeServer(t, false, Options{RateLimits: RateLimits{"practice": {Rate: 6, Burst: 3}}, Now: stoppedClock()})
		decode[oapi.Puzzle](t, limited.do(t, "GET", "/v1/puzzles/x1-d0-gany-tany-5", ""), http.StatusOK)
		decode[oapi.PuzzleSolution](t, limited.do(t, "GET", "/v1/puzzles/x1-d0-gany-tany-5/solution", ""), http.StatusOK)
		decode[oapi.Puzzle](t, limited.do(t, "GET", "/v1/puzzles/practice", ""), http.StatusOK)
		wantProblem(t, limited.do(t, "GET", "/v1/puzzles/practice", ""), http.StatusTooManyRequests, "rate_limited")
	})
}

// TestPracticeByID: a practice puzzle of the daily generator is served by
// its id, attempted (judged, not counted) and solved at the daily puzzles'
// operations; an id that makes no puzzle is 404.
func TestPracticeByID(t *testing.T) {
	f := newPracticeServer(t, true, Options{})
	p := decode[oapi.Puzzle](t, f.do(t, "GET", "/v1/puzzles/practice?difficulty=2", ""), http.StatusOK)
	again := decode[oapi.Puzzle](t, f.do(t, "GET", "/v1/puzzles/"+p.Id, ""), http.StatusOK)
	if !reflect.DeepEqual(again, p) {
		t.Fatalf("by id: %+v, want %+v", again, p)
	}
	sol := decode[oapi.PuzzleSolution](t, f.do(t, "GET", "/v1/puzzles/"+p.Id+"/solution", ""), http.StatusOK)
	if sol.Id != p.Id || len(sol.Solution) != p.Plies {
		t.Fatalf("solution %+v", sol)
	}
	key := sol.Solution[0].Pit
	a := decode[oapi.PuzzleAttemptAnswer](t, f.do(t, "POST", "/v1/puzzles/"+p.Id+"/attempts", fmt.Sprintf(`{"moves":[%d]}`, key)), http.StatusOK)
	if !a.Correct || a.Stats != (oapi.PuzzleStats{}) {
		t.Fatalf("the key move: %+v", a)
	}
	wrong := decode[oapi.PuzzleAttemptAnswer](t, f.do(t, "POST", "/v1/puzzles/"+p.Id+"/attempts", `{"moves":[],"giveUp":true}`), http.StatusOK)
	if wrong.Solution == nil || wrong.Stats != (oapi.PuzzleStats{}) {
		t.Fatalf("giving up: %+v", wrong)
	}
	for _, id := range []string{"x1-d1-gdefend-tany-3", "x9-d0-gany-tany-3", "x1-d0-gany-tsacrifice-3"} {
		t.Run(id, func(t *testing.T) {
			wantProblem(t, f.do(t, "GET", "/v1/puzzles/"+id, ""), http.StatusNotFound, "puzzle_not_found")
		})
	}
	wantProblem(t, f.do(t, "GET", "/v1/puzzles/x1-d0-gany-tany-03", ""), http.StatusBadRequest, "invalid_request")
}

// TestPracticeTimeoutProblem: a practice request out of time before its
// puzzle is made is 503 practice_timeout with Retry-After, by filter and by
// id alike.
func TestPracticeTimeoutProblem(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := func(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return gen.Puzzle{}, context.Canceled
	}
	h, err := testNew(t, Options{Puzzles: puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return practiceNow }, Cutover: practiceNow, PracticeTimeout: 10 * time.Millisecond,
		Practice: slow, VerifyPractice: puzzletest.CheckMadeUp,
	})})
	if err != nil {
		t.Fatal(err)
	}
	f := &feedServer{h: h}
	for _, target := range []string{"/v1/puzzles/practice?difficulty=2", "/v1/puzzles/x1-d0-gany-tany-5"} {
		rec := f.do(t, "GET", target, "")
		wantProblem(t, rec, http.StatusServiceUnavailable, "practice_timeout")
		if rec.Header().Get("Retry-After") == "" {
			t.Fatalf("%s: no Retry-After", target)
		}
	}
}
