package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/players"
)

// TestRateLimitsPerPlayer: two players behind one address each have their
// own move bucket, named move-per-player in the headers; a seat token's
// moves and a made-up Player-Token's spend the address's, named move.
func TestRateLimitsPerPlayer(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{RateLimits: RateLimits{"move": {Rate: 60, Burst: 2}}, Now: stoppedClock()}, false)
	_, ann := gs.newPlayer("Ann")
	_, bob := gs.newPlayer("Bob")
	game, _ := gs.ratedGame(ann, bob)
	byPlayer := [2]string{ann, bob} // South is the creator's
	for i := range 5 {
		side := sideIndex(game.Position.ToMove)
		a := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", "", map[string]int{"pit": legalPits(t, game.Position)[0], "ply": game.Ply}, asPlayer(byPlayer[side]))
		if got := a.header.Get("RateLimit-Policy"); got != `"move-per-player";q=2;w=2` {
			t.Errorf("move %d: RateLimit-Policy %q", i, got)
		}
		// Each player's moves 1 and 2 pass: four moves, two buckets of
		// two, where one bucket of the address would have refused the
		// third.
		if i < 4 {
			if want := fmt.Sprintf(`"move-per-player";r=%d;`, 1-i/2); !strings.HasPrefix(a.header.Get("RateLimit"), want) {
				t.Errorf("move %d: RateLimit %q, want %s...", i, a.header.Get("RateLimit"), want)
			}
			gs.expect(a, http.StatusCreated, "")
			var pa oapi.PlayMoveAnswer
			a.decode(t, &pa)
			game = pa.Game
			continue
		}
		wantRateLimited(t, gs, a, "too many moves from this player")
	}

	t.Run("a scoped token keys by its player", func(t *testing.T) {
		// Ann's bucket is empty: her scoped token spends the same one.
		g2, _ := gs.ratedGame(ann, bob)
		scoped := gs.scopedToken(ann, players.ScopeGamePlay)
		for _, send := range []struct {
			bearer string
			header map[string]string
		}{{"", asPlayer(scoped)}, {scoped, nil}} {
			a := gs.must(http.MethodPost, "/v1/games/"+g2.Id+"/moves", send.bearer, map[string]int{"pit": legalPits(t, g2.Position)[0], "ply": g2.Ply}, send.header)
			wantRateLimited(t, gs, a, "too many moves from this player")
		}
	})

	t.Run("without a player", func(t *testing.T) {
		other, tokens := gs.twoSeats()
		for i, header := range []map[string]string{nil, asPlayer("pl_madeUp"), nil} {
			a := gs.must(http.MethodPost, "/v1/games/"+other.Id+"/moves", tokens[sideIndex(other.Position.ToMove)], map[string]int{"pit": legalPits(t, other.Position)[0], "ply": other.Ply}, header)
			if got := a.header.Get("RateLimit-Policy"); got != `"move";q=2;w=2` {
				t.Errorf("move %d: RateLimit-Policy %q", i, got)
			}
			if i < 2 {
				if a.status == http.StatusCreated {
					var pa oapi.PlayMoveAnswer
					a.decode(t, &pa)
					other = pa.Game
				}
				continue
			}
			wantRateLimited(t, gs, a, "too many moves from this client address")
		}
	})
}

// TestRateLimitPolicyNames: the document names every policy a RateLimit
// header can carry, and no other.
func TestRateLimitPolicyNames(t *testing.T) {
	h := loadSpecFile(t).Components.Headers["RateLimitPolicy"]
	if h == nil || h.Value == nil {
		t.Fatal("the document has no RateLimitPolicy header")
	}
	text := h.Value.Description
	want := map[string]bool{}
	for _, l := range Limits() {
		want[l.Name] = true
		if l.PerPlayer {
			want[l.Name+PlayerPolicySuffix] = true
		}
	}
	named := map[string]bool{}
	for _, part := range strings.Split(text, "`")[1:] {
		if part != "" && !strings.ContainsAny(part, " \n") && part != "RateLimit" && part != "Player-Token" && part != "q" && part != "w" {
			named[part] = true
		}
	}
	for name := range want {
		if !named[name] {
			t.Errorf("the document does not name the policy %q", name)
		}
	}
	for name := range named {
		if !want[name] {
			t.Errorf("the document names %q, which no limit has", name)
		}
	}
}
