package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
)

// TestExportWithReview: a player's export in the text notation gives a
// reviewed game's record as GET /v1/games/{id} does, the review in it.
func TestExportWithReview(t *testing.T) {
	gs, svc := newReviewServer(t, Options{})
	ann, annToken := gs.newPlayer("Ann")
	_, bobToken := gs.newPlayer("Bob")
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, asPlayer(annToken))
	gs.expect(a, http.StatusCreated, "")
	var south, north oapi.GameSeat
	a.decode(t, &south)
	j := gs.must(http.MethodPost, "/v1/games/"+south.Game.Id+"/join", "", nil, asPlayer(bobToken))
	gs.expect(j, http.StatusCreated, "")
	j.decode(t, &north)
	tokens := [2]string{south.Token, north.Token}
	game := gs.playFirstLegal(north.Game, tokens, 3)
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+game.Id+"/resign", tokens[0], nil, nil), http.StatusOK, "")
	export := func() string {
		t.Helper()
		gs.trust = true // a stream of records is no JSON body to check
		defer func() { gs.trust = false }()
		e := gs.must(http.MethodGet, "/v1/players/"+ann.Id+"/games/export?format=record", "", nil, nil)
		gs.expect(e, http.StatusOK, "")
		return strings.TrimSpace(string(e.body))
	}
	if text := export(); strings.Contains(text, "Accuracy") {
		t.Fatalf("a review in the export before any was asked for:\n%s", text)
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+game.Id+"/review", "", nil, nil), http.StatusAccepted, "")
	if did, err := svc.Step(t.Context()); !did || err != nil {
		t.Fatalf("step: %v, %v", did, err)
	}
	g := gs.must(http.MethodGet, "/v1/games/"+game.Id, "", nil, map[string]string{"Accept": record.MediaType})
	gs.expect(g, http.StatusOK, "")
	want := strings.TrimSpace(string(g.body))
	if !strings.Contains(want, "SouthAccuracy") {
		t.Fatalf("GET gives no review:\n%s", want)
	}
	if got := export(); got != want {
		t.Errorf("the export:\n%s\nwant GET's record:\n%s", got, want)
	}
}
