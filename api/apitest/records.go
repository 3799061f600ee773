package apitest

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"

	"github.com/ayoayo/ayoayo/engine"
)

// Records makes n game records as NDJSON, one /v1/validate body a line, for
// the bulk validation tests and benchmarks: random legal play from the
// opening under the default rules, each record as long as a real game (25
// to 60 plies, fewer when the game ends sooner), the same records for the
// same seed. Every record is valid.
func Records(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var out engine.Outcome
	for range n {
		g, _ := engine.NewGame(engine.Start(), engine.Rules{})
		moves := []int{}
		for plies := 25 + rng.IntN(36); len(moves) < plies && !g.Result().Over(); {
			legal := g.Position().LegalMoves(g.Rules())
			if legal == 0 {
				break
			}
			pick := rng.IntN(legal.Len())
			var pit int
			for range pick + 1 {
				pit = legal.Next()
			}
			if g.Play(pit, &out) != nil {
				break
			}
			moves = append(moves, pit)
		}
		_ = enc.Encode(struct {
			Moves []int `json:"moves"`
		}{moves})
	}
	return buf.Bytes()
}
