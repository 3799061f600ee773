package search

import (
	"context"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
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
	s := NewSearcher(DefaultHash)
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
