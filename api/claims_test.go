package api

import (
	"net/http"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
)

// TestGamesHTTPClaimsAndAbort: abort, claim-victory, claim-draw and a
// move's offerDraw over HTTP, each answer as the document says, by the
// injected clock.
func TestGamesHTTPClaimsAndAbort(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newGamesServer(t, Options{}, games.Options{Now: clock.Now}, nil)
	live := map[string]any{"opponent": map[string]any{"type": "human"},
		"timeControl": map[string]any{"kind": "clock", "initialSeconds": 180, "incrementSeconds": 2}}
	start := func(t *testing.T) (oapi.Game, [2]string) {
		t.Helper()
		a := gs.must(http.MethodPost, "/v1/games", "", live, nil)
		gs.expect(a, http.StatusCreated, "")
		var south, north oapi.GameSeat
		a.decode(t, &south)
		j := gs.must(http.MethodPost, "/v1/games/"+south.Game.Id+"/join", "", nil, nil)
		gs.expect(j, http.StatusCreated, "")
		j.decode(t, &north)
		return north.Game, [2]string{south.Token, north.Token}
	}
	post := func(g oapi.Game, op, token string) answer {
		return gs.must(http.MethodPost, "/v1/games/"+g.Id+"/"+op, token, nil, nil)
	}

	t.Run("abort", func(t *testing.T) {
		g, tokens := start(t)
		g = gs.playFirstLegal(g, tokens, 1)
		var got oapi.Game
		a := post(g, "abort", tokens[1])
		gs.expect(a, http.StatusOK, "")
		if a.decode(t, &got); got.Status != oapi.GameStatusAborted {
			t.Fatalf("aborted: %s", got.Status)
		}
		gs.expect(post(g, "abort", tokens[0]), http.StatusOK, "")
		gs.expect(post(g, "abort", ""), http.StatusUnauthorized, "unauthorized")
		h, htokens := start(t)
		h = gs.playFirstLegal(h, htokens, 2)
		gs.expect(post(h, "abort", htokens[0]), http.StatusConflict, "abort_too_late")
	})

	t.Run("claims", func(t *testing.T) {
		g, tokens := start(t)
		g = gs.playFirstLegal(g, tokens, 2) // South to move
		for _, tc := range []struct {
			name    string
			advance time.Duration
			op      string
			by      int
			status  int
			code    string
		}{
			{"at once", 0, "claim-victory", 1, http.StatusConflict, "claim_too_early"},
			{"by the side to move", 0, "claim-draw", 0, http.StatusConflict, "claim_unavailable"},
			{"in the grace", 35 * time.Second, "claim-draw", 1, http.StatusConflict, "claim_too_early"},
			{"once the claim opens", 5 * time.Second, "claim-victory", 1, http.StatusOK, ""},
			{"the same claim again", 0, "claim-victory", 1, http.StatusOK, ""},
			{"a draw after the win", 0, "claim-draw", 1, http.StatusConflict, "game_over"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				clock.Advance(tc.advance)
				a := post(g, tc.op, tokens[tc.by])
				gs.expect(a, tc.status, tc.code)
				if tc.status != http.StatusOK {
					return
				}
				var got oapi.Game
				a.decode(t, &got)
				r, err := got.Result.Get()
				if err != nil || r.Winner != oapi.ResultWinnerNorth || r.Reason != oapi.ResultReasonTimeout {
					t.Fatalf("claimed: %+v %v, want North's win by timeout", r, err)
				}
			})
		}
	})

	t.Run("a draw offered and accepted with moves", func(t *testing.T) {
		g, tokens := start(t)
		for i, want := range []oapi.GameStatus{oapi.GameStatusActive, oapi.GameStatusFinished} {
			a := gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", tokens[i],
				map[string]any{"pit": legalPits(t, g.Position)[0], "ply": g.Ply, "offerDraw": true}, nil)
			gs.expect(a, http.StatusCreated, "")
			var pa oapi.PlayMoveAnswer
			a.decode(t, &pa)
			if g = pa.Game; g.Status != want {
				t.Fatalf("after move %d with offerDraw: %s, want %s", i, g.Status, want)
			}
		}
		if r, err := g.Result.Get(); err != nil || r.Winner != oapi.ResultWinnerDraw || r.Reason != oapi.ResultReasonAgreement {
			t.Fatalf("result %+v %v, want a draw by agreement", r, err)
		}
	})
}
