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
// to 60 plies; a random game that ends sooner is played again), the same
// records for the same seed. Every record is valid.
func Records(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, seed))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for range n {
		_ = enc.Encode(struct {
			Moves []int `json:"moves"`
		}{randomGame(rng, 25+rng.IntN(36))})
	}
	return buf.Bytes()
}

// randomGame plays random legal moves until the game has plies of them or
// ends after at least 25.
func randomGame(rng *rand.Rand, plies int) []int {
	var out engine.Outcome
	for {
		g, _ := engine.NewGame(engine.Start(), engine.Rules{})
		moves := make([]int, 0, plies)
		for len(moves) < plies && !g.Result().Over() {
			legal := g.Position().LegalMoves(g.Rules())
			if legal == 0 {
				break
			}
			var pit int
			for range rng.IntN(legal.Len()) + 1 {
				pit = legal.Next()
			}
			if g.Play(pit, &out) != nil {
				break
			}
			moves = append(moves, pit)
		}
		if len(moves) == plies || len(moves) >= 25 && g.Result().Over() {
			return moves
		}
	}
}
