package tablebase

import (
	"math/rand/v2"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// realGame solves the real game, majority of 25 included, by plain negamax
// over engine.Play: +1, 0 or -1 for the mover. It gives up (ok=false) when a
// line comes back to a position on its own path, where the repetition
// convention would matter.
type realGame struct {
	rules engine.Rules
	memo  map[engine.Position]int
	path  map[engine.Position]bool
	out   engine.Outcome
}

func (g *realGame) solve(p engine.Position) (int, bool) {
	if v, ok := g.memo[p]; ok {
		return v, true
	}
	if res := p.Status(g.rules); res.Over() {
		return winnerSign(res.Winner, p.ToMove), true
	}
	if g.path[p] {
		return 0, false
	}
	g.path[p] = true
	defer delete(g.path, p)
	best := -2
	for moves := p.LegalMoves(g.rules); moves != 0; {
		pit := moves.Next()
		engine.Play(p, pit, g.rules, &g.out)
		var v int
		if g.out.Result.Over() {
			v = winnerSign(g.out.Result.Winner, p.ToMove)
		} else {
			w, ok := g.solve(g.out.Position)
			if !ok {
				return 0, false
			}
			v = -w
		}
		best = max(best, v)
	}
	g.memo[p] = best
	return best, true
}

func winnerSign(w engine.Winner, s engine.Side) int {
	switch w {
	case engine.Draw:
		return 0
	case engine.WinnerOf(s):
		return 1
	}
	return -1
}

// TestResultMatchesRealGame checks Result against the real game, which stops
// at 25, on random valid positions with few seeds on the board and captured
// counts close to the majority, wherever no line cycles.
func TestResultMatchesRealGame(t *testing.T) {
	seeds := smallSeeds()
	for _, rc := range allRules {
		t.Run(rc.name, func(t *testing.T) {
			tb := build(t, seeds, rc.rules)
			rng := rand.New(rand.NewPCG(5, uint64(rc.rules.CaptureSeed)*2+uint64(rc.rules.Leftovers)))
			g := &realGame{rules: rc.rules, memo: map[engine.Position]int{}, path: map[engine.Position]bool{}}
			checked, decisive := 0, [3]int{}
			for range 3000 {
				n := 1 + rng.IntN(seeds)
				var x [engine.NumPits]uint8
				for range n {
					x[rng.IntN(engine.NumPits)]++
				}
				rest := engine.SeedCount - n
				lo, hi := max(0, rest-(engine.Majority-1)), min(engine.Majority-1, rest)
				south := lo + rng.IntN(hi-lo+1)
				p, err := engine.NewPosition(pits(x), south, rest-south, engine.Side(rng.IntN(2)))
				if err != nil {
					t.Fatal(err)
				}
				want, ok := g.solve(p)
				if !ok {
					continue
				}
				v, _ := tb.Value(&p)
				if got := Result(&p, v); int(got)-1 != want {
					t.Fatalf("%v: value %d gives %v, the real game %+d", p, v, got, want)
				}
				checked++
				decisive[want+1]++
			}
			t.Logf("%d positions checked (loss/draw/win %v)", checked, decisive)
			if checked < 1000 || decisive[0] == 0 || decisive[1] == 0 || decisive[2] == 0 {
				t.Fatalf("too few positions, or a result never seen: %d %v", checked, decisive)
			}
		})
	}
}

func pits(x [engine.NumPits]uint8) []int {
	out := make([]int, len(x))
	for i, v := range x {
		out[i] = int(v)
	}
	return out
}

func TestWDLText(t *testing.T) {
	for _, w := range []WDL{Loss, Draw, Win} {
		b, err := w.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back WDL = 9
		if err := back.UnmarshalText(b); err != nil || back != w || w.String() != string(b) {
			t.Fatalf("%v: %q back to %v (%v)", w, b, back, err)
		}
	}
	if _, err := WDL(3).MarshalText(); err == nil {
		t.Fatal("WDL(3) marshalled")
	}
	w := Win
	if err := w.UnmarshalText([]byte("Win")); err == nil || w != Win {
		t.Fatalf("Win read as %v, %v", w, err)
	}
}
