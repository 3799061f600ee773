package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

var (
	blitz = games.TimeControl{Kind: games.Live, Initial: 180 * time.Second, Increment: 2 * time.Second}
	rapid = games.TimeControl{Kind: games.Live, Initial: 600 * time.Second}
	corr  = games.TimeControl{Kind: games.Correspondence, PerMove: 72 * time.Hour}
)

// world is a lobby over a memory store with an injected clock.
type world struct {
	st    *memory.Store
	clock *gamestest.Clock
	games *games.Service
	lobby *lobby.Service
	ps    *players.Service
}

func newWorld(t *testing.T) *world {
	t.Helper()
	st := memory.New()
	clock := gamestest.NewClock()
	gs := games.NewService(st, budget.New(1), games.Options{Now: clock.Now, Choose: func(context.Context, engine.Position, engine.Rules, []engine.Position, int, uint64) (int, error) {
		return 0, errors.New("no AI in these tests")
	}})
	return &world{st: st, clock: clock, games: gs, ps: players.NewService(st, clock.Now),
		lobby: lobby.NewService(st, lobby.Options{Games: gs, Now: clock.Now})}
}

func (w *world) player(t *testing.T, name string) *players.Player {
	t.Helper()
	p, _, err := w.ps.Create(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

func (w *world) seek(t *testing.T, p *players.Player, req lobby.NewSeek) lobby.Seek {
	t.Helper()
	sk, err := w.lobby.PostSeek(t.Context(), p, req)
	if err != nil {
		t.Fatalf("%s's seek: %v", p.Name, err)
	}
	return sk
}

func TestCompatible(t *testing.T) {
	base := lobby.Seek{PlayerID: "a", TimeControl: blitz, Rated: true, Seat: lobby.SeatRandom, Rating: players.Rating{Value: 1500}}
	with := func(f func(*lobby.Seek)) lobby.Seek {
		s := base
		s.PlayerID = "b"
		f(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		a, b lobby.Seek
		want bool
	}{
		{"same terms", base, with(func(*lobby.Seek) {}), true},
		{"one player", base, with(func(s *lobby.Seek) { s.PlayerID = "a" }), false},
		{"rated and casual", base, with(func(s *lobby.Seek) { s.Rated = false }), false},
		{"another increment", base, with(func(s *lobby.Seek) { s.TimeControl.Increment = 3 * time.Second }), false},
		{"correspondence", base, with(func(s *lobby.Seek) { s.TimeControl = corr }), false},
		{"south and random", with(func(s *lobby.Seek) { s.PlayerID, s.Seat = "a", lobby.SeatSouth }), with(func(*lobby.Seek) {}), true},
		{"south and north", with(func(s *lobby.Seek) { s.PlayerID, s.Seat = "a", lobby.SeatSouth }), with(func(s *lobby.Seek) { s.Seat = lobby.SeatNorth }), true},
		{"south and south", with(func(s *lobby.Seek) { s.PlayerID, s.Seat = "a", lobby.SeatSouth }), with(func(s *lobby.Seek) { s.Seat = lobby.SeatSouth }), false},
		{"in the range", base, with(func(s *lobby.Seek) { s.Range = lobby.Range{Min: 1500, Max: 1600, Set: true} }), true},
		{"below the range", base, with(func(s *lobby.Seek) { s.Range = lobby.Range{Min: 1501, Max: 1600, Set: true} }), false},
		{"outside the other's range", with(func(s *lobby.Seek) { s.PlayerID, s.Range = "a", lobby.Range{Min: 0, Max: 1000, Set: true} }), with(func(*lobby.Seek) {}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lobby.Compatible(&tc.a, &tc.b); got != tc.want {
				t.Errorf("Compatible: %v, want %v", got, tc.want)
			}
			if got := lobby.Compatible(&tc.b, &tc.a); got != tc.want {
				t.Errorf("Compatible the other way: %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSeekPairsAtOnce(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ann, bob := w.player(t, "Ann"), w.player(t, "Bob")
	first := w.seek(t, ann, lobby.NewSeek{TimeControl: blitz, Rated: true, Seat: lobby.SeatNorth})
	w.clock.Advance(time.Millisecond)
	other := w.seek(t, ann, lobby.NewSeek{TimeControl: rapid, Rated: true})
	w.clock.Advance(time.Millisecond)
	mail := w.seek(t, ann, lobby.NewSeek{TimeControl: corr, Rated: true})
	if first.Status != lobby.SeekOpen {
		t.Fatalf("the first seek is %s, want open", first.Status)
	}
	if got, _ := w.lobby.Lobby(ctx, games.Untimed, nil, 10); len(got) != 3 || got[0].ID != mail.ID {
		t.Fatalf("lobby %v, want ann's three seeks, newest first", got)
	}
	w.clock.Advance(time.Second)
	second := w.seek(t, bob, lobby.NewSeek{TimeControl: blitz, Rated: true})
	if second.Status != lobby.SeekMatched || second.GameID == "" || second.Side != engine.South {
		t.Fatalf("the second seek: %+v, want matched as South", second)
	}
	got, err := w.lobby.Seek(ctx, ann, first.ID)
	if err != nil || got.Status != lobby.SeekMatched || got.GameID != second.GameID || got.Side != engine.North {
		t.Fatalf("ann's seek after: %+v, %v", got, err)
	}
	if got, _ := w.lobby.Seek(ctx, ann, other.ID); got.Status != lobby.SeekCancelled {
		t.Errorf("ann's other clock seek is %s, want cancelled", got.Status)
	}
	if got, _ := w.lobby.Seek(ctx, ann, mail.ID); got.Status != lobby.SeekOpen {
		t.Errorf("ann's correspondence seek is %s, want open", got.Status)
	}
	g, err := w.games.Game(ctx, second.GameID)
	if err != nil || g.Status != games.Active || g.Players[engine.North].ID != ann.ID || g.Players[engine.South].ID != bob.ID ||
		!g.Rated || g.TimeControl != blitz || g.Tokens[0] == nil || g.Tokens[1] == nil {
		t.Fatalf("the game: %+v, %v", g, err)
	}
	if _, err := w.lobby.CancelSeek(ctx, ann, first.ID); !errors.Is(err, lobby.ErrSeekClosed) {
		t.Errorf("cancelling a matched seek: %v, want ErrSeekClosed", err)
	}
	if _, err := w.lobby.Seek(ctx, bob, first.ID); !errors.Is(err, lobby.ErrNotYourSeek) {
		t.Errorf("bob reads ann's seek: %v, want ErrNotYourSeek", err)
	}
}

func TestSeekRefusals(t *testing.T) {
	w := newWorld(t)
	ann := w.player(t, "Ann")
	w.seek(t, ann, lobby.NewSeek{TimeControl: blitz})
	for _, tc := range []struct {
		name   string
		player *players.Player
		req    lobby.NewSeek
		want   error
	}{
		{"no player", nil, lobby.NewSeek{TimeControl: rapid}, players.ErrUnauthorized},
		{"untimed", ann, lobby.NewSeek{}, lobby.ErrTimeControlRequired},
		{"a bad clock", ann, lobby.NewSeek{TimeControl: games.TimeControl{Kind: games.Live, Initial: -time.Second}}, games.ErrInvalidTimeControl},
		{"min above max", ann, lobby.NewSeek{TimeControl: rapid, Range: lobby.Range{Min: 1800, Max: 1500, Set: true}}, lobby.ErrInvalidRange},
		{"a second of one time control", ann, lobby.NewSeek{TimeControl: blitz, Rated: true}, lobby.ErrTooManySeeks},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := w.lobby.Lobby(t.Context(), games.Untimed, nil, 100)
			if _, err := w.lobby.PostSeek(t.Context(), tc.player, tc.req); !errors.Is(err, tc.want) {
				t.Fatalf("PostSeek: %v, want %v", err, tc.want)
			}
			if after, _ := w.lobby.Lobby(t.Context(), games.Untimed, nil, 100); len(after) != len(before) {
				t.Errorf("the lobby went from %d seeks to %d", len(before), len(after))
			}
		})
	}
	for i := range 4 {
		w.seek(t, ann, lobby.NewSeek{TimeControl: games.TimeControl{Kind: games.Live, Initial: time.Duration(i+1) * time.Minute}})
	}
	if _, err := w.lobby.PostSeek(t.Context(), ann, lobby.NewSeek{TimeControl: corr}); !errors.Is(err, lobby.ErrTooManySeeks) {
		t.Errorf("a sixth seek: %v, want ErrTooManySeeks", err)
	}
}

// collector is a lobby.Stream that keeps what it is sent.
type collector struct {
	mu  sync.Mutex
	evs []lobby.Event
	got chan struct{}
}

func newCollector() *collector { return &collector{got: make(chan struct{}, 1000)} }

func (c *collector) Send(e lobby.Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.evs = append(c.evs, e)
	c.got <- struct{}{}
	return nil
}

func (c *collector) Beat() error { return nil }

// wait waits for n events in all and returns them.
func (c *collector) wait(t *testing.T, n int) []lobby.Event {
	t.Helper()
	for {
		c.mu.Lock()
		if len(c.evs) >= n {
			defer c.mu.Unlock()
			return append([]lobby.Event(nil), c.evs...)
		}
		c.mu.Unlock()
		select {
		case <-c.got:
		case <-time.After(10 * time.Second):
			t.Fatalf("waited for %d events, have %d", n, len(c.evs))
		}
	}
}

func kinds(evs []lobby.Event) string {
	var s string
	for _, e := range evs {
		s += string(e.Kind) + " "
	}
	return s
}

func TestExpiryAndStream(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ann, bob := w.player(t, "Ann"), w.player(t, "Bob")
	live := w.seek(t, ann, lobby.NewSeek{TimeControl: blitz})
	w.clock.Advance(time.Millisecond)
	mail := w.seek(t, ann, lobby.NewSeek{TimeControl: corr})
	ch, err := w.lobby.Challenge(ctx, bob, lobby.NewChallenge{To: ann.ID, TimeControl: rapid})
	if err != nil {
		t.Fatal(err)
	}
	out := newCollector()
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.lobby.Follow(sctx, ann.ID, -1, time.Hour, out) }()
	first := out.wait(t, 3)
	if kinds(first) != "challenge seek seek " || first[0].Challenge == nil || first[0].Challenge.ID != ch.ID || first[1].Seek.ID != live.ID {
		t.Fatalf("a new stream's first frames: %s %+v", kinds(first), first)
	}
	// Past the seek TTL: the clock seek expires, the correspondence one
	// and bob's challenge (whose challenger holds no stream) too.
	w.clock.Advance(lobby.DefaultSeekTTL)
	if err := w.lobby.Expire(ctx); err != nil {
		t.Fatal(err)
	}
	evs := out.wait(t, 5)
	if kinds(evs[3:]) != "seekExpired challengeCanceled " || evs[3].SeekID != live.ID || evs[3].Seek.Status != lobby.SeekExpired {
		t.Errorf("after the expiry: %s", kinds(evs[3:]))
	}
	if got, _ := w.lobby.Seek(ctx, ann, mail.ID); got.Status != lobby.SeekOpen {
		t.Errorf("the correspondence seek is %s, want open", got.Status)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("Follow: %v", err)
	}
	// Resuming after the first live event gives the second.
	again := newCollector()
	rctx, rstop := context.WithCancel(ctx)
	go func() { _ = w.lobby.Follow(rctx, ann.ID, evs[3].Seq, time.Hour, again) }()
	if got := again.wait(t, 1); got[0].Kind != lobby.EventChallengeCanceled || got[0].Seq != evs[4].Seq {
		t.Errorf("resumed: %s seq %d", got[0].Kind, got[0].Seq)
	}
	rstop()
}

func TestChallenges(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ann, bob, cid := w.player(t, "Ann"), w.player(t, "Bob"), w.player(t, "Cid")
	if _, err := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: ann.ID, TimeControl: blitz}); !errors.Is(err, lobby.ErrSelfChallenge) {
		t.Errorf("challenging oneself: %v", err)
	}
	if _, err := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: "nobody", TimeControl: blitz}); !errors.Is(err, players.ErrNotFound) {
		t.Errorf("challenging nobody: %v", err)
	}
	start := engine.Start()
	if _, err := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: bob.ID, TimeControl: blitz, Rated: true, Start: &start}); !errors.Is(err, games.ErrRatedNotAllowed) {
		t.Errorf("a rated game from a position: %v", err)
	}
	c, err := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: bob.ID, TimeControl: blitz, Rated: true, Seat: lobby.SeatSouth})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.lobby.Accept(ctx, cid, c.ID); !errors.Is(err, lobby.ErrNotYourChallenge) {
		t.Errorf("a third player accepts: %v", err)
	}
	if _, err := w.lobby.Decline(ctx, ann, c.ID, lobby.DeclineLater); !errors.Is(err, lobby.ErrNotYourChallenge) {
		t.Errorf("the challenger declines: %v", err)
	}
	acc, err := w.lobby.Accept(ctx, bob, c.ID)
	if err != nil || acc.Status != lobby.ChallengeAccepted || acc.GameID == "" || acc.Side != engine.South {
		t.Fatalf("accept: %+v, %v", acc, err)
	}
	g, _ := w.games.Game(ctx, acc.GameID)
	if g.Players[engine.South].ID != ann.ID || g.Players[engine.North].ID != bob.ID || g.Status != games.Active {
		t.Errorf("the game's seats: %+v", g.Players)
	}
	if _, err := w.lobby.Accept(ctx, bob, c.ID); !errors.Is(err, lobby.ErrChallengeClosed) {
		t.Errorf("accept twice: %v", err)
	}
	// Decline and cancel.
	d, _ := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: bob.ID, TimeControl: corr})
	if got, err := w.lobby.Decline(ctx, bob, d.ID, lobby.DeclineTooSlow); err != nil || got.Reason != lobby.DeclineTooSlow {
		t.Errorf("decline: %+v, %v", got, err)
	}
	x, _ := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{TimeControl: corr})
	if _, err := w.lobby.CancelChallenge(ctx, bob, x.ID); !errors.Is(err, lobby.ErrNotYourChallenge) {
		t.Errorf("cancel another's challenge: %v", err)
	}
	if _, err := w.lobby.CancelChallenge(ctx, ann, x.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.lobby.Accept(ctx, cid, x.ID); !errors.Is(err, lobby.ErrChallengeClosed) {
		t.Errorf("accept after a cancel: %v", err)
	}
	// An open challenge: anyone but its challenger.
	o, _ := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{TimeControl: corr})
	if _, err := w.lobby.Accept(ctx, ann, o.ID); !errors.Is(err, lobby.ErrSelfChallenge) {
		t.Errorf("accept one's own: %v", err)
	}
	if got, err := w.lobby.Accept(ctx, cid, o.ID); err != nil || got.AcceptedBy != cid.ID {
		t.Errorf("accept an open challenge: %+v, %v", got, err)
	}
	// A clock challenge expires after its TTL, a correspondence one lives.
	e, _ := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: bob.ID, TimeControl: blitz})
	w.clock.Advance(lobby.DefaultChallengeTTL)
	if _, err := w.lobby.Accept(ctx, bob, e.ID); !errors.Is(err, lobby.ErrChallengeClosed) {
		t.Errorf("accept an expired challenge: %v", err)
	}
}

func TestRematch(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ann, bob, cid := w.player(t, "Ann"), w.player(t, "Bob"), w.player(t, "Cid")
	c, _ := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: bob.ID, TimeControl: corr, Seat: lobby.SeatSouth})
	c, err := w.lobby.Accept(ctx, bob, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.lobby.Rematch(ctx, ann, c.GameID); !errors.Is(err, lobby.ErrRematch) {
		t.Errorf("a rematch of a game in play: %v", err)
	}
	if _, err := w.st.Resign(ctx, c.GameID, engine.Result{Winner: engine.NorthWins, Reason: engine.ByResignation}, w.clock.Now(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.lobby.Rematch(ctx, cid, c.GameID); !errors.Is(err, lobby.ErrRematch) {
		t.Errorf("a rematch by an onlooker: %v", err)
	}
	r, err := w.lobby.Rematch(ctx, ann, c.GameID)
	if err != nil || r.Status != lobby.ChallengePending || r.To != bob.ID || r.Seat != lobby.SeatNorth {
		t.Fatalf("ann's rematch: %+v, %v", r, err)
	}
	if again, _ := w.lobby.Rematch(ctx, ann, c.GameID); again.ID != r.ID {
		t.Errorf("asking twice made %s and %s", r.ID, again.ID)
	}
	both, err := w.lobby.Rematch(ctx, bob, c.GameID)
	if err != nil || both.Status != lobby.ChallengeAccepted || both.ID != r.ID {
		t.Fatalf("bob's rematch: %+v, %v", both, err)
	}
	g, _ := w.games.Game(ctx, both.GameID)
	if g.Players[engine.North].ID != ann.ID || g.Players[engine.South].ID != bob.ID {
		t.Errorf("the rematch's seats are not swapped: %+v", g.Players)
	}
}

// TestSeekRace posts seeks of many players at once, on a store whose
// pairing is one conditional write: every seek ends in at most one game,
// every game joins two compatible seeks, nobody gets two clock games, and
// no two compatible seeks are left open.
func TestSeekRace(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	const n = 200
	ps := make([]*players.Player, n)
	for i := range ps {
		ps[i] = w.player(t, fmt.Sprint("p", i))
	}
	tcs := []games.TimeControl{blitz, rapid, corr}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var posted []lobby.Seek
	for i, p := range ps {
		for j := range 2 {
			wg.Go(func() {
				sk, err := w.lobby.PostSeek(ctx, p, lobby.NewSeek{TimeControl: tcs[(i+j)%3], Rated: i%2 == 0})
				if err != nil && !errors.Is(err, lobby.ErrTooManySeeks) && !errors.Is(err, lobby.ErrPlaying) {
					t.Errorf("player %d: %v", i, err)
					return
				}
				mu.Lock()
				posted = append(posted, sk)
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	byGame := map[string][]lobby.Seek{}
	var open []lobby.Seek
	for _, p := range ps {
		seeks, _ := w.st.PlayerSeeks(ctx, p.ID, w.clock.Now())
		open = append(open, seeks...)
	}
	for _, sk := range posted {
		if sk.ID == "" {
			continue
		}
		cur, _ := w.st.Seek(ctx, sk.ID)
		if cur.Status == lobby.SeekMatched {
			byGame[cur.GameID] = append(byGame[cur.GameID], cur)
		}
	}
	clockGames := map[string]int{}
	for id, seeks := range byGame {
		if len(seeks) != 2 || !lobby.Compatible(&seeks[0], &seeks[1]) {
			t.Errorf("game %s joins %d seeks: %+v", id, len(seeks), seeks)
			continue
		}
		if _, err := w.games.Game(ctx, id); err != nil {
			t.Errorf("game %s: %v", id, err)
		}
		if seeks[0].Clock() {
			clockGames[seeks[0].PlayerID]++
			clockGames[seeks[1].PlayerID]++
		}
	}
	for p, k := range clockGames {
		if k > 1 {
			t.Errorf("player %s has %d clock games", p, k)
		}
	}
	for i := range open {
		for j := i + 1; j < len(open); j++ {
			if lobby.Compatible(&open[i], &open[j]) {
				t.Errorf("compatible seeks %s and %s left open", open[i].ID, open[j].ID)
			}
		}
	}
	if len(byGame) == 0 {
		t.Error("no game at all")
	}
}

// TestGameFinish: when the games service ends a game of two players, by a
// resignation here, each player's stream gets a gameFinish event for it,
// once; a game of the lobby's that has not ended gets none.
func TestGameFinish(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	w.games.OnEnded(w.lobby)
	ann, bob := w.player(t, "Ann"), w.player(t, "Bob")
	finishes := func(p *players.Player, game string) int {
		t.Helper()
		evs, err := w.st.Events(ctx, p.ID, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range evs {
			if e.Kind == lobby.EventGameFinish && e.GameID == game {
				n++
			}
		}
		return n
	}
	c, _ := w.lobby.Challenge(ctx, ann, lobby.NewChallenge{To: bob.ID, TimeControl: corr, Seat: lobby.SeatSouth})
	c, err := w.lobby.Accept(ctx, bob, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := finishes(ann, c.GameID); n != 0 {
		t.Fatalf("%d gameFinish events for a game in play", n)
	}
	if _, err := w.games.Resign(ctx, c.GameID, games.Actor{Player: bob.ID}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.games.Resign(ctx, c.GameID, games.Actor{Player: bob.ID}); err != nil {
		t.Fatalf("the same resignation again: %v", err)
	}
	for _, p := range []*players.Player{ann, bob} {
		if n := finishes(p, c.GameID); n != 1 {
			t.Errorf("%s has %d gameFinish events for the game, want 1", p.Name, n)
		}
	}
}

// TestNoSecondClockGame: however two players meet (a seek, a challenge, a
// rematch), nobody playing a game with a live clock gets a second one; a
// refused acceptance leaves the challenge pending, and a clock game that
// starts cancels both players' open clock seeks.
func TestNoSecondClockGame(t *testing.T) {
	for _, tc := range []struct {
		name string
		// busy is who of the challenger ("from") and the acceptor ("to")
		// plays a clock game first; "" nobody.
		busy    string
		tc      games.TimeControl
		rematch bool
		want    error
	}{
		{"acceptor plays a clock game", "to", blitz, false, lobby.ErrChallengePlaying},
		{"challenger plays a clock game", "from", rapid, false, lobby.ErrChallengePlaying},
		{"correspondence while playing", "to", corr, false, nil},
		{"nobody plays", "", blitz, false, nil},
		{"rematch while the asker plays", "from", blitz, true, lobby.ErrChallengePlaying},
		{"rematch while the second asker plays", "to", blitz, true, lobby.ErrChallengePlaying},
		{"rematch, nobody plays", "", blitz, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			ctx := t.Context()
			from, to, cid := w.player(t, "From"), w.player(t, "To"), w.player(t, "Cid")
			var id string
			if tc.rematch {
				c, _ := w.lobby.Challenge(ctx, from, lobby.NewChallenge{To: to.ID, TimeControl: tc.tc})
				c, err := w.lobby.Accept(ctx, to, c.ID)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := w.st.Resign(ctx, c.GameID, engine.Result{Winner: engine.NorthWins, Reason: engine.ByResignation}, w.clock.Now(), nil); err != nil {
					t.Fatal(err)
				}
				r, err := w.lobby.Rematch(ctx, from, c.GameID)
				if err != nil {
					t.Fatal(err)
				}
				id = r.ID
			} else {
				c, err := w.lobby.Challenge(ctx, from, lobby.NewChallenge{To: to.ID, TimeControl: tc.tc})
				if err != nil {
					t.Fatal(err)
				}
				id = c.ID
			}
			// Each player's open clock seek, and the busy one's clock game
			// with Cid through the seeks.
			seeks := map[string]lobby.Seek{}
			for _, p := range []*players.Player{from, to} {
				sk := blitz
				if (p == from && tc.busy == "from") || (p == to && tc.busy == "to") {
					w.seek(t, cid, lobby.NewSeek{TimeControl: rapid})
					if got := w.seek(t, p, lobby.NewSeek{TimeControl: rapid}); got.Status != lobby.SeekMatched {
						t.Fatalf("%s's clock game: %+v", p.Name, got)
					}
					continue
				}
				if sk == tc.tc {
					sk = rapid
				}
				seeks[p.ID] = w.seek(t, p, lobby.NewSeek{TimeControl: sk, Seat: lobby.SeatSouth, Range: lobby.Range{Min: 3000, Max: 3001, Set: true}})
			}
			var got lobby.Challenge
			var err error
			if tc.rematch {
				got, err = w.lobby.Rematch(ctx, to, mustRematchOf(t, w, id))
			} else {
				got, err = w.lobby.Accept(ctx, to, id)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("accept: %+v, %v, want %v", got, err, tc.want)
			}
			now, _ := w.lobby.GetChallenge(ctx, id)
			if tc.want != nil {
				if now.Status != lobby.ChallengePending {
					t.Errorf("a refused challenge is %s, want pending", now.Status)
				}
				for p, sk := range seeks {
					if cur, _ := w.lobby.Seek(ctx, playerOf(from, to, p), sk.ID); cur.Status != lobby.SeekOpen {
						t.Errorf("%s's seek after a refusal: %s", p, cur.Status)
					}
				}
				return
			}
			if now.Status != lobby.ChallengeAccepted {
				t.Fatalf("challenge: %s", now.Status)
			}
			for p, sk := range seeks {
				want := lobby.SeekOpen
				if tc.tc.Kind == games.Live {
					want = lobby.SeekCancelled
				}
				if cur, _ := w.lobby.Seek(ctx, playerOf(from, to, p), sk.ID); cur.Status != want {
					t.Errorf("%s's clock seek: %s, want %s", p, cur.Status, want)
				}
			}
		})
	}
}

func playerOf(a, b *players.Player, id string) *players.Player {
	if a.ID == id {
		return a
	}
	return b
}

// mustRematchOf returns the game challenge id is a rematch of.
func mustRematchOf(t *testing.T, w *world, id string) string {
	t.Helper()
	c, err := w.lobby.GetChallenge(t.Context(), id)
	if err != nil || c.RematchOf == "" {
		t.Fatalf("challenge %s: %+v, %v", id, c, err)
	}
	return c.RematchOf
}
