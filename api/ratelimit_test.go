package api

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
)

// TestGamesHTTPRateLimits: over real HTTP, joins, moves and event-stream
// opens are limited per client address like game creations: beyond the
// burst, 429 rate_limited with Retry-After and a detail that says what was
// limited; nothing is done, and other operations go on.
func TestGamesHTTPRateLimits(t *testing.T) {
	human := map[string]any{"opponent": map[string]any{"type": "human"}}
	t.Run("joins", func(t *testing.T) {
		gs := newGamesServer(t, Options{RateLimits: RateLimits{"join": {Rate: 1, Burst: 2}}}, games.Options{}, nil)
		var ids []string
		for range 3 {
			var seat oapi.GameSeat
			gs.must(http.MethodPost, "/v1/games", "", human, nil).decode(t, &seat)
			ids = append(ids, seat.Game.Id)
		}
		for _, id := range ids[:2] {
			gs.expect(gs.must(http.MethodPost, "/v1/games/"+id+"/join", "", nil, nil), http.StatusCreated, "")
		}
		a := gs.must(http.MethodPost, "/v1/games/"+ids[2]+"/join", "", nil, nil)
		wantRateLimited(t, gs, a, "too many joins from this client address")
		var g oapi.Game
		gs.must(http.MethodGet, "/v1/games/"+ids[2], "", nil, nil).decode(t, &g)
		if g.Status != oapi.GameStatusWaiting {
			t.Errorf("the refused join took the seat: %s", g.Status)
		}
	})
	t.Run("moves", func(t *testing.T) {
		gs := newGamesServer(t, Options{RateLimits: RateLimits{"move": {Rate: 1, Burst: 3}}}, games.Options{}, nil)
		game, tokens := gs.twoSeats()
		for range 3 {
			m := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": legalPits(t, game.Position)[0], "ply": game.Ply}, nil)
			gs.expect(m, http.StatusCreated, "")
			var pa oapi.PlayMoveAnswer
			m.decode(t, &pa)
			game = pa.Game
		}
		a := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": legalPits(t, game.Position)[0], "ply": game.Ply}, nil)
		wantRateLimited(t, gs, a, "too many moves from this client address")
		var g oapi.Game
		gs.must(http.MethodGet, "/v1/games/"+game.Id, "", nil, nil).decode(t, &g)
		if g.Ply != 3 {
			t.Errorf("the game is at ply %d after a refused move, want 3", g.Ply)
		}
	})
	t.Run("event streams", func(t *testing.T) {
		gs := newGamesServer(t, Options{RateLimits: RateLimits{"stream-open": {Rate: 1, Burst: 2}}, EventHeartbeat: 20 * time.Millisecond}, games.Options{}, nil)
		var seat oapi.GameSeat
		gs.must(http.MethodPost, "/v1/games", "", human, nil).decode(t, &seat)
		for range 2 {
			resp, err := gs.openEvents(seat.Game.Id, "")
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("a stream within the limit: %v %v", resp, err)
			}
			resp.Body.Close() // closed at once: the limit is on opening, not on holding
		}
		resp, err := gs.openEvents(seat.Game.Id, "")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		wantRateLimited(t, gs, answer{status: resp.StatusCode, header: resp.Header, body: body}, "too many event streams opened from this client address")
	})
	t.Run("zero is no limit", func(t *testing.T) {
		gs := newGamesServer(t, Options{}, games.Options{}, nil)
		game, tokens := gs.twoSeats()
		for range 100 {
			if game.Status != oapi.GameStatusActive {
				game, tokens = gs.twoSeats()
			}
			m := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": legalPits(t, game.Position)[0], "ply": game.Ply}, nil)
			gs.expect(m, http.StatusCreated, "")
			var pa oapi.PlayMoveAnswer
			m.decode(t, &pa)
			game = pa.Game
		}
	})
}

func wantRateLimited(t *testing.T, gs *gamesServer, a answer, detail string) {
	t.Helper()
	members := gs.expect(a, http.StatusTooManyRequests, "rate_limited")
	if d, _ := members["detail"].(string); !strings.HasPrefix(d, detail+": try again in ") {
		t.Errorf("detail %q, want it to start %q", d, detail)
	}
	if ra, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
		t.Errorf("Retry-After %q, want 1 to 60 s at one a minute", a.header.Get("Retry-After"))
	}
}

// Over HTTP: every answer of a limited operation carries the headers, the
// 429 too (with Retry-After); an operation without a limit has none; a
// browser may read them.
func TestRateLimitHeadersOverHTTP(t *testing.T) {
	// The buckets' clock stands still: at 10 a second, a loaded machine's
	// pause between two requests would otherwise refill one.
	gs := newGamesServer(t, Options{RateLimits: RateLimits{"move": {Rate: 60, Burst: 3}, "game-create": {Rate: 600, Burst: 20}}, Now: stoppedClock()}, games.Options{}, nil)
	game, tokens := gs.twoSeats()
	for i := range 4 {
		a := gs.must(http.MethodPost, "/v1/games/"+game.Id+"/moves", tokens[sideIndex(game.Position.ToMove)], map[string]int{"pit": legalPits(t, game.Position)[0], "ply": game.Ply}, nil)
		if got := a.header.Get("RateLimit-Policy"); got != `"move";q=3;w=3` {
			t.Errorf("move %d: RateLimit-Policy %q", i, got)
		}
		rl := a.header.Get("RateLimit")
		if want := fmt.Sprintf(`"move";r=%d;t=`, max(2-i, 0)); !strings.HasPrefix(rl, want) {
			t.Errorf("move %d (%d): RateLimit %q, want %s...", i, a.status, rl, want)
		}
		if i < 3 {
			gs.expect(a, http.StatusCreated, "")
			var pa oapi.PlayMoveAnswer
			a.decode(t, &pa)
			game = pa.Game
			continue
		}
		wantRateLimited(t, gs, a, "too many moves from this client address")
	}
	var seat oapi.GameSeat
	created := gs.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
	created.decode(t, &seat)
	// twoSeats made one game, and this one: 18 of 20 left.
	if got := created.header.Get("RateLimit"); !strings.HasPrefix(got, `"game-create";r=18;t=`) {
		t.Errorf("creation: RateLimit %q", got)
	}
	if got := created.header.Get("RateLimit-Policy"); got != `"game-create";q=20;w=2` {
		t.Errorf("creation: RateLimit-Policy %q", got)
	}
	read := gs.must(http.MethodGet, "/v1/games/"+seat.Game.Id, "", nil, nil)
	if read.header.Get("RateLimit") != "" || read.header.Get("RateLimit-Policy") != "" {
		t.Errorf("a read with no limit has RateLimit headers: %v", read.header)
	}
	for _, h := range []string{"RateLimit", "RateLimit-Policy", "Retry-After"} {
		if !slices.Contains(corsExposeHeaders, h) {
			t.Errorf("CORS does not expose %s", h)
		}
	}
}

// TestRateLimitsTable: every row of Limits is whole and its own (a name or
// a flag twice would have two rows share a bucket or a flag), and New
// refuses a limit no row has rather than limit nothing. That each row's
// operations are the document's is checked by every New.
func TestRateLimitsTable(t *testing.T) {
	names, flags := map[string]bool{}, map[string]bool{}
	for _, l := range Limits() {
		t.Run(l.Name, func(t *testing.T) {
			if names[l.Name] || flags[l.Flag] {
				t.Errorf("name %q or flag %q twice", l.Name, l.Flag)
			}
			names[l.Name], flags[l.Flag] = true, true
			if l.Flag == "" || l.Who == "" || l.what == "" || len(l.ops) == 0 {
				t.Errorf("a field is missing: %+v", l)
			}
			if l.Default.Rate < 1 || l.Default.Burst < 1 {
				t.Errorf("default %+v: ayoayo serve would start without this limit", l.Default)
			}
		})
	}
	t.Run("unknown name", func(t *testing.T) {
		_, err := New(Options{RateLimits: RateLimits{"moves": {Rate: 1, Burst: 1}}})
		if err == nil || !strings.Contains(err.Error(), `"moves": no such limit`) {
			t.Errorf("New with a limit no row has: %v", err)
		}
	})
}

// stoppedClock is a clock for the rate limits that never moves: a bucket
// refills only when a test says so, however slowly the machine runs it.
func stoppedClock() func() time.Time {
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	return func() time.Time { return at }
}
