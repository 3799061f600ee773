package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/puzzles/puzzletest"
)

// BenchmarkPracticeFromStock: a practice request served from a full stock
// of one filter in SQLite, walking on from the last answer: the p50 and p99
// of its latency, in process (the HTTP layer adds its own, the same for any
// answer). Target: p99 <= 20 ms (docs/practice-stock.md). It lives here,
// not in puzzles, because it measures this store: the puzzles' own tests
// use store/memory.
func BenchmarkPracticeFromStock(b *testing.B) {
	ctx := b.Context()
	st, err := Open(ctx, filepath.Join(b.TempDir(), "stock.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	today := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	f := gen.PracticeFilter{Difficulty: 3}
	for seq := range uint64(gen.PracticeWindow) {
		p, err := puzzletest.MadeUpPractice(ctx, gen.PracticeVersion, f, seq)
		if err != nil {
			b.Fatal(err)
		}
		p.ID = gen.PracticeID{Version: gen.PracticeVersion, Filter: f, Seq: seq}.String()
		row := puzzles.Stocked{Filter: puzzles.FilterKey(f), Bucket: int(seq), Seq: seq, Puzzle: p}
		if _, err := st.AddStock(ctx, row, today); err != nil {
			b.Fatal(err)
		}
	}
	// No generation may run: a miss of the stock fails the benchmark.
	feed := puzzles.NewFeed(st, budget.New(1), puzzles.FeedOptions{
		Now: func() time.Time { return today }, Cutover: today,
		Practice: func(context.Context, int, gen.PracticeFilter, uint64) (gen.Puzzle, error) {
			b.Error("a practice puzzle was generated: the stock was missed")
			return gen.Puzzle{}, errors.New("no generation here")
		},
		VerifyPractice: puzzletest.CheckMadeUp, Stock: st, StockSize: gen.PracticeWindow,
	})
	var took []time.Duration
	after := ""
	for b.Loop() {
		start := time.Now()
		sp, err := feed.Practice(ctx, f, after)
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		after = sp.Puzzle.ID
	}
	slices.Sort(took)
	ms := func(q float64) float64 {
		return float64(took[min(int(q*float64(len(took))), len(took)-1)].Microseconds()) / 1000
	}
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}
