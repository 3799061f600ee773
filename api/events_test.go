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
// reached is refused with a problem, where it used to open a stream that
// stayed silent even through later moves; an id up to the game's ply
// resumes, and gets the next move.
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
	play() // the game is at ply 1

	for _, last := range []int{2, 1000} {
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
			p.Detail != "header parameter Last-Event-ID: "+strconv.Itoa(last)+" is after the game's last event, id 1" {
			t.Fatalf("Last-Event-ID %d at ply 1: %d %s, want 400 invalid_request", last, resp.StatusCode, body)
		}
	}

	// The game's own last id resumes: nothing is sent again, the next
	// move is.
	resp, err := gs.openEvents(game.Id, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("Last-Event-ID 1 at ply 1: %d", resp.StatusCode)
	}
	type result struct {
		events []sseEvent
		err    error
	}
	done := make(chan result, 1)
	go func() {
		ev, _, err := readEvents(resp.Body, func(ev []sseEvent) bool { return len(ev) > 0 })
		done <- result{ev, err}
	}()
	play()
	select {
	case r := <-done:
		if r.err != nil || len(r.events) != 1 || r.events[0].event != "move" || r.events[0].id != "2" {
			t.Fatalf("after resuming at 1: %+v (%v), want the move with id 2", r.events, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no event after resuming at the game's last id")
	}
}
