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

// randomRealPositions returns positions of games still going on with at
// most n seeds on the board: random boards, captured seeds split at random
// with neither side at 25.
func randomRealPositions(n, count int, seed uint64) []engine.Position {
	rng := rand.New(rand.NewPCG(seed, 8))
	out := randomPositions(n, count, seed)
	for i := range out {
		p := &out[i]
		k := p.BoardSeeds()
		cm := maxCaptured - k + rng.IntN(k+1)
		p.Captured[p.ToMove], p.Captured[p.ToMove.Other()] = uint8(cm), uint8(engine.SeedCount-k-cm)
	}
	return out
}

func benchScore(b *testing.B, tb *Table) {
	ps := randomRealPositions(tb.ScoreSeeds(), 1<<16, 3)
	i, sum := 0, 0
	for b.Loop() {
		v, _ := tb.Score(&ps[i&(len(ps)-1)])
		sum += v
		i++
	}
	if sum == 1<<62 {
		b.Log(sum)
	}
}

// BenchmarkProbe probes random positions: a 12-seed table in memory, its
// values (Value) and its true scores (Score), and, when
// AYOAYO_TEST_TABLEBASE names a file, that table mapped.
func BenchmarkProbe(b *testing.B) {
	tb := build(b, 12, engine.Rules{})
	b.Run("N=12/memory", func(b *testing.B) { benchProbe(b, tb) })
	b.Run("N=12/memory/score", func(b *testing.B) { benchScore(b, tb) })
	if path := os.Getenv("AYOAYO_TEST_TABLEBASE"); path != "" {
		tb, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer tb.Close()
		b.Run("file", func(b *testing.B) { benchProbe(b, tb) })
		if tb.ScoreSeeds() >= 0 {
			b.Run("file/score", func(b *testing.B) { benchScore(b, tb) })
		}
	}
}

// BenchmarkMoveScores gives every legal move's true score in a 12-seed
// table.
func BenchmarkMoveScores(b *testing.B) {
	tb := build(b, 12, engine.Rules{})
	ps := randomRealPositions(12, 1<<12, 4)
	var out []MoveValue
	i := 0
	for b.Loop() {
		out, _ = tb.MoveScores(ps[i&(len(ps)-1)], out)
		i++
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

// BenchmarkBuild12 builds the 12-seed table, with the true scores of every
// position (as Build does by default) and without (result-only), and
// reports the sizes.
func BenchmarkBuild12(b *testing.B) {
	for _, bc := range []struct {
		name   string
		scores int
	}{{"scores", 12}, {"result-only", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			var tb *Table
			for b.Loop() {
				var err error
				if tb, err = BuildWith(context.Background(), 12, bc.scores, engine.Rules{}, testWorkers, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(LevelSize(12)), "boards/level12")
			b.ReportMetric(float64(len(tb.body))/1e6, "MB-values")
			b.ReportMetric(float64(len(tb.scores)+openSize*len(tb.open))/1e6, "MB-scores")
			b.ReportMetric(float64(len(tb.open)), "open-entries")
		})
	}
}

// BenchmarkOpen opens the table file named by AYOAYO_TEST_TABLEBASE (skipped
// without it): the header, then the whole body's checksum and byte check.
func BenchmarkOpen(b *testing.B) {
	path := os.Getenv("AYOAYO_TEST_TABLEBASE")
	if path == "" {
		b.Skip("set AYOAYO_TEST_TABLEBASE to a table file")
	}
	for b.Loop() {
		tb, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(tb.body)))
		_ = tb.Close()
	}
}
