package api

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// BenchmarkGameMovesHTTP plays two-person games over loopback HTTP, from
// parallel clients, each move a random legal one at the game's current ply:
// the path of POST /v1/games/{id}/moves through every middleware, the
// validator, the rules and one group-committed write. It reports moves/s
// (client and server share the machine, as in `ayoayo loadtest`).
func BenchmarkGameMovesHTTP(b *testing.B) {
	gs := newGamesServer(&testing.T{}, Options{}, games.Options{}, nil)
	defer gs.ts.Close()
	gs.trust = true // the tests check the answers; here only speed counts
	var seq atomic.Uint64
	b.SetParallelism(8)
	start := time.Now()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		rng := rand.New(rand.NewPCG(seq.Add(1), 1))
		var game oapi.Game
		var tokens [2]string
		fresh := func() {
			var s, n oapi.GameSeat
			a, err := gs.do(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
			if err != nil || json.Unmarshal(a.body, &s) != nil {
				b.Error(err)
				return
			}
			j, err := gs.do(http.MethodPost, "/v1/games/"+s.Game.Id+"/join", "", nil, nil)
			if err != nil || json.Unmarshal(j.body, &n) != nil {
				b.Error(err)
				return
			}
			game, tokens = n.Game, [2]string{s.Token, n.Token}
		}
		fresh()
		for pb.Next() {
			pos, err := positionFromAPI(game.Position)
			if err != nil {
				b.Error(err)
				return
			}
			var pits []int
			for m := pos.LegalMoves(mustRules(game.Rules)); m != 0; {
				pits = append(pits, m.Next())
			}
			a, err := gs.do(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[pos.ToMove],
				map[string]int{"pit": pits[rng.IntN(len(pits))], "ply": game.Ply}, nil)
			var pa oapi.PlayMoveAnswer
			if err != nil || a.status != http.StatusCreated || json.Unmarshal(a.body, &pa) != nil {
				b.Errorf("move: %v %d %s", err, a.status, a.body)
				return
			}
			game = pa.Game
			if game.Status == oapi.GameStatusFinished {
				fresh()
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "moves/s")
}

// mustRules reads a game's rule options as the server sent them.
func mustRules(r oapi.Rules) engine.Rules {
	rules, err := rulesFromAPI(&r)
	if err != nil {
		panic(err)
	}
	return rules
}
