package games_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/store/memory"
)

var (
	blitz = games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute, Increment: 2 * time.Second}
	corr3 = games.TimeControl{Kind: games.Correspondence, PerMove: 3 * 24 * time.Hour}
)

func TestTimeControlCheck(t *testing.T) {
	tests := []struct {
		name string
		tc   games.TimeControl
		ok   bool
	}{
		{"untimed", games.TimeControl{}, true},
		{"3+2", blitz, true},
		{"the longest clock", games.TimeControl{Kind: games.Live, Initial: 3 * time.Hour, Increment: 3 * time.Minute}, true},
		{"a tiny clock", games.TimeControl{Kind: games.Live, Initial: time.Second}, true},
		{"0+1", games.TimeControl{Kind: games.Live, Increment: time.Second}, true},
		{"0+0", games.TimeControl{Kind: games.Live}, false},
		{"over three hours", games.TimeControl{Kind: games.Live, Initial: 3*time.Hour + time.Second}, false},
		{"an increment over 180 s", games.TimeControl{Kind: games.Live, Initial: time.Minute, Increment: 181 * time.Second}, false},
		{"a negative clock", games.TimeControl{Kind: games.Live, Initial: -time.Second, Increment: 5 * time.Second}, false},
		{"a clock with days", games.TimeControl{Kind: games.Live, Initial: time.Minute, PerMove: 24 * time.Hour}, false},
		{"1 day", games.TimeControl{Kind: games.Correspondence, PerMove: 24 * time.Hour}, true},
		{"14 days", games.TimeControl{Kind: games.Correspondence, PerMove: 14 * 24 * time.Hour}, true},
		{"0 days", games.TimeControl{Kind: games.Correspondence}, false},
		{"15 days", games.TimeControl{Kind: games.Correspondence, PerMove: 15 * 24 * time.Hour}, false},
		{"correspondence with seconds", games.TimeControl{Kind: games.Correspondence, PerMove: 24 * time.Hour, Initial: time.Minute}, false},
		{"an unknown kind", games.TimeControl{Kind: 9, Initial: time.Minute}, false},
		{"untimed with times", games.TimeControl{Initial: time.Minute}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tc.Check()
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, games.ErrInvalidTimeControl)) {
				t.Fatalf("Check(%s) = %v, want ok %v", tc.tc, err, tc.ok)
			}
		})
	}
}

// timedGame is a game between two people with a time control, joined, on
// a service with the fake clock.
type timedGame struct {
	svc    *games.Service
	sweep  *games.Sweeper
	clock  *gamestest.Clock
	store  *memory.Store
	id     string
	tokens [2]string
}

func newTimedGame(t *testing.T, tc games.TimeControl, o games.Options) *timedGame {
	t.Helper()
	tg := &timedGame{clock: gamestest.NewClock(), store: memory.New()}
	o.Now, o.Choose = tg.clock.Now, lastLegal
	tg.svc = games.NewService(tg.store, testCPU(), o)
	tg.sweep = games.NewSweeper(tg.svc, games.SweepOptions{})
	ctx := t.Context()
	a, err := tg.svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, TimeControl: tc})
	if err != nil {
		t.Fatal(err)
	}
	tg.clock.Advance(5 * time.Second)
	b, err := tg.svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	tg.id, tg.tokens = a.Game.ID, [2]string{a.Token, b.Token}
	return tg
}

// play makes the side to move play its first legal pit after waiting
// think, and returns the game after it.
func (tg *timedGame) play(t *testing.T, think time.Duration) games.Game {
	t.Helper()
	g := tg.game(t)
	tg.clock.Advance(think)
	if _, _, err := tg.svc.Play(t.Context(), games.MoveRequest{ID: tg.id, Token: tg.tokens[g.Position.ToMove], Ply: g.Ply, Pit: firstLegal(&g)}); err != nil {
		t.Fatalf("ply %d after %v: %v", g.Ply, think, err)
	}
	return tg.game(t)
}

func (tg *timedGame) game(t *testing.T) games.Game {
	t.Helper()
	g, err := tg.svc.Game(t.Context(), tg.id)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestLiveClock: a side's first move has only its window and costs nothing;
// from its second turn on the time it takes comes off its clock and the
// increment goes on; the deadline is the running side's time from its turn's
// start; and the history rebuilt later says the same times as the answers.
func TestLiveClock(t *testing.T) {
	tg := newTimedGame(t, blitz, games.Options{})
	g := tg.game(t)
	joined := g.UpdatedAt
	if _, running := g.Running(); running || !g.Deadline.Equal(joined.Add(games.DefaultFirstMove)) {
		t.Fatalf("after the join: running %v, deadline %v, want South's first-move window to %v", running, g.Deadline, joined.Add(games.DefaultFirstMove))
	}
	if end, side := g.Ending(); end != games.EndsAbort || side != engine.South {
		t.Fatalf("after the join the game ends by %v of %v, want an abort for South", end, side)
	}
	steps := []struct {
		name       string
		think      time.Duration
		wantClock  [2]time.Duration // south, north after the move
		wantRunner engine.Side
		running    bool
	}{
		{"South's first move: only the increment", 20 * time.Second, [2]time.Duration{182 * time.Second, 180 * time.Second}, 0, false},
		{"North's first move: only the increment", 25 * time.Second, [2]time.Duration{182 * time.Second, 182 * time.Second}, engine.South, true},
		{"South takes 10.5 s", 10500 * time.Millisecond, [2]time.Duration{173500 * time.Millisecond, 182 * time.Second}, engine.North, true},
		{"North takes 1 min", time.Minute, [2]time.Duration{173500 * time.Millisecond, 124 * time.Second}, engine.South, true},
	}
	for _, st := range steps {
		g = tg.play(t, st.think)
		if g.Clock != st.wantClock {
			t.Fatalf("%s: clock %v, want %v", st.name, g.Clock, st.wantClock)
		}
		side, running := g.Running()
		if running != st.running || (running && side != st.wantRunner) {
			t.Fatalf("%s: running %v %v, want %v %v", st.name, side, running, st.wantRunner, st.running)
		}
		view, ok := games.ClockOf(&g)
		if !ok || (running && !view.Deadline.Equal(g.Deadline)) {
			t.Fatalf("%s: clock view %+v, the game's deadline %v", st.name, view, g.Deadline)
		}
		if running && !g.Deadline.Equal(g.UpdatedAt.Add(g.Clock[side])) {
			t.Fatalf("%s: deadline %v, want the turn's start %v plus %v", st.name, g.Deadline, g.UpdatedAt, g.Clock[side])
		}
	}
	ms, err := tg.svc.Moves(t.Context(), tg.id, 0, 100)
	if err != nil || len(ms) != len(steps) {
		t.Fatalf("history: %d moves, %v", len(ms), err)
	}
	for i, st := range steps {
		if ms[i].Elapsed != st.think || !ms[i].HasClock || ms[i].Clock.Remaining != st.wantClock {
			t.Errorf("history ply %d: elapsed %v, clock %+v; want %v, %v", i, ms[i].Elapsed, ms[i].Clock, st.think, st.wantClock)
		}
	}
	// A page from the middle says the same as the whole history.
	page, err := tg.svc.Moves(t.Context(), tg.id, 2, 1)
	if err != nil || len(page) != 1 || page[0].Elapsed != ms[2].Elapsed || page[0].Clock != ms[2].Clock {
		t.Fatalf("page from ply 2: %+v, %v; want %+v", page, err, ms[2])
	}
}

// TestDeadlines: each way a game ends by itself, seen by a read (no sweeper
// ran) and by SweepOnce, with the end time it should have had.
func TestDeadlines(t *testing.T) {
	type setup func(t *testing.T) (*timedGame, time.Time) // the game and its deadline
	tests := []struct {
		name       string
		setup      setup
		wantStatus games.Status
		wantResult engine.Result
	}{
		{"a clock runs out", func(t *testing.T) (*timedGame, time.Time) {
			tg := newTimedGame(t, games.TimeControl{Kind: games.Live, Initial: 10 * time.Second}, games.Options{})
			tg.play(t, time.Second)
			g := tg.play(t, time.Second)
			return tg, g.UpdatedAt.Add(10 * time.Second)
		}, games.Finished, engine.TimeoutResult(engine.South)},
		{"a correspondence move is overdue", func(t *testing.T) (*timedGame, time.Time) {
			tg := newTimedGame(t, corr3, games.Options{})
			tg.play(t, 20*time.Hour)
			tg.play(t, 23*time.Hour)
			g := tg.play(t, 70*time.Hour)
			return tg, g.UpdatedAt.Add(3 * 24 * time.Hour)
		}, games.Finished, engine.TimeoutResult(engine.North)},
		{"the first move never comes", func(t *testing.T) (*timedGame, time.Time) {
			tg := newTimedGame(t, blitz, games.Options{Expiries: games.Expiries{FirstMove: 45 * time.Second}})
			return tg, tg.game(t).UpdatedAt.Add(45 * time.Second)
		}, games.Aborted, engine.Result{}},
		{"the second side's first move never comes", func(t *testing.T) (*timedGame, time.Time) {
			tg := newTimedGame(t, blitz, games.Options{})
			g := tg.play(t, 3*time.Second)
			return tg, g.UpdatedAt.Add(games.DefaultFirstMove)
		}, games.Aborted, engine.Result{}},
		{"a correspondence first move has a day", func(t *testing.T) (*timedGame, time.Time) {
			tg := newTimedGame(t, corr3, games.Options{})
			return tg, tg.game(t).UpdatedAt.Add(24 * time.Hour)
		}, games.Aborted, engine.Result{}},
		{"an untimed game goes idle", func(t *testing.T) (*timedGame, time.Time) {
			tg := newTimedGame(t, games.TimeControl{}, games.Options{})
			g := tg.play(t, time.Hour)
			return tg, g.UpdatedAt.Add(games.DefaultIdleExpiry)
		}, games.Finished, engine.TimeoutResult(engine.North)},
	}
	for _, tc := range tests {
		for _, by := range []string{"read", "sweep"} {
			t.Run(tc.name+" by "+by, func(t *testing.T) {
				ctx := t.Context()
				tg, deadline := tc.setup(t)
				if g := tg.game(t); !g.Deadline.Equal(deadline) {
					t.Fatalf("deadline %v, want %v", g.Deadline, deadline)
				}
				tg.clock.Advance(deadline.Sub(tg.clock.Now()) - time.Millisecond)
				if n, err := tg.sweep.SweepOnce(ctx); n != 0 || err != nil {
					t.Fatalf("a millisecond early: swept %d, %v", n, err)
				}
				if g := tg.game(t); g.Status.Over() {
					t.Fatalf("a millisecond early the game is %s", g.Status)
				}
				tg.clock.Advance(time.Hour) // every instance was down meanwhile
				if by == "sweep" {
					if n, err := tg.sweep.SweepOnce(ctx); n != 1 || err != nil {
						t.Fatalf("swept %d, %v; want 1", n, err)
					}
				}
				g := tg.game(t)
				if g.Status != tc.wantStatus || g.Result != tc.wantResult || !g.UpdatedAt.Equal(deadline) || !g.Deadline.IsZero() {
					t.Fatalf("ended %s %+v at %v (deadline %v); want %s %+v at the deadline %v", g.Status, g.Result, g.UpdatedAt, g.Deadline, tc.wantStatus, tc.wantResult, deadline)
				}
				if side, running := g.Running(); running {
					t.Fatalf("%s's clock still runs in an ended game", side)
				}
				if tc.wantResult.Reason == engine.ByTimeout && g.TimeControl.Kind == games.Live && g.Clock[g.Position.ToMove] != 0 {
					t.Fatalf("the flagged side's clock says %v, want 0", g.Clock[g.Position.ToMove])
				}
				if _, ok := games.ExpiryOf(&g); ok {
					t.Fatal("an ended game still has an expiry")
				}
				// A move sent now is refused as over, and nothing is played.
				_, _, err := tg.svc.Play(ctx, games.MoveRequest{ID: tg.id, Token: tg.tokens[g.Position.ToMove], Ply: g.Ply, Pit: firstLegal(&g)})
				if !errors.Is(err, games.ErrFinished) {
					t.Fatalf("a move after the end: %v, want ErrFinished", err)
				}
				if n, err := tg.sweep.SweepOnce(ctx); n != 0 || err != nil {
					t.Fatalf("swept again: %d, %v; want nothing", n, err)
				}
			})
		}
	}
}

// TestMoveAfterDeadlineRefused: a move that arrives after the deadline is
// refused even though no sweep or read ended the game first, and the game
// ends as the deadline says (the move's cached row is not trusted).
func TestMoveAfterDeadlineRefused(t *testing.T) {
	tg := newTimedGame(t, games.TimeControl{Kind: games.Live, Initial: 5 * time.Second}, games.Options{})
	tg.play(t, time.Second)
	g := tg.play(t, time.Second)
	tg.clock.Advance(5 * time.Second) // exactly at the deadline: too late
	_, _, err := tg.svc.Play(t.Context(), games.MoveRequest{ID: tg.id, Token: tg.tokens[engine.South], Ply: g.Ply, Pit: firstLegal(&g)})
	if !errors.Is(err, games.ErrFinished) {
		t.Fatalf("move at the deadline: %v, want ErrFinished", err)
	}
	if g := tg.game(t); g.Result != engine.TimeoutResult(engine.South) || g.Ply != 2 {
		t.Fatalf("game %s %+v at ply %d, want North by timeout at ply 2", g.Status, g.Result, g.Ply)
	}
}

// TestWaitingExpiry: a game nobody joins is aborted after the waiting
// expiry, and a join after it is refused.
func TestWaitingExpiry(t *testing.T) {
	clock := gamestest.NewClock()
	svc := games.NewService(memory.New(), testCPU(), games.Options{Now: clock.Now, Expiries: games.Expiries{Waiting: time.Hour}})
	ctx := t.Context()
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := games.ExpiryOf(&a.Game); !ok || e.BySide || e.Ending != games.EndsAbort || !e.At.Equal(a.Game.CreatedAt.Add(time.Hour)) {
		t.Fatalf("a waiting game's expiry: %+v %v", e, ok)
	}
	clock.Advance(time.Hour)
	if _, err := svc.Join(ctx, a.Game.ID, nil); !errors.Is(err, games.ErrFinished) {
		t.Fatalf("join after the expiry: %v, want ErrFinished", err)
	}
	g, err := svc.Game(ctx, a.Game.ID)
	if err != nil || g.Status != games.Aborted || g.Result.Over() {
		t.Fatalf("game %s %+v, %v; want aborted without a result", g.Status, g.Result, err)
	}
}

// TestAIThinkingChargedToNobody: against the AI, the person's clock starts
// again when the reply is made, however long the AI thought, and the AI's
// clock never runs.
func TestAIThinkingChargedToNobody(t *testing.T) {
	clock := gamestest.NewClock()
	slowAI := func(ctx context.Context, p engine.Position, r engine.Rules, h []engine.Position, level int, seed uint64) (int, error) {
		clock.Advance(700 * time.Millisecond)
		return lastLegal(ctx, p, r, h, level, seed)
	}
	svc := games.NewService(memory.New(), testCPU(), games.Options{Now: clock.Now, Choose: slowAI})
	ctx := t.Context()
	seat, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 5, TimeControl: games.TimeControl{Kind: games.Live, Initial: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	g := seat.Game
	for _, think := range []time.Duration{2 * time.Second, 3 * time.Second, 4 * time.Second} {
		clock.Advance(think)
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: seat.Token, Ply: g.Ply, Pit: firstLegal(&g)}); err != nil {
			t.Fatal(err)
		}
		if g, err = svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		if side, running := g.Running(); g.Status == games.Active && (!running || side != engine.South) {
			t.Fatalf("after the reply: running %v %v, want South's", side, running)
		}
	}
	// South's first move was free; the next two cost 3 s and 4 s, never the
	// AI's 0.7 s; the AI's clock stands.
	if want := [2]time.Duration{53 * time.Second, time.Minute}; g.Clock != want {
		t.Fatalf("clock %v, want %v", g.Clock, want)
	}
	ms, err := svc.Moves(ctx, g.ID, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.ByAI && m.Elapsed != 700*time.Millisecond {
			t.Errorf("AI move at ply %d took %v, want its 0.7 s of thinking", m.Ply, m.Elapsed)
		}
	}
}

// endCounter counts the store's successful End writes.
type endCounter struct {
	*memory.Store
	ends atomic.Int32
}

func (s *endCounter) End(ctx context.Context, e games.End) (games.Game, error) {
	g, err := s.Store.End(ctx, e)
	if err == nil {
		s.ends.Add(1)
	}
	return g, err
}

// TestEndsOnceAcrossServices: two services sharing one store (two
// instances) and 20 goroutines each sweep and read the same overdue games at
// once; each game ends exactly once, and its follower gets one end event.
func TestEndsOnceAcrossServices(t *testing.T) {
	const nGames = 10
	clock := gamestest.NewClock()
	st := &endCounter{Store: memory.New()}
	// The second instance's hub has the followers; each instance has
	// its sweeper.
	hub := games.NewHub(st, games.HubOptions{})
	var svcs [2]*games.Service
	var sweepers [2]*games.Sweeper
	for i := range svcs {
		o := games.Options{Now: clock.Now, Choose: lastLegal}
		if i == 1 {
			o.Changed = hub
		}
		svcs[i] = games.NewService(st, testCPU(), o)
		sweepers[i] = games.NewSweeper(svcs[i], games.SweepOptions{})
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ids := make([]string, nGames)
	for i := range ids {
		a, err := svcs[i%2].Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, TimeControl: blitz})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svcs[(i+1)%2].Join(ctx, a.Game.ID, nil); err != nil {
			t.Fatal(err)
		}
		ids[i] = a.Game.ID
	}
	// Each game's follower, on the second instance, counts end events;
	// one that joins after the end still gets it, once.
	var ends atomic.Int32
	var followed sync.WaitGroup
	for _, id := range ids {
		followed.Go(func() {
			err := hub.Follow(ctx, id, 0, time.Hour, stream{send: func(e games.Event) error {
				// A follower that starts after the end gets the game, over.
				if e.Kind == games.EventEnd || e.Kind == games.EventGame && e.Game.Status.Over() {
					ends.Add(1)
				}
				return nil
			}})
			if err != nil {
				t.Errorf("follow %s: %v", id, err)
			}
		})
	}
	clock.Advance(time.Minute) // past every first-move window
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			svc := svcs[i%2]
			if i%4 < 2 {
				if _, err := sweepers[i%2].SweepOnce(ctx); err != nil {
					t.Error(err)
				}
				return
			}
			for _, id := range ids {
				if g, err := svc.Game(ctx, id); err != nil || g.Status != games.Aborted {
					t.Errorf("read %s: %s, %v", id, g.Status, err)
				}
			}
		})
	}
	wg.Wait()
	followed.Wait()
	if n := st.ends.Load(); n != nGames {
		t.Fatalf("%d end writes, want %d", n, nGames)
	}
	if n := ends.Load(); n != nGames {
		t.Fatalf("followers got %d end events, want %d", n, nGames)
	}
}

// TestSweepLoop: the sweeper wakes by itself when a deadline set on this
// instance comes due, with nobody reading the game.
func TestSweepLoop(t *testing.T) {
	tg := newTimedGame(t, games.TimeControl{Kind: games.Live, Initial: 2 * time.Second}, games.Options{})
	sw := games.NewSweeper(tg.svc, games.SweepOptions{Interval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan struct{})
	go func() { sw.Run(ctx); close(done) }()
	tg.clock.Advance(time.Minute)
	eventually(t, "the sweeper aborts the game", func() bool {
		g, err := tg.store.Game(ctx, tg.id) // the store, not the service: no read ends it
		return err == nil && g.Status == games.Aborted
	})
	cancel()
	<-done
}

// TestPrune: Prune deletes the games that ended before the cut, and only
// them.
func TestPrune(t *testing.T) {
	clock := gamestest.NewClock()
	st := memory.New()
	svc := games.NewService(st, testCPU(), games.Options{Now: clock.Now, Choose: lastLegal})
	ctx := t.Context()
	var old, recent, live []string
	for i := range 120 {
		if i == 60 {
			clock.Advance(48 * time.Hour)
		}
		a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Join(ctx, a.Game.ID, nil); err != nil {
			t.Fatal(err)
		}
		switch {
		case i%3 == 2:
			live = append(live, a.Game.ID)
			continue
		case i < 60:
			old = append(old, a.Game.ID)
		default:
			recent = append(recent, a.Game.ID)
		}
		if _, err := svc.Resign(ctx, a.Game.ID, games.Actor{Token: a.Token}); err != nil {
			t.Fatal(err)
		}
	}
	cut := clock.Now().Add(-24 * time.Hour)
	n, err := games.NewSweeper(svc, games.SweepOptions{}).Prune(ctx, cut)
	if err != nil || n != len(old) {
		t.Fatalf("pruned %d, %v; want %d", n, err, len(old))
	}
	for _, id := range old {
		if _, err := st.Game(ctx, id); !errors.Is(err, games.ErrNotFound) {
			t.Fatalf("old game %s: %v, want it gone", id, err)
		}
	}
	for _, id := range append(recent, live...) {
		if _, err := st.Game(ctx, id); err != nil {
			t.Fatalf("game %s: %v, want it kept", id, err)
		}
	}
}

// TestMoveInTimeNotFlaggedWhileWritten: a move accepted before the deadline
// whose write lands after it (the AI's reply takes the time) is not ended
// under it by a sweep or a read on the same instance; the game goes on.
func TestMoveInTimeNotFlaggedWhileWritten(t *testing.T) {
	clock := gamestest.NewClock()
	var (
		svc    *games.Service
		sweep  *games.Sweeper
		id     string
		tried  int
		during []string
	)
	slowAI := func(ctx context.Context, p engine.Position, r engine.Rules, h []engine.Position, level int, seed uint64) (int, error) {
		if len(h) >= 3 { // South's second move: its clock runs
			tried++
			clock.Advance(5 * time.Second) // far past South's deadline
			if n, err := sweep.SweepOnce(ctx); n != 1 || err != nil {
				during = append(during, fmt.Sprintf("a sweep found %d (%v)", n, err))
			}
			if g, err := svc.Game(ctx, id); err != nil || g.Status != games.Active {
				during = append(during, fmt.Sprintf("a read: %s (%v)", g.Status, err))
			}
		}
		return lastLegal(ctx, p, r, h, level, seed)
	}
	svc = games.NewService(memory.New(), testCPU(), games.Options{Now: clock.Now, Choose: slowAI})
	sweep = games.NewSweeper(svc, games.SweepOptions{})
	ctx := t.Context()
	seat, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 5,
		TimeControl: games.TimeControl{Kind: games.Live, Initial: 2 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	id = seat.Game.ID
	g := seat.Game
	for range 2 {
		clock.Advance(1500 * time.Millisecond) // in time: the clock has 2 s
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: seat.Token, Ply: g.Ply, Pit: firstLegal(&g)}); err != nil {
			t.Fatalf("ply %d: %v", g.Ply, err)
		}
		if g, err = svc.Game(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if tried == 0 {
		t.Fatal("the AI never saw South's clock run: the test tried nothing")
	}
	if len(during) > 0 {
		t.Errorf("while the move made in time was written: %v", during)
	}
	if g.Status != games.Active || g.Ply != 4 || g.Clock[engine.South] != 500*time.Millisecond {
		t.Fatalf("after the reply: %s at ply %d, South's clock %v; want active at ply 4 with 0.5 s", g.Status, g.Ply, g.Clock[engine.South])
	}
}
