package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// TestGamesHTTPOffers: draw offers and takebacks over HTTP, with seat
// tokens and with the seats' players' tokens, and every refusal a problem
// with its own code that changes nothing.
func TestGamesHTTPOffers(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	_, ada := gs.newPlayer("Ada")
	_, bisi := gs.newPlayer("Bisi")
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, asPlayer(ada))
	gs.expect(a, http.StatusCreated, "")
	var seat oapi.GameSeat
	a.decode(t, &seat)
	id := seat.Game.Id
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/join", "", nil, asPlayer(bisi)), http.StatusCreated, "")
	south, north := asPlayer(ada), asPlayer(bisi)

	steps := []struct {
		name     string
		path     string // after /v1/games/{id}
		token    string
		header   map[string]string
		body     any
		status   int
		code     string
		draw     string // the offers after a 2xx: "", "south" or "north"
		takeback string
		ply      int
	}{
		{"no credentials", "/draw", "", nil, map[string]any{"offer": true}, 401, "unauthorized", "", "", 0},
		{"an unknown player token", "/draw", "", asPlayer("pl_nobody"), map[string]any{"offer": true}, 401, "player_unauthorized", "", "", 0},
		{"no offer member", "/draw", "", south, map[string]any{}, 400, "invalid_request", "", "", 0},
		{"an offer that is no boolean", "/draw", "", south, map[string]any{"offer": "yes"}, 400, "invalid_request", "", "", 0},
		{"a refusal of no offer", "/draw", "", north, map[string]any{"offer": false}, 409, "no_offer", "", "", 0},
		{"a takeback before any move", "/takeback", "", south, map[string]any{"offer": true}, 409, "nothing_to_take_back", "", "", 0},
		{"South offers a draw by its player", "/draw", "", south, map[string]any{"offer": true}, 200, "", "south", "", 0},
		{"South moves by its player", "/moves", "", south, map[string]any{"ply": 0, "pit": 0}, 201, "", "south", "", 1},
		{"North moves by its seat token", "/moves", seat.Token, nil, map[string]any{"ply": 1, "pit": 6}, 403, "not_your_turn", "south", "", 1},
		{"North moves by its player", "/moves", "", north, map[string]any{"ply": 1, "pit": 6}, 201, "", "", "", 2},
		{"North asks for a takeback", "/takeback", "", north, map[string]any{"offer": true}, 200, "", "", "north", 2},
		{"South accepts it", "/takeback", "", south, map[string]any{"offer": true}, 200, "", "", "", 1},
		{"North offers a draw", "/draw", "", north, map[string]any{"offer": true}, 200, "", "north", "", 1},
		{"South accepts it", "/draw", seat.Token, nil, map[string]any{"offer": true}, 200, "", "", "", 1},
		{"the agreement sent again", "/draw", "", north, map[string]any{"offer": true}, 200, "", "", "", 1},
		{"a refusal in a finished game", "/draw", "", north, map[string]any{"offer": false}, 409, "game_over", "", "", 1},
		{"a takeback in a finished game", "/takeback", "", north, map[string]any{"offer": true}, 409, "game_over", "", "", 1},
	}
	version := int64(0)
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			got := gs.must(http.MethodPost, "/v1/games/"+id+st.path, st.token, st.body, st.header)
			gs.expect(got, st.status, st.code)
			var g oapi.Game
			gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil).decode(t, &g)
			if st.code != "" && version != 0 && g.Version != version {
				t.Fatalf("a refusal changed the game: version %d, was %d", g.Version, version)
			}
			version = g.Version
			draw, _ := g.Offers.Draw.Get()
			takeback, _ := g.Offers.Takeback.Get()
			if string(draw) != st.draw || string(takeback) != st.takeback || g.Ply != st.ply {
				t.Fatalf("offers %q %q at ply %d, want %q %q at ply %d", draw, takeback, g.Ply, st.draw, st.takeback, st.ply)
			}
		})
	}
	var g oapi.Game
	gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil).decode(t, &g)
	if r, err := g.Result.Get(); err != nil || r.Reason != oapi.ResultReasonAgreement || r.Winner != oapi.ResultWinnerDraw {
		t.Fatalf("result %+v %v, want a draw by agreement", r, err)
	}
}

// TestGamesHTTPTakebackRated: a takeback in a rated game is refused with
// its own code, and a resignation before both sides moved aborts it.
func TestGamesHTTPTakebackRated(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	_, ada := gs.newPlayer("Ada")
	_, bisi := gs.newPlayer("Bisi")
	g, seats := gs.ratedGame(ada, bisi)
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/moves", seats[0], map[string]any{"ply": 0, "pit": 0}, nil), 201, "")
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+g.Id+"/takeback", seats[0], map[string]any{"offer": true}, nil), 403, "takeback_rated")
	a := gs.must(http.MethodPost, "/v1/games/"+g.Id+"/resign", "", nil, asPlayer(bisi))
	gs.expect(a, http.StatusOK, "")
	var ended oapi.Game
	a.decode(t, &ended)
	if ended.Status != oapi.GameStatusAborted || !ended.Result.IsNull() {
		t.Fatalf("a resignation before both moved: %s", ended.Status)
	}
}

// TestOfferEventFrames: the new events' frames carry their kind and the
// game with its offers, and a takeback that makes an id come again gets a
// frame of its own, not the cached one of the move taken back.
func TestOfferEventFrames(t *testing.T) {
	g := games.Game{ID: "g", Start: engine.Start(), Position: engine.Start(), Status: games.Active, Version: 3,
		DrawOffer: games.OfferByNorth}
	fs := newFrames(encodeEvent)
	for _, kind := range []games.EventKind{games.EventOffer, games.EventOfferDeclined, games.EventTakeback} {
		frame, err := fs.frame("g", games.Event{ID: 0, Kind: kind, Game: &g, Version: 3})
		if err != nil || !strings.Contains(string(frame), "event: "+string(kind)+"\n") || !strings.Contains(string(frame), `"offers":{"draw":"north","takeback":null}`) {
			t.Fatalf("%s: %s %v", kind, frame, err)
		}
	}
	later := g
	later.DrawOffer, later.Version = games.NoOffer, 4
	first, _ := fs.frame("g", games.Event{ID: 0, Kind: games.EventTakeback, Game: &g, Version: 3})
	second, _ := fs.frame("g", games.Event{ID: 0, Kind: games.EventTakeback, Game: &later, Version: 4})
	if string(first) == string(second) {
		t.Fatalf("two takebacks to one ply share a frame: %s", second)
	}
}
