package search

import (
	"context"
	"flag"
	"testing"
)

var tune = flag.Bool("tune", false, "tune the evaluation weights by self-play (slow; prints results)")
var tuneLevel = flag.Int("tune-level", 4, "level whose search the tuning games use")
var tuneGames = flag.Int("tune-games", 400, "games per comparison")

// TestTune is the self-play tuning that chose DefaultWeights: coordinate
// ascent, each step a paired match of the candidate against the current best
// at a fixed search depth. Run with -tune; it asserts nothing.
func TestTune(t *testing.T) {
	if !*tune {
		t.Skip("run with -tune")
	}
	best := DefaultWeights
	fields := []struct {
		name string
		get  func(*Weights) *int
		step int
	}{
		{"Row", func(w *Weights) *int { return &w.Row }, 5},
		{"Pits", func(w *Weights) *int { return &w.Pits }, 10},
		{"Hoard", func(w *Weights) *int { return &w.Hoard }, 25},
		{"Target", func(w *Weights) *int { return &w.Target }, 5},
		{"Tempo", func(w *Weights) *int { return &w.Tempo }, 25},
	}
	seed := uint64(100)
	for round := 0; round < 3; round++ {
		improved := false
		for _, f := range fields {
			for _, dir := range []int{1, -1} {
				for {
					cand := best
					*f.get(&cand) += dir * f.step
					seed++
					res, err := PlayMatch(context.Background(), MatchConfig{
						A: Player{Level: *tuneLevel, Weights: &cand}, B: Player{Level: *tuneLevel, Weights: &best},
						Games: *tuneGames, Seed: seed, Workers: 2, Balance: DefaultBalance,
					})
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%s %+d: %+v vs %+v: %.1f%% (seeds %+.2f)", f.name, dir*f.step, cand, best, 100*res.Score(), float64(res.SeedDiff)/float64(res.Games))
					if res.Score() <= 0.53 {
						break
					}
					best = cand
					improved = true
				}
			}
		}
		t.Logf("round %d: %+v", round, best)
		if !improved {
			break
		}
	}
}
