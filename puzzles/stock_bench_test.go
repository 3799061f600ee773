package puzzles_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// BenchmarkPracticeFromStock: a practice request served from a full stock
// of one filter in SQLite, walking on from the last answer: the p50 and p99
// of its latency, in process (the HTTP layer adds its own, the same for any
// answer). Target: p99 <= 20 ms (docs/practice-stock.md).
func BenchmarkPracticeFromStock(b *testing.B) {
	ctx := b.Context()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "stock.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = st.Close() })
	f := gen.PracticeFilter{Difficulty: 3}
	for seq := range uint64(gen.PracticeWindow) {
		p, err := madeUpStock(ctx, gen.PracticeVersion, f, seq)
		if err != nil {
			b.Fatal(err)
		}
		p.ID = gen.PracticeID{Version: gen.PracticeVersion, Filter: f, Seq: seq}.String()
		row := puzzles.Stocked{Filter: puzzles.FilterKey(f), Bucket: int(seq), Seq: seq, Puzzle: p}
		if _, err := st.AddStock(ctx, row, poolToday); err != nil {
			b.Fatal(err)
		}
	}
	// No generation may run: a miss of the stock fails the benchmark.
	feed := stockFeed(st, gen.PracticeWindow, failPractice(b), puzzles.FeedOptions{})
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
