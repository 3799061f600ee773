package tablebase

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// randomPositions returns positions with at most n seeds on the board,
// spread over the levels and both sides to move.
func randomPositions(n, count int, seed uint64) []engine.Position {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]engine.Position, count)
	for i := range out {
		p := &out[i]
		for range rng.IntN(n + 1) {
			p.Pits[rng.IntN(engine.NumPits)]++
		}
		p.ToMove = engine.Side(rng.IntN(2))
	}
	return out
}

func benchProbe(b *testing.B, tb *Table) {
	ps := randomPositions(tb.MaxSeeds(), 1<<16, 3)
	i, sum := 0, 0
	for b.Loop() {
		v, _ := tb.Value(&ps[i&(len(ps)-1)])
		sum += v
		i++
	}
	if sum == 1<<62 {
		b.Log(sum)
	}
}

// BenchmarkProbe probes random positions: a 12-seed table in memory and,
// when AYOAYO_TABLEBASE names a file, that table mapped.
func BenchmarkProbe(b *testing.B) {
	b.Run("N=12/memory", func(b *testing.B) {
		benchProbe(b, build(b, 12, engine.Rules{}))
	})
	if path := os.Getenv("AYOAYO_TABLEBASE"); path != "" {
		tb, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer tb.Close()
		b.Run("file", func(b *testing.B) { benchProbe(b, tb) })
	}
}

func BenchmarkMoves(b *testing.B) {
	tb := build(b, 12, engine.Rules{})
	ps := randomPositions(12, 1<<12, 4)
	var out []MoveValue
	i := 0
	for b.Loop() {
		out, _ = tb.Moves(ps[i&(len(ps)-1)], out)
		i++
	}
}

func BenchmarkBuild12(b *testing.B) {
	for b.Loop() {
		if _, err := Build(context.Background(), 12, engine.Rules{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(LevelSize(12)), "boards/level12")
}
