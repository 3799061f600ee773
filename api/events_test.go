package api

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
)

// TestGamesHTTPLastEventIDBeyondPly: a Last-Event-ID the game has not
// reached (beyond 8·version+7) is refused with a problem, where it would
// open a stream that stayed silent even through later moves; the id of
// the game's last event resumes: the game, then the next move.
func TestGamesHTTPLastEventIDBeyondPly(t *testing.T) {
	gs := newGamesServer(t, Options{EventHeartbeat: 20 * time.Millisecond}, games.Options{}, nil)
	game, tokens := gs.twoSeats()
	play := func() {
		t.Helper()
		pits := legalPits(t, game.Position)
		m := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": pits[0], "ply": game.Ply}, nil)
		gs.expect(m, http.StatusCreated, "")
		var pa oapi.PlayMoveAnswer
		m.decode(t, &pa)
		game = pa.Game
	}
	play() // the game is at ply 1, version 3: ids up to 31

	for _, last := range []int{32, 1000} {
		resp, err := gs.openEvents(game.Id, strconv.Itoa(last))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		var p problem.Problem
		if err := json.Unmarshal(body, &p); err != nil || resp.StatusCode != http.StatusBadRequest || p.Code != "invalid_request" ||
			p.Detail != "header parameter Last-Event-ID: "+strconv.Itoa(last)+" is after the game's last event id, at most 31" {
			t.Fatalf("Last-Event-ID %d at version 3: %d %s, want 400 invalid_request", last, resp.StatusCode, body)
		}
	}

	// The game's own last id (its move's, 24) resumes: the game as it
	// is, then the next move.
	resp, err := gs.openEvents(game.Id, "24")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Last-Event-ID 24 at version 3: %d", resp.StatusCode)
	}
	events := make(chan sseEvent, 4)
	go func() {
		defer close(events)
		sent := 0
		_, _, _ = readEvents(resp.Body, func(ev []sseEvent) bool {
			for ; sent < len(ev); sent++ { // a heartbeat asks too, with no new event
				events <- ev[sent]
			}
			return len(ev) > 1
		})
	}()
	next := func() sseEvent {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-time.After(10 * time.Second):
			t.Fatal("no event after resuming at the game's last id")
		}
		return sseEvent{}
	}
	if e := next(); e.event != "game" || e.id != "" {
		t.Fatalf("after resuming at 24: %+v first, want the game, with no id", e)
	}
	play()
	if e := next(); e.event != "move" || e.id != "32" {
		t.Fatalf("after resuming at 24: then %+v, want the move with id 32", e)
	}
}
