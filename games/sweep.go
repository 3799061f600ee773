package games

// Deadlines end games by themselves, with nobody calling. Every instance
// runs Sweep: it sleeps until the earliest deadline in the store (or its
// interval, for deadlines another instance set), ends the overdue games,
// each with one conditional write so that a game ends exactly once however
// many instances try, and announces each end to the followers. A read of a
// game ends it too when it is overdue (current), so no answer ever shows an
// overdue game still running; and a deadline that passed while no instance
// ran is applied at the next start, with the end time it should have had.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
)

// Sweeping's batches: overdue games ended per look (sweepWorkers of them at
// once), finished games deleted per write (each write short, so moves never
// wait long behind it), and how often the old ones are looked for.
const (
	sweepBatch   = 100
	sweepWorkers = 8
	pruneBatch   = 50
	pruneEvery   = time.Minute
	// prunePause is the rest between two deletion writes, in which the
	// writes of moves go first.
	prunePause = 20 * time.Millisecond
	// sparePause is the shortest sleep after a sweep that spared a game
	// with a move in flight.
	sparePause = 20 * time.Millisecond
)

// sweeper is what Sweep knows between its looks: when it means to wake,
// and a nudge for a deadline set sooner than that on this instance.
type sweeper struct {
	every time.Duration
	wake  chan struct{}
	next  atomic.Int64 // the instant Sweep means to wake at, Unix nanoseconds
}

func newSweeper(every time.Duration) *sweeper {
	sw := &sweeper{every: every, wake: make(chan struct{}, 1)}
	// Not asleep: every deadline set before the first sleep leaves a
	// wake-up, which the first sleep then takes at once.
	sw.next.Store(math.MaxInt64)
	return sw
}

// expect tells Sweep of a deadline set on this instance, waking it if the
// deadline comes before it meant to look again.
func (sw *sweeper) expect(deadline time.Time) {
	if deadline.IsZero() || deadline.UnixNano() >= sw.next.Load() {
		return
	}
	select {
	case sw.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// expire ends g if its deadline has passed, as its Ending says, and returns
// the game as it then is. The end is written conditionally on the version
// read: when another request or instance changed the game first, it is read
// again and looked at anew.
func (s *Service) expire(ctx context.Context, g Game) (Game, error) {
	for range maxRatingTries {
		if g.Deadline.IsZero() || s.clock().Before(g.Deadline) {
			return g, nil
		}
		ending, side := g.Ending()
		e := End{ID: g.ID, Version: g.Version, Clock: g.Clock, At: g.Deadline}
		switch ending {
		case EndsAbort:
			e.Status = Aborted
		case EndsTimeout:
			e.Status, e.Result = Finished, engine.TimeoutResult(side)
			if running, ok := g.Running(); ok {
				e.Clock[running] = 0
			}
		default:
			return g, nil
		}
		m, err := s.match(ctx, &g, e.Result, e.At)
		if err != nil {
			return g, err
		}
		e.Match = m
		ended, err := s.store.End(ctx, e)
		if err == nil {
			s.cache.put(&ended)
			s.changed(ctx, g.ID)
			s.log.InfoContext(ctx, "game ended at its deadline", "game", g.ID, "status", string(ended.Status),
				"result", ended.Result.Reason.String(), "deadline", g.Deadline, "late", s.clock().Sub(g.Deadline))
			return ended, nil
		}
		if !errors.Is(err, ErrConflict) && !errors.Is(err, players.ErrRatingsChanged) {
			return g, err
		}
		if g, err = s.store.Game(ctx, g.ID); err != nil {
			return g, err
		}
	}
	return g, fmt.Errorf("game %s: its end at %s conflicted %d times", g.ID, g.Deadline.Format(time.RFC3339Nano), maxRatingTries)
}

// SweepOnce ends the games that are overdue now, up to a batch of them, and
// returns how many it found. Each end is a write that waits on the
// database, so a burst of deadlines is ended sweepWorkers at a time rather
// than one round trip after another; and each sweep starts at a random
// place in its batch, so that two instances sweeping the same burst mostly
// end different games instead of racing for the same ones (the loser of a
// race only reads the game again).
func (s *Service) SweepOnce(ctx context.Context) (int, error) {
	n, _, err := s.sweepOnce(ctx)
	return n, err
}

// sweepOnce is SweepOnce, saying besides whether it spared a game whose
// move made in time was still being written (see current).
func (s *Service) sweepOnce(ctx context.Context) (found int, spared bool, err error) {
	s.sweepStats.looks.Add(1)
	gs, err := s.store.Overdue(ctx, s.clock(), sweepBatch)
	if err != nil {
		s.sweepStats.failed.Add(1)
		return 0, false, err
	}
	if len(gs) > 1 {
		at := rand.IntN(len(gs))
		gs = append(gs[at:], gs[:at]...)
	}
	var (
		mu    sync.Mutex
		errs  []error
		work  errgroup.Group
		spare atomic.Bool
	)
	work.SetLimit(sweepWorkers)
	for _, g := range gs {
		work.Go(func() error {
			if g.Status == Active && s.flights.inFlight(g.ID, g.Ply) {
				// A move made in time is being written: see current.
				spare.Store(true)
				return nil
			}
			if _, err := s.expire(ctx, g); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return nil
			}
			s.sweepStats.games.Add(1)
			return nil
		})
	}
	_ = work.Wait() // the errors are gathered in errs, every one
	if len(errs) > 0 {
		s.sweepStats.failed.Add(1)
	}
	return len(gs), spare.Load(), errors.Join(errs...)
}

// sweepCounters count the sweeper's work since the service started.
type sweepCounters struct{ looks, failed, games atomic.Uint64 }

// SweepStats is what the sweeper has done since the service started, for
// metrics: its looks for overdue games, those that failed (the store, or
// a game it could not end), and the overdue games it handled (ended here,
// or found ended by another instance).
type SweepStats struct{ Looks, Failed, Games uint64 }

// SweepStats reads the sweeper's counts.
func (s *Service) SweepStats() SweepStats {
	return SweepStats{Looks: s.sweepStats.looks.Load(), Failed: s.sweepStats.failed.Load(), Games: s.sweepStats.games.Load()}
}

// AIQueue is the AI's searches for game sessions running now, and the
// moves waiting for a unit of the CPU budget to search with, for metrics.
func (s *Service) AIQueue() (running, waiting int) { return s.aiSlots.counts() }

// Prune deletes the finished and aborted games that ended before before,
// in short writes with a pause between them, and returns how many it
// deleted.
func (s *Service) Prune(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		n, err := s.store.DeleteEnded(ctx, before, pruneBatch)
		total += n
		if err != nil || n < pruneBatch {
			return total, err
		}
		select {
		case <-time.After(prunePause):
		case <-ctx.Done():
			return total, ctx.Err()
		}
	}
}

// Sweep ends overdue games, and deletes old ones when Options.RetainFinished
// says so, until ctx ends; run it in its own goroutine for the server's
// life. A failing store is retried at the next look.
func (s *Service) Sweep(ctx context.Context) {
	var nextPrune time.Time
	for ctx.Err() == nil {
		n, spared, err := s.sweepOnce(ctx)
		if err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "ending overdue games failed; trying again", "error", err.Error())
		}
		if n == sweepBatch && err == nil {
			continue // more are overdue
		}
		if now := s.clock(); s.retain > 0 && !now.Before(nextPrune) {
			nextPrune = now.Add(pruneEvery)
			if deleted, err := s.Prune(ctx, now.Add(-s.retain)); err != nil && ctx.Err() == nil {
				s.log.WarnContext(ctx, "deleting old games failed", "error", err.Error())
			} else if deleted > 0 {
				s.log.InfoContext(ctx, "deleted old games", "games", deleted, "ended before", now.Add(-s.retain))
			}
		}
		s.sleepUntilDue(ctx, err != nil, spared)
	}
}

// sleepUntilDue waits until the earliest deadline in the store, at most the
// sweep interval, or until this instance sets a sooner one. After a look
// that failed it waits the whole interval: the games it could not end are
// still the earliest deadlines, and going straight back to them would spin
// for as long as the failure lasts (a full disk, a game that no longer
// holds together).
func (s *Service) sleepUntilDue(ctx context.Context, failed, spared bool) {
	now := s.clock()
	wait := s.sweep.every
	// The longest sleep is announced before the next deadline is read:
	// a deadline set after the read then wakes the sleep, one set before
	// it is in what the read returns.
	s.sweep.next.Store(now.Add(wait).UnixNano())
	if next, err := s.store.NextDeadline(ctx); err == nil && !next.IsZero() && !failed {
		wait = min(wait, max(next.Sub(now), 0))
	}
	if spared {
		// The spared game's deadline is past: look again in a moment,
		// when its move has landed or failed, not at once and again.
		wait = max(wait, sparePause)
	}
	s.sweep.next.Store(now.Add(wait).UnixNano())
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.sweep.wake:
	case <-ctx.Done():
	}
}
