// Package search is the AI: an iterative-deepening alpha-beta search over the
// engine's positions, the strength levels built on it, and position analysis.
package search

import (
	"context"
	"errors"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// ErrNoMoves: the position is finished, so there is nothing to search.
var ErrNoMoves = errors.New("no legal move to search")

// Limits bound a search; a zero field means no limit of that kind. The search
// also stops when its context is cancelled, returning the deepest finished
// iteration.
type Limits struct {
	Depth int           // plies
	Time  time.Duration // wall clock
	Nodes uint64
}

// MoveScore is one root move's score, in seeds for the side to move.
type MoveScore struct {
	Pit   int
	Score int
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
}

// Analyze searches p under r within lim.
//
// Placeholder until the search issue lands: it returns the first legal move
// with a score of 0 and Exact false.
func Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim Limits) (Analysis, error) {
	moves := p.LegalMoves(r)
	if moves == 0 {
		return Analysis{}, ErrNoMoves
	}
	var a Analysis
	for m := moves; m != 0; {
		pit := m.Next()
		a.Moves = append(a.Moves, MoveScore{Pit: pit})
	}
	a.BestMove = a.Moves[0].Pit
	a.PV = []int{a.BestMove}
	return a, ctx.Err()
}

// Levels of play: 1 plays a random legal move, 2 the largest immediate capture,
// 3 to MaxLevel search ever deeper and longer.
const (
	MinLevel = 1
	MaxLevel = 8
)

// ChooseMove picks the move a player of the given level makes in p. history
// holds the game's earlier positions (for the repetition rule; nil is fine),
// and seed makes the choice reproducible: the same arguments give the same move.
//
// Placeholder until the search issue lands: it plays the first legal move.
func ChooseMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, level int, seed uint64) (int, error) {
	moves := p.LegalMoves(r)
	if moves == 0 {
		return -1, ErrNoMoves
	}
	return moves.Next(), ctx.Err()
}
