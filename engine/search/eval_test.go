package search

import (
	"math/rand/v2"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// evaluateSlow is the evaluation written pit by pit, as the Weights doc
// describes it, to check the packed one.
func evaluateSlow(w Weights, p engine.Position) int {
	me, opp := p.ToMove, p.ToMove.Other()
	v := unit*(int(p.Captured[me])-int(p.Captured[opp])) + w.Tempo
	for pit := range engine.NumPits {
		n := int(p.Pits[pit])
		sign := 1
		if !me.Owns(pit) {
			sign = -1
		}
		v += sign * w.Row * n
		if n > 0 {
			v += sign * w.Pits
		}
		if n >= 12 {
			v += sign * w.Hoard
		}
		if n == 0 {
			v += sign * w.Target * int(p.Pits[engine.Opposite(pit)])
		}
	}
	return v
}

func TestEvaluateMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	weights := []Weights{DefaultWeights, {Row: 3, Pits: -7, Hoard: 11, Target: 13, Tempo: 17}}
	for i := range 5000 {
		var p engine.Position
		seeds := rng.IntN(engine.SeedCount + 1)
		for range seeds {
			// Bunch seeds up now and then so big pits (hoards) occur.
			pit := rng.IntN(engine.NumPits)
			if i%3 == 0 {
				pit = rng.IntN(3)
			}
			p.Pits[pit]++
		}
		south := rng.IntN(engine.SeedCount - seeds + 1)
		p.Captured = [2]uint8{uint8(south), uint8(engine.SeedCount - seeds - south)}
		p.ToMove = engine.Side(i % 2)
		for _, w := range weights {
			if got, want := w.evaluate(&p), evaluateSlow(w, p); got != want {
				t.Fatalf("%s %+v: evaluate %d, want %d", p, w, got, want)
			}
		}
	}
}
