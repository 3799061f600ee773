package engine

import (
	"math/rand/v2"
	"testing"
)

// TestRowMargin: RowMargin is what SplitRows gives each side over the other.
func TestRowMargin(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var p Position
		for i := range p.Pits {
			p.Pits[i] = uint8(rng.IntN(6))
		}
		p.Captured = [2]uint8{uint8(rng.IntN(10)), uint8(rng.IntN(10))}
		q := p.SplitRows()
		for _, s := range []Side{South, North} {
			o := s.Other()
			want := int(q.Captured[s]) - int(p.Captured[s]) - int(q.Captured[o]) + int(p.Captured[o])
			if got := p.RowMargin(s); got != want {
				t.Fatalf("%v: RowMargin(%v) = %d, SplitRows gives %d", p, s, got, want)
			}
		}
	}
}
