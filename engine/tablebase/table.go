package tablebase

import (
	"errors"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
)

// Table is an endgame table: the bounds (A, B) of every board with at most
// MaxSeeds seeds, under one set of rules. It is read-only once built or
// opened, and safe for concurrent probes.
type Table struct {
	rules    engine.Rules
	maxSeeds int
	offset   [MaxSeedsLimit + 2]int64 // offset[n]: index of level n's first board
	body     []byte                   // one byte a board, levels 0..maxSeeds in order
	unmap    func() error             // releases a mapped file; nil for a table in memory
	crc      uint32                   // CRC-32C of body
}

// Rules returns the rule options the table was built under.
func (t *Table) Rules() engine.Rules { return t.rules }

// MaxSeeds returns N: the table answers every position with at most N seeds
// on the board.
func (t *Table) MaxSeeds() int { return t.maxSeeds }

// Close releases the file of an opened table. Probing a closed table panics;
// closing twice, or closing a built table, does nothing.
func (t *Table) Close() error {
	if t.unmap == nil {
		return nil
	}
	f := t.unmap
	t.unmap, t.body = nil, nil
	return f()
}

// split returns s(p): the seeds in the mover's row less those in the
// opponent's, the repetition rule's score for the mover.
func split(p *engine.Position) int {
	return p.RowSeeds(p.ToMove) - p.RowSeeds(p.ToMove.Other())
}

// code returns p's byte and its level, or ok=false when p has more than
// MaxSeeds seeds on the board.
func (t *Table) code(p *engine.Position) (c uint8, n int, ok bool) {
	n = 0
	for _, v := range p.Pits {
		n += int(v)
	}
	if n > t.maxSeeds {
		return 0, n, false
	}
	var idx uint32
	if p.ToMove == engine.South {
		idx = rank(&p.Pits, n)
	} else {
		idx = rankRotated(&p.Pits, n)
	}
	return t.body[t.offset[n]+int64(idx)], n, true
}

// Bounds returns p's bounds A <= B: the value of the rest of the game when
// play that never captures again counts as the worst outcome for p's mover
// (A) or the best (B). Captured counts are ignored. ok is false when p has
// more than MaxSeeds seeds on the board.
func (t *Table) Bounds(p *engine.Position) (a, b int, ok bool) {
	c, n, ok := t.code(p)
	if !ok {
		return 0, 0, false
	}
	a, b = bounds(c, n)
	return a, b, true
}

// Value returns p's value: the seeds the mover will capture from the board
// from now on, less the opponent's, with perfect play by both sides, play
// continued to the end (the majority does not stop it), and a cycle that
// neither side profitably leaves scored as the repetition rule scores it
// (each takes their own row, counted at p). Captured counts are ignored: see
// Result for the outcome of the game. ok is false when p has more than
// MaxSeeds seeds on the board.
func (t *Table) Value(p *engine.Position) (v int, ok bool) {
	c, n, ok := t.code(p)
	if !ok {
		return 0, false
	}
	a, b := bounds(c, n)
	return clamp(split(p), a, b), true
}

// MoveValue is one legal move and its value for the player to move at the
// position it was played from: the seeds it captures plus what the rest of
// the game brings them, as Value counts it.
type MoveValue struct {
	Pit      int
	Value    int
	Captured int // seeds the move itself captures
}

// Moves appends to out[:0] every legal move of p with its value, in pit
// order, and returns it; ok is false when p has more than MaxSeeds seeds on
// the board. Values are anchored at p: a move that captures nothing, to q,
// is worth clamp(s(p), -B(q), -A(q)), so a cycle through it is scored at p,
// and the best move's value is always Value(p). A position whose mover has
// no legal move gives an empty list (Value says how it ends). It allocates
// only when out is too short.
func (t *Table) Moves(p engine.Position, out []MoveValue) ([]MoveValue, bool) {
	out = out[:0]
	if p.BoardSeeds() > t.maxSeeds {
		return out, false
	}
	s := split(&p)
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+engine.RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		q, capt, why := p.ApplyCapture(pit, t.rules)
		if why != engine.Legal {
			continue
		}
		c, n, _ := t.code(&q)
		a, b := bounds(c, n)
		mv := MoveValue{Pit: pit}
		if capt.None() {
			mv.Value = clamp(s, -b, -a)
		} else {
			mv.Captured = int(capt.Seeds)
			mv.Value = mv.Captured - clamp(split(&q), a, b)
		}
		out = append(out, mv)
	}
	return out, true
}

// WDL is the result of a game with perfect play for the player to move.
type WDL uint8

// The results, worst first.
const (
	Loss WDL = iota
	Draw
	Win
)

var wdlWords = [...]string{"loss", "draw", "win"}

// ErrInvalidWDL: a word that names no WDL, or a value that has none.
var ErrInvalidWDL = errors.New("unknown result word")

// String returns "loss", "draw" or "win".
func (w WDL) String() string {
	if int(w) < len(wdlWords) {
		return wdlWords[w]
	}
	return fmt.Sprintf("WDL(%d)", uint8(w))
}

// MarshalText returns "loss", "draw" or "win"; another value is an error
// wrapping ErrInvalidWDL.
func (w WDL) MarshalText() ([]byte, error) {
	if int(w) < len(wdlWords) {
		return []byte(wdlWords[w]), nil
	}
	return nil, fmt.Errorf("%w: WDL(%d) has no word", ErrInvalidWDL, uint8(w))
}

// UnmarshalText reads "loss", "draw" or "win"; another word is an error
// wrapping ErrInvalidWDL and leaves w unchanged.
func (w *WDL) UnmarshalText(text []byte) error {
	for i, s := range wdlWords {
		if string(text) == s {
			*w = WDL(i)
			return nil
		}
	}
	return fmt.Errorf("%w: %q, want loss, draw or win", ErrInvalidWDL, text)
}

// Result returns the result with perfect play for p's mover, given p's value
// v (from Value): the sign of the mover's captured seeds, less the
// opponent's, plus v. That is the true result of the real game, which stops
// at a majority of 25: see the package documentation for why.
func Result(p *engine.Position, v int) WDL {
	m := int(p.Captured[p.ToMove]) - int(p.Captured[p.ToMove.Other()]) + v
	switch {
	case m > 0:
		return Win
	case m < 0:
		return Loss
	}
	return Draw
}
