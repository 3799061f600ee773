package puzzles_test

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/memory"
)

// aheadRows makes the stock rows of filter's first n buckets as `ayoayo
// puzzles ahead` does: the first seq of each bucket that gives a puzzle.
func aheadRows(t *testing.T, f gen.PracticeFilter, n int) []puzzles.Stocked {
	t.Helper()
	ctx := context.Background()
	tb, err := puzzles.SharedGenerator().EndgameTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []puzzles.Stocked
	for b := range n {
		for try := uint64(0); ; try++ {
			id := gen.PracticeID{Version: gen.PracticeVersion, Filter: f, Seq: uint64(b) + try*gen.PracticeWindow}
			p, err := gen.Practice(ctx, tb, id.Version, f, id.Seq)
			if errors.Is(err, gen.ErrNoPuzzle) && try < 64 {
				continue
			}
			if err != nil {
				t.Fatalf("%s: %v", id, err)
			}
			p.ID = id.String()
			rows = append(rows, puzzles.Stocked{Filter: puzzles.FilterKey(f), Bucket: b, Seq: id.Seq, Puzzle: p})
			break
		}
	}
	return rows
}

// TestAheadServesAtOnce: a feed with puzzles made ahead answers the day
// they hold and a practice walk of a stocked filter from them, with an
// empty store, without generating either; the set survives its encoding;
// a row that is not what it says is refused.
func TestAheadServesAtOnce(t *testing.T) {
	ctx := context.Background()
	today := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	day, err := gen.Daily(ctx, nil, today, 1)
	if err != nil {
		t.Fatal(err)
	}
	filter := gen.PracticeFilter{Goal: gen.GoalMaxCapture}
	set := puzzles.AheadSet{Days: []gen.Puzzle{day}, Stock: aheadRows(t, filter, 2)}

	var buf bytes.Buffer
	if err := set.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := puzzles.DecodeAhead(&buf)
	if err != nil || !reflect.DeepEqual(back, set) {
		t.Fatalf("decoded %+v, %v; want what was encoded", back, err)
	}
	ahead, err := puzzles.NewAhead(back)
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	generated := map[string]int{}
	feed := puzzles.NewFeed(memory.New(), testCPU(), puzzles.FeedOptions{
		Now: func() time.Time { return today },
		// Days other than today may be made to compare a practice puzzle
		// with the daily puzzle of its day; today must not be.
		Generate: func(ctx context.Context, d time.Time) (gen.Puzzle, error) {
			mu.Lock()
			generated[d.Format(gen.DateLayout)]++
			mu.Unlock()
			return gen.Daily(ctx, nil, d, 1)
		},
		Practice: func(context.Context, int, gen.PracticeFilter, uint64) (gen.Puzzle, error) {
			t.Error("a practice puzzle was generated")
			return gen.Puzzle{}, errors.New("no generation here")
		},
		Generator: puzzles.SharedGenerator(),
		Stock:     memory.New(),
		StockSize: 16,
		Ahead:     ahead,
	})

	t.Run("daily", func(t *testing.T) {
		sp, err := feed.ByDate(ctx, today)
		if err != nil || sp.Puzzle.ID != day.ID || !reflect.DeepEqual(sp.Puzzle.Solution, day.Solution) {
			t.Fatalf("%+v, %v; want %s", sp.Puzzle, err, day.ID)
		}
		if n := generated[today.Format(gen.DateLayout)]; n != 0 {
			t.Fatalf("today was generated %d times", n)
		}
	})
	t.Run("practice walk", func(t *testing.T) {
		// A walk after a puzzle of bucket 1023 goes to bucket 0, then 1.
		prev := gen.PracticeID{Version: gen.PracticeVersion, Filter: filter, Seq: gen.PracticeWindow - 1}.String()
		for _, want := range set.Stock {
			sp, err := feed.Practice(ctx, filter, prev)
			if err != nil || sp.Puzzle.ID != want.Puzzle.ID {
				t.Fatalf("after %s: %s, %v; want %s", prev, sp.Puzzle.ID, err, want.Puzzle.ID)
			}
			prev = sp.Puzzle.ID
		}
		sp, err := feed.Practice(ctx, filter, "")
		if err != nil || (sp.Puzzle.ID != set.Stock[0].Puzzle.ID && sp.Puzzle.ID != set.Stock[1].Puzzle.ID) {
			t.Fatalf("without after: %s, %v; want one of the two made ahead", sp.Puzzle.ID, err)
		}
	})
	t.Run("a row that is not what it says", func(t *testing.T) {
		bad := set
		bad.Stock = append([]puzzles.Stocked(nil), set.Stock...)
		bad.Stock[1].Seq = bad.Stock[0].Seq
		if _, err := puzzles.NewAhead(bad); err == nil {
			t.Fatal("NewAhead took a row whose seq is not its id's")
		}
	})
}
