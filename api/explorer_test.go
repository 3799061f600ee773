package api

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/store/memory"
)

// explorerGame stores a finished rated live game of the pits given.
func explorerGame(t *testing.T, st *memory.Store, id string, rating float64, w engine.Winner, pits ...int) {
	t.Helper()
	p := engine.Start()
	var hist []byte
	for _, pit := range pits {
		p, _ = p.Apply(pit, engine.Rules{})
		hist = append(hist, byte(pit))
	}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	g := games.Game{ID: id, CreatedAt: at, UpdatedAt: at, JoinedAt: at, Start: engine.Start(), Ply: len(hist),
		Position: p, History: hist, Status: games.Finished, Version: 3, Rated: true,
		Result:      engine.Result{Winner: w, Reason: engine.ByResignation},
		TimeControl: games.TimeControl{Kind: games.Live, Initial: time.Minute},
		Players:     [2]games.SeatPlayer{{Rating: rating}, {Rating: rating}}}
	if err := st.CreateGame(t.Context(), g, nil); err != nil {
		t.Fatal(err)
	}
}

func TestExplorer(t *testing.T) {
	st := memory.New()
	explorerGame(t, st, "gameA0000000000a", 1500, engine.SouthWins, 3, 8)
	explorerGame(t, st, "gameB0000000000b", 1700, engine.Draw, 3, 9)
	explorerGame(t, st, "gameC0000000000c", 1900, engine.NorthWins, 0, 6)
	svc := explorer.New(st, explorer.Options{Analyzer: analysis.New(testCPU(), analysis.Options{}), EngineWait: -1})
	if _, err := svc.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	ts := newTester(t, Options{Explorer: svc})
	tests := []struct {
		name, query string
		status      int
		code        string
		games       int
		pits        []int
	}{
		{"the start", "?position=s-444444-444444-0-0", 200, "", 3, []int{3, 0}},
		{"the start, correspondence", "?position=s-444444-444444-0-0&category=correspondence", 200, "", 0, nil},
		{"the start, 1600 and up", "?position=s-444444-444444-0-0&ratings=1600-9999", 200, "", 2, []int{0, 3}},
		{"no game reached it", "?position=n-444444-444444-0-0", 200, "", 0, nil},
		{"not a position", "?position=s-44", 400, "invalid_explorer_position", 0, nil},
		{"counts that do not add up", "?position=s-444444-444449-0-0", 400, "invalid_explorer_position", 0, nil},
		{"unknown category", "?position=s-444444-444444-0-0&category=blitz", 400, "invalid_explorer_category", 0, nil},
		{"range upside down", "?position=s-444444-444444-0-0&ratings=1800-1500", 400, "invalid_explorer_ratings", 0, nil},
		{"range not a range", "?position=s-444444-444444-0-0&ratings=1500", 400, "invalid_explorer_ratings", 0, nil},
		{"no position", "", 400, "invalid_request", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := ts.do(http.MethodGet, "/v1/explorer"+tc.query, "", "")
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, rec.Body)
			}
			if tc.status != 200 {
				if p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes()); p.Code != tc.code {
					t.Fatalf("code %q, want %q", p.Code, tc.code)
				}
				return
			}
			var a oapi.ExplorerAnswer
			if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			var pits []int
			for _, m := range a.Moves {
				pits = append(pits, m.Pit)
				if m.Score == nil || m.Exact == nil || len(m.RecentGames) == 0 {
					t.Errorf("move %d: no score or no recent games: %+v", m.Pit, m)
				}
			}
			if a.Games != tc.games || len(pits) != len(tc.pits) || (len(pits) > 0 && (pits[0] != tc.pits[0])) {
				t.Fatalf("games %d, pits %v; want %d, %v", a.Games, pits, tc.games, tc.pits)
			}
		})
	}
}

func TestExplorerWithoutService(t *testing.T) {
	ts := newTester(t, Options{})
	rec := ts.do(http.MethodGet, "/v1/explorer?position=s-444444-444444-0-0", "", "")
	if rec.Code != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", rec.Code)
	}
}
