package api

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
)

// realGame solves the real game by plain negamax over engine.Play, which
// alone decides how a game ends and what it scores: the final difference
// in captured seeds for the mover, the majority stop included. It shares
// no code with the table or the search. A position whose game tree can
// come back to a position on a line is marked cyclic (every position on
// that line reaches the cycle) and not solved: there the repetition
// convention decides, which the table's own tests check.
type realGame struct {
	rules  engine.Rules
	memo   map[engine.Position]int
	cyclic map[engine.Position]bool
	path   map[engine.Position]bool
	out    engine.Outcome
}

func newRealGame(r engine.Rules) *realGame {
	return &realGame{rules: r, memo: map[engine.Position]int{}, cyclic: map[engine.Position]bool{}, path: map[engine.Position]bool{}}
}

func (g *realGame) solve(p engine.Position) (int, bool) {
	if v, ok := g.memo[p]; ok {
		return v, true
	}
	if g.cyclic[p] || g.path[p] {
		return 0, false
	}
	g.path[p] = true
	defer delete(g.path, p)
	best, any := 0, false
	for moves := p.LegalMoves(g.rules); moves != 0; {
		v, ok := g.after(p, moves.Next())
		if !ok {
			g.cyclic[p] = true
			return 0, false
		}
		if !any || v > best {
			best, any = v, true
		}
	}
	if !any { // no move: the game ends, the leftovers settled
		q := p.Settle(g.rules)
		best = q.Margin(p.ToMove)
	}
	g.memo[p] = best
	return best, true
}

// after returns the real game's score of pit played in p, for p's mover.
func (g *realGame) after(p engine.Position, pit int) (int, bool) {
	engine.Play(p, pit, g.rules, &g.out)
	if g.out.Result.Over() {
		return g.out.Position.Margin(p.ToMove), true
	}
	w, ok := g.solve(g.out.Position)
	return -w, ok
}

// TestExactMeansTrueScore: over HTTP, on 300 random endgames whose game
// tree cannot repeat (4 to 12 seeds on the board, half answered by the
// 8-seed table, half by a search that probes it), every answer with
// exact true gives the real game's final difference as its score and as
// every move's score, with and without the table loaded; every result
// given is the real game's.
func TestExactMeansTrueScore(t *testing.T) {
	tb, err := testTable()
	if err != nil {
		t.Fatal(err)
	}
	endgames, err := search.NewEndgames(tb)
	if err != nil {
		t.Fatal(err)
	}
	servers := []struct {
		name string
		ts   *tester
	}{
		{"with the table", newTester(t, Options{Analyses: analysis.New(testCPU(), analysis.Options{Endgames: endgames})})},
		{"without", newTester(t, Options{Analyses: analysis.New(testCPU(), analysis.Options{})})},
	}
	r := engine.Rules{}
	g := newRealGame(r)
	rng := rand.New(rand.NewPCG(23, 24))
	var positions []engine.Position
	cyclic := 0
	for len(positions) < 300 {
		// Half within the table, half beyond it, where the search runs
		// and probes the table after a capture.
		n := 4 + rng.IntN(5)
		if len(positions)%2 == 1 {
			n = 9 + rng.IntN(4)
		}
		var p engine.Position
		for range n {
			p.Pits[rng.IntN(engine.NumPits)]++
		}
		rest := engine.SeedCount - n
		lo := rest - (engine.Majority - 1)
		south := lo + rng.IntN(engine.Majority-1-lo+1)
		p.Captured = [2]uint8{uint8(south), uint8(rest - south)}
		p.ToMove = engine.Side(rng.IntN(2))
		if p.LegalMoves(r) == 0 {
			continue
		}
		if _, ok := g.solve(p); !ok {
			cyclic++
			continue
		}
		positions = append(positions, p)
	}
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			exact, tables, results := 0, 0, 0
			for _, p := range positions {
				body := fmt.Sprintf(`{"position":%s,"depth":30,"timeMs":200}`, positionJSON(t, p))
				rec := sv.ts.do(http.MethodPost, "/v1/analyze", jsonType, body)
				if rec.Code != http.StatusOK {
					t.Fatalf("%s: status %d: %s", p, rec.Code, rec.Body)
				}
				ans := decodeAs[oapi.AnalyzeAnswer](t, rec.Body.Bytes())
				truth, _ := g.solve(p)
				if ans.Result != nil {
					results++
					want := "draw"
					if truth > 0 {
						want = "win"
					} else if truth < 0 {
						want = "loss"
					}
					if string(*ans.Result) != want {
						t.Fatalf("%s: result %s, the real game %+d: %s", p, *ans.Result, truth, rec.Body)
					}
				}
				if !ans.Exact {
					continue
				}
				exact++
				if ans.Source == oapi.AnalyzeAnswerSourceTablebase {
					tables++
				}
				if ans.Result == nil || ans.Score != truth {
					t.Fatalf("%s: exact score %d, the real game %+d: %s", p, ans.Score, truth, rec.Body)
				}
				best := ans.Moves[0].Score
				for _, m := range ans.Moves {
					want, _ := g.after(p, m.Pit)
					if m.Score != want {
						t.Fatalf("%s: pit %d scores %d, the real game %+d: %s", p, m.Pit, m.Score, want, rec.Body)
					}
					best = max(best, m.Score)
				}
				if best != ans.Score || len(ans.Moves) != p.LegalMoves(r).Len() {
					t.Fatalf("%s: best move %d, score %d, %d moves: %s", p, best, ans.Score, len(ans.Moves), rec.Body)
				}
				if want, _ := g.after(p, ans.BestMove); want != truth {
					t.Fatalf("%s: best move %d scores %+d, the position %+d", p, ans.BestMove, want, truth)
				}
			}
			t.Logf("%d of %d answers exact (%d from the table), %d with a result; %d cyclic positions skipped", exact, len(positions), tables, results, cyclic)
			if exact < len(positions)/2 {
				t.Fatalf("only %d exact answers: the test proves little", exact)
			}
		})
	}
}
