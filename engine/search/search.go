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
//
// # Endgame tables
//
// A Searcher or Pool given endgame tables (WithEndgames, an Endgames set of
// engine/tablebase tables, one per rule options) uses the table for its
// search's rules in three ways. An analysis of a position in the table (at
// most MaxSeeds seeds on the board) is the table's answer, with no search
// (Source FromTablebase): every move's true score where the table has true
// scores for the position (Table.MoveScores, anchored at the position, so
// the best move's score is the position's), else every move's value
// (Table.Moves), which proves the result only. The levels that set
// Level.Endgame (7 and 8) play such a position from the table's values. And
// a search scores every position it reaches in the table, once the game has
// not ended there by the majority, a lack of moves or a third occurrence,
// proven, and searches no deeper: an analysis by the table's true score
// where it has one, else (and a level's search always) by the captured
// difference plus the table's value.
//
// What proven means then. A true score is the game's final difference, the
// majority stop included, as a finished game in the search is; a value
// counts play continued past the majority of 25 to the end of the board.
// Both score a cycle neither side can profitably leave as the repetition
// rule scores it at the position probed. The two measures can differ in
// size but never in sign: once a player holds 25 seeds no later capture
// changes who wins, and negamax commutes with the sign, so a proven score
// built from both kinds of leaves has the sign of the game's true result.
// Hence Analysis.Exact (the score is the true final difference) holds for
// a proven score only when the search used no value that is not a true
// score; Analysis.Proven (the result is proven) for every proven score.
// Without a table nothing changes: a proven score is the game's true final
// difference. A table ignores the game's earlier positions: from a root
// outside the table the search reaches it only by a capture (a move that
// captures nothing keeps the seeds on the board), after which no earlier
// position can recur. A root in the table is answered from it only when
// none of the game's earlier positions (the history given to
// Searcher.Analyze or ChooseMove) has the root's captured counts; otherwise
// play could come back to one of them and end by the repetition rule at a
// position the table does not know of, so the search runs, scores the
// root's level itself, and probes the table only after a capture.
package search

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
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
	// Proven: the move's result is proven (the sign of Score), even where
	// its size is not (a proof resting on a result-only table's values).
	// Exact implies Proven.
	Proven bool
	Upper  bool // only an upper bound (BestOnly searches, moves not best)
}

// Analysis is the result of a search of one position.
type Analysis struct {
	BestMove int
	Score    int // seeds, for the side to move
	PV       []int
	Moves    []MoveScore // every legal root move, in pit order
	Depth    int         // the deepest iteration completed
	Nodes    uint64
	// Exact: the score, and every move's score marked Exact, is proven to
	// be the game's true final difference (majority stop included).
	Exact bool
	// Proven: the result is proven (Result holds it), even where the
	// score's size is not (an answer that rests on a result-only table's
	// values). Exact implies Proven.
	Proven bool
	// Centiseeds is Score before rounding, in hundredths of a seed.
	Centiseeds int
	Elapsed    time.Duration
	// Source says whether a search or an endgame table gave the analysis.
	Source Source
	// Result is, when Proven, the result with perfect play for the side to
	// move: the sign of Score.
	Result tablebase.WDL
}

// Source says where an analysis comes from.
type Source uint8

const (
	// FromSearch: a search, which may have used a table at positions it
	// reached.
	FromSearch Source = iota
	// FromTablebase: the position is in an endgame table, which gave every
	// move's score without a search (Depth and Nodes are 0): the true final
	// difference where the table has true scores for it, else the result.
	FromTablebase
)

var sourceWords = [...]string{"search", "tablebase"}

// String returns "search" or "tablebase", the words the API uses.
func (s Source) String() string {
	if int(s) < len(sourceWords) {
		return sourceWords[s]
	}
	return fmt.Sprintf("Source(%d)", uint8(s))
}

// resultOf is the result a proven score in centiseeds gives the side to move.
func resultOf(centiseeds int) tablebase.WDL {
	switch {
	case centiseeds > 0:
		return tablebase.Win
	case centiseeds < 0:
		return tablebase.Loss
	}
	return tablebase.Draw
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
// A searcher given endgame tables (WithEndgames) answers a position in the
// table for r from the table, and uses it at the positions it reaches.
func (s *Searcher) Analyze(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim Limits) (Analysis, error) {
	if err := check(p, r); err != nil {
		return Analysis{}, err
	}
	s.takeEndgame(r, true)
	defer s.giveEndgame()
	return s.analyze(ctx, p, r, history, lim, nil)
}

// analyze searches p with the endgame table takeEndgame chose, if any.
func (s *Searcher) analyze(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim Limits, order func([]rootMove)) (Analysis, error) {
	if err := check(p, r); err != nil {
		return Analysis{}, err
	}
	if p.LegalMoves(r) == 0 {
		return Analysis{}, ErrNoMoves
	}
	began := time.Now()
	s.partial = -1
	if s.tableAtRoot(p, history) {
		if a, ok := tableAnalysis(s.eg, p, r); ok {
			a.Elapsed = time.Since(began)
			return a, ctx.Err()
		}
	}
	if lim.Depth <= 0 && lim.Time <= 0 && lim.Nodes == 0 {
		lim.Time = DefaultTime
	}
	s.start(ctx, p, r, history, lim)
	a := s.iterate(lim, !lim.BestOnly, order)
	if a.Exact {
		a.Proven, a.Result = true, resultOf(a.Centiseeds)
	}
	if s.egLoose {
		// A proof that rests on a table's value, not a true score,
		// proves the result but not the score's size: of the root as of
		// each move proven on its own.
		a.Exact = false
		for i := range a.Moves {
			a.Moves[i].Exact = false
		}
	}
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
