package review_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/review"
)

// tableSeeds is the endgame table the tests build: small enough to build in
// a second, large enough that the test's endings start above it and reach
// it by captures.
const tableSeeds = 8

var (
	tableOnce sync.Once
	table     *tablebase.Table
	tableErr  error
)

func endgames(t *testing.T) *search.Endgames {
	t.Helper()
	tableOnce.Do(func() { table, tableErr = tablebase.Build(context.Background(), tableSeeds, engine.Rules{}, 2, nil) })
	if tableErr != nil {
		t.Fatal(tableErr)
	}
	e, err := search.NewEndgames(table)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// solver is the reference the review is checked against: exhaustive negamax
// over the whole game tree with no pruning, no table and no evaluation,
// written from RULES.md apart from the engine's search: a position where
// the game is over scores its final seed difference, and a position on the
// line (the game's history and the path) for the third time ends the game
// with each side taking its own row.
type solver struct {
	r     engine.Rules
	line  map[engine.Position]int
	nodes int
	limit int
}

// solve returns p's true final difference for its side to move, where p has
// already occurred once on the line given as history (p included once more
// when it is in history); ok is false when the tree is too large.
func (s *solver) solve(p engine.Position, history []engine.Position) (int, bool) {
	s.line = map[engine.Position]int{}
	for _, q := range history {
		s.line[q]++
	}
	s.nodes = 0
	return s.value(p, true)
}

func (s *solver) value(p engine.Position, root bool) (int, bool) {
	if s.nodes++; s.nodes > s.limit {
		return 0, false
	}
	if final, res := p.Finish(s.r); res.Over() {
		return final.Margin(p.ToMove), true
	}
	s.line[p]++
	defer func() { s.line[p]-- }()
	if !root && s.line[p] >= 3 {
		split := p.SplitRows()
		return split.Margin(p.ToMove), true
	}
	best := -engine.SeedCount - 1
	for pit := range engine.NumPits {
		next, why := p.Apply(pit, s.r)
		if why != engine.Legal {
			continue
		}
		v, ok := s.value(next, false)
		if !ok {
			return 0, false
		}
		best = max(best, -v)
	}
	return best, true
}

// randomEnding spreads seeds over the board and splits the rest between the
// stores, short of a majority.
func randomEnding(rng *rand.Rand, seeds int) engine.Position {
	var p engine.Position
	for range seeds {
		p.Pits[rng.IntN(engine.NumPits)]++
	}
	rest := engine.SeedCount - seeds
	south := rest/2 - 2 + rng.IntN(5)
	p.Captured = [2]uint8{uint8(south), uint8(rest - south)}
	p.ToMove = engine.Side(rng.IntN(2))
	return p
}

// randomRecord plays random legal moves from start to the end, or n plies.
func randomRecord(rng *rand.Rand, start engine.Position, r engine.Rules, n int) (review.Record, bool) {
	g, err := engine.NewGame(start, r)
	if err != nil || g.Result().Over() {
		return review.Record{}, false
	}
	var out engine.Outcome
	for range n {
		legal := g.Position().LegalMoves(r)
		if legal.Len() == 0 || g.Result().Over() {
			break
		}
		var pits []int
		for m := legal; m != 0; {
			pits = append(pits, m.Next())
		}
		if err := g.Play(pits[rng.IntN(len(pits))], &out); err != nil {
			return review.Record{}, false
		}
	}
	return review.Record{Start: start, Rules: r, Moves: slices.Clone(g.Moves())}, len(g.Moves()) > 0
}

// TestAgreesWithSolver reviews random endings, some in the table and some
// above it, and checks every exact score, best move and loss against the
// solver.
func TestAgreesWithSolver(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 7))
	rv := review.New(budget.New(1), review.Options{Endgames: endgames(t), Nodes: 50_000})
	var checked, fromTable, fromSearch, games int
	for i := 0; i < 400 && games < 40; i++ {
		start := randomEnding(rng, 4+rng.IntN(7))
		rec, ok := randomRecord(rng, start, engine.Rules{}, 16)
		if !ok {
			continue
		}
		positions, err := review.Replay(rec)
		if err != nil {
			t.Fatal(err)
		}
		rev, err := rv.Review(context.Background(), rec, nil)
		if err != nil {
			t.Fatal(err)
		}
		games++
		for k, ply := range rev.Plies {
			p, hist := positions[k], positions[:k]
			s := &solver{r: rec.Rules, limit: 200_000}
			truth, ok := s.solve(p, hist)
			if !ok {
				continue
			}
			children := map[int]int{}
			bestTrue := -engine.SeedCount - 1
			complete := true
			for pit := range engine.NumPits {
				next, why := p.Apply(pit, rec.Rules)
				if why != engine.Legal {
					continue
				}
				v, ok := s.solve(next, append(slices.Clone(hist), p))
				if !ok {
					complete = false
					break
				}
				children[pit] = -v
				bestTrue = max(bestTrue, -v)
			}
			if !complete {
				continue
			}
			if bestTrue != truth {
				t.Fatalf("%s: the solver disagrees with itself: %d, best child %d", p, truth, bestTrue)
			}
			if ply.ExactBefore {
				checked++
				if ply.Source == search.FromTablebase {
					fromTable++
				} else {
					fromSearch++
				}
				if ply.Before != truth {
					t.Fatalf("%s ply %d: exact score before %d, solver %d", p, ply.Ply, ply.Before, truth)
				}
				var want []int
				for pit, v := range children {
					if v == truth {
						want = append(want, pit)
					}
				}
				slices.Sort(want)
				if !slices.Equal(ply.Best, want) {
					t.Fatalf("%s ply %d: best moves %v, solver %v (%v)", p, ply.Ply, ply.Best, want, children)
				}
			}
			if ply.ExactAfter {
				if ply.After != children[ply.Pit] {
					t.Fatalf("%s ply %d: pit %d exact score after %d, solver %d", p, ply.Ply, ply.Pit, ply.After, children[ply.Pit])
				}
				if ply.ExactBefore && ply.Loss != truth-children[ply.Pit] {
					t.Fatalf("%s ply %d: loss %d, solver %d", p, ply.Ply, ply.Loss, truth-children[ply.Pit])
				}
			}
			if ply.ProvenBefore && ply.ResultBefore != review.ResultOf(truth) {
				t.Fatalf("%s ply %d: proven result %v, solver %d", p, ply.Ply, ply.ResultBefore, truth)
			}
			if ply.ProvenAfter && ply.ResultAfter != review.ResultOf(children[ply.Pit]) {
				t.Fatalf("%s ply %d: proven result after %v, solver %d", p, ply.Ply, ply.ResultAfter, children[ply.Pit])
			}
		}
	}
	if fromTable < 20 || fromSearch < 20 {
		t.Fatalf("only %d plies checked from the table and %d from searches in %d games: the test proves too little", fromTable, fromSearch, games)
	}
	t.Logf("%d games, %d exact plies checked (%d from the table, %d searched)", games, checked, fromTable, fromSearch)
}

// TestReproducible reviews the same opening twice, the second time with a
// reviewer whose searcher has searched other games before: a review depends
// on the game alone.
func TestReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	rec, ok := randomRecord(rng, engine.Start(), engine.Rules{}, 12)
	if !ok {
		t.Fatal("no game")
	}
	other, _ := randomRecord(rng, engine.Start(), engine.Rules{}, 6)
	fresh := review.New(budget.New(1), review.Options{Nodes: 20_000})
	want, err := fresh.Review(context.Background(), rec, nil)
	if err != nil {
		t.Fatal(err)
	}
	used := review.New(budget.New(2), review.Options{Nodes: 20_000})
	if _, err := used.Review(context.Background(), other, nil); err != nil {
		t.Fatal(err)
	}
	var progress []int
	got, err := used.Review(context.Background(), rec, func(done, total int) {
		if total != len(rec.Moves) {
			t.Errorf("progress total %d, want %d", total, len(rec.Moves))
		}
		progress = append(progress, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("two reviews of one game differ:\n%+v\n%+v", got, want)
	}
	if len(progress) != len(rec.Moves) || progress[len(progress)-1] != len(rec.Moves) {
		t.Errorf("progress %v", progress)
	}
	if got.Sides[0].Moves+got.Sides[1].Moves != len(rec.Moves) {
		t.Errorf("sides count %d+%d moves of %d", got.Sides[0].Moves, got.Sides[1].Moves, len(rec.Moves))
	}
}

func TestIllegalMove(t *testing.T) {
	rv := review.New(budget.New(1), review.Options{Nodes: 1000})
	_, err := rv.Review(context.Background(), review.Record{Start: engine.Start(), Moves: []int{2, 3}}, nil)
	if !errors.Is(err, engine.ErrIllegalMove) {
		t.Fatalf("err %v, want ErrIllegalMove", err)
	}
}
