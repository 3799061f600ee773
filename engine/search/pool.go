package search

import (
	"context"
	"sync"

	"github.com/ayoayo/ayoayo/engine"
)

// Pool lends searchers to the searches of a server, so that AI moves and
// analyses reuse transposition tables instead of each allocating its own (16
// MiB at the strongest level and for an analysis), which the runtime must
// zero and the collector must then reclaim. A searcher starts a new
// generation of its table for each search instead of clearing it, so reuse
// costs nothing, and a search through the pool gives exactly what the
// package's ChooseMove and Analyze give for the same arguments, unless the
// pool was given endgame tables (WithEndgames), which its searches use.
//
// A Pool runs at most size searches at once and holds at most size
// searchers, each made on first need and kept with the largest table any of
// its searches has asked for: its memory is at most size times the largest
// table in use (DefaultHash for analyses without Limits.Hash). Searchers are
// lent most recently returned first, so a lightly loaded server keeps using
// the same warm few. A Pool is safe for concurrent use.
type Pool struct {
	opts  []Option      // for each searcher it makes
	slots chan struct{} // a token per search running
	mu    sync.Mutex
	idle  []*Searcher // searchers not lent, the most recently returned last
}

// NewPool returns a pool running at most size searches at once (at least
// one). Size it like the caller's own bound on concurrent searches: the
// pool then never makes a caller wait. Options apply to every searcher it
// lends (WithEndgames: the tables its analyses and levels use).
func NewPool(size int, opts ...Option) *Pool {
	size = max(size, 1)
	return &Pool{opts: opts, slots: make(chan struct{}, size), idle: make([]*Searcher, 0, size)}
}

// Size returns how many searches the pool runs at once.
func (pl *Pool) Size() int { return cap(pl.slots) }

// ChooseMove is the package's ChooseMove with a lent searcher; it gives the
// same move. Levels that do not search, and positions with one legal move,
// borrow nothing. When every searcher is lent, it waits for one; if ctx ends
// first, it returns -1 and ctx.Err() without a move. (With a searcher, an
// ended ctx still gives the first iteration's move, as ChooseMove does.)
func (pl *Pool) ChooseMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, level int, seed uint64) (int, error) {
	lv, err := LevelOf(level)
	if err != nil {
		return -1, err
	}
	if err := check(p, r); err != nil {
		return -1, err
	}
	return pl.chooseMove(ctx, p, r, history, lv, seed)
}

// chooseMove is ChooseMove for a level's definition.
func (pl *Pool) chooseMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lv Level, seed uint64) (int, error) {
	if pit, quick, err := quickMove(ctx, p, r, lv, seed); quick {
		return pit, err
	}
	s, err := pl.borrow(ctx, lv.Hash)
	if err != nil {
		return -1, err
	}
	defer pl.giveBack(s)
	return s.searchMove(ctx, p, r, history, lv, seed)
}

// Analyze is the package's Analyze with a lent searcher, whose table takes
// the size Analyze would give it; the analysis is the same. A finished
// position borrows nothing. When every searcher is lent, it waits for one;
// if ctx ends first, it returns an empty Analysis and ctx.Err().
func (pl *Pool) Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim Limits) (Analysis, error) {
	return pl.AnalyzePausing(ctx, p, r, lim, nil)
}

// AnalyzePausing is Analyze that calls pause (when not nil) every thousand
// nodes or so, from the searching goroutine: a server passes one that
// blocks while more urgent work has the search's share of the CPU. The
// search's time limit runs on meanwhile, and the analysis is the same as
// Analyze's for the same depth.
func (pl *Pool) AnalyzePausing(ctx context.Context, p engine.Position, r engine.Rules, lim Limits, pause func()) (Analysis, error) {
	return pl.AnalyzeGame(ctx, p, r, nil, lim, pause)
}

// AnalyzeGame is AnalyzePausing for a position reached in a game: history
// holds the game's earlier positions, oldest first, for the repetition rule
// (see Searcher.Analyze). A search bounded by Limits.Nodes and Hash alone
// gives the same analysis on every machine: the review of a game is made of
// them.
func (pl *Pool) AnalyzeGame(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim Limits, pause func()) (Analysis, error) {
	if err := check(p, r); err != nil {
		return Analysis{}, err
	}
	if p.LegalMoves(r) == 0 {
		return Analysis{}, ErrNoMoves
	}
	s, err := pl.borrow(ctx, lim.hash())
	if err != nil {
		return Analysis{}, err
	}
	defer pl.giveBack(s)
	s.takeEndgame(r, true)
	defer s.giveEndgame()
	s.pause = pause
	defer func() { s.pause = nil }()
	return s.analyze(ctx, p, r, history, lim, nil)
}

// borrow takes a searcher whose table is hashBytes bytes (0: DefaultHash),
// waiting for a slot while all are taken. A free slot is taken even when ctx
// has ended, so that a search with an ended context still gives its first
// iteration, as a fresh searcher's does.
func (pl *Pool) borrow(ctx context.Context, hashBytes int) (*Searcher, error) {
	select {
	case pl.slots <- struct{}{}:
	default:
		select {
		case pl.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	pl.mu.Lock()
	var s *Searcher
	if n := len(pl.idle); n > 0 {
		s = pl.idle[n-1]
		pl.idle[n-1] = nil
		pl.idle = pl.idle[:n-1]
	}
	pl.mu.Unlock()
	if s == nil {
		return NewSearcher(hashBytes, pl.opts...), nil
	}
	s.resize(hashBytes)
	return s, nil
}

// giveBack returns a searcher lent by borrow and frees its slot.
func (pl *Pool) giveBack(s *Searcher) {
	s.done = nil // the finished search's context is no longer the searcher's business
	pl.mu.Lock()
	pl.idle = append(pl.idle, s)
	pl.mu.Unlock()
	<-pl.slots
}
