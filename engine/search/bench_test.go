package search

import (
	"context"
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// benchPositions are a spread of game stages: the start, a middle game and a
// sparse ending.
var benchPositions = []string{
	"s-444444-444444-0-0",
	"n-270616-660066-2-0",
	"s-306150-0a2041-4-12",
	"n-102030-010204-17-18",
}

// BenchmarkSearch measures the search's speed in positions visited per
// second: each iteration searches every bench position to a fixed node count.
func BenchmarkSearch(b *testing.B) {
	benchSearch(b, NewSearcher(DefaultHash))
}

// BenchmarkSearchEndgame is BenchmarkSearch with an endgame table of every
// position with up to 12 seeds (built before the clock starts, a few
// seconds): a position in it ends its line, scored exactly.
func BenchmarkSearchEndgame(b *testing.B) {
	tb, err := benchTable()
	if err != nil {
		b.Fatal(err)
	}
	// scores: the table's true scores, as an analysis takes them now;
	// values: the same table seen as result-only, as before true scores.
	for _, bc := range []struct {
		name  string
		table Endgame
	}{{"scores", tb}, {"values", resultOnly{tb}}} {
		b.Run(bc.name, func(b *testing.B) {
			e, err := NewEndgames(bc.table)
			if err != nil {
				b.Fatal(err)
			}
			benchSearch(b, NewSearcher(DefaultHash, WithEndgames(e)))
		})
	}
}

// benchTable builds the benchmarks' 12-seed table once, however many times
// the benchmark function runs.
var benchTable = sync.OnceValues(func() (*tablebase.Table, error) {
	return tablebase.Build(context.Background(), 12, engine.Rules{}, testWorkers, nil)
})

func benchSearch(b *testing.B, s *Searcher) {
	b.ReportAllocs()
	var nodes uint64
	for b.Loop() {
		for _, n := range benchPositions {
			a, err := s.Analyze(context.Background(), engine.MustParse(n), engine.Rules{}, nil, Limits{Nodes: 200_000, BestOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			nodes += a.Nodes
		}
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkAIMove measures one AI move at the strongest level, its node
// budget cut so that the move is quick and the cost of its table shows:
// fresh makes a table for every move (16 MiB, the level's size), as
// ChooseMove does; pooled borrows a searcher from a Pool and reuses its
// table. The clock is off, so both play the same moves.
func BenchmarkAIMove(b *testing.B) {
	lv, err := LevelOf(MaxLevel)
	if err != nil {
		b.Fatal(err)
	}
	lv.Nodes, lv.Time = 5_000, 0
	positions := make([]engine.Position, len(benchPositions))
	for i, n := range benchPositions {
		positions[i] = engine.MustParse(n)
	}
	ctx := context.Background()
	run := func(b *testing.B, choose func(p engine.Position, seed uint64) (int, error)) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := choose(positions[i%len(positions)], uint64(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
	b.Run("fresh", func(b *testing.B) {
		run(b, func(p engine.Position, seed uint64) (int, error) {
			return chooseFresh(ctx, p, engine.Rules{}, nil, lv, seed)
		})
	})
	b.Run("pooled", func(b *testing.B) {
		pool := NewPool(1)
		run(b, func(p engine.Position, seed uint64) (int, error) {
			return pool.chooseMove(ctx, p, engine.Rules{}, nil, lv, seed)
		})
	})
}
