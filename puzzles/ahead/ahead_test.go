package ahead_test

import (
	"context"
	"testing"

	"github.com/ayoayo/ayoayo/engine/tablebase/tabletest"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/ahead"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// TestShipped: the shipped set decodes and indexes, holds days and a row
// for every stocked filter, and a sample of it is what the generator makes
// (the first and last day, the first row of three filters; CI makes all
// of it again: see the package's comment).
func TestShipped(t *testing.T) {
	set, err := ahead.Set()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ahead.Load(); err != nil {
		t.Fatal(err)
	}
	if len(set.Days) == 0 {
		t.Fatal("no days shipped")
	}
	first := map[string]puzzles.Stocked{}
	for _, r := range set.Stock {
		if _, ok := first[r.Filter]; !ok {
			first[r.Filter] = r
		}
	}
	for _, f := range puzzles.StockedFilters() {
		if _, ok := first[puzzles.FilterKey(f)]; !ok {
			t.Errorf("no practice puzzle shipped for %s", puzzles.FilterKey(f))
		}
	}
	ctx := context.Background()
	// The generator's table: built, or opened from the file
	// AYOAYO_TEST_ENDGAME_TABLE names (.ci/run's race step does).
	tb, err := tabletest.Endgame(ctx, gen.EndgameSeeds, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{0, len(set.Days) - 1} {
		day := set.Days[p]
		t.Run(day.ID, func(t *testing.T) {
			if err := puzzles.CheckAheadDay(ctx, tb, day); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, key := range []string{"d1-gany-tany", "d0-gmax_capture-tany", "d0-gdefend-tany"} {
		r, ok := first[key]
		if !ok {
			continue // reported above
		}
		t.Run(r.Puzzle.ID, func(t *testing.T) {
			if err := puzzles.CheckAheadRow(ctx, tb, r); err != nil {
				t.Fatal(err)
			}
		})
	}
}
