// Package analysis is the analysis service behind POST /v1/analyze: a
// position in an endgame table is answered from it at once, any other is
// searched within the caller's limits, in a unit of the process's CPU
// budget, at the budget's second priority (after the AI's replies in live
// games, before puzzle generation).
package analysis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/fault"
)

// ErrBusy: no unit of the CPU budget came free for the analysis in time;
// asking again shortly may find one.
var ErrBusy = fault.NewRetry(fault.Limited, time.Second, "too_many_analyses", "Too many analyses", "too many analyses")

// DefaultWait is how long an analysis waits for a unit of the budget
// unless Options says otherwise: long enough to ride out an AI reply or
// two, short enough that a client told to come back learns it quickly.
const DefaultWait = time.Second

// overrun is how long past its own time limit a search may run before its
// context ends it: the search keeps its limit itself, and this is a
// backstop whose partial answer is still an answer.
const overrun = time.Second

// SearchFunc searches p within lim; search.Pool's Analyze is one, tests pass
// their own.
type SearchFunc func(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error)

// pausingSearch is a search that calls pause now and then (see
// search.Pool.AnalyzePausing).
type pausingSearch func(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits, pause func()) (search.Analysis, error)

// pauseEvery is how often a search looks whether an AI move waits for its
// unit: an AI move then waits for an analysis a few milliseconds at most,
// not for the whole of its time.
const pauseEvery = 5 * time.Millisecond

// Options configure a Service; the zero value works: no endgame tables.
type Options struct {
	// Endgames are the endgame tables: a position in one is answered from
	// it, and a search uses them at the positions it reaches. Nil: none.
	Endgames *search.Endgames
	// Concurrency bounds the analyses searching at once, within the
	// service's CPU budget; zero: as many as it has units.
	Concurrency int
	// Wait bounds the time an analysis waits for a unit; past it, ErrBusy.
	// Zero: DefaultWait; negative: it is refused at once when none is free.
	Wait time.Duration
	// Search is the search. Nil: a search.Pool with Endgames, of a searcher
	// per analysis that may run at once, whose searches give their unit to
	// an AI move that waits for one (and queue again behind it).
	Search SearchFunc
}

// analysisShareKey names the analyses' share of the budget.
const analysisShareKey = "analysis"

// Service runs analyses. Its methods are safe for concurrent use.
type Service struct {
	endgames *search.Endgames
	budget   *budget.Budget
	size     int
	wait     time.Duration
	search   pausingSearch
}

// New returns the service. cpu is the process's CPU budget, shared with
// the other services that spend CPU; it must not be nil.
func New(cpu *budget.Budget, o Options) *Service {
	if cpu == nil {
		panic("analysis: New needs the process's CPU budget")
	}
	if o.Concurrency <= 0 || o.Concurrency > cpu.Size() {
		o.Concurrency = cpu.Size()
	}
	switch {
	case o.Wait == 0:
		o.Wait = DefaultWait
	case o.Wait < 0:
		o.Wait = 0 // the budget's "at once or not at all"
	}
	run := search.NewPool(o.Concurrency, search.WithEndgames(o.Endgames)).AnalyzePausing
	if o.Search != nil {
		run = func(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits, _ func()) (search.Analysis, error) {
			return o.Search(ctx, p, r, lim)
		}
	}
	return &Service{endgames: o.Endgames, budget: cpu, size: o.Concurrency, wait: o.Wait, search: run}
}

// Analyze returns the analysis of p under r within lim: from an endgame
// table at once if one holds p, else by a search that stops at lim or when
// ctx ends (a search cut short by its own time still answers with what it
// found). A finished position is search.ErrNoMoves; no unit of the budget
// within the service's wait, ErrBusy.
func (s *Service) Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error) {
	// A finished position has nothing to analyse, whether a table holds it
	// or not: a table plays past the majority, the rules do not.
	if p.LegalMoves(r) == 0 {
		return search.Analysis{}, fmt.Errorf("%w: the position is finished", search.ErrNoMoves)
	}
	if a, ok := s.endgames.Analyze(p, r); ok {
		return a, nil
	}
	req := budget.Request{
		Priority: budget.Analysis,
		Weight:   1,
		Wait:     s.wait,
		Shares:   []budget.Share{{Key: analysisShareKey, Max: s.size}},
	}
	release, err := s.budget.Acquire(ctx, req)
	if errors.Is(err, budget.ErrBusy) {
		return search.Analysis{}, fmt.Errorf("%w: no room for another of the %d analyses this server runs at once within %v; retry later", ErrBusy, s.size, s.wait)
	}
	if err != nil {
		return search.Analysis{}, err
	}
	defer func() {
		if release != nil {
			release()
		}
	}()
	// A paused search queues for its unit again for no longer than it may
	// search: past that it stops with what it has found.
	pctx := ctx
	if lim.Time > 0 {
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, lim.Time)
		defer cancel()
		ctx, cancel = context.WithTimeout(ctx, lim.Time+overrun)
		defer cancel()
	}
	var checked time.Time
	pause := func() {
		// Nothing running is stopped, but an analysis runs for seconds: it
		// gives its unit to an AI move that waits, and queues again.
		if now := time.Now(); now.Sub(checked) >= pauseEvery {
			checked = now
			if release != nil && s.budget.Outranked(budget.Analysis) {
				release()
				req.Wait = -1
				release, _ = s.budget.Acquire(pctx, req) // nil when pctx ends: the search stops at its next look
			}
		}
	}
	a, err := s.search(ctx, p, r, lim, pause)
	if err != nil && !(errors.Is(err, context.DeadlineExceeded) && len(a.Moves) > 0) {
		return search.Analysis{}, err
	}
	return a, nil
}
