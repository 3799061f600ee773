// Package engine implements the rules of Ayoayo exactly as RULES.md gives them:
// positions, sowing with its relay legs, captures, legality, the end of the game
// and the rule options. It is pure computation over small value types; nothing in
// it does I/O, and the move functions allocate nothing.
package engine

import (
	"errors"
	"fmt"
)

// Board dimensions and the thresholds of the rules.
const (
	NumPits   = 12 // pits on the board, numbered 0-11
	RowPits   = 6  // pits in each row
	SeedCount = 48 // seeds in the game
	Majority  = 25 // captured seeds that win at once
	StartSeed = 4  // seeds in each pit at the start
)

// Side is a player: South owns pits 0-5, North owns pits 6-11.
type Side uint8

// The two sides. South moves first.
const (
	South Side = 0
	North Side = 1
)

// Other returns the opponent of s.
func (s Side) Other() Side { return s ^ 1 }

// String returns "south" or "north", the words the notation and the API use.
func (s Side) String() string { return sideWords.name(uint8(s)) }

// Valid reports whether s is South or North.
func (s Side) Valid() bool { return s <= North }

// ParseSide reads "south" or "north"; another word is an error wrapping
// ErrInvalidPosition. It is UnmarshalText for a string.
func ParseSide(s string) (Side, error) { return parseWord[Side](&sideWords, s) }

// Owns reports whether pit belongs to s's row.
func (s Side) Owns(pit int) bool {
	return pit >= int(s)*RowPits && pit < int(s)*RowPits+RowPits
}

// FirstPit returns the lowest pit number of s's row.
func (s Side) FirstPit() int { return int(s) * RowPits }

// Opposite returns the pit facing pit across the board.
func Opposite(pit int) int { return NumPits - 1 - pit }

// Errors returned across the package boundary. Callers match them with errors.Is;
// the wrapped text says what exactly was wrong.
var (
	// ErrInvalidPosition: a position breaks the invariants (12 pits, counts from
	// 0 to 48, pits and captured seeds adding up to 48, a valid side).
	ErrInvalidPosition = errors.New("invalid position")
	// ErrInvalidNotation: a string is not a position in the text notation.
	ErrInvalidNotation = errors.New("invalid position notation")
	// ErrInvalidRules: an unknown rule option.
	ErrInvalidRules = errors.New("invalid rule option")
	// ErrIllegalMove: a move the rules forbid; the error is a *MoveError.
	ErrIllegalMove = errors.New("illegal move")
	// ErrGameOver: a game that has ended takes no more moves.
	ErrGameOver = errors.New("game is over")
	// ErrInvalidWord: a word that names no Winner, EndReason or Reason, or a
	// value of those types that has no word. A side or a rule option wraps
	// ErrInvalidPosition or ErrInvalidRules instead, as ParseSide and
	// ParseRules always have.
	ErrInvalidWord = errors.New("unknown word")
)

// Position is the whole state the rules need: the seeds in each pit, each side's
// captured seeds and the side to move. It is a small value, copied freely, and
// comparable, so it can key a map.
type Position struct {
	Pits     [NumPits]uint8
	Captured [2]uint8 // indexed by Side
	ToMove   Side
}

// Start returns the opening position: four seeds in every pit, South to move.
func Start() Position {
	var p Position
	for i := range p.Pits {
		p.Pits[i] = StartSeed
	}
	return p
}

// NewPosition builds a position from plain integers, as decoded from JSON, and
// validates it. It never panics, whatever the input.
func NewPosition(pits []int, south, north int, toMove Side) (Position, error) {
	var p Position
	if len(pits) != NumPits {
		return p, fmt.Errorf("%w: %d pits, want %d", ErrInvalidPosition, len(pits), NumPits)
	}
	total := 0
	for i, n := range pits {
		if n < 0 || n > SeedCount {
			return p, fmt.Errorf("%w: pit %d holds %d seeds, want 0 to %d", ErrInvalidPosition, i, n, SeedCount)
		}
		p.Pits[i] = uint8(n)
		total += n
	}
	for _, c := range []struct {
		side Side
		n    int
	}{{South, south}, {North, north}} {
		if c.n < 0 || c.n > SeedCount {
			return p, fmt.Errorf("%w: %s captured %d seeds, want 0 to %d", ErrInvalidPosition, c.side, c.n, SeedCount)
		}
		p.Captured[c.side] = uint8(c.n)
		total += c.n
	}
	if !toMove.Valid() {
		return p, fmt.Errorf("%w: side to move %d", ErrInvalidPosition, toMove)
	}
	p.ToMove = toMove
	if total != SeedCount {
		return p, fmt.Errorf("%w: pits and captured seeds add up to %d, want %d", ErrInvalidPosition, total, SeedCount)
	}
	return p, nil
}

// Validate checks the invariants of a position built by hand.
func (p Position) Validate() error {
	pits := make([]int, NumPits)
	for i, n := range p.Pits {
		pits[i] = int(n)
	}
	_, err := NewPosition(pits, int(p.Captured[South]), int(p.Captured[North]), p.ToMove)
	return err
}

// RowSeeds returns the seeds on the board in s's row.
func (p *Position) RowSeeds(s Side) int {
	n := 0
	for _, v := range p.Pits[s.FirstPit() : s.FirstPit()+RowPits] {
		n += int(v)
	}
	return n
}

// BoardSeeds returns the seeds still on the board.
func (p *Position) BoardSeeds() int { return p.RowSeeds(South) + p.RowSeeds(North) }
