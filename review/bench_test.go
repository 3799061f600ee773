package review_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/review"
)

// gameOf returns a game of exactly plies moves from the start, played at
// random with a preference for moves that capture nothing (random play
// captures so much that few games last 100 plies), the first such game of
// a fixed sequence of seeds.
func gameOf(tb testing.TB, plies int) review.Record {
	tb.Helper()
	rng := rand.New(rand.NewPCG(uint64(plies), 33))
	for range 10_000 {
		g, _ := engine.NewGame(engine.Start(), engine.Rules{})
		var out engine.Outcome
		for g.Ply() < plies && !g.Result().Over() {
			p := g.Position()
			var quiet, all []int
			for m := p.LegalMoves(engine.Rules{}); m != 0; {
				pit := m.Next()
				all = append(all, pit)
				if q, _ := p.Apply(pit, engine.Rules{}); q.Captured == p.Captured {
					quiet = append(quiet, pit)
				}
			}
			if len(quiet) > 0 && rng.IntN(4) > 0 {
				all = quiet
			}
			if err := g.Play(all[rng.IntN(len(all))], &out); err != nil {
				tb.Fatal(err)
			}
		}
		if g.Ply() == plies {
			return review.Record{Start: engine.Start(), Moves: slices.Clone(g.Moves())}
		}
	}
	tb.Fatalf("no game lasts %d plies", plies)
	return review.Record{}
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReview reviews games of 40, 60 and 100 plies with the default
// search budget per ply, on one unit of the budget and no endgame table
// (the slowest case: a table answers the endings at once).
//
//	go test ./review -run '^$' -bench BenchmarkReview -benchtime 1x
func BenchmarkReview(b *testing.B) {
	for _, plies := range []int{40, 60, 100} {
		b.Run(fmt.Sprintf("plies=%d", plies), func(b *testing.B) {
			rec := gameOf(b, plies)
			rv := review.New(budget.New(1), review.Options{})
			cpu := cpuTime(b)
			for b.Loop() {
				if _, err := rv.Review(context.Background(), rec, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/review")
			// CPU time is what the review would take on an idle core: the
			// figure that does not move with the machine's load.
			b.ReportMetric((cpuTime(b)-cpu).Seconds()/float64(b.N), "cpu-s/review")
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N*plies), "ms/ply")
		})
	}
}
