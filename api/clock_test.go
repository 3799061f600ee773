package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
)

func TestTimeControlRequests(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	tests := []struct {
		name   string
		tc     any
		status int
		code   string
	}{
		{"3+2", map[string]any{"kind": "clock", "initialSeconds": 180, "incrementSeconds": 2}, 201, ""},
		{"0+1", map[string]any{"kind": "clock", "initialSeconds": 0, "incrementSeconds": 1}, 201, ""},
		{"a clock with no increment given", map[string]any{"kind": "clock", "initialSeconds": 1}, 201, ""},
		{"3 days", map[string]any{"kind": "correspondence", "daysPerMove": 3}, 201, ""},
		{"null: untimed", nil, 201, ""},
		{"0+0", map[string]any{"kind": "clock", "initialSeconds": 0}, 422, "invalid_time_control"},
		{"a clock with days", map[string]any{"kind": "clock", "initialSeconds": 60, "daysPerMove": 2}, 422, "invalid_time_control"},
		{"correspondence without days", map[string]any{"kind": "correspondence"}, 422, "invalid_time_control"},
		{"correspondence with seconds", map[string]any{"kind": "correspondence", "daysPerMove": 1, "initialSeconds": 60}, 422, "invalid_time_control"},
		{"over three hours", map[string]any{"kind": "clock", "initialSeconds": 10801}, 400, "invalid_request"},
		{"an increment over 180 s", map[string]any{"kind": "clock", "initialSeconds": 60, "incrementSeconds": 181}, 400, "invalid_request"},
		{"15 days", map[string]any{"kind": "correspondence", "daysPerMove": 15}, 400, "invalid_request"},
		{"an unknown kind", map[string]any{"kind": "hourglass", "initialSeconds": 60}, 400, "invalid_request"},
		{"an unknown field", map[string]any{"kind": "clock", "initialSeconds": 60, "delaySeconds": 2}, 400, "invalid_request"},
		{"seconds as text", map[string]any{"kind": "clock", "initialSeconds": "60"}, 400, "invalid_request"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"opponent": map[string]any{"type": "human"}, "timeControl": tc.tc}
			a := gs.must(http.MethodPost, "/v1/games", "", body, nil)
			gs.expect(a, tc.status, tc.code)
			if tc.status != 201 {
				return
			}
			var seat oapi.GameSeat
			a.decode(t, &seat)
			if got := seat.Game.TimeControl.IsNull(); got != (tc.tc == nil) {
				t.Fatalf("timeControl null %v for %v: %s", got, tc.tc, a.body)
			}
			if got := seat.Game.Clock.IsNull(); got != (tc.tc == nil) {
				t.Fatalf("clock null %v for %v: %s", got, tc.tc, a.body)
			}
			e, err := seat.Game.Expiry.Get()
			if err != nil || e.Ends != oapi.ExpiryEndsAbort || !e.Side.IsNull() {
				t.Fatalf("a waiting game's expiry: %+v, %v; want an abort nobody's to prevent", e, err)
			}
		})
	}
}

// TestClockOverHTTP: a timed game as a front end sees it: the clock and
// expiry in every answer, each move's time, the deadline the running clock
// runs out at, and the timeout the server applies with nobody calling, in
// the game and its event stream, all as the document says.
func TestClockOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	gs := newGamesServer(t, Options{}, games.Options{Now: clock.Now}, nil)
	a := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"},
		"timeControl": map[string]any{"kind": "clock", "initialSeconds": 60, "incrementSeconds": 2}}, nil)
	gs.expect(a, http.StatusCreated, "")
	var south, north oapi.GameSeat
	a.decode(t, &south)
	id := south.Game.Id
	clock.Advance(3 * time.Second)
	j := gs.must(http.MethodPost, "/v1/games/"+id+"/join", "", nil, nil)
	gs.expect(j, http.StatusCreated, "")
	j.decode(t, &north)
	e, err := north.Game.Expiry.Get()
	if side, _ := e.Side.Get(); err != nil || e.Ends != oapi.ExpiryEndsAbort || side != oapi.NullableSideSouth || !e.At.Equal(clock.Now().Add(games.DefaultFirstMove)) {
		t.Fatalf("after the join: expiry %+v, %v; want South's first-move window", e, err)
	}

	tokens := [2]string{south.Token, north.Token}
	var last oapi.PlayMoveAnswer
	for i, step := range []struct {
		think time.Duration
		pit   int
	}{{10 * time.Second, 0}, {4 * time.Second, 6}, {1500 * time.Millisecond, 1}} {
		clock.Advance(step.think)
		m := gs.must(http.MethodPost, "/v1/games/"+id+"/moves", tokens[i%2], map[string]int{"pit": step.pit, "ply": i}, nil)
		gs.expect(m, http.StatusCreated, "")
		m.decode(t, &last)
		if last.Move.ElapsedMs != step.think.Milliseconds() {
			t.Fatalf("ply %d took %d ms, want %d", i, last.Move.ElapsedMs, step.think.Milliseconds())
		}
		// The same request again: the very same bytes, clock and all.
		clock.Advance(time.Second)
		again := gs.must(http.MethodPost, "/v1/games/"+id+"/moves", tokens[i%2], map[string]int{"pit": step.pit, "ply": i}, nil)
		gs.expect(again, http.StatusOK, "")
		if !bytes.Equal(again.body, m.body) {
			t.Fatalf("ply %d replayed:\n%s\nfirst:\n%s", i, again.body, m.body)
		}
		clock.Advance(-time.Second)
	}
	c, err := last.Game.Clock.Get()
	running, _ := c.Running.Get()
	deadline, derr := c.Deadline.Get()
	// South: 60 + 2 after its first move, then 1.5 s spent and 2 s added.
	if err != nil || derr != nil || running != oapi.NullableSideNorth || c.RemainingMs != (oapi.SideMillis{South: 62500, North: 62000}) ||
		!deadline.Equal(last.Game.UpdatedAt.Add(62*time.Second)) {
		t.Fatalf("clock after three moves: %+v (%v, %v), updated %v", c, err, derr, last.Game.UpdatedAt)
	}
	if e, _ := last.Game.Expiry.Get(); e.Ends != oapi.ExpiryEndsTimeout || !e.At.Equal(deadline) {
		t.Fatalf("expiry %+v, want North's timeout at the clock's deadline %v", e, deadline)
	}

	// The history says the same.
	var page oapi.GameMovesPage
	gs.must(http.MethodGet, "/v1/games/"+id+"/moves", "", nil, nil).decode(t, &page)
	if len(page.Moves) != 3 || page.Moves[2].ElapsedMs != 1500 {
		t.Fatalf("history %+v", page.Moves)
	}
	if h, _ := json.Marshal(page.Moves[2].Clock); !bytes.Equal(h, mustJSON(t, last.Move.Clock)) {
		t.Fatalf("the history's clock after ply 2 %s, the answer's %s", h, mustJSON(t, last.Move.Clock))
	}

	// North never moves: past the deadline a read shows the timeout, at the
	// deadline, and the event stream is the game, over, and ends with it.
	clock.Advance(time.Hour)
	var g oapi.Game
	gs.must(http.MethodGet, "/v1/games/"+id, "", nil, nil).decode(t, &g)
	r, err := g.Result.Get()
	if g.Status != oapi.GameStatusFinished || err != nil || r.Reason != oapi.ResultReasonTimeout || r.Winner != oapi.ResultWinnerSouth ||
		!g.UpdatedAt.Equal(deadline) || !g.Expiry.IsNull() {
		t.Fatalf("after the deadline: %+v", g)
	}
	if c, _ := g.Clock.Get(); c.RemainingMs.North != 0 || !c.Running.IsNull() {
		t.Fatalf("the flagged clock: %+v", c)
	}
	gs.trust = true // an event stream is no JSON body to check
	stream := gs.must(http.MethodGet, "/v1/games/"+id+"/events", "", nil, map[string]string{"Last-Event-ID": "3"})
	gs.trust = false
	if !bytes.Contains(stream.body, []byte("event: game")) || !bytes.Contains(stream.body, []byte(`"reason":"timeout"`)) {
		t.Fatalf("event stream after the timeout:\n%s", stream.body)
	}
	gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/moves", tokens[1], map[string]int{"pit": 7, "ply": 3}, nil), http.StatusConflict, "game_over")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
