package games

// The sweeper: deadlines end games by themselves, with nobody calling, a
// part of its own beside the session service. Every instance runs a
// Sweeper: it sleeps until the earliest deadline in the store (or its
// interval, for deadlines another instance set), ends the overdue games
// through the session service, each with one conditional write so that a
// game ends exactly once however many instances try, and the session
// service announces each end to the followers. A read of a game through
// the session service ends it too when it is overdue (current), so no
// answer ever shows an overdue game still running; and a deadline that
// passed while no instance ran is applied at the next start, with the end
// time it should have had.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// DefaultSweepInterval is SweepOptions.Interval's default.
const DefaultSweepInterval = time.Second

// alarm is how the session service tells the sweeper of a deadline it set
// sooner than the sweeper means to wake. The service makes it, the
// service's Sweeper sleeps on it.
type alarm struct {
	wake chan struct{}
	next atomic.Int64 // the instant the sweeper means to wake at, Unix nanoseconds
}

func newAlarm() *alarm {
	a := &alarm{wake: make(chan struct{}, 1)}
	// Not asleep: every deadline set before the first sleep leaves a
	// wake-up, which the first sleep then takes at once.
	a.next.Store(math.MaxInt64)
	return a
}

// expect tells the sweeper of a deadline set on this instance, waking it if
// the deadline comes before it meant to look again.
func (a *alarm) expect(deadline time.Time) {
	if deadline.IsZero() || deadline.UnixNano() >= a.next.Load() {
		return
	}
	select {
	case a.wake <- struct{}{}:
	default: // a wake-up is pending already
	}
}

// SweepOptions configure a Sweeper. The zero value works:
// DefaultSweepInterval, finished games kept for ever, no log.
type SweepOptions struct {
	// Interval bounds how long Run sleeps between looks for overdue games
	// when it knows of no deadline sooner: the delay with which it ends a
	// game whose deadline another instance set and then went away. Zero:
	// DefaultSweepInterval.
	Interval time.Duration
	// RetainFinished is how long Run keeps finished and aborted games
	// after their end; zero keeps them for ever.
	RetainFinished time.Duration
	// Logger gets what a sweep could not do. Nil discards it.
	Logger *slog.Logger
}

// Sweeper ends the overdue games of a session service's store, and deletes
// old ones. Make one per Service: it sleeps on the deadlines that service
// sets. Its methods are safe for concurrent use.
type Sweeper struct {
	games  *Service
	store  Deadlines
	alarm  *alarm
	every  time.Duration
	retain time.Duration
	log    *slog.Logger
	stats  sweepCounters
}

// NewSweeper returns the sweeper of svc's games: it reads svc's store, ends
// games through svc (which announces each end) and tells time by svc's
// clock.
func NewSweeper(svc *Service, o SweepOptions) *Sweeper {
	if o.Interval <= 0 {
		o.Interval = DefaultSweepInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Sweeper{games: svc, store: svc.store, alarm: svc.sweep, every: o.Interval,
		retain: max(o.RetainFinished, 0), log: o.Logger}
}

// SweepOnce ends the games that are overdue now, up to a batch of them, and
// returns how many it found. Each end is a write that waits on the
// database, so a burst of deadlines is ended sweepWorkers at a time rather
// than one round trip after another; and each sweep starts at a random
// place in its batch, so that two instances sweeping the same burst mostly
// end different games instead of racing for the same ones (the loser of a
// race only reads the game again).
func (sw *Sweeper) SweepOnce(ctx context.Context) (int, error) {
	n, _, err := sw.sweepOnce(ctx)
	return n, err
}

// sweepOnce is SweepOnce, saying besides whether it spared a game whose
// move made in time was still being written (see current).
func (sw *Sweeper) sweepOnce(ctx context.Context) (found int, spared bool, err error) {
	sw.stats.looks.Add(1)
	gs, err := sw.store.Overdue(ctx, sw.games.clock(), sweepBatch)
	if err != nil {
		sw.stats.failed.Add(1)
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
			if g.Status == Active && sw.games.flights.inFlight(g.ID, g.Ply) {
				// A move made in time is being written: see current.
				spare.Store(true)
				return nil
			}
			if _, err := sw.games.expire(ctx, g); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return nil
			}
			sw.stats.games.Add(1)
			return nil
		})
	}
	_ = work.Wait() // the errors are gathered in errs, every one
	if len(errs) > 0 {
		sw.stats.failed.Add(1)
	}
	return len(gs), spare.Load(), errors.Join(errs...)
}

// sweepCounters count the sweeper's work since it was made.
type sweepCounters struct{ looks, failed, games atomic.Uint64 }

// SweepStats is what a sweeper has done since it was made, for metrics: its
// looks for overdue games, those that failed (the store, or a game it could
// not end), and the overdue games it handled (ended here, or found ended by
// another instance).
type SweepStats struct{ Looks, Failed, Games uint64 }

// Stats reads the sweeper's counts.
func (sw *Sweeper) Stats() SweepStats {
	return SweepStats{Looks: sw.stats.looks.Load(), Failed: sw.stats.failed.Load(), Games: sw.stats.games.Load()}
}

// Prune deletes the finished and aborted games that ended before before,
// in short writes with a pause between them, and returns how many it
// deleted.
func (sw *Sweeper) Prune(ctx context.Context, before time.Time) (int, error) {
	total := 0
	for {
		n, err := sw.store.DeleteEnded(ctx, before, pruneBatch)
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

// Run ends overdue games, and deletes old ones when
// SweepOptions.RetainFinished says so, until ctx ends; run it in its own
// goroutine for the server's life. A failing store is retried at the next
// look.
func (sw *Sweeper) Run(ctx context.Context) {
	var nextPrune time.Time
	for ctx.Err() == nil {
		n, spared, err := sw.sweepOnce(ctx)
		if err != nil && ctx.Err() == nil {
			sw.log.WarnContext(ctx, "ending overdue games failed; trying again", "error", err.Error())
		}
		if n == sweepBatch && err == nil {
			continue // more are overdue
		}
		if now := sw.games.clock(); sw.retain > 0 && !now.Before(nextPrune) {
			nextPrune = now.Add(pruneEvery)
			sw.prune(ctx, now.Add(-sw.retain))
		}
		sw.sleepUntilDue(ctx, err != nil, spared)
	}
}

// prune is Prune for Run, which logs what it did.
func (sw *Sweeper) prune(ctx context.Context, before time.Time) {
	deleted, err := sw.Prune(ctx, before)
	switch {
	case err != nil && ctx.Err() == nil:
		sw.log.WarnContext(ctx, "deleting old games failed", "error", err.Error())
	case deleted > 0:
		sw.log.InfoContext(ctx, "deleted old games", "games", deleted, "ended before", before)
	}
}

// sleepUntilDue waits until the earliest deadline in the store, at most the
// sweep interval, or until this instance sets a sooner one. After a look
// that failed it waits the whole interval: the games it could not end are
// still the earliest deadlines, and going straight back to them would spin
// for as long as the failure lasts (a full disk, a game that no longer
// holds together).
func (sw *Sweeper) sleepUntilDue(ctx context.Context, failed, spared bool) {
	now := sw.games.clock()
	wait := sw.every
	// The longest sleep is announced before the next deadline is read:
	// a deadline set after the read then wakes the sleep, one set before
	// it is in what the read returns.
	sw.alarm.next.Store(now.Add(wait).UnixNano())
	if next, err := sw.store.NextDeadline(ctx); err == nil && !next.IsZero() && !failed {
		wait = min(wait, max(next.Sub(now), 0))
	}
	if spared {
		// The spared game's deadline is past: look again in a moment,
		// when its move has landed or failed, not at once and again.
		wait = max(wait, sparePause)
	}
	sw.alarm.next.Store(now.Add(wait).UnixNano())
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-sw.alarm.wake:
	case <-ctx.Done():
	}
}

// The session service's side of deadlines: ending an overdue game, for its
// own reads and for the sweeper.

// expire ends g if its deadline has passed, as its Ending says, and returns
// the game as it then is. The end is written conditionally on the version
// read: when another request or instance changed the game first, it is read
// again and looked at anew.
func (s *Service) expire(ctx context.Context, g Game) (Game, error) {
	for range maxRatingTries {
		if !g.overdue(s.clock()) {
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
			s.changed(ctx, &ended)
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
