// Package search is the AI: an iterative-deepening alpha-beta search over the
// engine's positions, the strength levels built on it, and position analysis.
//
// Scores are for the side to move, in seeds: a finished game scores its final
// difference in captured seeds, an unfinished one the evaluation (captured
// difference plus positional terms, see Weights). A score is exact (proven)
// only when every line it rests on was searched to the end of the game.
//
// ChooseMove and Analyze make a searcher, with its table, for each call; a
// server that searches all day lends reusable ones from a Pool instead, with
// the same results.
package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// ErrNoMoves: the position is finished, so there is nothing to search.
var ErrNoMoves = errors.New("no legal move to search")

// DefaultTime bounds a search given no limit at all.
const DefaultTime = time.Second

// Limits bound a search; a zero field means no limit of that kind (and a
// Limits with no limit at all searches for DefaultTime). The search also stops
// when its context is cancelled, returning the deepest finished iteration. The
// first iteration (one ply) always finishes, so there is always a move.
type Limits struct {
	Depth int           // plies, at most MaxDepth
	Time  time.Duration // wall clock
	// Nodes bounds the positions visited (passed by at most 6, the children
	// of the last node); a search bounded by nodes alone is reproducible.
	Nodes uint64
	// Hash is the transposition table's size in bytes for Analyze and
	// Pool.Analyze (0: DefaultHash, or SmallHash for a search bounded by at
	// most SmallDepth plies and nothing else); a Searcher keeps the size it
	// was made with.
	Hash int
	// BestOnly searches for the best move alone: faster, but only the best
	// move's score is exact, the others are upper bounds (MoveScore.Upper).
	BestOnly bool
}

// MoveScore is one root move's score, in seeds for the side to move.
type MoveScore struct {
	Pit   int
	Score int
	Exact bool // proven: the game's true final difference after this move
	Upper bool // only an upper bound (BestOnly searches, moves not best)
}

// Analysis is the result of a search of one position.
type Analysis struct {
	BestMove int
	Score    int // seeds, for the side to move
	PV       []int
	Moves    []MoveScore // every legal root move, in pit order
	Depth    int         // the deepest iteration completed
	Nodes    uint64
	Exact    bool // the score is proven: the game's true final difference
	// Centiseeds is Score before rounding, in hundredths of a seed.
	Centiseeds int
	Elapsed    time.Duration
}

// Analyze searches p under r within lim. Every legal move gets its own score
// (unless lim.BestOnly). When ctx is cancelled it returns the deepest
// completed iteration together with ctx.Err().
func Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim Limits) (Analysis, error) {
	if err := check(p, r); err != nil {
		return Analysis{}, err
	}
	return NewSearcher(lim.hash()).Analyze(ctx, p, r, nil, lim)
}

// hash is the table size Analyze gives a search within lim.
func (lim Limits) hash() int {
	if lim.Hash <= 0 && lim.Depth > 0 && lim.Depth <= SmallDepth && lim.Time <= 0 && lim.Nodes == 0 {
		return SmallHash // a shallow search fills no more; the rest would be zeroed for nothing
	}
	return lim.Hash // 0: DefaultHash
}

// A search bounded by SmallDepth plies or fewer gets a SmallHash table.
const (
	SmallDepth = 10
	SmallHash  = 1 << 20
)

// Analyze is the package's Analyze on this searcher's table, with the game's
// earlier positions (oldest first; nil is fine) for the repetition rule.
func (s *Searcher) Analyze(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim Limits) (Analysis, error) {
	return s.analyze(ctx, p, r, history, lim, nil)
}

func (s *Searcher) analyze(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim Limits, order func([]rootMove)) (Analysis, error) {
	if err := check(p, r); err != nil {
		return Analysis{}, err
	}
	if p.LegalMoves(r) == 0 {
		return Analysis{}, ErrNoMoves
	}
	if lim.Depth <= 0 && lim.Time <= 0 && lim.Nodes == 0 {
		lim.Time = DefaultTime
	}
	began := time.Now()
	s.start(ctx, p, r, history, lim)
	a := s.iterate(lim, !lim.BestOnly, order)
	a.Elapsed = time.Since(began)
	return a, ctx.Err()
}

// check validates the search's input: a position outside the invariants
// would index past the hash tables.
func check(p engine.Position, r engine.Rules) error {
	if err := p.Validate(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}
