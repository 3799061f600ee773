package tablebase

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// allRules are the four combinations of the rule options.
var allRules = []struct {
	name  string
	rules engine.Rules
}{
	{"taken,last_mover", engine.Rules{}},
	{"taken,side_owner", engine.Rules{Leftovers: engine.LeftoversSideOwner}},
	{"left,last_mover", engine.Rules{CaptureSeed: engine.CaptureLeft}},
	{"left,side_owner", engine.Rules{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}},
}

// smallSeeds is N for the checks that go over whole tables or search real
// games: 8, or 6 under the race detector.
func smallSeeds() int {
	if raceDetector {
		return 6
	}
	return 8
}

// bestValue returns the largest value in a non-empty list of moves.
func bestValue(moves []MoveValue) int {
	best := moves[0].Value
	for _, m := range moves {
		best = max(best, m.Value)
	}
	return best
}

func build(t testing.TB, n int, r engine.Rules) *Table {
	t.Helper()
	tb, err := Build(context.Background(), n, r, testWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestIndex checks that rank numbers each level's boards 0, 1, ... in the
// order next steps through them, and that unrank inverts it.
func TestIndex(t *testing.T) {
	for n := 0; n <= 7; n++ {
		var x [engine.NumPits]uint8
		x[engine.NumPits-1] = uint8(n)
		count := int64(0)
		for ok := true; ok; ok = next(&x) {
			if got := rank(&x, n); int64(got) != count {
				t.Fatalf("n=%d: rank(%v) = %d, want %d", n, x, got, count)
			}
			var y [engine.NumPits]uint8
			unrank(uint32(count), n, &y)
			if y != x {
				t.Fatalf("n=%d: unrank(%d) = %v, want %v", n, count, y, x)
			}
			count++
		}
		if count != LevelSize(n) {
			t.Fatalf("n=%d: %d boards, want %d", n, count, LevelSize(n))
		}
	}
}

// TestAgainstReference compares every board of every level up to refSeeds
// with the reference solver, under each rule combination: the bounds, and
// the value and move values against the game G(p) solved from its
// definition (checkCycleGame). Boards whose cycles matter (A < B) must be
// among them.
func TestAgainstReference(t *testing.T) {
	seeds := refSeeds
	if testing.Short() {
		seeds = min(seeds, 8)
	}
	for _, rc := range allRules {
		t.Run(rc.name, func(t *testing.T) {
			ref := newRefSolver(rc.rules, seeds)
			tb := build(t, seeds, rc.rules)
			open := 0
			for n, l := range ref.levels {
				for i, x := range l.boards {
					p := engine.Position{Pits: x}
					a, b, ok := tb.Bounds(&p)
					if !ok || a != l.a[i] || b != l.b[i] {
						t.Fatalf("%v (n=%d): bounds %d..%d ok=%v, reference %d..%d", x, n, a, b, ok, l.a[i], l.b[i])
					}
					if a < b {
						open++
					}
				}
			}
			t.Logf("%d boards with A < B", open)
			if open == 0 && seeds >= 10 { // the first boards where cycles matter under every rule have 9 or 10 seeds
				t.Fatalf("no board where cycles matter: the test proves too little")
			}
			checkCycleGame(t, ref, tb)
		})
	}
}

// TestMovesConsistent checks on every board up to 8 seeds (6 under the
// race detector), from both sides, that the best root-anchored move value is
// the position's value.
func TestMovesConsistent(t *testing.T) {
	seeds := smallSeeds()
	for _, rc := range allRules {
		t.Run(rc.name, func(t *testing.T) {
			tb := build(t, seeds, rc.rules)
			var buf []MoveValue
			for n := 0; n <= seeds; n++ {
				var x [engine.NumPits]uint8
				x[engine.NumPits-1] = uint8(n)
				for ok := true; ok; ok = next(&x) {
					for _, side := range []engine.Side{engine.South, engine.North} {
						p := engine.Position{Pits: x, ToMove: side}
						v, _ := tb.Value(&p)
						var ok bool
						buf, ok = tb.Moves(p, buf)
						if !ok {
							t.Fatalf("%v: Moves not ok", p)
						}
						if len(buf) == 0 {
							if p.HasLegalMove(rc.rules) {
								t.Fatalf("%v: no move values but a legal move", p)
							}
							continue
						}
						if best := bestValue(buf); best != v {
							t.Fatalf("%v: best move value %d, value %d (%v)", p, best, v, buf)
						}
					}
				}
			}
		})
	}
}

// TestRotation checks that a board with North to move has the value of the
// same board turned round with South to move.
func TestRotation(t *testing.T) {
	tb := build(t, 8, engine.Rules{})
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		n := rng.IntN(9)
		var x [engine.NumPits]uint8
		for range n {
			x[rng.IntN(engine.NumPits)]++
		}
		p := engine.Position{Pits: x, ToMove: engine.North}
		q := engine.Position{Pits: rotate(x)}
		v, ok1 := tb.Value(&p)
		w, ok2 := tb.Value(&q)
		if !ok1 || !ok2 || v != w {
			t.Fatalf("%v: %d (%v) from North, %d (%v) turned round", x, v, ok1, w, ok2)
		}
	}
	big := engine.Start()
	if _, ok := tb.Value(&big); ok {
		t.Fatalf("the start position is in an 8-seed table")
	}
}

// TestBuildProgressAndCancel checks that progress only grows and ends at the
// total (two units a board, one a score entry), that a cancelled build stops with the context's error, and that
// bad arguments are refused.
func TestBuildProgressAndCancel(t *testing.T) {
	var last, total int64
	calls := 0
	if _, err := Build(context.Background(), 7, engine.Rules{}, testWorkers, func(done, all int64) {
		if done < last || (total != 0 && all != total) || done > all {
			t.Fatalf("progress %d/%d after %d/%d", done, all, last, total)
		}
		last, total = done, all
		calls++
	}); err != nil {
		t.Fatal(err)
	}
	var boards, entries int64
	for n := range 8 {
		boards += LevelSize(n)
		entries += scoreLevelSize(n)
	}
	if calls < 2 || last != total || total != 2*boards+entries {
		t.Fatalf("%d calls, last %d/%d", calls, last, total)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if tb, err := Build(ctx, 7, engine.Rules{}, testWorkers, nil); !errors.Is(err, context.Canceled) || tb != nil {
		t.Fatalf("cancelled build: %v", err)
	}
	for _, n := range []int{-1, MaxSeedsLimit + 1} {
		if _, err := Build(context.Background(), n, engine.Rules{}, testWorkers, nil); err == nil {
			t.Fatalf("Build(%d) accepted", n)
		}
	}
	if _, err := Build(context.Background(), 3, engine.Rules{Leftovers: 9}, testWorkers, nil); !errors.Is(err, engine.ErrInvalidRules) {
		t.Fatalf("unknown rule: %v", err)
	}
}
