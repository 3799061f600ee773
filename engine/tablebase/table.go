package tablebase

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/ayoayo/ayoayo/engine"
)

// Table is an endgame table: the bounds (A, B) of every board with at most
// MaxSeeds seeds, under one set of rules. It is read-only once built or
// opened, and safe for concurrent probes (Value, Bounds, Moves) until Close:
// see Close for the contract.
type Table struct {
	rules    engine.Rules
	maxSeeds int
	// limit is what probes compare a board's seeds with: maxSeeds while
	// the table is open, -1 once it is closed, so that every later probe
	// says ok=false. An atomic load costs what a plain one does.
	limit  atomic.Int32
	offset [MaxSeedsLimit + 2]int64 // offset[n]: index of level n's first board
	body   []byte                   // one byte a board, levels 0..maxSeeds in order
	crc    uint32                   // CRC-32C of body
	// The score section (see scores.go): levels 0..scoreSeeds, -1 for none.
	scoreSeeds  int
	scoreOffset [MaxScoreSeeds + 2]int64 // scoreOffset[n]: index of level n's first entry
	scores      []byte                   // a byte an entry: W+n, and openFlag when A < B
	open        []openBounds             // the bounds of the entries with openFlag, by entry
	scoresCRC   uint32                   // CRC-32C of scores and the open list as written
}

// newTable returns an open table of N = maxSeeds seeds under r, with true
// scores up to scoreSeeds (-1: none), with its level offsets; the caller
// fills body, scores and their checksums.
func newTable(r engine.Rules, maxSeeds, scoreSeeds int) *Table {
	t := &Table{rules: r, maxSeeds: maxSeeds, scoreSeeds: scoreSeeds}
	t.limit.Store(int32(maxSeeds))
	for n := 0; n <= maxSeeds; n++ {
		t.offset[n+1] = t.offset[n] + LevelSize(n)
	}
	for n := 0; n <= scoreSeeds; n++ {
		t.scoreOffset[n+1] = t.scoreOffset[n] + scoreLevelSize(n)
	}
	return t
}

// Rules returns the rule options the table was built under.
func (t *Table) Rules() engine.Rules { return t.rules }

// MaxSeeds returns N: the table answers every position with at most N seeds
// on the board.
func (t *Table) MaxSeeds() int { return t.maxSeeds }

// Close ends the use of the table: every probe that starts after Close has
// returned answers ok=false, as for a board with too many seeds, and
// MaxSeeds still says N. Closing twice, or closing a built table, is
// harmless.
//
// The contract: call Close only once every probe has returned (a server
// closes its table after its shutdown has waited for the requests in
// flight). Breaking it does not crash the process or read freed memory,
// because Close does not unmap an opened file itself: the mapping is
// released when the garbage collector finds the Table unreachable, which no
// running probe allows (the file's memory is the kernel's page cache and can
// be reclaimed meanwhile). A probe that overlaps Close may answer either
// way. Counting the probes in flight, so that Close could unmap at once,
// would cost every probe two atomic writes to a line that all cores share.
func (t *Table) Close() error {
	t.limit.Store(-1)
	return nil
}

// gain is what going from p to q (the same position, its board settled by
// the engine) gives p's mover in captured seeds, less what it gives the
// opponent.
func gain(p, q *engine.Position) int {
	m, o := p.ToMove, p.ToMove.Other()
	return int(q.Captured[m]) - int(p.Captured[m]) - int(q.Captured[o]) + int(p.Captured[o])
}

// split returns s(p): the seeds in the mover's row less those in the
// opponent's, the repetition rule's score for the mover (what engine
// SplitRows gives them).
func split(p *engine.Position) int { return p.RowMargin(p.ToMove) }

// settled returns the value of a board whose mover has no legal move: the
// leftovers go where the rules say (engine Settle).
func settled(p *engine.Position, r engine.Rules) int {
	q := p.Settle(r)
	return gain(p, &q)
}

// code returns p's byte and its level, or ok=false when p has more than
// MaxSeeds seeds on the board.
func (t *Table) code(p *engine.Position) (c uint8, n int, ok bool) {
	n = 0
	for _, v := range p.Pits {
		n += int(v)
	}
	if n > int(t.limit.Load()) {
		return 0, n, false
	}
	var idx uint32
	if p.ToMove == engine.South {
		idx = rank(&p.Pits, n)
	} else {
		idx = rankRotated(&p.Pits, n)
	}
	c = t.body[t.offset[n]+int64(idx)]
	runtime.KeepAlive(t) // keeps a mapped body mapped until the byte is read: see Close
	return c, n, true
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
	if p.BoardSeeds() > int(t.limit.Load()) {
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
		c, n, ok := t.code(&q)
		if !ok { // closed meanwhile, against Close's contract
			return out[:0], false
		}
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
