package puzzles_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
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
	return puzzles.NewFeed(memory.New(), testCPU(), o)
}

// TestPracticeWalkHasNoRepeats: a client that asks for another puzzle 1,000
// times, each time after the last, gets 1,000 different positions, each one
// its filter asks for, for every kind of filter.
func TestPracticeWalkHasNoRepeats(t *testing.T) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{})
	for _, f := range []gen.PracticeFilter{
		{},
		{Difficulty: 3},
		{Goal: gen.GoalDefend},
		{Difficulty: 5, Goal: gen.GoalWin, Theme: "greed_trap"},
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
				id, err := gen.ParsePracticeID(p.ID)
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
			sp, err := feed.Practice(ctx, gen.PracticeFilter{}, tc.after)
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
	return func(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			return gen.Puzzle{}, ctx.Err()
		case <-release:
			return puzzletest.MadeUpPractice(ctx, version, f, seq)
		}
	}
}

// counted is a practice generator that counts its calls.
type counted struct {
	mu    sync.Mutex
	calls int
	seqs  []uint64 // of the calls, in order
	f     puzzles.PracticeFunc
}

// countedPractice counts the calls of f.
func countedPractice(f puzzles.PracticeFunc) *counted { return &counted{f: f} }

func (c *counted) practice(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
	c.mu.Lock()
	c.calls++
	c.seqs = append(c.seqs, seq)
	c.mu.Unlock()
	return c.f(ctx, version, f, seq)
}

// count is how many generations were asked of c so far.
func (c *counted) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

// awaitPractice asks feed for a puzzle of f from a random start until it
// answers with one rather than ErrPracticeTimeout (a detached generation
// ends soon after its release), a bounded number of times, and returns the
// puzzle's id.
func awaitPractice(t *testing.T, feed *puzzles.Feed, f gen.PracticeFilter) string {
	t.Helper()
	for range 500 {
		sp, err := feed.Practice(t.Context(), f, "")
		if err == nil {
			return sp.Puzzle.ID
		}
		if !errors.Is(err, puzzles.ErrPracticeTimeout) {
			t.Fatalf("asking again: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("asking again: still no puzzle after 500 tries")
	return ""
}

func TestPracticeErrors(t *testing.T) {
	ctx := context.Background()
	feed := madeUpFeed(puzzles.FeedOptions{})
	for _, tc := range []struct {
		name   string
		filter gen.PracticeFilter
		after  string
		want   error
	}{
		{"difficulty 6", gen.PracticeFilter{Difficulty: 6}, "", gen.ErrInvalidPractice},
		{"difficulty -1", gen.PracticeFilter{Difficulty: -1}, "", gen.ErrInvalidPractice},
		{"unknown goal", gen.PracticeFilter{Goal: "chess"}, "", gen.ErrInvalidPractice},
		{"unknown theme", gen.PracticeFilter{Theme: "fun"}, "", gen.ErrInvalidPractice},
		{"after a daily id", gen.PracticeFilter{}, "p20260302", gen.ErrInvalidPractice},
		{"after another filter's", gen.PracticeFilter{Difficulty: 2}, "x1-d3-gany-tany-5", gen.ErrInvalidPractice},
		{"a filter no puzzle meets", gen.PracticeFilter{Difficulty: 1, Goal: gen.GoalDefend}, "", gen.ErrFilterUnmet},
		{"a win's theme with another goal", gen.PracticeFilter{Goal: gen.GoalMaxCapture, Theme: "majority"}, "", gen.ErrFilterUnmet},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if sp, err := feed.Practice(ctx, tc.filter, tc.after); !errors.Is(err, tc.want) {
				t.Fatalf("Practice(%+v, %q) = %q (%v), want %v", tc.filter, tc.after, sp.Puzzle.ID, err, tc.want)
			}
		})
	}
	t.Run("by id", func(t *testing.T) {
		for _, id := range []string{"x1-d1-gdefend-tany-3", "x4-d0-gany-tany-1", "x1-d0-gany-tany-01", "x"} {
			if _, err := feed.ByID(ctx, id); !errors.Is(err, puzzles.ErrNotFound) {
				t.Errorf("ByID(%q): %v, want ErrNotFound", id, err)
			}
		}
	})
	t.Run("no pool", func(t *testing.T) {
		bare := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{})
		if _, err := bare.Practice(ctx, gen.PracticeFilter{}, ""); !errors.Is(err, puzzles.ErrNoPool) {
			t.Fatalf("Practice without a pool: %v", err)
		}
		if _, err := bare.ByID(ctx, "x1-d0-gany-tany-1"); !errors.Is(err, puzzles.ErrNoPool) {
			t.Fatalf("ByID without a pool: %v", err)
		}
	})
	t.Run("busy, then bounded by the context", func(t *testing.T) {
		started, release := make(chan struct{}, 1), make(chan struct{})
		busy := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
			Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeConcurrency: 1,
			Practice: blockingPractice(started, release), VerifyPractice: puzzletest.CheckMadeUp,
		})
		first := make(chan error, 1)
		go func() {
			_, err := busy.Practice(ctx, gen.PracticeFilter{}, "")
			first <- err
		}()
		<-started
		if _, err := busy.Practice(ctx, gen.PracticeFilter{}, ""); !errors.Is(err, puzzles.ErrPracticeBusy) {
			t.Fatalf("a second generation while the only slot is taken: %v, want ErrPracticeBusy", err)
		}
		close(release)
		if err := <-first; err != nil {
			t.Fatal(err)
		}
		cctx, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		stuck := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
			Now: func() time.Time { return poolToday }, Cutover: poolToday,
			Practice: blockingPractice(make(chan struct{}, 1), nil), VerifyPractice: puzzletest.CheckMadeUp,
		})
		if _, err := stuck.Practice(cctx, gen.PracticeFilter{}, ""); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("a generation past the request's deadline: %v", err)
		}
	})
}

// dailyTwins: even seqs are the version 1 daily puzzles of the days from
// today (seq 2k: today + k), odd ones DailyPractice's.
func dailyTwins(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
	if seq%2 == 1 {
		return puzzletest.MadeUpPractice(ctx, version, f, seq)
	}
	p, err := gen.Daily(ctx, nil, gen.Day(poolToday).AddDate(0, 0, int(seq/2)), version) // version 1: no table
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
	feed := puzzles.NewFeed(st, testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday.AddDate(0, 0, 1),
		Practice: dailyTwins, PracticeVersion: 1, Rand: func() uint64 { return seq },
		// Version 1 has no practice puzzles of its own: these are daily
		// puzzles and made-up ones, checked for what they are.
		VerifyPractice: func(p gen.Puzzle) error {
			if puzzletest.CheckMadeUp(p) == nil {
				return nil
			}
			q := p
			q.Date = gen.Day(poolToday).AddDate(0, 0, int(seqOf(t, p.ID)/2))
			q.ID = gen.IDFor(q.Date)
			return gen.Verify(nil, q)
		},
	})
	for _, tc := range []struct {
		name  string
		after string
		want  string
	}{
		// Seq 0 is today's daily; its bucket's next seq, 1024, the daily
		// of a day past the cutover, so not looked at.
		{"today's daily is passed over", "", "x1-d0-gany-tany-1024"},
		{"tomorrow's is past the cutover", "x1-d0-gany-tany-1", "x1-d0-gany-tany-2"},
		{"an ordinary one", "x1-d0-gany-tany-2", "x1-d0-gany-tany-3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := feed.Practice(ctx, gen.PracticeFilter{}, tc.after)
			if err != nil || sp.Puzzle.ID != tc.want {
				t.Fatalf("Practice after %q: %q (%v), want %q", tc.after, sp.Puzzle.ID, err, tc.want)
			}
		})
	}
	if _, err := feed.ByID(ctx, "x1-d0-gany-tany-0"); !errors.Is(err, puzzles.ErrNotFound) {
		t.Fatalf("today's daily puzzle by its practice id: %v, want ErrNotFound", err)
	}
	// Today's daily puzzle was generated to compare, not stored:
	// practice requests never write.
	if _, err := st.PuzzleByDate(ctx, poolToday); !errors.Is(err, puzzles.ErrNotFound) {
		t.Fatalf("today's daily puzzle was stored by a practice request: %v", err)
	}
}

// TestPracticeRealPuzzles: practice puzzles of the daily generator prove,
// are served again by id, attempted like daily ones but not counted.
func TestPracticeRealPuzzles(t *testing.T) {
	ctx := context.Background()
	g := puzzles.SharedGenerator()
	if _, err := g.EndgameTable(ctx); err != nil { // built before any request's time runs
		t.Fatal(err)
	}
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{Now: func() time.Time { return poolToday },
		Generator: g, Practice: g.Practice, PracticeTimeout: 5 * time.Minute,
		PracticeVersion: 2}) // the cheaper search; version 3's own test is TestGeneratePracticeV3

	n := 6
	if testing.Short() || puzzles.RaceDetector {
		n = 2
	}
	seen := map[engine.Position]bool{}
	after := ""
	for range n {
		sp, err := feed.Practice(ctx, gen.PracticeFilter{Difficulty: 2}, after)
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

// TestPracticeRealWalkCrossesMisses: a walk of difficulty 5 with the real
// generator through seqs it finds no puzzle for (1010 to 1012 miss): each
// answer is in the bucket after the last one's, whatever seqs were passed
// over, so the answers stay distinct; each proves and is served again by
// id. Seconds of generation per answer: not in -short or under -race.
func TestPracticeRealWalkCrossesMisses(t *testing.T) {
	if testing.Short() || puzzles.RaceDetector {
		t.Skip("generations of difficulty 5: seconds each")
	}
	ctx := context.Background()
	g := puzzles.SharedGenerator()
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{Now: func() time.Time { return poolToday }, Generator: g, Practice: g.Practice,
		PracticeVersion: 2}) // version 2's misses at 1010 to 1012
	f := gen.PracticeFilter{Difficulty: 5}
	after := fmt.Sprintf("x%d-d5-gany-tany-1009", 2)
	seen := map[engine.Position]string{}
	crossed := 0
	for k := range 4 {
		var sp puzzles.Stored
		var err error
		for range 5 { // a loaded machine may need the same request again
			if sp, err = feed.Practice(ctx, f, after); !errors.Is(err, puzzles.ErrPracticeTimeout) {
				break
			}
		}
		if err != nil {
			t.Fatalf("answer %d after %s: %v", k, after, err)
		}
		p := sp.Puzzle
		seq := seqOf(t, p.ID)
		if seq%gen.PracticeWindow != uint64(1010+k) || p.Difficulty != 5 {
			t.Fatalf("answer %d: %s, difficulty %d; want bucket %d", k, p.ID, p.Difficulty, 1010+k)
		}
		if seq >= gen.PracticeWindow {
			crossed++
		}
		if prev, ok := seen[p.Position]; ok {
			t.Fatalf("answer %d: %s repeats %s", k, p.ID, prev)
		}
		seen[p.Position] = p.ID
		if err := g.VerifyPractice(ctx, p); err != nil {
			t.Fatal(err)
		}
		if again, err := feed.ByID(ctx, p.ID); err != nil || again.Puzzle.Position != p.Position {
			t.Fatalf("ByID(%s): %v", p.ID, err)
		}
		after = p.ID
	}
	if crossed == 0 {
		t.Fatalf("no answer crossed a miss: the walk no longer tests what it says")
	}
}

// TestVerifyPractice: a practice puzzle proves only as its id says.
func TestVerifyPractice(t *testing.T) {
	base, err := puzzles.SharedGenerator().Practice(context.Background(), gen.Version, gen.PracticeFilter{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	base.ID = fmt.Sprintf("x%d-d0-gany-tany-3", gen.Version)
	for _, tc := range []struct {
		name   string
		change func(p *gen.Puzzle)
		want   error
	}{
		{"as made", func(*gen.Puzzle) {}, nil},
		{"a daily id", func(p *gen.Puzzle) { p.ID = "p20260302" }, gen.ErrUnverified},
		{"a date", func(p *gen.Puzzle) { p.Date = poolToday }, gen.ErrUnverified},
		{"another version's id", func(p *gen.Puzzle) { p.ID = "x1-d0-gany-tany-3" }, gen.ErrUnverified},
		{"another bucket's seq", func(p *gen.Puzzle) { p.ID = fmt.Sprintf("x%d-d0-gany-tany-4", p.Version) }, gen.ErrUnverified},
		{"another filter's id", func(p *gen.Puzzle) { p.ID = fmt.Sprintf("x%d-d%d-gany-tany-3", p.Version, p.Difficulty%5+1) }, gen.ErrUnverified},
		{"a wrong solution", func(p *gen.Puzzle) { p.Solution = []int{(p.Solution[0] + 1) % 12} }, gen.ErrUnverified},
		{"an unknown version", func(p *gen.Puzzle) { p.Version = 7 }, gen.ErrUnknownVersion},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base
			tc.change(&p)
			if err := puzzles.SharedGenerator().VerifyPractice(context.Background(), p); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
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
		sp, err := feed.Practice(ctx, gen.PracticeFilter{Difficulty: 3}, after)
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
	sp, err := feed.Practice(ctx, gen.PracticeFilter{}, "")
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
// is passed over for the next of the same bucket, so the walk's buckets
// still advance by one per answer; a miss is remembered (asking for it by
// id costs nothing); a filter that misses missLimit generations in a row is
// one no puzzle meets.
func TestPracticeMisses(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	calls := map[string]int{}
	// Bucket 10 misses at seqs 10 and 1034; difficulty 4 always misses.
	holes := func(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
		mu.Lock()
		calls[gen.PracticeID{Version: version, Filter: f, Seq: seq}.String()]++
		mu.Unlock()
		if seq == 10 || seq == 1034 || f.Difficulty == 4 {
			return gen.Puzzle{}, fmt.Errorf("%w: seq %d", gen.ErrNoPuzzle, seq)
		}
		return puzzletest.MadeUpPractice(ctx, version, f, seq)
	}
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeConcurrency: 1, PracticeVersion: 1,
		Practice: holes, VerifyPractice: puzzletest.CheckMadeUp,
	})
	for _, tc := range []struct {
		name, after, want string
	}{
		{"two misses", "x1-d0-gany-tany-9", "x1-d0-gany-tany-2058"},
		{"the next bucket", "x1-d0-gany-tany-2058", "x1-d0-gany-tany-2059"},
		{"the misses again", "x1-d0-gany-tany-9", "x1-d0-gany-tany-2058"},
	} {
		sp, err := feed.Practice(ctx, gen.PracticeFilter{}, tc.after)
		if sp.Puzzle.ID != tc.want || err != nil {
			t.Fatalf("%s: after %s: %q (%v), want %q", tc.name, tc.after, sp.Puzzle.ID, err, tc.want)
		}
	}
	for range 2 {
		if _, err := feed.ByID(ctx, "x1-d0-gany-tany-10"); !errors.Is(err, puzzles.ErrNotFound) {
			t.Fatalf("a seq with no puzzle, by id: %v", err)
		}
	}
	if calls["x1-d0-gany-tany-10"] != 1 || calls["x1-d0-gany-tany-2058"] != 1 {
		t.Fatalf("generations per seq %v: seq 10 and 2058 once each", calls)
	}
	d4 := gen.PracticeFilter{Difficulty: 4}
	for range 3 {
		if _, err := feed.Practice(ctx, d4, ""); !errors.Is(err, gen.ErrFilterUnmet) {
			t.Fatalf("a filter that always misses: %v, want ErrFilterUnmet", err)
		}
	}
	n := 0
	for id, c := range calls {
		if strings.HasPrefix(id, "x1-d4-") {
			n += c
		}
	}
	if n != puzzles.MissLimit {
		t.Fatalf("%d generations of a filter that always misses, want %d, then none", n, puzzles.MissLimit)
	}
}

// TestPracticeTimeout: a request whose time runs out while the generator
// is still at work is ErrPracticeTimeout; the generation runs on, and the
// same request asked again gets its puzzle without another generation.
func TestPracticeTimeout(t *testing.T) {
	ctx := context.Background()
	started, release := make(chan struct{}, 1), make(chan struct{})
	slow := countedPractice(blockingPractice(started, release))
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeVersion: 1,
		PracticeTimeout: 20 * time.Millisecond, Rand: func() uint64 { return 5 },
		Practice:       slow.practice,
		VerifyPractice: puzzletest.CheckMadeUp,
	})
	if _, err := feed.Practice(ctx, gen.PracticeFilter{}, ""); !errors.Is(err, puzzles.ErrPracticeTimeout) {
		t.Fatalf("a request out of time: %v, want ErrPracticeTimeout", err)
	}
	<-started
	close(release)
	// The detached generation finishes and is remembered; poll for it
	// (bounded): the answer of the same request is then at once.
	if got, n := awaitPractice(t, feed, gen.PracticeFilter{}), slow.count(); got != "x1-d0-gany-tany-5" || n != 1 {
		t.Fatalf("after the timeout: %s, %d generations, want x1-d0-gany-tany-5 from one", got, n)
	}
	// The caller's own deadline stays a deadline, not ErrPracticeTimeout.
	stuck := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday,
		Practice: blockingPractice(make(chan struct{}, 1), nil), VerifyPractice: puzzletest.CheckMadeUp,
	})
	cctx, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := stuck.Practice(cctx, gen.PracticeFilter{}, ""); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, puzzles.ErrPracticeTimeout) {
		t.Fatalf("past the caller's deadline: %v", err)
	}
}

// TestPracticeRandomStartResumes: a request without after that runs out
// of time leaves its generation running in the only slot; asking again the
// same way joins that generation (a timeout again while it runs, but no
// second generation, which would wait for the slot and end in
// practice_busy when requests have more time than the slot's wait) and
// then gets its puzzle; the request after that draws a start of its own.
func TestPracticeRandomStartResumes(t *testing.T) {
	ctx := context.Background()
	started, release := make(chan struct{}, 4), make(chan struct{})
	var mu sync.Mutex
	draws := uint64(4)
	slow := countedPractice(blockingPractice(started, release))
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeVersion: 1, PracticeConcurrency: 1,
		PracticeTimeout: 20 * time.Millisecond,
		Rand: func() uint64 {
			mu.Lock()
			defer mu.Unlock()
			draws++
			return draws
		},
		Practice:       slow.practice,
		VerifyPractice: puzzletest.CheckMadeUp,
	})
	f := gen.PracticeFilter{Difficulty: 2}
	if _, err := feed.Practice(ctx, f, ""); !errors.Is(err, puzzles.ErrPracticeTimeout) {
		t.Fatalf("a request out of time: %v, want ErrPracticeTimeout", err)
	}
	<-started
	if _, err := feed.Practice(ctx, f, ""); !errors.Is(err, puzzles.ErrPracticeTimeout) {
		t.Fatalf("asking again while the generation runs: %v, want ErrPracticeTimeout", err)
	}
	close(release)
	got, n := awaitPractice(t, feed, f), slow.count()
	if got != "x1-d2-gany-tany-5" || n != 1 {
		slow.mu.Lock()
		defer slow.mu.Unlock()
		t.Fatalf("after the timeouts: %s from %d generations (seqs %v), want x1-d2-gany-tany-5 from one", got, n, slow.seqs)
	}
	sp, err := feed.Practice(ctx, f, "")
	if err != nil || sp.Puzzle.ID == got {
		t.Fatalf("the request after the answer: %s %v, want a start of its own", sp.Puzzle.ID, err)
	}
}

// TestPracticeSameIDOnce: concurrent requests for one practice puzzle share
// one generation, which does not take a second slot, while a request for
// another id finds the only slot taken.
func TestPracticeSameIDOnce(t *testing.T) {
	ctx := context.Background()
	started, release := make(chan struct{}, 8), make(chan struct{})
	slow := countedPractice(blockingPractice(started, release))
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return poolToday }, Cutover: poolToday, PracticeVersion: 1, PracticeConcurrency: 1,
		Practice:       slow.practice,
		VerifyPractice: puzzletest.CheckMadeUp,
	})
	const n = 8
	errs := make(chan error, n)
	for range n {
		go func() {
			sp, err := feed.ByID(ctx, "x1-d2-gany-tany-7")
			if err == nil && sp.Puzzle.ID != "x1-d2-gany-tany-7" {
				err = fmt.Errorf("got %s", sp.Puzzle.ID)
			}
			errs <- err
		}()
	}
	<-started
	if _, err := feed.ByID(ctx, "x1-d2-gany-tany-8"); !errors.Is(err, puzzles.ErrPracticeBusy) {
		t.Fatalf("another id while the only slot is taken: %v, want ErrPracticeBusy", err)
	}
	close(release)
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	// The busy id was never generated; the shared one once (a request that
	// came after the generation ended finds it made).
	if calls := slow.count(); calls != 1 {
		t.Fatalf("%d generations for %d concurrent requests of one id, want 1", calls, n)
	}
}

// seqOf is a practice id's sequence number.
func seqOf(t *testing.T, id string) uint64 {
	t.Helper()
	pid, err := gen.ParsePracticeID(id)
	if err != nil {
		t.Fatal(err)
	}
	return pid.Seq
}
