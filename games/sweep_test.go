package games_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/store/memory"
)

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

// TestSweepWaitsAfterAFailure: an overdue game the store cannot end is
// tried again at the next sweep interval, not at once: it stays the
// earliest deadline in the store, and going straight back to it would spin
// a core and write a warning each time round, for as long as the failure
// lasts.
func TestSweepWaitsAfterAFailure(t *testing.T) {
	const every = 50 * time.Millisecond
	clock := gamestest.NewClock()
	st := &failingEnds{Store: memory.New()}
	svc := games.NewService(st, testCPU(), games.Options{Now: clock.Now, Choose: lastLegal, SweepInterval: every})
	if _, err := svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(games.DefaultWaitingExpiry + time.Hour) // nobody joined: overdue
	const looks = 5
	ctx, cancel := context.WithTimeout(t.Context(), looks*every)
	defer cancel()
	svc.Sweep(ctx)
	// One try a look: the first at once, then one an interval.
	if n := st.tries.Load(); n < 1 || n > looks+2 {
		t.Fatalf("%d tries to end the game in %d sweep intervals, want at most %d", n, looks, looks+2)
	}
}
