package puzzles_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/puzzletest"
	"github.com/ayoayo/ayoayo/store/memory"
)

// poolToday is the day the pool tests run on: a month before the cutover,
// so the days ahead are a mix of version 1 days (checked) and later ones.
var poolToday = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// madeUpFeed is a feed whose pool makes up its puzzles, with the cutover
// today, so no daily puzzle is generated to compare with.
func madeUpFeed(o puzzles.FeedOptions) *puzzles.Feed {
	o.Now = func() time.Time { return poolToday }
	o.Practice = puzzletest.MadeUpPractice
	o.VerifyPractice = puzzletest.CheckMadeUp
	o.Cutover = poolToday
	return puzzles.NewFeed(memory.New(), o)
}

// TestPracticeWalkHasNoRepeats: a client that asks for another puzzle 1,000
// times, each time after the last, gets 1,000 different positions, each one
// its filter asks for, for every kind of filter.
func TestPracticeWalkHasNoRepeats(t *testing.T) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{})
	for _, f := range []puzzles.PracticeFilter{
		{},
		{Difficulty: 3},
		{Goal: puzzles.GoalDefend},
		{Difficulty: 5, Goal: puzzles.GoalWin, Theme: "greed_trap"},
	} {
		t.Run(fmt.Sprintf("%+v", f), func(t *testing.T) {
			seen := map[engine.Position]string{}
			after := ""
			for i := range 1000 {
				sp, err := feed.Practice(ctx, f, after)
				if err != nil {
					t.Fatalf("request %d after %q: %v", i, after, err)
				}
				p := sp.Puzzle
				if prev, ok := seen[p.Position]; ok {
					t.Fatalf("request %d: %s repeats %s", i, p.ID, prev)
				}
				seen[p.Position] = p.ID
				id, err := puzzles.ParsePracticeID(p.ID)
				if err != nil || id.Filter != f || !p.Date.IsZero() || sp.Stats != (puzzles.Stats{}) {
					t.Fatalf("request %d: id %q (%v), date %v, stats %+v", i, p.ID, err, p.Date, sp.Stats)
				}
				if (f.Difficulty != 0 && p.Difficulty != f.Difficulty) || (f.Goal != "" && p.Goal != f.Goal) {
					t.Fatalf("request %d: %s is not a puzzle of %+v", i, p.ID, f)
				}
				after = p.ID
			}
		})
	}
}

// TestPracticeStarts: without after, the walk starts where Rand says; after
// an id of an earlier generator version, afresh; and an id is the same
// puzzle on any server.
func TestPracticeStarts(t *testing.T) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{Rand: func() uint64 { return 77 }, PracticeVersion: 2})
	for _, tc := range []struct{ name, after, want string }{
		{"no after", "", "x2-d0-gany-tany-77"},
		{"after", "x2-d0-gany-tany-41", "x2-d0-gany-tany-42"},
		{"after the last seq", "x2-d0-gany-tany-9007199254740991", "x2-d0-gany-tany-0"},
		{"after an earlier version's", "x1-d0-gany-tany-41", "x2-d0-gany-tany-77"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := feed.Practice(ctx, puzzles.PracticeFilter{}, tc.after)
			if err != nil || sp.Puzzle.ID != tc.want {
				t.Fatalf("Practice after %q = %q (%v), want %q", tc.after, sp.Puzzle.ID, err, tc.want)
			}
			other := madeUpFeed(puzzles.FeedOptions{PracticeVersion: 2})
			again, err := other.ByID(ctx, tc.want)
			if err != nil || again.Puzzle.Position != sp.Puzzle.Position {
				t.Fatalf("another server's %s: %v (%v), want %v", tc.want, again.Puzzle.Position, err, sp.Puzzle.Position)
			}
		})
	}
}

// blockingPractice waits for its context, or for release.
func blockingPractice(started chan<- struct{}, release <-chan struct{}) puzzles.PracticeFunc {
	return func(ctx context.Context, version int, f puzzles.PracticeFilter, seq uint64) (puzzles.Puzzle, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			return puzzles.Puzzle{}, ctx.Err()
		case <-release:
			return puzzletest.MadeUpPractice(ctx, version, f, seq)
		}
	}
}

func TestPracticeErrors(t *testing.T) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{})
	for _, tc := range []struct {
		name   string
		filter puzzles.PracticeFilter
		after  string
		want   error
	}{
		{"difficulty 6", puzzles.PracticeFilter{Difficulty: 6}, "", puzzles.ErrInvalidPractice},
		{"difficulty -1", puzzles.PracticeFilter{Difficulty: -1}, "", puzzles.ErrInvalidPractice},
		{"unknown goal", puzzles.PracticeFilter{Goal: "chess"}, "", puzzles.ErrInvalidPractice},
		{"unknown theme", puzzles.PracticeFilter{Theme: "fun"}, "", puzzles.ErrInvalidPractice},
		{"after a daily id", puzzles.PracticeFilter{}, "p20260302", puzzles.ErrInvalidPractice},
		{"after another filter's", puzzles.PracticeFilter{Difficulty: 2}, "x1-d3-gany-tany-5", puzzles.ErrInvalidPractice},
		{"a filter no puzzle meets", puzzles.PracticeFilter{Difficulty: 1, Goal: puzzles.GoalDefend}, "", puzzles.ErrFilterUnmet},
		{"a win's theme with another goal", puzzles.PracticeFilter{Goal: puzzles.GoalMaxCapture, Theme: "majority"}, "", puzzles.ErrFilterUnmet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if sp, err := feed.Practice(ctx, tc.filter, tc.after); !errors.Is(err, tc.want) {
				t.Fatalf("Practice(%+v, %q) = %q (%v), want %v", tc.filter, tc.after, sp.Puzzle.ID, err, tc.want)
			}
		})
	}
	t.Run("by id", func(t *testing.T) {
		for _, id := range []string{"x1-d1-gdefend-tany-3", "x3-d0-gany-tany-1", "x1-d0-gany-tany-01", "x"} {
			if _, err := feed.ByID(ctx, id); !errors.Is(err, puzzles.ErrNotFound) {
				t.Errorf("ByID(%q): %v, want ErrNotFound", id, err)
			}
		}
	})
	t.Run("no pool", func(t *testing.T) {
		bare := puzzles.NewFeed(memory.New(), puzzles.FeedOptions{})
		if _, err := bare.Practice(ctx, puzzles.PracticeFilter{}, ""); !errors.Is(err, puzzles.ErrNoPool) {
			t.Fatalf("Practice without a pool: %v", err)
		}
		if _, err := bare.ByID(ctx, "x1-d0-gany-tany-1"); !errors.Is(err, puzzles.ErrNoPool) {
			t.Fatalf("ByID without a pool: %v", err)
		}
	})
	t.Run("busy, then bounded by the context", func(t *testing.T) {
		started, release := make(chan struct{}, 1), make(chan struct{})
		busy := puzzles.NewFeed(memory.New(), puzzles.FeedOptions{
			Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeConcurrency: 1,
			Practice: blockingPractice(started, release), VerifyPractice: puzzletest.CheckMadeUp,
		})
		first := make(chan error, 1)
		go func() {
			_, err := busy.Practice(ctx, puzzles.PracticeFilter{}, "")
			first <- err
		}()
		<-started
		if _, err := busy.Practice(ctx, puzzles.PracticeFilter{}, ""); !errors.Is(err, puzzles.ErrPracticeBusy) {
			t.Fatalf("a second generation while the only slot is taken: %v, want ErrPracticeBusy", err)
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		stuck := puzzles.NewFeed(memory.New(), puzzles.FeedOptions{
			Now: func() time.Time { return poolToday }, Cutover: poolToday,
			Practice: blockingPractice(make(chan struct{}, 1), nil), VerifyPractice: puzzletest.CheckMadeUp,
		})
		if _, err := stuck.Practice(cctx, puzzles.PracticeFilter{}, ""); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a generation past the request's deadline: %v", err)
		}
	})
}

// dailyTwins: even seqs are the version 1 daily puzzles of the days from
// today (seq 2k: today + k), odd ones DailyPractice's.
func dailyTwins(ctx context.Context, version int, f puzzles.PracticeFilter, seq uint64) (puzzles.Puzzle, error) {
	if seq%2 == 1 {
		return puzzletest.MadeUpPractice(ctx, version, f, seq)
	}
	p, err := puzzles.GenerateVersion(ctx, puzzles.Day(poolToday).AddDate(0, 0, int(seq/2)), version)
	p.ID, p.Date = "", time.Time{}
	return p, err
}

// TestPracticeSkipsUpcomingDailies: a practice puzzle that is the daily
// puzzle of a day ahead (or today's) before the cutover is passed over and
// not served by id either; from the cutover on the generator's partition
// keeps them apart, so they are not looked at.
func TestPracticeSkipsUpcomingDailies(t *testing.T) {
	ctx := context.Background()
	seq := uint64(0)
	st := memory.New()
	feed := puzzles.NewFeed(st, puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday.AddDate(0, 0, 1),
		Practice: dailyTwins, PracticeVersion: 1, Rand: func() uint64 { return seq },
		// Version 1 has no practice puzzles of its own: these are daily
		// puzzles and made-up ones, checked for what they are.
		VerifyPractice: func(p puzzles.Puzzle) error {
			if puzzletest.CheckMadeUp(p) == nil {
				return nil
			}
			q := p
			q.Date = puzzles.Day(poolToday).AddDate(0, 0, int(seqOf(t, p.ID)/2))
			q.ID = puzzles.IDFor(q.Date)
			return puzzles.Verify(q)
		},
	})
	for _, tc := range []struct {
		name  string
		after string
		want  string
	}{
		{"today's daily is passed over", "", "x1-d0-gany-tany-1"},
		{"tomorrow's is past the cutover", "x1-d0-gany-tany-1", "x1-d0-gany-tany-2"},
		{"an ordinary one", "x1-d0-gany-tany-2", "x1-d0-gany-tany-3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := feed.Practice(ctx, puzzles.PracticeFilter{}, tc.after)
			if err != nil || sp.Puzzle.ID != tc.want {
				t.Fatalf("Practice after %q: %q (%v), want %q", tc.after, sp.Puzzle.ID, err, tc.want)
			}
		})
	}
	if _, err := feed.ByID(ctx, "x1-d0-gany-tany-0"); !errors.Is(err, puzzles.ErrNotFound) {
		t.Fatalf("today's daily puzzle by its practice id: %v, want ErrNotFound", err)
	}
	// Today's daily puzzle was generated once, to compare, and stored.
	if _, err := st.PuzzleByDate(ctx, poolToday); err != nil {
		t.Fatalf("today's daily puzzle is not stored: %v", err)
	}
}

// TestPracticeRealPuzzles: practice puzzles of the daily generator prove,
// are served again by id, attempted like daily ones but not counted.
func TestPracticeRealPuzzles(t *testing.T) {
	ctx := context.Background()
	feed := puzzles.NewFeed(memory.New(), puzzles.FeedOptions{Now: func() time.Time { return poolToday }, Practice: puzzles.GeneratePractice})
	n := 6
	if testing.Short() || puzzles.RaceDetector {
		n = 2
	}
	seen := map[engine.Position]bool{}
	after := ""
	for range n {
		sp, err := feed.Practice(ctx, puzzles.PracticeFilter{Difficulty: 2}, after)
		if err != nil {
			t.Fatal(err)
		}
		p := sp.Puzzle
		if seen[p.Position] || p.Difficulty != 2 {
			t.Fatalf("%s: a repeat, or difficulty %d", p.ID, p.Difficulty)
		}
		seen[p.Position] = true
		after = p.ID
		byID, err := feed.ByID(ctx, p.ID)
		if err != nil || byID.Puzzle.Position != p.Position {
			t.Fatalf("ByID(%s): %v", p.ID, err)
		}
		a, stats, err := feed.Attempt(ctx, p.ID, []int{p.Key()}, false)
		if err != nil || !a.Correct || stats != (puzzles.Stats{}) {
			t.Fatalf("the key move of %s: correct %v, stats %+v (%v)", p.ID, a.Correct, stats, err)
		}
	}
}

// TestVerifyPractice: a practice puzzle proves only as its id says.
func TestVerifyPractice(t *testing.T) {
	base, err := puzzles.GeneratePractice(context.Background(), puzzles.Version, puzzles.PracticeFilter{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	base.ID = fmt.Sprintf("x%d-d0-gany-tany-3", puzzles.Version)
	for _, tc := range []struct {
		name   string
		change func(p *puzzles.Puzzle)
		want   error
	}{
		{"as made", func(*puzzles.Puzzle) {}, nil},
		{"a daily id", func(p *puzzles.Puzzle) { p.ID = "p20260302" }, puzzles.ErrUnverified},
		{"a date", func(p *puzzles.Puzzle) { p.Date = poolToday }, puzzles.ErrUnverified},
		{"another version's id", func(p *puzzles.Puzzle) { p.ID = "x1-d0-gany-tany-3" }, puzzles.ErrUnverified},
		{"another filter's id", func(p *puzzles.Puzzle) { p.ID = fmt.Sprintf("x%d-d%d-gany-tany-3", p.Version, p.Difficulty%5+1) }, puzzles.ErrUnverified},
		{"a wrong solution", func(p *puzzles.Puzzle) { p.Solution = []int{(p.Solution[0] + 1) % 12} }, puzzles.ErrUnverified},
		{"an unknown version", func(p *puzzles.Puzzle) { p.Version = 7 }, puzzles.ErrUnknownVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			tc.change(&p)
			if err := puzzles.VerifyPractice(p); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("VerifyPractice: %v, want %v", err, tc.want)
			}
		})
	}
}

// BenchmarkPracticeOverhead measures what the pool adds to a generation on
// every "another": the id, the cache, the checks and the bookkeeping, with
// made-up puzzles that cost nothing to make.
func BenchmarkPracticeOverhead(b *testing.B) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{})
	after := ""
	for b.Loop() {
		sp, err := feed.Practice(ctx, puzzles.PracticeFilter{Difficulty: 3}, after)
		if err != nil {
			b.Fatal(err)
		}
		after = sp.Puzzle.ID
	}
}

// BenchmarkPracticeByID measures serving a practice puzzle just made, by
// its id, from the cache.
func BenchmarkPracticeByID(b *testing.B) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{})
	sp, err := feed.Practice(ctx, puzzles.PracticeFilter{}, "")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := feed.ByID(ctx, sp.Puzzle.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPracticeMisses: a sequence number the generator finds no puzzle for
// is passed over (and remembered, so asking for it by id costs nothing);
// only maxMisses of them in a row mean the filter cannot be met.
func TestPracticeMisses(t *testing.T) {
	ctx := context.Background()
	calls := map[uint64]int{}
	// Seqs 10, 11 and 20-22 have no puzzle.
	holes := func(ctx context.Context, version int, f puzzles.PracticeFilter, seq uint64) (puzzles.Puzzle, error) {
		calls[seq]++
		if seq == 10 || seq == 11 || (seq >= 20 && seq <= 22) {
			return puzzles.Puzzle{}, fmt.Errorf("%w: seq %d", puzzles.ErrNoPuzzle, seq)
		}
		return puzzletest.MadeUpPractice(ctx, version, f, seq)
	}
	feed := puzzles.NewFeed(memory.New(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeConcurrency: 1, PracticeVersion: 1,
		Practice: holes, VerifyPractice: puzzletest.CheckMadeUp,
	})
	for _, tc := range []struct {
		after, want string
		err         error
	}{
		{"x1-d0-gany-tany-9", "x1-d0-gany-tany-12", nil},
		{"x1-d0-gany-tany-19", "", puzzles.ErrFilterUnmet},
	} {
		sp, err := feed.Practice(ctx, puzzles.PracticeFilter{}, tc.after)
		if sp.Puzzle.ID != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Fatalf("after %s: %q (%v), want %q (%v)", tc.after, sp.Puzzle.ID, err, tc.want, tc.err)
		}
	}
	for range 2 {
		if _, err := feed.ByID(ctx, "x1-d0-gany-tany-10"); !errors.Is(err, puzzles.ErrNotFound) {
			t.Fatalf("a seq with no puzzle, by id: %v", err)
		}
	}
	if calls[10] != 1 || calls[12] != 1 {
		t.Fatalf("generations per seq %v: seq 10 and 12 once each", calls)
	}
}

// seqOf is a practice id's sequence number.
func seqOf(t *testing.T, id string) uint64 {
	t.Helper()
	pid, err := puzzles.ParsePracticeID(id)
	if err != nil {
		t.Fatal(err)
	}
	return pid.Seq
}
