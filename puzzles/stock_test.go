package puzzles_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/puzzles/puzzletest"
	"github.com/ayoayo/ayoayo/store/memory"
)

// stockStore is what a stock test's feeds share.
type stockStore interface {
	puzzles.Store
	puzzles.StockStore
}

// counting is a made-up practice generator that counts its generations by
// filter, for one instance.
type counting struct {
	mu sync.Mutex
	n  map[gen.PracticeFilter]int
}

func (c *counting) practice(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[gen.PracticeFilter]int{}
	}
	c.n[f]++
	c.mu.Unlock()
	return madeUpStock(ctx, version, f, seq)
}

// madeUpStock is MadeUpPractice, but that a puzzle of difficulty 1 is a
// win: the made-up generator draws defend for every third seq, which it
// cannot meet at difficulty 1 (the real generator does not draw goals it
// cannot meet).
func madeUpStock(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
	if f.Difficulty == 1 && f.Goal == "" {
		p, err := puzzletest.MadeUpPractice(ctx, version, gen.PracticeFilter{Difficulty: 1, Goal: gen.GoalWin, Theme: f.Theme}, seq)
		return p, err
	}
	return puzzletest.MadeUpPractice(ctx, version, f, seq)
}

func (c *counting) count(f gen.PracticeFilter) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[f]
}

// stockFeed is a made-up feed over st with a stock of size puzzles per
// filter, in a budget of its own; gen makes its puzzles (nil:
// MadeUpPractice).
func stockFeed(st stockStore, size int, generator puzzles.PracticeFunc, o puzzles.FeedOptions) *puzzles.Feed {
	return stockFeedIn(testCPU(), st, size, generator, o)
}

// stockFeedIn is stockFeed in the budget cpu.
func stockFeedIn(cpu *budget.Budget, st stockStore, size int, generator puzzles.PracticeFunc, o puzzles.FeedOptions) *puzzles.Feed {
	if generator == nil {
		generator = madeUpStock
	}
	o.Now = func() time.Time { return poolToday }
	o.Practice, o.VerifyPractice, o.Cutover = generator, puzzletest.CheckMadeUp, poolToday
	o.Stock, o.StockSize = st, size
	return puzzles.NewFeed(st, cpu, o)
}

// fillStock steps s until it has nothing left to do, within a bound.
func fillStock(t *testing.T, s *puzzles.Stocker) int {
	t.Helper()
	for steps := range 10000 {
		worked, err := s.Step(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if !worked {
			return steps
		}
	}
	t.Fatal("the stocker never finished")
	return 0
}

// TestStockServesWhatIDsMake: every puzzle a walk is served from the stock
// is exactly the puzzle its id makes on an instance with an empty stock;
// the walk goes on with the stock's next buckets, and on demand past them.
// That a stocked row reads back as it was written, through a database's
// columns, is the stores' conformance suite's (store/storetest).
func TestStockServesWhatIDsMake(t *testing.T) {
	ctx := t.Context()
	st := memory.New()
	const size = 4
	generator := &counting{}
	feed := stockFeed(st, size, generator.practice, puzzles.FeedOptions{Rand: func() uint64 { return 2 }})
	stocker, err := feed.NewStocker("a")
	if err != nil {
		t.Fatal(err)
	}
	fillStock(t, stocker)
	empty := stockFeed(memory.New(), 0, nil, puzzles.FeedOptions{})
	for _, f := range puzzles.StockedFilters() {
		t.Run(puzzles.FilterKey(f), func(t *testing.T) {
			if n, err := st.StockedBuckets(ctx, gen.PracticeVersion, puzzles.FilterKey(f)); err != nil || n != size {
				t.Fatalf("stock of %d, %v; want %d", n, err, size)
			}
			made := generator.count(f)
			after := ""
			var ids []string
			for range size - 2 + 1 { // from bucket 2 (Rand) to the last stocked, then one on demand
				sp, err := feed.Practice(ctx, f, after)
				if err != nil {
					t.Fatal(err)
				}
				again, err := empty.ByID(ctx, sp.Puzzle.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(sp.Puzzle, again.Puzzle) {
					t.Fatalf("served %+v\nits id makes %+v", sp.Puzzle, again.Puzzle)
				}
				after = sp.Puzzle.ID
				ids = append(ids, after)
			}
			key := puzzles.FilterKey(f)
			want := []string{"x3-" + key + "-2", "x3-" + key + "-3", "x3-" + key + "-4"}
			if !reflect.DeepEqual(ids, want) {
				t.Errorf("walk %v, want %v", ids, want)
			}
			if got := generator.count(f) - made; got != 1 {
				t.Errorf("%d generations for the walk, want 1 (past the stock)", got)
			}
		})
	}
}

// TestStockTwoInstances: two instances (two feeds) share one store: each
// filter's stock is made by one of them only, and a walk that goes from
// one to the other, in and out of the stock, never repeats a puzzle within
// PracticeWindow answers.
func TestStockTwoInstances(t *testing.T) {
	ctx := t.Context()
	st := memory.New()
	const size = 8
	gens := [2]*counting{{}, {}}
	var (
		feeds    [2]*puzzles.Feed
		stockers [2]*puzzles.Stocker
	)
	for i := range feeds {
		feeds[i] = stockFeed(st, size, gens[i].practice, puzzles.FeedOptions{})
		var err error
		if stockers[i], err = feeds[i].NewStocker(fmt.Sprint("instance", i)); err != nil {
			t.Fatal(err)
		}
	}
	// The two step in turns until neither has anything left to do.
	for range 1000 {
		a, err := stockers[0].Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		b, err := stockers[1].Step(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !a && !b {
			break
		}
	}
	for _, f := range puzzles.StockedFilters() {
		n0, n1 := gens[0].count(f), gens[1].count(f)
		if n0+n1 == 0 || (n0 > 0 && n1 > 0) {
			t.Errorf("%s: made %d and %d times by the two instances, want by one only", puzzles.FilterKey(f), n0, n1)
		}
		if n, err := st.StockedBuckets(ctx, gen.PracticeVersion, puzzles.FilterKey(f)); err != nil || n != size {
			t.Errorf("%s: stock of %d, %v; want %d", puzzles.FilterKey(f), n, err, size)
		}
	}
	n := gen.PracticeWindow
	if puzzles.RaceDetector {
		n = 256
	}
	for _, f := range []gen.PracticeFilter{{}, {Goal: gen.GoalWin}} {
		seen := map[engine.Position]string{}
		after := ""
		for i := range n {
			sp, err := feeds[i%2].Practice(ctx, f, after)
			if err != nil {
				t.Fatalf("answer %d: %v", i, err)
			}
			if prev, ok := seen[sp.Puzzle.Position]; ok {
				t.Fatalf("answer %d: %s repeats %s", i, sp.Puzzle.ID, prev)
			}
			seen[sp.Puzzle.Position] = sp.Puzzle.ID
			after = sp.Puzzle.ID
		}
	}
}

// failingStock is a store whose stock cannot be read.
type failingStock struct {
	*memory.Store
}

var errStockDown = errors.New("stock down")

func (failingStock) StockBucket(context.Context, int, string, int) ([]puzzles.Stocked, error) {
	return nil, errStockDown
}

func (failingStock) StockedBuckets(context.Context, int, string) (int, error) { return 0, errStockDown }

// TestStockUnreadable: a stock that cannot be read is gone around: the
// answer is made on demand, as without a stock.
func TestStockUnreadable(t *testing.T) {
	feed := stockFeed(failingStock{memory.New()}, 4, nil, puzzles.FeedOptions{Rand: func() uint64 { return 9 }})
	for _, after := range []string{"", "x3-d0-gany-tany-41"} {
		sp, err := feed.Practice(t.Context(), gen.PracticeFilter{}, after)
		if err != nil || sp.Puzzle.ID == "" {
			t.Errorf("after %q: %q, %v; want a puzzle made on demand", after, sp.Puzzle.ID, err)
		}
	}
}

// TestStockYields: a stock generation gives its unit of the budget back as
// soon as a generation someone waits for needs it, and is made again later.
func TestStockYields(t *testing.T) {
	ctx := t.Context()
	cpu := budget.New(1)
	started := make(chan struct{}, 1)
	var once sync.Once
	// The first generation runs until it is told to stop; later ones are
	// made at once.
	generator := func(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
		first := false
		once.Do(func() { first = true })
		if first {
			started <- struct{}{}
			<-ctx.Done()
			return gen.Puzzle{}, ctx.Err()
		}
		return madeUpStock(ctx, version, f, seq)
	}
	st := memory.New()
	feed := stockFeedIn(cpu, st, 1, generator, puzzles.FeedOptions{})
	stocker, err := feed.NewStocker("a")
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		worked bool
		err    error
	}
	done := make(chan step, 1)
	go func() {
		worked, err := stocker.Step(ctx)
		done <- step{worked, err}
	}()
	<-started
	release, err := cpu.Acquire(ctx, budget.Request{Priority: budget.Generation, Wait: 10 * time.Second})
	if err != nil {
		t.Fatalf("live work waited behind the stock: %v", err)
	}
	release()
	if got := <-done; got.worked || got.err != nil {
		t.Fatalf("preempted step: worked %v, %v; want nothing done, no error", got.worked, got.err)
	}
	fillStock(t, stocker)
	if n, err := st.StockedBuckets(ctx, gen.PracticeVersion, "d0-gany-tany"); err != nil || n != 1 {
		t.Fatalf("stock of %d, %v after the preempted seq was made again; want 1", n, err)
	}
}

// failPractice is a practice generator that must not run.
func failPractice(tb testing.TB) puzzles.PracticeFunc {
	return func(context.Context, int, gen.PracticeFilter, uint64) (gen.Puzzle, error) {
		tb.Error("a practice puzzle was generated: the stock was missed")
		return gen.Puzzle{}, errors.New("no generation here")
	}
}

// TestStockDailyCheck: before the cutover, a stocked puzzle was compared
// with the upcoming daily puzzles when it was made; it is compared again
// (which may mean making a day's puzzle) only when the day its bucket now
// stands for lies beyond the days it was compared with.
func TestStockDailyCheck(t *testing.T) {
	tests := []struct {
		name      string
		made      time.Time
		wantDaily bool
	}{
		{"stocked today", poolToday, false},
		{"stocked a week ago", poolToday.AddDate(0, 0, -7), false},
		{"stocked two windows ago", poolToday.AddDate(0, 0, -2*gen.Window), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			st := memory.New()
			dailies := 0
			feed := puzzles.NewFeed(st, testCPU(), puzzles.FeedOptions{
				Now: func() time.Time { return poolToday }, Cutover: poolToday.AddDate(5, 0, 0),
				Practice: failPractice(t), VerifyPractice: puzzletest.CheckMadeUp, Stock: st, StockSize: 4,
				Generate: func(ctx context.Context, d time.Time) (gen.Puzzle, error) {
					dailies++
					return gen.Puzzle{}, errors.New("no daily puzzle here")
				},
			})
			f := gen.PracticeFilter{Difficulty: 3}
			p, err := madeUpStock(ctx, gen.PracticeVersion, f, 5)
			if err != nil {
				t.Fatal(err)
			}
			p.ID = "x3-d3-gany-tany-5"
			if _, err := st.AddStock(ctx, puzzles.Stocked{Filter: "d3-gany-tany", Bucket: 5, Seq: 5, Puzzle: p}, tt.made); err != nil {
				t.Fatal(err)
			}
			sp, err := feed.Practice(ctx, f, "x3-d3-gany-tany-4")
			if tt.wantDaily {
				if dailies == 0 {
					t.Errorf("served %q (%v) without comparing it with the daily puzzle of its day", sp.Puzzle.ID, err)
				}
				return
			}
			if err != nil || sp.Puzzle.ID != p.ID || dailies != 0 {
				t.Errorf("%q, %v, %d daily generations; want %s from the stock, none", sp.Puzzle.ID, err, dailies, p.ID)
			}
			// By id (to attempt it), the same.
			if byID, err := feed.ByID(ctx, p.ID); err != nil || byID.Puzzle.ID != p.ID || dailies != 0 {
				t.Errorf("by id: %q, %v, %d daily generations; want %s from the stock, none", byID.Puzzle.ID, err, dailies, p.ID)
			}
		})
	}
}

// TestStockPassesOver: a filter whose seqs all miss does not hold up the
// others: its buckets are passed over after their tries, and the stocker
// goes on to the next filter.
func TestStockPassesOver(t *testing.T) {
	ctx := t.Context()
	st := memory.New()
	generator := func(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
		if f == (gen.PracticeFilter{}) {
			return gen.Puzzle{}, fmt.Errorf("%w: never, here", gen.ErrNoPuzzle)
		}
		return madeUpStock(ctx, version, f, seq)
	}
	stocker, err := stockFeed(st, 2, generator, puzzles.FeedOptions{}).NewStocker("a")
	if err != nil {
		t.Fatal(err)
	}
	fillStock(t, stocker)
	for _, f := range puzzles.StockedFilters() {
		want := 2
		if f == (gen.PracticeFilter{}) {
			want = 0
		}
		if n, err := st.StockedBuckets(ctx, gen.PracticeVersion, puzzles.FilterKey(f)); err != nil || n != want {
			t.Errorf("%s: stock of %d, %v; want %d", puzzles.FilterKey(f), n, err, want)
		}
	}
}
