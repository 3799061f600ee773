package load

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// The review loops' records are FloodReviewPlies legal moves from the
// start, and differ from loop to loop.
func TestFloodRecord(t *testing.T) {
	var records [][]int
	for i := range 8 {
		moves := floodRecord(rand.New(rand.NewPCG(1, uint64(3000+i))), FloodReviewPlies)
		if len(moves) != FloodReviewPlies {
			t.Fatalf("record %d: %d plies, want %d", i, len(moves), FloodReviewPlies)
		}
		g, err := engine.NewGame(engine.Start(), engine.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		var out engine.Outcome
		for ply, pit := range moves {
			if err := g.Play(pit, &out); err != nil || !out.Legal() {
				t.Fatalf("record %d, ply %d: pit %d is not legal (%v)", i, ply, pit, err)
			}
		}
		for _, r := range records {
			if slices.Equal(r, moves) {
				t.Fatalf("record %d is another loop's", i)
			}
		}
		records = append(records, moves)
	}
}
