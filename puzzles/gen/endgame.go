package gen

import (
	"errors"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Endgame puzzles (from version 2): the player to move wins with perfect
// play, and exactly one move keeps the win; every other legal move gives a
// draw or a loss with perfect play. The endgame table proves it: the value
// of every position with at most EndgameSeeds seeds on the board under the
// default rules, and each move's value anchored at the puzzle's position
// (tablebase.Table.Moves), whose sign with the captured counts is the
// result.
//
// How many moves the win needs is measured by the same exhaustive search as
// the win goal, with the table pruning the winner's moves to those that keep
// the win (exact: a move the table does not call a win cannot force one):
// the fewest own moves, key included, within which the winner forces the
// game to end (majority or no moves) in their win, whatever the defence.
// That is the puzzle's Depth; it grades the puzzle as a win's depth does
// (plus one, for the perfect play the other moves must be judged by), and
// the solution line is that win played out to the end of the game: the
// most stubborn defence, the fastest winning replies. A win that needs more
// than maxEndgameDepth own moves, or that only a cycle scored by the
// repetition rule gives, makes no puzzle: it could not be shown to the end.
//
// The solver plays it out like a win puzzle (Check): the key first, then
// any move that still forces the win within the moves left, against the
// most stubborn defence.
//
// A day does not hold out for the goal: endgame keys that relay 8 legs are
// rare, and nearly always the biggest capture. A deep day that found
// nothing it held out for looks for one in its endgame pass (generateV2).

// EndgameSeeds is the most seeds on the board of an endgame puzzle: the
// size of the table version 2 proves them with (a part of version 2's
// definition, like its budgets; 2.7 M boards, built in 2-3 s of CPU).
const EndgameSeeds = 12

// maxEndgameDepth is the most own moves an endgame puzzle's win may need.
const maxEndgameDepth = 5

// CheckTable reports whether tb can prove endgame puzzles: a table the
// caller built or opened (a server's, say) must hold the default rules and
// at least EndgameSeeds seeds. The values of boards with at most
// EndgameSeeds seeds are the same in every such table, so the puzzles are
// too.
func CheckTable(tb *tablebase.Table) error {
	switch {
	case tb == nil:
		return errors.New("gen: no endgame table: version 2's endgame puzzles need one")
	case tb.Rules() != (engine.Rules{}) || tb.MaxSeeds() < EndgameSeeds:
		return fmt.Errorf("gen: an endgame table of %d seeds under %+v, want %d or more under the default rules",
			tb.MaxSeeds(), tb.Rules(), EndgameSeeds)
	}
	return nil
}

// NeedsTable reports whether p's proof (Verify, Check) needs the endgame
// table: only an endgame puzzle of version 2 or later, under the default
// rules, does. No other puzzle can have the endgame goal, and the proof of
// any other goal never looks the table up.
func NeedsTable(p Puzzle) bool {
	return p.Goal == GoalEndgame && p.Version >= 2 && p.Rules == (engine.Rules{})
}

// proofTable returns the table p's proof uses: tb, checked, when p
// NeedsTable it, else nil, so that a table given for other puzzles never
// takes part in this one's proof.
func proofTable(p Puzzle, tb *tablebase.Table) (*tablebase.Table, error) {
	if !NeedsTable(p) {
		return nil, nil
	}
	if err := CheckTable(tb); err != nil {
		return nil, err
	}
	return tb, nil
}

// findEndgame decides whether p makes an endgame puzzle, by tb (nil: it
// cannot), and returns its finding with the key's index in facts.
func findEndgame(p engine.Position, r engine.Rules, facts []moveFacts, tb *tablebase.Table) (finding, bool) {
	f := finding{goal: GoalEndgame, key: -1}
	if tb == nil || tb.Rules() != r || len(facts) < 2 || p.BoardSeeds() > EndgameSeeds {
		return f, false
	}
	var buf [engine.RowPits]tablebase.MoveValue
	moves, ok := tb.Moves(p, buf[:0])
	if !ok || len(moves) != len(facts) {
		return f, false
	}
	lead := int(p.Captured[p.ToMove]) - int(p.Captured[p.ToMove.Other()])
	for i, m := range moves {
		if lead+m.Value <= 0 {
			continue
		}
		if f.key >= 0 {
			return f, false // two moves keep the win
		}
		f.key = i // Moves and facts both list the legal moves in pit order
	}
	if f.key < 0 || facts[f.key].legs < MinKeyLegs {
		return f, false
	}
	pv := prover{r: r, tb: tb}
	for n := 1; n <= maxEndgameDepth; n++ {
		if pv.moveWins(&facts[f.key].next, p.ToMove, n) {
			f.depth = n
			f.line = pv.winLine(p, facts[f.key].pit, n)
			return f, true
		}
	}
	return f, false
}
