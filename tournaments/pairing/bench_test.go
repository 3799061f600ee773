package pairing

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSwissRound pairs round 7 of events whose first six rounds
// were played out as in the simulations.
func BenchmarkSwissRound(b *testing.B) {
	for _, n := range []int{64, 1000} {
		b.Run(fmt.Sprintf("players=%d", n), func(b *testing.B) {
			e := newEvent(n, 1)
			r := rand.New(rand.NewPCG(1, 2))
			for round := 1; round <= 6; round++ {
				e.play(b, r, round)
			}
			for b.Loop() {
				if _, _, err := SwissRound(e.entrants, e.games, e.byes, 7); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
