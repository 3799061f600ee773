package gen

import (
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// The solver is a plain exhaustive search over the engine's fast path: no
// evaluation, no move ordering that could hide a line, no transposition table.
// Every claim a puzzle makes ("only this move wins within N", "every other
// move lets the opponent capture 5") is decided by trying every legal move at
// every ply up to the puzzle's depth. Repetition is not applied, as in perft:
// a puzzle is a position without a history, and no position can occur three
// times within the five plies the deepest puzzle spans.

// children holds the legal moves of a position and the positions they reach,
// in pit order, without allocating.
type children struct {
	n     int
	pits  [engine.RowPits]int8
	next  [engine.RowPits]engine.Position
	taken [engine.RowPits]uint8 // seeds captured by the move
}

// expand fills c with the legal moves of p. A position won by majority has
// none, as the rules say.
func (c *children) expand(p *engine.Position, r engine.Rules) {
	c.n = 0
	if p.MajorityResult().Over() {
		return
	}
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+engine.RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		q, capt, why := p.ApplyCapture(pit, r)
		if why != engine.Legal {
			continue
		}
		c.pits[c.n] = int8(pit)
		c.next[c.n] = q
		if !capt.None() {
			c.taken[c.n] = capt.Seeds
		} else {
			c.taken[c.n] = 0
		}
		c.n++
	}
}

// ended decides whether p, just reached, ends the game, given its legal moves
// c (already expanded), and who wins if so.
func ended(p *engine.Position, c *children, r engine.Rules) (bool, engine.Winner) {
	if c.n > 0 {
		return false, engine.NoWinner
	}
	_, res := p.Finish(r)
	return true, res.Winner
}

// prover decides forced wins by exhaustive search under its rules. With an
// endgame table (tb not nil) it tries only the attacker's moves that keep
// the table's win: a move the table does not call a win cannot force one in
// any number of moves (a forced win is a win with perfect play), so the
// answers are the same, found sooner.
type prover struct {
	r  engine.Rules
	tb *tablebase.Table
}

// keeps reports whether q, reached by the attacker's move, is still a win
// for the attacker by the table (always, without one).
func (pv prover) keeps(q *engine.Position) bool {
	if pv.tb == nil {
		return true
	}
	v, ok := pv.tb.Value(q)
	return !ok || tablebase.Result(q, v) == tablebase.Loss
}

// winsWithin reports whether the side to move in p forces a win within n of
// its own moves, whatever the opponent replies.
func winsWithin(p *engine.Position, r engine.Rules, n int) bool {
	return prover{r: r}.wins(p, n)
}

func (pv prover) wins(p *engine.Position, n int) bool {
	if n <= 0 {
		return false
	}
	var c children
	c.expand(p, pv.r)
	for i := range c.n {
		if pv.keeps(&c.next[i]) && pv.moveWins(&c.next[i], p.ToMove, n) {
			return true
		}
	}
	return false
}

// moveWinsWithin reports whether q, reached by attacker's move, is a forced
// win for attacker within n moves counting the one just played: the game is
// over and won, or n > 1 and every reply leads to a forced win within n-1.
func moveWinsWithin(q *engine.Position, attacker engine.Side, r engine.Rules, n int) bool {
	return prover{r: r}.moveWins(q, attacker, n)
}

func (pv prover) moveWins(q *engine.Position, attacker engine.Side, n int) bool {
	r := pv.r
	if n <= 1 {
		// Only the end of the game counts, and finding one legal reply is
		// enough to know it goes on: cheaper than listing them all.
		switch won := q.MajorityResult(); {
		case won.Winner == engine.WinnerOf(attacker):
			return true
		case won.Over() || q.HasLegalMove(r):
			return false
		}
		_, res := q.Finish(r)
		return res.Winner == engine.WinnerOf(attacker)
	}
	var replies children
	replies.expand(q, r)
	if over, w := ended(q, &replies, r); over {
		return w == engine.WinnerOf(attacker)
	}
	for i := range replies.n {
		s := &replies.next[i]
		var next children
		next.expand(s, r)
		if over, w := ended(s, &next, r); over {
			if w != engine.WinnerOf(attacker) {
				return false
			}
			continue
		}
		found := false
		for j := range next.n {
			if pv.keeps(&next.next[j]) && pv.moveWins(&next.next[j], attacker, n-1) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// stubbornReply picks the defence the solution line shows after the
// attacker's move reached q, when the attacker forces a win within n moves
// counting that one: the reply after which the attacker needs the most moves,
// then the one that captures the most, then the lowest pit. It returns -1 when the game is over at q.
func (pv prover) stubbornReply(q *engine.Position, attacker engine.Side, n int) int {
	r := pv.r
	var replies children
	replies.expand(q, r)
	best, bestDist, bestCapt := -1, -1, 0
	for i := range replies.n {
		s := &replies.next[i]
		dist := 0 // the game is over after the reply: the attacker has won
		var next children
		next.expand(s, r)
		if over, _ := ended(s, &next, r); !over {
			dist = n - 1 // the longest it can be, if nothing shorter wins
			for d := 1; d < n-1; d++ {
				if pv.wins(s, d) {
					dist = d
					break
				}
			}
		}
		capt := int(replies.taken[i])
		if dist > bestDist || (dist == bestDist && capt > bestCapt) {
			best, bestDist, bestCapt = int(replies.pits[i]), dist, capt
		}
	}
	return best
}

// fastestWin picks the attacker's move the solution line shows in p, where
// the attacker forces a win within n: the one that wins in the fewest moves,
// then the lowest pit. It returns -1 when none wins within n.
func (pv prover) fastestWin(p *engine.Position, n int) int {
	var c children
	c.expand(p, pv.r)
	for d := 1; d <= n; d++ {
		for i := range c.n {
			if pv.keeps(&c.next[i]) && pv.moveWins(&c.next[i], p.ToMove, d) {
				return int(c.pits[i])
			}
		}
	}
	return -1
}

// maxCapture returns the most seeds the side to move in p captures with one
// move, and the lowest pit that does (-1 when it has no legal move).
func maxCapture(p *engine.Position, r engine.Rules) (seeds, pit int) {
	var c children
	c.expand(p, r)
	pit = -1
	for i := range c.n {
		if int(c.taken[i]) > seeds || pit < 0 {
			seeds, pit = int(c.taken[i]), int(c.pits[i])
		}
	}
	return seeds, pit
}
