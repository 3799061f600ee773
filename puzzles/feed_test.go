package puzzles_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/memory"
)

// TestFeedServesOnlyWhatProves: the feed proves every puzzle it reads, so a
// stored row that no longer proves is never served; it publishes no day
// after today nor before its first; and Prepare fills days ahead.
func TestFeedServesOnlyWhatProves(t *testing.T) {
	ctx := context.Background()
	today := time.Date(2026, 2, 10, 15, 0, 0, 0, time.UTC)
	st := memory.New()
	feed := puzzles.NewFeed(st, testCPU(), puzzles.FeedOptions{First: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Now: func() time.Time { return today }})

	good, err := feed.ByDate(ctx, today)
	if err != nil {
		t.Fatal(err)
	}
	// A bad restore: yesterday's row holds a solution that is not one.
	yesterday := today.AddDate(0, 0, -1)
	bad, err := gen.Daily(ctx, nil, yesterday, 1)
	if err != nil {
		t.Fatal(err)
	}
	bad.Solution = slices.Clone(bad.Solution)
	bad.Solution[0] = (bad.Solution[0] + 1) % 12
	if _, err := st.AddPuzzle(ctx, bad, today); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		date time.Time
		want error
	}{
		{"today, generated and proved", today, nil},
		{"a row that does not prove", yesterday, gen.ErrUnverified},
		{"tomorrow", today.AddDate(0, 0, 1), puzzles.ErrNotFound},
		{"before the first day", time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC), puzzles.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := feed.ByDate(ctx, tc.date)
			if !errors.Is(err, tc.want) || (tc.want == nil && sp.Puzzle.ID != good.Puzzle.ID) {
				t.Fatalf("%s: %v (%v), want %v", tc.date.Format(gen.DateLayout), sp.Puzzle.ID, err, tc.want)
			}
		})
	}
	t.Run("prepare a day ahead", func(t *testing.T) {
		ahead := today.AddDate(0, 0, 3)
		sp, generated, err := feed.Prepare(ctx, ahead)
		if err != nil || !generated || sp.Puzzle.ID != gen.IDFor(ahead) {
			t.Fatalf("Prepare: %v generated=%v (%v)", sp.Puzzle.ID, generated, err)
		}
		if _, generated, err := feed.Prepare(ctx, ahead); err != nil || generated {
			t.Fatalf("Prepare again: generated=%v (%v), want it stored already", generated, err)
		}
		if _, err := feed.ByDate(ctx, ahead); !errors.Is(err, puzzles.ErrNotFound) {
			t.Fatalf("a prepared day ahead is served before its day: %v", err)
		}
	})
}

// TestFeedCutover: days before the cutover keep version 1's puzzle, days
// from it get version 2's, each the pure function of its date and version.
func TestFeedCutover(t *testing.T) {
	ctx := context.Background()
	today := time.Date(2026, 2, 10, 15, 0, 0, 0, time.UTC)
	cutover := time.Date(2026, 2, 10, 0, 0, 0, 0, time.UTC)
	g := puzzles.SharedGenerator()
	// The table is built before a day's generation starts its clock, and
	// the clock is an offline fill's, not a server's 60 s: under the race
	// detector, beside the other packages' tests, the build and a version 2
	// day can each take a minute of wall clock.
	if _, err := g.EndgameTable(ctx); err != nil {
		t.Fatal(err)
	}
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{First: cutover.AddDate(0, 0, -7), Cutover: cutover, Now: func() time.Time { return today }, Generator: g,
		GenerateTimeout: 10 * time.Minute})
	for _, tc := range []struct {
		name    string
		date    time.Time
		version int
	}{
		{"the day before the cutover", cutover.AddDate(0, 0, -1), 1},
		{"the cutover", cutover, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := feed.ByDate(ctx, tc.date)
			if err != nil {
				t.Fatal(err)
			}
			want, err := g.Generate(ctx, tc.date, tc.version)
			if err != nil {
				t.Fatal(err)
			}
			if sp.Puzzle.Version != tc.version || feed.VersionOn(tc.date) != tc.version || !slices.Equal(sp.Puzzle.Solution, want.Solution) || sp.Puzzle.Position != want.Position {
				t.Fatalf("version %d (feed says %d), position %s, want version %d's %s", sp.Puzzle.Version, feed.VersionOn(tc.date), sp.Puzzle.Position, tc.version, want.Position)
			}
		})
	}
}
