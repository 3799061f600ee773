package api

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// testTableSeeds is N of the table the analyze tests build: a fraction of
// a second.
const testTableSeeds = 8

var testTable = sync.OnceValues(func() (*tablebase.Table, error) {
	return tablebase.Build(context.Background(), testTableSeeds, engine.Rules{}, testWorkers, nil)
})

// positionJSON writes p as the API's Position.
func positionJSON(t *testing.T, p engine.Position) string {
	t.Helper()
	b, err := json.Marshal(positionToAPI(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnalyzeFromTable: a position in a table the server holds, under its
// rules, is answered from the table at once, even with every analysis slot
// taken; any other is searched, with a result only when proven.
func TestAnalyzeFromTable(t *testing.T) {
	tb, err := testTable()
	if err != nil {
		t.Fatal(err)
	}
	endgames, err := search.NewEndgames(tb)
	if err != nil {
		t.Fatal(err)
	}
	// The only unit of the budget is taken for the whole test: a search
	// would get 429.
	cpu := budget.New(1)
	release, err := cpu.Acquire(context.Background(), budget.Request{})
	if err != nil {
		t.Fatal(err)
	}
	ts := newTester(t, Options{Analyses: analysis.New(cpu, analysis.Options{Endgames: endgames, Wait: -1})})
	tests := []struct {
		name     string
		position string
		rules    string
	}{
		{"south wins by 8", "s-021011-100010-21-20", ""},
		{"north to move", "n-100200-010101-22-20", ""},
		{"a draw", "s-100000-000001-23-23", ""},
		{"one seed", "n-000000-000001-24-23", ""},
		{"explicit default rules", "s-201010-020100-21-20", `,"rules":{"captureSeed":"taken","leftovers":"last_mover"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := engine.MustParse(tt.position)
			rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, `{"position":`+positionJSON(t, p)+tt.rules+`,"depth":1}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			ans := decodeAs[oapi.AnalyzeAnswer](t, rec.Body.Bytes())
			v, _ := tb.Value(&p)
			score, _ := tb.Score(&p)
			want := tablebase.Result(&p, v).String()
			if ans.Source != oapi.AnalyzeAnswerSourceTablebase || !ans.Exact || ans.Result == nil || string(*ans.Result) != want {
				t.Fatalf("source %s exact %v result %v, want tablebase, exact, %s: %s", ans.Source, ans.Exact, ans.Result, want, rec.Body)
			}
			if ans.Score != score || ans.Depth != 0 || ans.Nodes != 0 || len(ans.Pv) == 0 || ans.Pv[0] != ans.BestMove {
				t.Fatalf("score %d depth %d nodes %d pv %v, want score %d: %s", ans.Score, ans.Depth, ans.Nodes, ans.Pv, score, rec.Body)
			}
			moves, _ := tb.MoveScores(p, nil)
			if len(ans.Moves) != len(moves) {
				t.Fatalf("%d moves, the table has %d: %s", len(ans.Moves), len(moves), rec.Body)
			}
			for i, m := range moves {
				if ans.Moves[i].Pit != m.Pit || ans.Moves[i].Score != m.Value {
					t.Fatalf("move %+v, the table's %+v", ans.Moves[i], m)
				}
			}
		})
	}

	release()
	searched := []struct {
		name     string
		position string
		extra    string
		result   string // "" when the search proves nothing
	}{
		{"the start: too many seeds", "s-444444-444444-0-0", `,"depth":4`, ""},
		{"other rules", "s-021011-100010-21-20", `,"rules":{"leftovers":"side_owner"},"depth":30`, "draw"},
		{"an ending just outside the table", "s-201001-100221-20-18", `,"depth":30`, "win"},
	}
	for _, tt := range searched {
		t.Run(tt.name, func(t *testing.T) {
			p := engine.MustParse(tt.position)
			rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, `{"position":`+positionJSON(t, p)+tt.extra+`}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			ans := decodeAs[oapi.AnalyzeAnswer](t, rec.Body.Bytes())
			got := ""
			if ans.Result != nil {
				got = string(*ans.Result)
			}
			if ans.Source != oapi.AnalyzeAnswerSourceSearch || got != tt.result || ans.Exact != (tt.result != "") {
				t.Fatalf("source %s exact %v result %q, want search, %q: %s", ans.Source, ans.Exact, got, tt.result, rec.Body)
			}
		})
	}

	// A finished position in the table's range is still 422, whether no
	// move is left or a majority ended the game (the table would play on).
	finished := []struct{ name, position string }{
		{"no move left", "s-000000-000100-24-23"},
		{"south has a majority", "s-100000-000001-30-16"},
		{"north has a majority, south to move", "s-100001-000001-20-25"},
	}
	for _, tt := range finished {
		t.Run(tt.name, func(t *testing.T) {
			release, err := cpu.Acquire(context.Background(), budget.Request{}) // a search would be 429, not 422
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, `{"position":`+positionJSON(t, engine.MustParse(tt.position))+`}`)
			if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); rec.Code != http.StatusUnprocessableEntity || p.Code != "no_legal_move" {
				t.Fatalf("%d %s", rec.Code, rec.Body)
			}
		})
	}
}
