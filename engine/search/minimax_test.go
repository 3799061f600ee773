package search

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// minimax is the reference the search is checked against: plain negamax over
// the whole tree, no pruning, no table, no move ordering, with the end of the
// game taken from the engine (Finish) and the repetition rule applied to the
// whole line (history and path) as engine.Game applies it.
type minimax struct {
	r     engine.Rules
	w     Weights
	nodes int
	limit int                     // nodes; 0 means none
	seen  map[engine.Position]int // occurrences on the line above the node
}

// score returns the score of p for the side to move at depth, and whether it
// is proven (every leaf a finished game); ok is false if the node limit was
// reached. line holds the positions before p.
func (m *minimax) score(p engine.Position, line []engine.Position, depth int) (v int, proven, ok bool) {
	m.seen = map[engine.Position]int{}
	for _, q := range line {
		m.seen[q]++
	}
	m.nodes = 0
	return m.search(p, depth, true)
}

func (m *minimax) search(p engine.Position, depth int, root bool) (int, bool, bool) {
	m.nodes++
	if m.limit > 0 && m.nodes > m.limit {
		return 0, false, false
	}
	me := p.ToMove
	diff := func(q engine.Position) int { return unit * q.Margin(me) }
	if final, res := p.Finish(m.r); res.Over() {
		return diff(final), true, true
	}
	if !root && m.seen[p] >= 2 {
		return diff(p.SplitRows()), true, true
	}
	if depth == 0 {
		return m.w.evaluate(&p), false, true
	}
	best, proven := -infinity, true
	m.seen[p]++
	defer func() { m.seen[p]-- }()
	for mv := p.LegalMoves(m.r); mv != 0; {
		next, _ := p.Apply(mv.Next(), m.r)
		v, pr, ok := m.search(next, depth-1, false)
		if !ok {
			return 0, false, false
		}
		best = max(best, -v)
		proven = proven && pr
	}
	return best, proven, true
}

// randomGame plays n random legal moves from the start and returns the
// positions before the last one (the history) and the last.
func randomGame(rng *rand.Rand, r engine.Rules, n int) ([]engine.Position, engine.Position) {
	g, _ := engine.NewGame(engine.Start(), r)
	var hist []engine.Position
	var out engine.Outcome
	for range n {
		m := g.Position().LegalMoves(r)
		if m.Len() == 0 || g.Result().Over() {
			break
		}
		pit := randomMove(m, rng)
		before := g.Position()
		if err := g.Play(pit, &out); err != nil || g.Result().Over() {
			break
		}
		hist = append(hist, before)
	}
	return hist, g.Position()
}

func TestAgreesWithMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rules := []engine.Rules{{}, {CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}}
	positions := 60
	if testing.Short() {
		positions = 15
	}
	s := NewSearcher(1 << 20)
	s.ttFrom = MaxDepth + 1 // alpha-beta alone: the table may see deeper
	for i := range positions {
		r := rules[i%len(rules)]
		hist, p := randomGame(rng, r, rng.IntN(40))
		if p.LegalMoves(r) == 0 {
			continue
		}
		for depth := 1; depth <= 6; depth++ {
			m := &minimax{r: r, w: DefaultWeights}
			want, wantProven, _ := m.score(p, hist, depth)
			for _, every := range []bool{true, false} {
				a, err := s.Analyze(context.Background(), p, r, hist, Limits{Depth: depth, BestOnly: !every})
				if err != nil {
					t.Fatal(err)
				}
				if a.Centiseeds != want {
					t.Fatalf("%s %+v depth %d every=%v: score %d, minimax %d", p, r, depth, every, a.Centiseeds, want)
				}
				if wantProven && !a.Exact {
					t.Fatalf("%s depth %d: minimax proves %d, search says not exact", p, depth, want)
				}
				if !every {
					continue
				}
				for _, rm := range s.roots {
					next, _ := p.Apply(rm.pit, r)
					v, _, _ := m.score(next, append(hist, p), depth-1)
					if rm.score != -v {
						t.Fatalf("%s depth %d: move %d scores %d, minimax %d", p, depth, rm.pit, rm.score, -v)
					}
				}
			}
		}
	}
}

// TestExactOnlyWhenProven solves small endings to the end with the reference
// and checks that every score the search calls exact is the true one, with and
// without the table.
func TestExactOnlyWhenProven(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var exact, solved int
	for i := 0; i < 200 && solved < 40; i++ {
		p := randomEnding(rng, 3+rng.IntN(6))
		r := engine.Rules{Leftovers: engine.Leftovers(i % 2)}
		if p.LegalMoves(r) == 0 {
			continue
		}
		m := &minimax{r: r, limit: 50_000}
		truth, proven, ok := m.score(p, nil, MaxDepth)
		if !ok || !proven {
			continue
		}
		solved++
		for _, depth := range []int{2, 4, 8, MaxDepth} {
			for _, hash := range []int{0, 1 << 16} {
				s := NewSearcher(1 << 20)
				if hash == 0 {
					if depth > 8 {
						continue // without the table, too slow to be worth it
					}
					s.ttFrom = MaxDepth + 1
				}
				a, err := s.Analyze(context.Background(), p, r, nil, Limits{Depth: depth, Nodes: 200_000})
				if err != nil {
					t.Fatal(err)
				}
				if a.Exact {
					exact++
					if a.Centiseeds != truth {
						t.Fatalf("%s depth %d: exact score %d, true value %d", p, depth, a.Centiseeds, truth)
					}
				}
				for _, ms := range a.Moves {
					if !ms.Exact {
						continue
					}
					next, _ := p.Apply(ms.Pit, r)
					v, _, _ := (&minimax{r: r}).score(next, []engine.Position{p}, MaxDepth) // within the root's solve
					if ms.Score*unit != -v {
						t.Fatalf("%s depth %d: move %d exact score %d, true value %d", p, depth, ms.Pit, ms.Score, -v/unit)
					}
				}
			}
		}
	}
	if solved < 20 || exact == 0 {
		t.Fatalf("only %d endings solved, %d exact results: the test proves nothing", solved, exact)
	}
	t.Logf("%d endings solved, %d exact results checked", solved, exact)
}

// randomEnding spreads seeds over the board at random and splits the rest
// between the stores, short of a majority.
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
