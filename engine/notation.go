package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// The text notation writes a position in one URL-safe word:
//
//	s-444444-444444-0-0
//
// the side to move (s or n), South's pits 0-5, North's pits 6-11, then South's
// and North's captured seeds in decimal, joined by hyphens. Each pit is one
// symbol: 0-9 for nought to nine, a-z for 10 to 35, A-M for 36 to 48. Only
// unreserved URL characters are used, so the word goes into a path or query
// string as it is.
const pitSymbols = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLM"

var symbolValue = func() (v [256]int8) {
	for i := range v {
		v[i] = -1
	}
	for i := range len(pitSymbols) {
		v[pitSymbols[i]] = int8(i)
	}
	return v
}()

// String returns p in the text notation.
func (p Position) String() string {
	var sb strings.Builder
	sb.Grow(24)
	if p.ToMove == North {
		sb.WriteByte('n')
	} else {
		sb.WriteByte('s')
	}
	for i, n := range p.Pits {
		if i%RowPits == 0 {
			sb.WriteByte('-')
		}
		if int(n) < len(pitSymbols) {
			sb.WriteByte(pitSymbols[n])
		} else {
			sb.WriteByte('?')
		}
	}
	sb.WriteByte('-')
	sb.WriteString(strconv.Itoa(int(p.Captured[South])))
	sb.WriteByte('-')
	sb.WriteString(strconv.Itoa(int(p.Captured[North])))
	return sb.String()
}

// Parse reads a position in the text notation and validates it.
func Parse(s string) (Position, error) {
	fail := func(format string, args ...any) (Position, error) {
		return Position{}, fmt.Errorf("%w: %q: %s", ErrInvalidNotation, s, fmt.Sprintf(format, args...))
	}
	if len(s) > 32 {
		return fail("longer than any position")
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 {
		return fail("want 5 parts joined by hyphens (side-south-north-captured-captured), got %d", len(parts))
	}
	var side Side
	switch parts[0] {
	case "s":
		side = South
	case "n":
		side = North
	default:
		return fail("side to move %q, want s or n", parts[0])
	}
	pits := make([]int, 0, NumPits)
	for _, row := range parts[1:3] {
		if len(row) != RowPits {
			return fail("row %q has %d pits, want %d", row, len(row), RowPits)
		}
		for i := range len(row) {
			v := symbolValue[row[i]]
			if v < 0 {
				return fail("pit symbol %q, want 0-9, a-z or A-M", row[i])
			}
			pits = append(pits, int(v))
		}
	}
	var captured [2]int
	for i, c := range parts[3:5] {
		n, err := strconv.Atoi(c)
		if err != nil || c != strconv.Itoa(n) {
			return fail("captured count %q is not a plain decimal number", c)
		}
		captured[i] = n
	}
	p, err := NewPosition(pits, captured[0], captured[1], side)
	if err != nil {
		return Position{}, fmt.Errorf("%w: %q: %w", ErrInvalidNotation, s, err)
	}
	return p, nil
}

// MustParse is Parse for tests and tables of known-good positions; it panics on
// an error.
func MustParse(s string) Position {
	p, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return p
}
