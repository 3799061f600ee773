package games_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// The sweeper's own tests. Like the hub's, they run in a synctest bubble,
// whose clock is both the service's (time.Now) and the sweeper's timers'.

// errDiskFull stands for a store that cannot write.
var errDiskFull = errors.New("disk full")

// failingEnds is a store whose End always fails, as on a full disk.
type failingEnds struct {
	*memory.Store
	tries atomic.Int32
}

func (s *failingEnds) End(context.Context, games.End) (games.Game, error) {
	s.tries.Add(1)
	return games.Game{}, errDiskFull
}

// runSweeper runs sw until the test ends, and waits for it then.
func runSweeper(t *testing.T, sw *games.Sweeper) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { sw.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

// waitingGame creates a game nobody joins on svc.
func waitingGame(t *testing.T, svc *games.Service) games.Game {
	t.Helper()
	a, err := svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	return a.Game
}

// TestSweepWaitsAfterAFailure: an overdue game the store cannot end is
// tried again at the next sweep interval, not at once: it stays the
// earliest deadline in the store, and going straight back to it would spin
// a core and write a warning each time round, for as long as the failure
// lasts.
func TestSweepWaitsAfterAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const every = 50 * time.Millisecond
		st := &failingEnds{Store: memory.New()}
		svc := games.NewService(st, testCPU(), games.Options{Choose: lastLegal})
		waitingGame(t, svc)
		time.Sleep(games.DefaultWaitingExpiry + time.Hour) // nobody joined: overdue
		sw := games.NewSweeper(svc, games.SweepOptions{Interval: every})
		runSweeper(t, sw)
		synctest.Wait()
		first := st.tries.Load() // the first look, and the wake-up the creation left
		for i := range int32(5) {
			time.Sleep(every)
			synctest.Wait()
			if n := st.tries.Load() - first; n != i+1 {
				t.Fatalf("%d tries %d sweep intervals after the first, want one an interval", n, i+1)
			}
		}
		if s := sw.Stats(); s.Failed != s.Looks || s.Games != 0 {
			t.Fatalf("stats %+v: want every look failed, no game handled", s)
		}
	})
}

// TestSweeperEndsAtTheDeadline: with nobody reading the game, the sweeper
// wakes at its deadline, however long its interval, and ends it then.
func TestSweeperEndsAtTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memory.New()
		svc := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, Expiries: games.Expiries{Waiting: 10 * time.Minute}})
		sw := games.NewSweeper(svc, games.SweepOptions{Interval: time.Hour})
		runSweeper(t, sw)
		g := waitingGame(t, svc)
		time.Sleep(10*time.Minute - time.Millisecond)
		synctest.Wait()
		if got, err := st.Game(t.Context(), g.ID); err != nil || got.Status != games.Waiting {
			t.Fatalf("just before its deadline: %s (%v), want waiting", got.Status, err)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		got, err := st.Game(t.Context(), g.ID) // the store, not the service: no read ends it
		if err != nil || got.Status != games.Aborted || !got.UpdatedAt.Equal(g.Deadline) {
			t.Fatalf("at its deadline: %s at %v (%v), want aborted at %v", got.Status, got.UpdatedAt, err, g.Deadline)
		}
		if s := sw.Stats(); s.Games != 1 || s.Failed != 0 {
			t.Fatalf("stats %+v: want one game handled, no failure", s)
		}
	})
}

// TestSweeperWokenByASoonerDeadline: a deadline set on this instance while
// the sweeper sleeps for longer wakes it, so the game ends at its deadline,
// not at the end of the sleep.
func TestSweeperWokenByASoonerDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memory.New()
		svc := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, Expiries: games.Expiries{Waiting: 10 * time.Second}})
		runSweeper(t, games.NewSweeper(svc, games.SweepOptions{Interval: time.Hour}))
		time.Sleep(time.Minute) // the sweeper sleeps: no deadline yet
		g := waitingGame(t, svc)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got, err := st.Game(t.Context(), g.ID); err != nil || got.Status != games.Aborted {
			t.Fatalf("10 s after the game was made: %s (%v), want it aborted", got.Status, err)
		}
	})
}

// TestSweeperPrunes: with RetainFinished, the sweeper deletes the games
// that ended longer ago than that (it looks once a minute), and keeps the
// others.
func TestSweeperPrunes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := memory.New()
		svc := games.NewService(st, testCPU(), games.Options{Choose: lastLegal})
		resigned := func() string {
			g, tokens := twoSeatGame(t, svc)
			if _, err := svc.Resign(t.Context(), g.ID, games.Actor{Token: tokens[0]}); err != nil {
				t.Fatal(err)
			}
			return g.ID
		}
		old := resigned()
		time.Sleep(30 * time.Minute)
		recent := resigned()
		runSweeper(t, games.NewSweeper(svc, games.SweepOptions{Interval: time.Second, RetainFinished: time.Hour}))
		time.Sleep(31 * time.Minute) // old ended 61 min ago, recent 31
		synctest.Wait()
		if _, err := st.Game(t.Context(), old); !errors.Is(err, games.ErrNotFound) {
			t.Fatalf("the game that ended 61 minutes ago: %v, want it deleted", err)
		}
		if _, err := st.Game(t.Context(), recent); err != nil {
			t.Fatalf("the game that ended 31 minutes ago: %v, want it kept", err)
		}
	})
}
