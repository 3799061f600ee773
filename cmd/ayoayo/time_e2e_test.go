//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/apitest"
)

// TestTimeEndToEnd runs the real binary on SQLite with tiny clocks and
// short expiries and shows that deadlines end games with nobody calling:
// clocks that run out, first moves that never come (live and
// correspondence), a game nobody joins, each ended once, at its deadline,
// with one end event to its follower; a correspondence game's clock as
// the API gives it; and a restart after deadlines passed while the server
// was down, which ends those games at once with the end time they should
// have had. Between a deadline and the check nobody calls the game but
// its follower, whose stream reads the game only when this instance says
// it changed (--event-poll 1h), so the ends are the sweeper's.
func TestTimeEndToEnd(t *testing.T) {
	endToEnd(t, "builds and runs the server binary")
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "time.db"),
		"--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0", "--stream-rate", "0",
		"--first-move-seconds", strconv.Itoa(int(window / time.Second)), "--first-move-correspondence", window.String(), "--waiting-expiry", window.String(),
		"--event-poll", "1h", "--event-heartbeat", "1s"}
	srv := startBinary(t, bin, args...)
	rng := rand.New(rand.NewPCG(20, 20))
	top := t // the servers live as long as the whole test

	t.Run("deadlines end games with nobody calling", func(t *testing.T) {
		// Every game is set up first, then all are waited for: their
		// deadlines pass together, a few seconds from now.
		c := newTimeClient(t)
		type started struct {
			play     *timedPlay
			follower *follower
			deadline time.Time
		}
		plays := make([]started, len(deadlineCases))
		for i, tc := range deadlineCases {
			p, f := c.startGame(srv.url, srv.url, tc, rng)
			plays[i] = started{p, f, c.checkExpiry(tc, p)}
		}
		for i, tc := range deadlineCases {
			t.Run(tc.name, func(t *testing.T) {
				p := plays[i]
				c := newTimeClient(t)
				c.checkEnded(srv.url, tc, p.play, p.follower.toEnd(t, 30*time.Second), p.deadline)
				// The line is written after the followers are woken.
				c.waitEnds([]*server{srv}, []*timedPlay{p.play}, 10*time.Second)
				if n := endsInLog(srv.logs())[p.play.game.ID]; n != 1 {
					t.Errorf("the log says the game ended at its deadline %d times, want once", n)
				}
				c.checkRefused(srv.url, tc, p.play)
			})
		}
	})

	t.Run("a correspondence game's clock and deadlines", func(t *testing.T) {
		c := newTimeClient(t)
		day := 24 * time.Hour
		p := &timedPlay{}
		p.game, p.tokens[0] = c.create(srv.url, map[string]any{"kind": "correspondence", "daysPerMove": 1})
		if tc := p.game.TimeControl; tc == nil || tc.Kind != "correspondence" || tc.DaysPerMove != 1 {
			t.Fatalf("timeControl %+v, want correspondence with 1 day per move", tc)
		}
		checkClock(t, "created", p.game, day, day, "", time.Time{})
		checkExpiry(t, "created", p.game, p.game.CreatedAt.Add(window), "", "abort") // --waiting-expiry
		p.game, p.tokens[1] = c.join(srv.url, p.game.ID)
		checkClock(t, "joined", p.game, day, day, "", time.Time{})
		checkExpiry(t, "joined", p.game, p.game.UpdatedAt.Add(window), "south", "abort") // --first-move-correspondence
		c.play(srv.url, p, rng)
		checkClock(t, "after South's first move", p.game, day, day, "", time.Time{})
		checkExpiry(t, "after South's first move", p.game, p.game.UpdatedAt.Add(window), "north", "abort")
		c.play(srv.url, p, rng)
		// From each side's second turn on, a move may take the day.
		checkClock(t, "after both first moves", p.game, day, day, "south", p.game.UpdatedAt.Add(day))
		checkExpiry(t, "after both first moves", p.game, p.game.UpdatedAt.Add(day), "south", "timeout")
		c.play(srv.url, p, rng)
		checkClock(t, "after South's second move", p.game, day, day, "north", p.game.UpdatedAt.Add(day))
		checkExpiry(t, "after South's second move", p.game, p.game.UpdatedAt.Add(day), "north", "timeout")
		if got := c.get(srv.url, p.game.ID); got.Version != p.game.Version || !got.Expiry.At.Equal(p.game.Expiry.At) {
			t.Fatalf("read back: version %d, expiry %+v; the move answered version %d, expiry %+v", got.Version, got.Expiry, p.game.Version, p.game.Expiry)
		}
	})

	t.Run("deadlines that passed while the server was down are applied at the start", func(t *testing.T) {
		c := newTimeClient(t)
		// A game whose deadline is a day away is left alone.
		var later timedPlay
		later.game, later.tokens[0] = c.create(srv.url, map[string]any{"kind": "correspondence", "daysPerMove": 1})
		later.game, later.tokens[1] = c.join(srv.url, later.game.ID)
		c.play(srv.url, &later, rng)
		c.play(srv.url, &later, rng)
		plays := make([]*timedPlay, len(restartCases))
		deadlines := make([]time.Time, len(restartCases))
		var last time.Time
		for i, tc := range restartCases {
			p, f := c.startGame(srv.url, srv.url, tc, rng)
			f.close()
			plays[i], deadlines[i] = p, c.checkExpiry(tc, p)
			last = maxTime(last, deadlines[i])
		}
		stopped := time.Now()
		srv.stop(t)
		for i, d := range deadlines {
			if !d.After(stopped) {
				t.Fatalf("%s: its deadline %v came before the server stopped at %v: the setup was too slow to show anything", restartCases[i].name, d, stopped)
			}
		}
		// Nothing to poll while no server runs: the deadlines themselves
		// are the condition.
		time.Sleep(time.Until(last) + 500*time.Millisecond)
		before := srv.logs()
		srv = startBinary(top, bin, args...)
		// Nobody calls the games until the new start's sweeper has ended
		// them all.
		c.waitEnds([]*server{srv}, plays, 30*time.Second)
		for i, tc := range restartCases {
			t.Run(tc.name, func(t *testing.T) {
				c := newTimeClient(t)
				p := plays[i]
				c.checkEnd(tc, "read after the restart", c.get(srv.url, p.game.ID), p.game.Version, deadlines[i])
				if before, after := endsInLog(before)[p.game.ID], endsInLog(srv.logs())[p.game.ID]; before != 0 || after != 1 {
					t.Errorf("the logs say it ended %d times before the restart and %d after, want 0 and 1", before, after)
				}
			})
		}
		if g := c.get(srv.url, later.game.ID); g.Status != "active" || g.Version != later.game.Version {
			t.Errorf("the game with a day to go: %s version %d after the restart, want active version %d", g.Status, g.Version, later.game.Version)
		}
	})

	srv.stop(t)
	if strings.Contains(srv.logs(), `"level":"ERROR"`) {
		t.Errorf("errors in the log:\n%s", srv.logs())
	}
}

// TestTimeTwoInstances runs two `ayoayo serve` processes on one PostgreSQL
// database and shows that deadlines are kept across instances and crashes:
// games with tiny clocks, created, joined and moved through both and
// followed on both, whose clocks run out over a few seconds while one
// instance lies SIGKILLed, each end once, by the survivor, with one end
// event to each of its followers; and deadlines that passed while both
// were down are applied once each when both start again at the same time.
func TestTimeTwoInstances(t *testing.T) {
	endToEnd(t, "builds and runs two server binaries")
	dsn := postgresDSN(t)
	bin := buildBinary(t, t.TempDir())
	args := func(name string) []string {
		return []string{"serve", "--addr", "127.0.0.1:0", "--db", dsn, "--instance", name,
			"--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0", "--stream-rate", "0",
			// Followers read a game only when an instance announces a
			// change (NOTIFY), so the ends they see are the sweepers'.
			"--event-poll", "1h", "--event-heartbeat", "1s",
			// Room for setting up every game on a loaded machine before
			// North's first moves start the clocks.
			"--first-move-seconds", "120"}
	}
	a := startBinary(t, bin, args("a")...)
	b := startBinary(t, bin, args("b")...)
	rng := rand.New(rand.NewPCG(40, 40))
	top := t // the servers live as long as the whole test

	t.Run("one instance killed while the clocks run out: each game ends once, by the survivor", func(t *testing.T) {
		c := newTimeClient(t)
		const n = 40
		// Clocks of 3 to 6 s: they run out over a few seconds, all after
		// the kill.
		plays, followers := c.startClocks(n, []*server{a, b}, func(i int) int { return 3 + i%4 }, rng)
		killed := time.Now()
		a.kill(t)
		deadlines := make([]time.Time, n)
		for i, p := range plays {
			deadlines[i] = c.checkExpiry(clockCase(p), p)
			if !deadlines[i].After(killed) {
				t.Fatalf("game %d's deadline %v came before the kill at %v: the setup was too slow to show anything", i, deadlines[i], killed)
			}
		}
		var late time.Duration
		for i, p := range plays {
			// The killed instance's followers lose their streams, with no
			// end in them.
			for _, e := range followers[i][0].toEnd(t, 30*time.Second) {
				if e.kind == "end" {
					t.Fatalf("game %d: the killed instance's follower got an end event", i)
				}
			}
			events := followers[i][1].toEnd(t, 30*time.Second)
			c.checkEnded(b.url, clockCase(p), p, events, deadlines[i])
			late = max(late, events[len(events)-1].at.Sub(deadlines[i]))
		}
		t.Logf("%d games ended by the survivor, the last end event %v after its deadline", n, late)
		// The lines are written after the followers are woken.
		c.waitEnds([]*server{b}, plays, 10*time.Second)
		byA, byB := endsInLog(a.logs()), endsInLog(b.logs())
		for i, p := range plays {
			if byA[p.game.ID] != 0 || byB[p.game.ID] != 1 {
				t.Errorf("game %d: ended %d times by the killed instance and %d by the survivor, want 0 and 1", i, byA[p.game.ID], byB[p.game.ID])
			}
		}
	})

	t.Run("both restarted after deadlines passed while both were down: each game ends once", func(t *testing.T) {
		c := newTimeClient(t)
		a = startBinary(top, bin, args("a2")...)
		const n = 20
		plays, followers := c.startClocks(n, []*server{a, b}, func(i int) int { return 2 + i%2 }, rng)
		for _, fs := range followers {
			for _, f := range fs {
				f.close()
			}
		}
		stopped := time.Now()
		a.kill(t)
		b.stop(t)
		deadlines := make([]time.Time, n)
		var last time.Time
		for i, p := range plays {
			deadlines[i] = c.checkExpiry(clockCase(p), p)
			if !deadlines[i].After(stopped) {
				t.Fatalf("game %d's deadline %v came before the stop at %v: the setup was too slow to show anything", i, deadlines[i], stopped)
			}
			last = maxTime(last, deadlines[i])
		}
		before := endsInLog(a.logs(), b.logs())
		// Nothing to poll while no server runs: the deadlines themselves
		// are the condition.
		time.Sleep(time.Until(last) + 500*time.Millisecond)
		// Both start at once, and their first sweeps race for the games.
		var addrs [2]<-chan string
		a, addrs[0] = launchBinary(top, bin, "listening", args("a3")...)
		b, addrs[1] = launchBinary(top, bin, "listening", args("b3")...)
		a.listening(t, addrs[0])
		b.listening(t, addrs[1])
		c.waitEnds([]*server{a, b}, plays, 30*time.Second)
		after := endsInLog(a.logs(), b.logs())
		for i, p := range plays {
			base := []string{a.url, b.url}[i%2]
			c.checkEnd(clockCase(p), fmt.Sprintf("game %d read after the restart", i), c.get(base, p.game.ID), p.game.Version, deadlines[i])
			if before[p.game.ID] != 0 || after[p.game.ID] != 1 {
				t.Errorf("game %d: ended %d times before the restart and %d after, want 0 and 1", i, before[p.game.ID], after[p.game.ID])
			}
		}
	})

	a.stop(t)
	b.stop(t)
	for _, s := range []*server{a, b} {
		if strings.Contains(s.logs(), `"level":"ERROR"`) {
			t.Errorf("errors in the log:\n%s", s.logs())
		}
	}
}

// startClocks sets up n games between people with a clock of initial(i)
// seconds and no increment, over the instances: each created on one, joined
// on the next, followed from the start on every one, its moves sent to
// each in turn. First every game gets South's first move (which has only
// its window, --first-move-seconds), then North's first moves start
// South's clocks all at once, so that the deadlines come close together
// and the setup's time on a loaded machine does not eat into them. The
// followers are by game, then by instance.
func (c *timeClient) startClocks(n int, servers []*server, initial func(int) int, rng *rand.Rand) ([]*timedPlay, [][]*follower) {
	c.t.Helper()
	plays, followers := make([]*timedPlay, n), make([][]*follower, n)
	for i := range n {
		on := func(k int) string { return servers[(i+k)%len(servers)].url }
		p := &timedPlay{}
		p.game, p.tokens[0] = c.create(on(0), liveClock(initial(i), 0))
		for k := range servers {
			followers[i] = append(followers[i], c.follow(servers[k].url, p.game.ID))
		}
		p.game, p.tokens[1] = c.join(on(1), p.game.ID)
		c.play(on(0), p, rng)
		plays[i] = p
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, p := range plays {
		pit, err := pickMove(p.game.Position, rng) // here: rng is not for goroutines
		if err != nil {
			c.t.Fatal(err)
		}
		wg.Go(func() { errs[i] = c.move(servers[(i+1)%len(servers)].url, p, pit) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		c.t.Fatal(err)
	}
	return plays, followers
}

// clockCase is what startClocks set up: a clock that runs out on South's
// second turn.
func clockCase(p *timedPlay) deadlineCase {
	return deadlineCase{name: p.game.ID, tc: liveClock(p.game.TimeControl.InitialSeconds, 0), join: true, plies: 2, status: "finished", winner: "north"}
}

// deadlineCase is a game set up to end by itself: its time control (nil:
// untimed), whether someone joins, how many moves are played, and how it
// ends then.
type deadlineCase struct {
	name   string
	tc     map[string]any
	join   bool
	plies  int
	status string // finished or aborted
	winner string // of a timeout: the side not to move
}

func liveClock(initial, increment int) map[string]any {
	return map[string]any{"kind": "clock", "initialSeconds": initial, "incrementSeconds": increment}
}

var correspondence = map[string]any{"kind": "correspondence", "daysPerMove": 1}

// window is TestTimeEndToEnd's first-move windows and waiting expiry:
// short, and still long enough to set up a few games on a loaded machine
// before the first of them passes.
const window = 3 * time.Second

// deadlineCases: every one ends within window of its last request, or
// sooner.
var deadlineCases = []deadlineCase{
	{name: "a 1+0 clock runs out on South's second turn", tc: liveClock(1, 0), join: true, plies: 2, status: "finished", winner: "north"},
	{name: "a 1+1 clock runs out on North's second turn", tc: liveClock(1, 1), join: true, plies: 3, status: "finished", winner: "south"},
	{name: "South never makes its first move in a live game", tc: liveClock(60, 0), join: true, plies: 0, status: "aborted"},
	{name: "North never makes its first move in a live game", tc: liveClock(60, 0), join: true, plies: 1, status: "aborted"},
	{name: "South never makes its first move in correspondence", tc: correspondence, join: true, plies: 0, status: "aborted"},
	{name: "North never makes its first move in correspondence", tc: correspondence, join: true, plies: 1, status: "aborted"},
	{name: "nobody joins", join: false, status: "aborted"},
	{name: "nobody joins a game with a clock", tc: liveClock(60, 0), join: false, status: "aborted"},
}

// restartCases end while the server is down: each kind of ending once.
var restartCases = []deadlineCase{
	{name: "a 3+0 clock runs out", tc: liveClock(3, 0), join: true, plies: 2, status: "finished", winner: "north"},
	{name: "a first move never comes", tc: liveClock(60, 0), join: true, plies: 1, status: "aborted"},
	{name: "a correspondence first move never comes", tc: correspondence, join: true, plies: 0, status: "aborted"},
	{name: "nobody joins", join: false, status: "aborted"},
}

// timedGame is the part of the API's Game these tests read.
type timedGame struct {
	ID          string       `json:"id"`
	Status      string       `json:"status"`
	Ply         int          `json:"ply"`
	Position    ltPosition   `json:"position"`
	Version     int64        `json:"version"`
	CreatedAt   time.Time    `json:"createdAt"`
	UpdatedAt   time.Time    `json:"updatedAt"`
	Result      *timedResult `json:"result"`
	TimeControl *struct {
		Kind           string `json:"kind"`
		InitialSeconds int    `json:"initialSeconds"`
		DaysPerMove    int    `json:"daysPerMove"`
	} `json:"timeControl"`
	Clock  *timedClock  `json:"clock"`
	Expiry *timedExpiry `json:"expiry"`
}

type timedResult struct {
	Winner string `json:"winner"`
	Reason string `json:"reason"`
}

type timedClock struct {
	RemainingMs struct {
		South int64 `json:"south"`
		North int64 `json:"north"`
	} `json:"remainingMs"`
	Running  *string    `json:"running"`
	Deadline *time.Time `json:"deadline"`
}

type timedExpiry struct {
	At   time.Time `json:"at"`
	Side *string   `json:"side"`
	Ends string    `json:"ends"`
}

// timedPlay is one game in play: its state as last answered and both
// seats' tokens.
type timedPlay struct {
	game   timedGame
	tokens [2]string // by side
}

// timeClient drives timed games over one instance or several.
type timeClient struct {
	t    *testing.T
	http *http.Client
}

func newTimeClient(t *testing.T) *timeClient {
	return &timeClient{t: t, http: &http.Client{Timeout: 30 * time.Second}}
}

// create creates a game against a person with the time control tc (nil:
// untimed) and returns it with South's token.
func (c *timeClient) create(base string, tc map[string]any) (timedGame, string) {
	c.t.Helper()
	body := map[string]any{"opponent": map[string]any{"type": "human"}}
	if tc != nil {
		body["timeControl"] = tc
	}
	var seat struct {
		Game  timedGame `json:"game"`
		Token string    `json:"token"`
	}
	if st, data, err := callJSON(context.Background(), c.http, http.MethodPost, base+"/v1/games", "", body, &seat); err != nil || st != http.StatusCreated {
		c.t.Fatalf("create on %s: %d %s %v", base, st, data, err)
	}
	return seat.Game, seat.Token
}

// join takes the open seat (North) and returns the game with its token.
func (c *timeClient) join(base, id string) (timedGame, string) {
	c.t.Helper()
	var seat struct {
		Game  timedGame `json:"game"`
		Token string    `json:"token"`
	}
	if st, data, err := callJSON(context.Background(), c.http, http.MethodPost, base+"/v1/games/"+id+"/join", "", nil, &seat); err != nil || st != http.StatusCreated {
		c.t.Fatalf("join %s on %s: %d %s %v", id, base, st, data, err)
	}
	return seat.Game, seat.Token
}

// play plays a random legal move of p on base.
func (c *timeClient) play(base string, p *timedPlay, rng *rand.Rand) {
	c.t.Helper()
	pit, err := pickMove(p.game.Position, rng)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.move(base, p, pit); err != nil {
		c.t.Fatal(err)
	}
}

// move plays pit in p on base and takes the game from the answer; it may
// run in a goroutine of its own.
func (c *timeClient) move(base string, p *timedPlay, pit int) error {
	var ans struct {
		Game timedGame `json:"game"`
	}
	st, data, err := callJSON(context.Background(), c.http, http.MethodPost, base+"/v1/games/"+p.game.ID+"/moves",
		p.tokens[sideIndex(p.game.Position.ToMove)], map[string]int{"ply": p.game.Ply, "pit": pit}, &ans)
	if err != nil || st != http.StatusCreated {
		return fmt.Errorf("move of %s on %s: %d %s %v", p.game.ID, base, st, data, err)
	}
	p.game = ans.Game
	return nil
}

// get reads a game and the bytes of the answer.
func (c *timeClient) get(base, id string) timedGame {
	c.t.Helper()
	g, _ := c.getRaw(base, id)
	return g
}

func (c *timeClient) getRaw(base, id string) (timedGame, []byte) {
	c.t.Helper()
	var g timedGame
	st, data, err := callJSON(context.Background(), c.http, http.MethodGet, base+"/v1/games/"+id, "", nil, &g)
	if err != nil || st != http.StatusOK {
		c.t.Fatalf("GET %s on %s: %d %s %v", id, base, st, data, err)
	}
	return g, data
}

func sideIndex(side string) int {
	if side == "north" {
		return 1
	}
	return 0
}

// startGame creates the game of tc on createOn, follows it there from the
// start, joins it on joinOn and plays tc.plies moves, alternating between
// the two instances.
func (c *timeClient) startGame(createOn, joinOn string, tc deadlineCase, rng *rand.Rand) (*timedPlay, *follower) {
	c.t.Helper()
	p := &timedPlay{}
	p.game, p.tokens[0] = c.create(createOn, tc.tc)
	f := c.follow(createOn, p.game.ID)
	if tc.join {
		p.game, p.tokens[1] = c.join(joinOn, p.game.ID)
	}
	for i := range tc.plies {
		c.play([]string{createOn, joinOn}[i%2], p, rng)
	}
	return p, f
}

// checkExpiry checks the game's expiry and clock as tc left it and returns
// its deadline: a running clock's runs out at the instant the expiry says.
func (c *timeClient) checkExpiry(tc deadlineCase, p *timedPlay) time.Time {
	c.t.Helper()
	g := p.game
	e := g.Expiry
	if e == nil {
		c.t.Fatalf("%s: no expiry in %+v", tc.name, g)
	}
	wantEnds := "abort"
	if tc.status == "finished" {
		wantEnds = "timeout"
	}
	if e.Ends != wantEnds || (e.Side == nil) == tc.join || (tc.join && *e.Side != g.Position.ToMove) {
		c.t.Fatalf("%s: expiry %+v, want %s against %s", tc.name, e, wantEnds, g.Position.ToMove)
	}
	if tc.status == "finished" {
		remaining := g.Clock.RemainingMs.South
		if g.Position.ToMove == "north" {
			remaining = g.Clock.RemainingMs.North
		}
		// Tiny clocks, played at once: each side has its initial time and
		// increment after its first move, less some milliseconds of the
		// moves since.
		initial := tc.tc["initialSeconds"].(int) + tc.tc["incrementSeconds"].(int)
		if g.Clock.Running == nil || *g.Clock.Running != g.Position.ToMove || g.Clock.Deadline == nil ||
			!g.Clock.Deadline.Equal(g.UpdatedAt.Add(time.Duration(remaining)*time.Millisecond)) || !g.Clock.Deadline.Equal(e.At) ||
			remaining > int64(initial)*1000 || remaining < int64(initial)*1000-1000 {
			c.t.Fatalf("%s: clock %+v updated %v, want %s's %d s running out at the expiry %v", tc.name, g.Clock, g.UpdatedAt, g.Position.ToMove, initial, e.At)
		}
	}
	return e.At
}

// checkEnded checks what a follower of a game that ended at deadline saw,
// and that a read says the same.
func (c *timeClient) checkEnded(base string, tc deadlineCase, p *timedPlay, events []sseEvent, deadline time.Time) {
	c.t.Helper()
	t := c.t
	// The game first (the stream may open after some of the changes,
	// which it then holds), then each change with ids that grow, the end
	// last.
	var kinds []string
	ok := len(events) >= 2 && events[0].kind == "game" && events[len(events)-1].kind == "end"
	for i, e := range events {
		kinds = append(kinds, fmt.Sprintf("%s %d", e.kind, e.id))
		ok = ok && (i < 2 || e.id > events[i-1].id)
	}
	if !ok {
		t.Fatalf("the follower got %v, want the game, then events with growing ids to the end, and the stream closed", kinds)
	}
	end := events[len(events)-1]
	if end.at.Before(deadline) {
		t.Fatalf("the end event came at %v, before the deadline %v", end.at, deadline)
	}
	// The issue asks for 1 s at the 99th percentile under load; a loaded
	// test machine gets some slack, a missed deadline none.
	if late := end.at.Sub(deadline); late > 5*time.Second {
		t.Fatalf("the end event came %v after the deadline", late)
	}
	var ended timedGame
	if err := json.Unmarshal(end.data, &ended); err != nil {
		t.Fatalf("end event data: %v\n%s", err, end.data)
	}
	c.checkEnd(tc, "the end event", ended, p.game.Version, deadline)
	if _, body := c.getRaw(base, p.game.ID); !apitest.SameJSON(body, end.data) {
		t.Fatalf("a read after the end:\n%s\nthe end event:\n%s", body, end.data)
	}
}

// checkEnd checks a game that ended by itself at deadline, with one write
// after the version it had.
func (c *timeClient) checkEnd(tc deadlineCase, what string, g timedGame, version int64, deadline time.Time) {
	c.t.Helper()
	var result *timedResult
	if tc.status == "finished" {
		result = &timedResult{Winner: tc.winner, Reason: "timeout"}
	}
	switch {
	case g.Status != tc.status || fmt.Sprint(g.Result) != fmt.Sprint(result):
		c.t.Fatalf("%s: %s with result %+v, want %s with %+v", what, g.Status, g.Result, tc.status, result)
	case !g.UpdatedAt.Equal(deadline):
		c.t.Fatalf("%s: updatedAt %v, want the deadline %v", what, g.UpdatedAt, deadline)
	case g.Version != version+1:
		c.t.Fatalf("%s: version %d, want %d: one write after the last, %d", what, g.Version, version+1, version)
	case g.Expiry != nil:
		c.t.Fatalf("%s: an ended game with an expiry %+v", what, g.Expiry)
	case g.Clock != nil && (g.Clock.Running != nil || g.Clock.Deadline != nil):
		c.t.Fatalf("%s: an ended game's clock runs: %+v", what, g.Clock)
	}
	if tc.status == "finished" {
		flagged := g.Clock.RemainingMs.South
		if tc.winner == "south" {
			flagged = g.Clock.RemainingMs.North
		}
		if flagged != 0 {
			c.t.Fatalf("%s: the flagged clock shows %d ms, want 0", what, flagged)
		}
	}
}

// checkRefused: an ended game takes no join and no move.
func (c *timeClient) checkRefused(base string, tc deadlineCase, p *timedPlay) {
	c.t.Helper()
	url, token, body := base+"/v1/games/"+p.game.ID+"/join", "", any(nil)
	if tc.join {
		url, token, body = base+"/v1/games/"+p.game.ID+"/moves", p.tokens[sideIndex(p.game.Position.ToMove)], map[string]int{"ply": p.game.Ply, "pit": firstPit(p.game.Position)}
	}
	st, data, err := callJSON(context.Background(), c.http, http.MethodPost, url, token, body, nil)
	var problem struct{ Code string }
	if err != nil || st != http.StatusConflict || json.Unmarshal(data, &problem) != nil || problem.Code != "game_over" {
		c.t.Fatalf("POST %s after the end: %d %s %v, want 409 game_over", url, st, data, err)
	}
}

// firstPit is the side to move's first pit with seeds: a move that would be
// legal if the game went on.
func firstPit(p ltPosition) int {
	from := 6 * sideIndex(p.ToMove)
	for pit := from; pit < from+6; pit++ {
		if p.Pits[pit] > 0 {
			return pit
		}
	}
	return from
}

func checkClock(t *testing.T, what string, g timedGame, south, north time.Duration, running string, deadline time.Time) {
	t.Helper()
	c := g.Clock
	switch {
	case c == nil:
		t.Fatalf("%s: no clock", what)
	case c.RemainingMs.South != south.Milliseconds() || c.RemainingMs.North != north.Milliseconds():
		t.Fatalf("%s: remainingMs %+v, want south %d, north %d", what, c.RemainingMs, south.Milliseconds(), north.Milliseconds())
	case running == "" && (c.Running != nil || c.Deadline != nil):
		t.Fatalf("%s: %v's time runs to %v, want none running", what, *c.Running, c.Deadline)
	case running != "" && (c.Running == nil || *c.Running != running || c.Deadline == nil || !c.Deadline.Equal(deadline)):
		t.Fatalf("%s: clock %+v, want %s's running to %v", what, c, running, deadline)
	}
}

func checkExpiry(t *testing.T, what string, g timedGame, at time.Time, side, ends string) {
	t.Helper()
	e := g.Expiry
	if e == nil || !e.At.Equal(at) || e.Ends != ends || (e.Side == nil) != (side == "") || (e.Side != nil && *e.Side != side) {
		t.Fatalf("%s: expiry %+v, want %s against %q at %v", what, e, ends, side, at)
	}
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// sseEvent is one event of a game's stream and when it came.
type sseEvent struct {
	id   int
	kind string
	data []byte
	at   time.Time
}

// follower is an open event stream and the events it delivers; events is
// closed when the stream ends.
type follower struct {
	events chan sseEvent
	close  func()
}

// follow opens game id's event stream on base, from the beginning.
func (c *timeClient) follow(base, id string) *follower {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/games/"+id+"/events", nil)
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		cancel()
		c.t.Fatalf("events of %s from %s: %v %v", id, base, resp, err)
	}
	f := &follower{events: make(chan sseEvent, 64), close: func() { cancel(); resp.Body.Close() }}
	go func() {
		defer close(f.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		var e sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.kind != "" {
					e.at = time.Now()
					f.events <- e
				}
				e = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				e.id, _ = strconv.Atoi(line[len("id: "):])
			case strings.HasPrefix(line, "event: "):
				e.kind = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				e.data = []byte(line[len("data: "):])
			}
		}
	}()
	c.t.Cleanup(f.close)
	return f
}

// toEnd returns every event of the stream once it has closed.
func (f *follower) toEnd(t *testing.T, within time.Duration) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.After(within)
	for {
		select {
		case e, ok := <-f.events:
			if !ok {
				return got
			}
			got = append(got, e)
		case <-timeout:
			t.Fatalf("the stream did not close within %v; got %d events", within, len(got))
		}
	}
}

// endsInLog counts the log's lines "game ended at its deadline", by game.
func endsInLog(logs ...string) map[string]int {
	n := map[string]int{}
	for _, log := range logs {
		for line := range strings.Lines(log) {
			var l struct{ Msg, Game string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "game ended at its deadline" {
				n[l.Game]++
			}
		}
	}
	return n
}

// waitEnds waits until the logs of the servers say that every game ended
// at its deadline: the condition of a test in which nobody calls the games.
func (c *timeClient) waitEnds(servers []*server, plays []*timedPlay, within time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		var logs []string
		for _, s := range servers {
			logs = append(logs, s.logs())
		}
		ended, missing := endsInLog(logs...), 0
		for _, p := range plays {
			if ended[p.game.ID] == 0 {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%d of %d games not ended %v after the start", missing, len(plays), within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill ends a server with SIGKILL and waits for it to be gone.
func (s *server) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatal("no exit 30 s after SIGKILL")
	}
}
