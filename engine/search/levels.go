package search

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// Levels of play: 1 plays a random legal move, 2 the largest immediate capture,
// 3 to MaxLevel search ever deeper and longer.
const (
	MinLevel = 1
	MaxLevel = 8
)

// ErrInvalidLevel: a level outside MinLevel..MaxLevel.
var ErrInvalidLevel = errors.New("invalid AI level")

// Level describes how a level plays. Levels 1 and 2 do not search (Depth 0).
// The searching levels stop at Depth or Nodes, whichever comes first, so their
// moves depend only on the position, the history and the seed; Time is a
// safety bound that ends the search early only on a machine too slow (or too
// loaded) to reach the node budget in time.
type Level struct {
	Level int
	Depth int           // plies
	Nodes uint64        // node budget (0: none)
	Time  time.Duration // wall-clock bound of the search
	Hash  int           // transposition table bytes
	// Endgame: the level uses the searcher's endgame tables (WithEndgames),
	// if it has one for the game's rules: a position in the table is played
	// from it, and the search scores the positions it reaches in it exactly.
	Endgame bool
	About   string
}

var levelTable = [...]Level{
	{Level: 1, About: "a random legal move"},
	{Level: 2, About: "the largest immediate capture, random among equals"},
	{Level: 3, Depth: 2, Time: 100 * time.Millisecond, Hash: 64 << 10, About: "2-ply search"},
	{Level: 4, Depth: 4, Time: 100 * time.Millisecond, Hash: 64 << 10, About: "4-ply search"},
	{Level: 5, Depth: 6, Time: 200 * time.Millisecond, Hash: 256 << 10, About: "6-ply search"},
	{Level: 6, Depth: 8, Time: 250 * time.Millisecond, Hash: 1 << 20, About: "8-ply search"},
	{Level: 7, Depth: MaxDepth, Nodes: 15_000, Time: 250 * time.Millisecond, Hash: 2 << 20, Endgame: true, About: "iterative deepening within 15,000 nodes, with the endgame table"},
	{Level: 8, Depth: MaxDepth, Nodes: 2_000_000, Time: time.Second, Hash: 16 << 20, Endgame: true, About: "iterative deepening within 2,000,000 nodes, with the endgame table"},
}

// Levels returns the definition of every level, weakest first. The slice is
// the caller's own: changing it changes no level.
func Levels() []Level { return slices.Clone(levelTable[:]) }

// LevelOf returns the definition of one level.
func LevelOf(level int) (Level, error) {
	if level < MinLevel || level > MaxLevel {
		return Level{}, fmt.Errorf("%w: %d, want %d to %d", ErrInvalidLevel, level, MinLevel, MaxLevel)
	}
	return levelTable[level-MinLevel], nil
}

// ChooseMove picks the move a player of the given level makes in p. history
// holds the game's earlier positions, oldest first (for the repetition rule;
// nil is fine, and a trailing copy of p is ignored), and seed makes the choice
// reproducible: the same arguments give the same move. It returns within the
// level's Time bound plus the set-up of its table (a few milliseconds). When
// ctx is cancelled the move is the best found so far, still legal, and the
// error is ctx.Err().
//
// Each call that searches makes a table of the level's Hash size (up to 16
// MiB at the strongest level); a Pool lends reusable ones instead.
func ChooseMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, level int, seed uint64) (int, error) {
	lv, err := LevelOf(level)
	if err != nil {
		return -1, err
	}
	if err := check(p, r); err != nil {
		return -1, err
	}
	return chooseFresh(ctx, p, r, history, lv, seed)
}

// chooseFresh is ChooseMove for a level's definition: a new searcher for a
// move that needs one.
func chooseFresh(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lv Level, seed uint64) (int, error) {
	if pit, quick, err := quickMove(ctx, p, r, lv, seed); quick {
		return pit, err
	}
	return NewSearcher(lv.Hash).searchMove(ctx, p, r, history, lv, seed)
}

// ChooseMove is the package's ChooseMove on this searcher's table, whatever
// its size (levels 1 and 2 accept a nil Searcher). Reusing one searcher for
// many moves gives the same moves as fresh ones.
func (s *Searcher) ChooseMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, level int, seed uint64) (int, error) {
	lv, err := LevelOf(level)
	if err != nil {
		return -1, err
	}
	if err := check(p, r); err != nil {
		return -1, err
	}
	return s.chooseMove(ctx, p, r, history, lv, seed)
}

// chooseMove plays as lv describes; p and r are valid, and s may be nil when
// quickMove decides the move.
func (s *Searcher) chooseMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lv Level, seed uint64) (int, error) {
	if pit, quick, err := quickMove(ctx, p, r, lv, seed); quick {
		return pit, err
	}
	return s.searchMove(ctx, p, r, history, lv, seed)
}

// levelRNG is the source of a level's choices among equal moves.
func levelRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x6c6576656c)) } // "level"

// quickMove decides the move without a search when it can: no move at all,
// a single one, or a level that does not search. Otherwise quick is false
// and the move needs searchMove, so that callers lend a searcher only then.
func quickMove(ctx context.Context, p engine.Position, r engine.Rules, lv Level, seed uint64) (pit int, quick bool, err error) {
	moves := p.LegalMoves(r)
	switch {
	case moves == 0:
		return -1, true, ErrNoMoves
	case moves.Len() == 1:
		return moves.Next(), true, ctx.Err()
	case lv.Level == 1:
		return randomMove(moves, levelRNG(seed)), true, ctx.Err()
	case lv.Level == 2:
		return greedyMove(p, r, moves, levelRNG(seed)), true, ctx.Err()
	}
	return -1, false, nil
}

// searchMove plays as a searching level lv describes, in a position with
// more than one legal move.
func (s *Searcher) searchMove(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lv Level, seed uint64) (int, error) {
	rng := levelRNG(seed)
	if lv.Endgame {
		// Only the result matters to a move: the table's values, as far as
		// it reaches, whether it has true scores or not.
		s.takeEndgame(r, false)
		defer s.giveEndgame()
		if s.tableAtRoot(p, history) {
			moves, ok := tableMoves(s.eg, p, s.egMoves)
			s.egMoves = moves
			if ok {
				return moves[tableBest(s.eg, r, p, moves, false, rng)].Pit, ctx.Err()
			}
		}
	}
	lim := Limits{Depth: lv.Depth, Nodes: lv.Nodes, Time: lv.Time, BestOnly: true}
	a, err := s.analyze(ctx, p, r, history, lim, func(roots []rootMove) {
		// Equal moves are told apart by order alone; shuffling makes the
		// choice among them follow the seed.
		rng.Shuffle(len(roots), func(i, j int) { roots[i], roots[j] = roots[j], roots[i] })
	})
	if a.Depth == 0 {
		return -1, err
	}
	if s.partial >= 0 {
		return s.partial, err
	}
	return a.BestMove, err
}

func randomMove(moves engine.Moves, rng *rand.Rand) int {
	k := rng.IntN(moves.Len())
	for range k {
		moves.Next()
	}
	return moves.Next()
}

// greedyMove plays the largest immediate capture; among equal captures (no
// capture included) it picks at random.
func greedyMove(p engine.Position, r engine.Rules, moves engine.Moves, rng *rand.Rand) int {
	var best engine.Moves
	most := -1
	for m := moves; m != 0; {
		pit := m.Next()
		_, c, _ := p.ApplyCapture(pit, r)
		switch n := int(c.Seeds); {
		case n > most:
			most, best = n, 1<<pit
		case n == most:
			best |= 1 << pit
		}
	}
	return randomMove(best, rng)
}
