package storetest

import (
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

var puzzleCases = []suiteCase{
	{"puzzles/add and read back", testAddPuzzle},
	{"puzzles/first writer wins", testPuzzleRace},
	{"puzzles/stored puzzle never changes", testPuzzleNeverChanges},
	{"puzzles/by date", testPuzzleByDate},
	{"puzzles/before a date", testPuzzlesBefore},
	{"puzzles/record attempt", testRecordAttempt},
	{"puzzles/no aliasing", testPuzzleAliasing},
}

// mustAdd stores p and checks that the store answers with it.
func mustAdd(t *testing.T, s Store, p gen.Puzzle) {
	t.Helper()
	got, err := s.AddPuzzle(t.Context(), clonePuzzle(p), tick(0))
	if err != nil {
		t.Fatalf("add puzzle %s: %v", p.ID, err)
	}
	checkStored(t, "AddPuzzle's answer", got, p, puzzles.Stats{})
}

// checkStoredPuzzle reads the puzzle of want's date and fails t unless it is
// want with stats.
func checkStoredPuzzle(t *testing.T, s Store, what string, want gen.Puzzle, stats puzzles.Stats) {
	t.Helper()
	got, err := s.PuzzleByDate(t.Context(), want.Date)
	if err != nil {
		t.Fatalf("%s: puzzle of %s: %v", what, want.Date.Format(gen.DateLayout), err)
	}
	checkStored(t, what, got, want, stats)
}

func testAddPuzzle(t *testing.T, s Store, fx *fixtures) {
	for _, p := range fx.puzzles(t) {
		t.Run(p.ID, func(t *testing.T) {
			mustAdd(t, s, p)
			checkStoredPuzzle(t, s, "read back", p, puzzles.Stats{})
		})
	}
	// A date given in another zone is filed under its UTC day, the day
	// every read goes by.
	t.Run("date outside UTC", func(t *testing.T) {
		p := clonePuzzle(fx.puzzles(t)[0])
		p.ID, p.Date = "p20260501", time.Date(2026, 5, 2, 0, 30, 0, 0, time.FixedZone("UTC+1", 3600)) // 2026-05-01 in UTC
		got, err := s.AddPuzzle(t.Context(), clonePuzzle(p), tick(0))
		if err != nil {
			t.Fatal(err)
		}
		if day := got.Puzzle.Date.Format(gen.DateLayout); day != "2026-05-01" {
			t.Fatalf("stored under %s, want the UTC day 2026-05-01", day)
		}
	})
}

func testPuzzleRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	// Every racer brings its own puzzle for the day, as servers running
	// different generator versions would.
	const date = "2026-04-01"
	var variants []gen.Puzzle
	for _, p := range made {
		variants = append(variants, movedTo(p, date))
	}
	for i := 1; i < len(variants); i++ {
		if samePuzzle(variants[0], variants[i]) {
			t.Fatalf("generated puzzles %d and 0 are the same: no variants to race", i)
		}
	}
	got := make([]puzzles.Stored, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		p := clonePuzzle(variants[i%len(variants)])
		wg.Go(func() { got[i], errs[i] = s.AddPuzzle(ctx, p, tick(i)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("racer %d: %v", i, err)
		}
	}
	first := got[0].Puzzle
	if !slices.ContainsFunc(variants, func(p gen.Puzzle) bool { return samePuzzle(p, first) }) {
		t.Fatalf("the stored puzzle is none of those added: %+v", first)
	}
	for i := range got {
		checkStored(t, "a racer's answer", got[i], first, puzzles.Stats{})
	}
	checkStoredPuzzle(t, s, "after the race", first, puzzles.Stats{})
	all, err := s.PuzzlesBefore(ctx, day(t, date).AddDate(0, 0, 1), 100)
	if err != nil || len(all) != 1 {
		t.Fatalf("%d puzzles stored (%v), want 1", len(all), err)
	}
}

func testPuzzleNeverChanges(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	first := made[0]
	mustAdd(t, s, first)
	// The counters move, and are kept along with the puzzle.
	stats, err := s.RecordAttempt(ctx, first.ID, true)
	if err != nil {
		t.Fatal(err)
	}
	newer := clonePuzzle(first)
	newer.Version++
	newer.Prompt += " (regenerated)"
	newer.Themes = append(newer.Themes, "newer")
	tests := []struct {
		name   string
		second gen.Puzzle
	}{
		{"the same puzzle again", first},
		{"another puzzle for the day", movedTo(made[1], first.Date.Format(gen.DateLayout))},
		{"a newer generator's puzzle", newer},
		{"the day at another time", func() gen.Puzzle {
			p := movedTo(made[2], first.Date.Format(gen.DateLayout))
			p.Date = p.Date.Add(13*time.Hour + 7*time.Minute)
			return p
		}()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.AddPuzzle(ctx, clonePuzzle(tc.second), tick(5))
			if err != nil {
				t.Fatal(err)
			}
			checkStored(t, "the second AddPuzzle's answer", got, first, stats)
			checkStoredPuzzle(t, s, "after it", first, stats)
		})
	}
}

func testPuzzleByDate(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	for _, p := range made {
		mustAdd(t, s, p)
	}
	feb16 := day(t, "2026-02-16")
	tests := []struct {
		name string
		date time.Time
		want int // index in made, or -1 for ErrNotFound
	}{
		{"the first day", day(t, "2026-02-15"), 0},
		{"midnight", feb16, 1},
		{"late in the day", feb16.Add(24*time.Hour - time.Microsecond), 1},
		{"another zone, the same UTC day", time.Date(2026, 2, 17, 0, 30, 0, 0, time.FixedZone("WAT", 3600)), 1},
		{"another zone, the next UTC day", time.Date(2026, 2, 16, 20, 0, 0, 0, time.FixedZone("EST", -5*3600)), 2},
		{"the last day", day(t, "2026-02-17"), 2},
		{"the day after the last", day(t, "2026-02-18"), -1},
		{"the day before the first", day(t, "2026-02-14"), -1},
		{"a year later", day(t, "2027-02-16"), -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.PuzzleByDate(ctx, tc.date)
			if tc.want < 0 {
				if !errors.Is(err, puzzles.ErrNotFound) {
					t.Fatalf("puzzle of %s: %+v, %v; want puzzles.ErrNotFound", tc.date, got.Puzzle.ID, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkStored(t, "by date", got, made[tc.want], puzzles.Stats{})
		})
	}
}

func testPuzzlesBefore(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	// Five days, stored out of order, each a different puzzle.
	days := []string{"2026-03-03", "2026-03-01", "2026-03-05", "2026-03-02", "2026-03-04"}
	byID := map[string]gen.Puzzle{}
	for i, d := range days {
		p := movedTo(made[i%len(made)], d)
		p.Prompt += " " + d
		mustAdd(t, s, p)
		byID[p.ID] = p
	}
	tests := []struct {
		name   string
		before time.Time
		limit  int
		want   []string
	}{
		{"two before the last", day(t, "2026-03-05"), 2, []string{"p20260304", "p20260303"}},
		{"all before the last", day(t, "2026-03-05"), 10, []string{"p20260304", "p20260303", "p20260302", "p20260301"}},
		{"the first only", day(t, "2026-03-02"), 10, []string{"p20260301"}},
		{"none before the first", day(t, "2026-03-01"), 10, nil},
		{"all, from far ahead", day(t, "2027-01-01"), 10, []string{"p20260305", "p20260304", "p20260303", "p20260302", "p20260301"}},
		{"exactly as many as stored", day(t, "2026-03-06"), 5, []string{"p20260305", "p20260304", "p20260303", "p20260302", "p20260301"}},
		{"one", day(t, "2026-03-06"), 1, []string{"p20260305"}},
		{"no room", day(t, "2026-03-06"), 0, nil},
		{"a time of day counts as its day", day(t, "2026-03-03").Add(18 * time.Hour), 10, []string{"p20260302", "p20260301"}},
		{"another zone counts by its UTC day", time.Date(2026, 3, 4, 1, 0, 0, 0, time.FixedZone("CAT", 2*3600)), 10,
			[]string{"p20260302", "p20260301"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.PuzzlesBefore(ctx, tc.before, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, sp := range got {
				ids = append(ids, sp.Puzzle.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("before %s, limit %d: %v, want %v", tc.before, tc.limit, ids, tc.want)
			}
			for _, sp := range got {
				checkStored(t, sp.Puzzle.ID, sp, byID[sp.Puzzle.ID], puzzles.Stats{})
			}
		})
	}
}

func testRecordAttempt(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	for _, p := range made {
		mustAdd(t, s, p)
	}
	target := made[0]
	steps := []struct {
		name   string
		solved bool
		want   puzzles.Stats
	}{
		{"a miss", false, puzzles.Stats{Attempts: 1}},
		{"a solve", true, puzzles.Stats{Attempts: 2, Solved: 1}},
		{"another miss", false, puzzles.Stats{Attempts: 3, Solved: 1}},
		{"another solve", true, puzzles.Stats{Attempts: 4, Solved: 2}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got, err := s.RecordAttempt(ctx, target.ID, st.solved)
			if err != nil || got != st.want {
				t.Fatalf("RecordAttempt: %+v, %v; want %+v", got, err, st.want)
			}
			checkStoredPuzzle(t, s, "after it", target, st.want)
		})
	}
	t.Run("other puzzles keep their counts", func(t *testing.T) {
		checkStoredPuzzle(t, s, "the next day's", made[1], puzzles.Stats{})
	})
	t.Run("unknown id", func(t *testing.T) {
		for _, id := range []string{"p20990101", "p20260218", "", made[0].Date.Format(gen.DateLayout)} {
			if got, err := s.RecordAttempt(ctx, id, true); !errors.Is(err, puzzles.ErrNotFound) {
				t.Fatalf("RecordAttempt(%q): %+v, %v; want puzzles.ErrNotFound", id, got, err)
			}
		}
		checkStoredPuzzle(t, s, "after them", target, steps[len(steps)-1].want)
	})
	t.Run("concurrent attempts all count", func(t *testing.T) {
		p := made[2]
		got := make([]puzzles.Stats, racers)
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Go(func() { got[i], errs[i] = s.RecordAttempt(ctx, p.ID, i%2 == 0) })
		}
		wg.Wait()
		seen := make([]bool, racers+1)
		for i, err := range errs {
			if err != nil {
				t.Fatalf("attempt %d: %v", i, err)
			}
			if n := got[i].Attempts; n < 1 || n > racers || seen[n] {
				t.Fatalf("attempt %d was told %d attempts: counts must be 1 to %d, each once", i, n, racers)
			}
			seen[got[i].Attempts] = true
		}
		checkStoredPuzzle(t, s, "after them", p, puzzles.Stats{Attempts: racers, Solved: racers / 2})
	})
}

func testPuzzleAliasing(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	want := clonePuzzle(made[0])
	in := clonePuzzle(made[0])
	added, err := s.AddPuzzle(ctx, in, tick(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Themes) == 0 || len(want.Solution) == 0 {
		t.Fatalf("puzzle %s has no themes or no solution to change", want.ID)
	}
	change := func(p *gen.Puzzle) {
		p.Themes[0] += " changed"
		p.Solution[0] = (p.Solution[0] + 1) % 12
	}
	tests := []struct {
		name   string
		mutate func(t *testing.T)
	}{
		{"the puzzle given to AddPuzzle", func(*testing.T) { change(&in) }},
		{"the puzzle AddPuzzle returned", func(*testing.T) { change(&added.Puzzle) }},
		{"the puzzle PuzzleByDate returned", func(t *testing.T) {
			sp, err := s.PuzzleByDate(ctx, want.Date)
			if err != nil {
				t.Fatal(err)
			}
			change(&sp.Puzzle)
		}},
		{"the puzzles PuzzlesBefore returned", func(t *testing.T) {
			sps, err := s.PuzzlesBefore(ctx, want.Date.AddDate(0, 0, 1), 1)
			if err != nil || len(sps) != 1 {
				t.Fatalf("PuzzlesBefore: %d, %v", len(sps), err)
			}
			change(&sps[0].Puzzle)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.mutate(t)
			checkStoredPuzzle(t, s, "after the change", want, puzzles.Stats{})
		})
	}
}
