package engine

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Reason says why a move is illegal. The zero value, Legal, means it is not.
type Reason uint8

// The reasons, in the order they are checked.
const (
	Legal Reason = iota
	GameOver
	NotYourPit
	EmptyPit
	InfiniteRelay
	MustFeed
)

// String returns the snake_case word the API uses ("" for Legal).
func (r Reason) String() string { return reasonWords.name(uint8(r)) }

// EndReason says why a game ended. The zero value, NotOver, means it has not.
type EndReason uint8

// The ways a game ends.
const (
	NotOver EndReason = iota
	ByMajority
	ByNoMoves
	ByRepetition
	ByResignation
	// ByTimeout: a side ran out of time (its clock, a correspondence
	// deadline, or an idle game's expiry); the other side wins. Time is the
	// game session's business, not the rules': the engine only names the end.
	ByTimeout
	// ByAgreement: both sides agreed to a draw (a game session's offer,
	// accepted); like a timeout, the rules only name it.
	ByAgreement
)

// String returns the snake_case word the API uses ("" for NotOver).
func (e EndReason) String() string { return endWords.name(uint8(e)) }

// Winner is the outcome of a finished game.
type Winner uint8

// The winners. NoWinner goes with NotOver.
const (
	NoWinner Winner = iota
	SouthWins
	NorthWins
	Draw
)

// String returns "south", "north" or "draw" ("" for NoWinner).
func (w Winner) String() string { return winnerWords.name(uint8(w)) }

// WinnerOf returns the Winner value for side s winning.
func WinnerOf(s Side) Winner { return SouthWins + Winner(s) }

// Result is how a game ended, or NotOver.
type Result struct {
	Reason EndReason
	Winner Winner
}

// Over reports whether the game has ended.
func (r Result) Over() bool { return r.Reason != NotOver }

// resultByCount decides the winner of a game that ended for why, from the
// captured seeds of its settled position p.
func resultByCount(p *Position, why EndReason) Result {
	res := Result{Reason: why, Winner: Draw}
	switch m := p.Margin(South); {
	case m > 0:
		res.Winner = SouthWins
	case m < 0:
		res.Winner = NorthWins
	}
	return res
}

// Margin returns s's captured seeds minus its opponent's. Once the game is
// over and its board settled (the position Finish returns), that is the final
// score for s: positive for a win, 0 for a draw. A search scores finished
// lines with it, and the engine picks the winner with it, so the two cannot
// disagree.
func (p *Position) Margin(s Side) int {
	return int(p.Captured[s]) - int(p.Captured[s.Other()])
}

// Leg is one sowing of a relay: the seeds lifted from From, sown one by one
// into the pits that follow it counter-clockwise, skipping From itself.
type Leg struct {
	From  uint8
	Seeds uint8
}

// SownPit returns the i-th pit (0-based) that the leg drops a seed into.
func (l Leg) SownPit(i int) int {
	return (int(l.From) + 1 + i%(NumPits-1)) % NumPits
}

// Last returns the pit where the leg's last seed lands.
func (l Leg) Last() int { return int(sowAdd[l.From&15][l.Seeds&63].last) }

// AppendSown appends every pit the leg sows into, in order, to dst.
func (l Leg) AppendSown(dst []int) []int {
	for i := range int(l.Seeds) {
		dst = append(dst, l.SownPit(i))
	}
	return dst
}

// Capture is what a move captured: Seeds counts every seed taken (with Russ's
// rules the capturing seed too); Pit is the opponent's pit emptied, or -1.
type Capture struct {
	Pit   int8
	Seeds uint8
}

// None reports whether nothing was captured.
func (c Capture) None() bool { return c.Pit < 0 }

// Outcome is everything a move did. Keep one and pass it to Play again: its
// Legs buffer is reused, so playing moves allocates nothing once it has grown.
type Outcome struct {
	Pit      int
	Reason   Reason    // Legal, or why the move was refused
	Legs     []Leg     // every leg of the relay, in order; empty when illegal
	Capture  Capture   // what was captured
	Position Position  // the position after the move (unchanged when illegal)
	Result   Result    // the end of the game this move brought, or NotOver
	Before   Position  // the position the move was played from
	Rules    Rules     // the rules it was played under
	_        [0]func() // not comparable: compare fields, not outcomes
}

// Legal reports whether the move was played.
func (o *Outcome) Legal() bool { return o.Reason == Legal }

// board is the twelve pits packed into two words, so a whole lap of sowing is
// one addition per word: pits 0-7 in lo, pits 8-11 in the low half of hi.
type board struct{ lo, hi uint64 }

func loadBoard(p *[NumPits]uint8) board {
	return board{binary.LittleEndian.Uint64(p[0:8]), uint64(binary.LittleEndian.Uint32(p[8:12]))}
}

func (b board) store(p *[NumPits]uint8) {
	binary.LittleEndian.PutUint64(p[0:8], b.lo)
	binary.LittleEndian.PutUint32(p[8:12], uint32(b.hi))
}

// get reads pit i. The word is picked with a conditional move and the shift
// is masked below 64, so the compiler emits neither a branch nor the
// oversized-shift fix-up.
func (b board) get(i int) uint8 {
	w := b.lo
	if i >= 8 {
		w = b.hi
	}
	return uint8(w >> (uint(i&7) * 8))
}

func (b *board) clear(i int) {
	if i < 8 {
		b.lo &^= 0xff << (uint(i&7) * 8)
	} else {
		b.hi &^= 0xff << (uint(i&7) * 8)
	}
}

// Masks of each row in the packed board.
const (
	southLo = 0x0000_ffff_ffff_ffff
	northLo = 0xffff_0000_0000_0000
	northHi = 0x0000_0000_ffff_ffff
)

// rowEmpty is RowEmpty on the packed board, for sowing, which holds one.
func (b board) rowEmpty(s Side) bool {
	if s == South {
		return b.lo&southLo == 0
	}
	return b.lo&northLo == 0 && b.hi&northHi == 0
}

// sowAdd[o][n] is what sowing n seeds from pit o does to the board: n taken
// from pit o, and what each other pit receives, folded into one pair of words
// to add (the subtraction wraps, but pit o holds exactly n, so no byte ever
// borrows from its neighbour and the sum is exact), and last, the pit where
// the last seed lands. Every seed count a valid position can hold has an
// entry, so a leg costs two additions and a lookup, however many laps.
//
// The table is padded to powers of two so that masked indexes need no bounds
// checks in the sowing loop.
type sowStep struct {
	lo, hi uint64
	last   uint8
}

var sowAdd [16][64]sowStep

func init() {
	for o := range NumPits {
		for n := 1; n <= SeedCount; n++ {
			var add [NumPits]uint8
			pit := o
			for range n {
				pit = (pit + 1) % NumPits
				if pit == o {
					pit = (pit + 1) % NumPits
				}
				add[pit]++
			}
			b := loadBoard(&add)
			var take [NumPits]uint8
			take[o] = uint8(n)
			t := loadBoard(&take)
			sowAdd[o][n] = sowStep{lo: b.lo - t.lo, hi: b.hi - t.hi, last: uint8(pit)}
		}
	}
}

// cycle is Brent's cycle detection over the states at the start of each leg
// (the pits and the leg's origin): a saved state is compared with every later
// one and replaced at each power of two. A repeat means the relay would go on
// forever; without one it ends, however long it is. No cap, no memory.
type cycle struct {
	lo, hi     uint64
	power, lam int
}

func newCycle(b board, o int) cycle { return cycle{lo: b.lo, hi: b.hi | uint64(o)<<40, power: 1} }

// seen records the state (b, o) and reports whether it was seen before. It
// works on a copy, so that the state stays in registers in the relay loops.
func (c cycle) seen(b board, o int) (cycle, bool) {
	hi := b.hi | uint64(o)<<40
	if b.lo == c.lo && hi == c.hi {
		return c, true
	}
	if c.lam++; c.lam == c.power {
		c.lo, c.hi = b.lo, hi
		c.power <<= 1
		c.lam = 0
	}
	return c, false
}

// relay sows leg after leg from pit o until a last seed lands in an empty pit,
// and returns the board and that pit, or endless. It is the search's hot loop:
// kept free of calls so the board stays in registers.
func relay(b board, o int) (_ board, last int, endless bool) {
	c := newCycle(b, o)
	for {
		n := b.get(o)
		step := &sowAdd[o&15][n&63]
		b.lo += step.lo
		b.hi += step.hi
		o = int(step.last)
		if b.get(o) == 1 {
			return b, o, false
		}
		var again bool
		if c, again = c.seen(b, o); again {
			return b, o, true
		}
	}
}

// relayRecorded is relay that also appends each leg to legs and returns it.
// It is a copy of relay's few lines rather than relay with a flag, because
// the append's call path would make the compiler spill the board on every leg
// of the fast path.
func relayRecorded(b board, o int, legs []Leg) (_ board, last int, endless bool, _ []Leg) {
	c := newCycle(b, o)
	for {
		n := b.get(o)
		legs = append(legs, Leg{From: uint8(o), Seeds: n})
		step := &sowAdd[o&15][n&63]
		b.lo += step.lo
		b.hi += step.hi
		o = int(step.last)
		if b.get(o) == 1 {
			return b, o, false, legs
		}
		var again bool
		if c, again = c.seen(b, o); again {
			return b, o, true, legs
		}
	}
}

// sow plays pit for p.ToMove with the sowing, relay, capture and feeding rules,
// without deciding the end of the game. It assumes p is valid, the pit is the
// mover's and holds seeds, and the game is not over. legs, when not nil,
// receives the legs; next, when not nil and the move is legal, receives the
// position after it with the turn passed (next may be p itself).
func sow(p *Position, pit int, r Rules, legs *[]Leg, next *Position) (Capture, Reason) {
	b := loadBoard(&p.Pits)
	mover := p.ToMove
	starved := b.rowEmpty(mover.Other())
	var o int
	var endless bool
	if legs == nil {
		b, o, endless = relay(b, pit)
	} else {
		b, o, endless, *legs = relayRecorded(b, pit, *legs)
	}
	if endless {
		return Capture{Pit: -1}, InfiniteRelay
	}

	capt := Capture{Pit: -1}
	if (o >= RowPits) == (mover == North) {
		opp := Opposite(o)
		if k := b.get(opp); k > 0 {
			b.clear(opp)
			if r.CaptureSeed == CaptureTaken {
				b.clear(o)
				k++
			}
			capt = Capture{Pit: int8(opp), Seeds: k}
		}
	}
	if starved && b.rowEmpty(mover.Other()) {
		return Capture{Pit: -1}, MustFeed
	}
	if next != nil {
		captured := p.Captured
		captured[mover] += capt.Seeds // 0 when nothing was captured
		b.store(&next.Pits)
		next.Captured = captured
		next.ToMove = mover.Other()
	}
	return capt, Legal
}

// precheck gives the reason a move is refused before any sowing, apart from
// game_over, which needs the whole position.
func precheck(p *Position, pit int) Reason {
	if pit < 0 || pit >= NumPits || !p.ToMove.Owns(pit) {
		return NotYourPit
	}
	if p.Pits[pit] == 0 {
		return EmptyPit
	}
	return Legal
}

// Apply plays pit on p and returns the next position, or p unchanged and the
// reason the move is illegal. It is the fast path for search: it records no legs
// and does not decide the end of the game (see Status), and it does not check
// game_over, so a move in a finished position may still be applied.
func (p Position) Apply(pit int, r Rules) (Position, Reason) {
	if why := precheck(&p, pit); why != Legal {
		return p, why
	}
	_, why := sow(&p, pit, r, nil, &p)
	return p, why
}

// ApplyCapture is Apply that also reports the capture.
func (p Position) ApplyCapture(pit int, r Rules) (Position, Capture, Reason) {
	if why := precheck(&p, pit); why != Legal {
		return p, Capture{Pit: -1}, why
	}
	c, why := sow(&p, pit, r, nil, &p)
	return p, c, why
}

// MajorityResult reports a win by majority: a side that has captured
// Majority seeds or more has won, whatever is left on the board (which stays
// there). Otherwise it returns NotOver. It is the first end the rules check
// after a move, and cheap enough for a search to check at every node; it is
// not the whole of Status, which also looks for a legal move.
func (p *Position) MajorityResult() Result {
	switch {
	case p.Captured[South] >= Majority:
		return Result{Reason: ByMajority, Winner: SouthWins}
	case p.Captured[North] >= Majority:
		return Result{Reason: ByMajority, Winner: NorthWins}
	}
	return Result{}
}

// HasLegalMove reports whether the side to move has a legal move, ignoring
// whether the game is already won by majority.
func (p Position) HasLegalMove(r Rules) bool { return p.hasLegalMove(r) }

func (p *Position) hasLegalMove(r Rules) bool {
	first := p.ToMove.FirstPit()
	b := loadBoard(&p.Pits)
	if !p.RowEmpty(p.ToMove.Other()) {
		// A pit of at most 11 seeds whose last seed lands in an empty pit
		// is one leg that ends at once: legal, with no sowing needed.
		for pit := first; pit < first+RowPits; pit++ {
			if n := b.get(pit); n != 0 && n < NumPits && b.get(int(sowAdd[pit&15][n&63].last)) == 0 {
				return true
			}
		}
	}
	for pit := first; pit < first+RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		if _, why := sow(p, pit, r, nil, nil); why == Legal {
			return true
		}
	}
	return false
}

// RowEmpty reports whether s's row holds no seed. The rules turn on it
// twice: a side to move whose row is empty has no move, and a move that
// leaves the opponent's row empty when it was empty already is refused
// (must_feed). It is two loads and a mask, for a search to call at every node.
func (p *Position) RowEmpty(s Side) bool { return loadBoard(&p.Pits).rowEmpty(s) }

// Moves is a set of pits, one bit each.
type Moves uint16

// Has reports whether pit is in the set.
func (m Moves) Has(pit int) bool { return pit >= 0 && pit < NumPits && m&(1<<pit) != 0 }

// Len returns how many pits are in the set.
func (m Moves) Len() int { return bits.OnesCount16(uint16(m)) }

// Next removes and returns the lowest pit of the set, or -1 when it is empty.
func (m *Moves) Next() int {
	if *m == 0 {
		return -1
	}
	pit := bits.TrailingZeros16(uint16(*m))
	*m &= *m - 1
	return pit
}

// LegalMoves returns the pits the side to move may play; none when the game is
// over.
func (p Position) LegalMoves(r Rules) Moves {
	if p.MajorityResult().Over() {
		return 0
	}
	var m Moves
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		if _, why := sow(&p, pit, r, nil, nil); why == Legal {
			m |= 1 << pit
		}
	}
	return m
}

// Status says whether p is finished and, if so, how it ends: by majority, or
// with no legal move for the side to move. For the latter the winner counts the
// leftovers as the rules option gives them; Settle returns that final position.
func (p Position) Status(r Rules) Result {
	if res := p.MajorityResult(); res.Over() {
		return res
	}
	if p.HasLegalMove(r) {
		return Result{}
	}
	final := p.Settle(r)
	return resultByCount(&final, ByNoMoves)
}

// Settle ends the game as the no-moves rule says, for a side to move that has
// no legal move: every seed left on the board goes into the captured counts,
// to the last mover (the opponent of the side to move) or, with side_owner
// leftovers, each row to its owner. The board it returns is empty and its
// Margin is the final score. It does not check that the side to move has no
// move: Finish does, and settles only then; a search that knows it already
// (an empty row) calls Settle directly.
func (p Position) Settle(r Rules) Position {
	if r.Leftovers == LeftoversSideOwner {
		return p.SplitRows()
	}
	p.Captured[p.ToMove.Other()] += uint8(p.BoardSeeds())
	p.Pits = [NumPits]uint8{}
	return p
}

// SplitRows gives each player the seeds in their own row and empties the board,
// as the repetition rule and the side_owner option do. RowMargin tells what it
// gives one player over the other without building the position.
func (p Position) SplitRows() Position {
	p.Captured[South] += uint8(p.RowSeeds(South))
	p.Captured[North] += uint8(p.RowSeeds(North))
	p.Pits = [NumPits]uint8{}
	return p
}

// RowMargin returns what SplitRows gives s less what it gives the other
// player: the seeds in s's row less those in the other row.
func (p *Position) RowMargin(s Side) int { return p.RowSeeds(s) - p.RowSeeds(s.Other()) }

// Finish ends the game in p: if p is finished with no legal move, the leftovers
// go where the rules say and the board is emptied. It returns the final position
// and the result; a position still in play is returned as it is, with NotOver.
func (p Position) Finish(r Rules) (Position, Result) {
	res := p.finish(r)
	return p, res
}

// finish is Finish in place.
func (p *Position) finish(r Rules) Result {
	if res := p.MajorityResult(); res.Over() {
		return res
	}
	if p.hasLegalMove(r) {
		return Result{}
	}
	*p = p.Settle(r)
	return resultByCount(p, ByNoMoves)
}

// Play plays pit on p under r and writes everything that happened into out,
// reusing out.Legs. Illegal moves are reported in out.Reason with the position
// unchanged; p must be valid (see NewPosition). It allocates nothing once
// out.Legs has room for the relay.
func Play(p Position, pit int, r Rules, out *Outcome) {
	out.Pit, out.Reason, out.Capture = pit, Legal, Capture{Pit: -1}
	out.Legs = out.Legs[:0]
	out.Before, out.Rules, out.Result = p, r, Result{}

	if p.MajorityResult().Over() {
		out.Position, out.Reason = p, GameOver
		return
	}
	why := precheck(&p, pit)
	if why == Legal {
		out.Capture, why = sow(&p, pit, r, &out.Legs, &out.Position)
	}
	if why != Legal {
		out.Legs = out.Legs[:0]
		out.Capture = Capture{Pit: -1}
		out.Position = p
		// An illegal move in a position with no legal move at all is refused
		// because the game is over, which the rules check first.
		if !p.HasLegalMove(r) {
			why = GameOver
		}
		out.Reason = why
		return
	}
	out.Result = out.Position.finish(r)
}

// String renders a one-line summary of the outcome, for logs and tests.
func (o *Outcome) String() string {
	if !o.Legal() {
		return fmt.Sprintf("pit %d: illegal (%s)", o.Pit, o.Reason)
	}
	s := fmt.Sprintf("pit %d: %d legs", o.Pit, len(o.Legs))
	if !o.Capture.None() {
		s += fmt.Sprintf(", captures %d from pit %d", o.Capture.Seeds, o.Capture.Pit)
	}
	s += " -> " + o.Position.String()
	if o.Result.Over() {
		s += fmt.Sprintf(" (%s wins by %s)", o.Result.Winner, o.Result.Reason)
	}
	return s
}
