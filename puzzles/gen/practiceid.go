package gen

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ayoayo/ayoayo/fault"
)

// The practice pool's ids. A practice puzzle is not stored: its id says how
// to make it again (the generator version, the filter and the sequence
// number), so any server derives the same puzzle from it. The id is
// readable, "x2-d3-gwin-tany-4127": x and the version, d and the difficulty
// (0 any), g and the goal, t and the theme ("any" for either), and the
// sequence number. It starts with x, a daily id with p, so the two never
// meet; exactly one spelling of each id parses.

// ErrInvalidPractice: a practice request that cannot be met as asked: a
// filter out of range, an `after` that is no practice id or is one of
// another filter.
var ErrInvalidPractice = fault.New(fault.Malformed, "invalid_practice_request", "Invalid practice request", "invalid practice request")

// ErrFilterUnmet: no puzzle of the generator version in force meets the
// filter. Practice reports it (with ErrNoPuzzle) when none can by
// definition (say, a defend puzzle of difficulty 1: defending is never
// graded easiest); a service may report it too when the generator found
// none for many sequence numbers in a row.
var ErrFilterUnmet = fault.New(fault.Invalid, "no_practice_puzzle", "No practice puzzle meets the filter", "no practice puzzle meets the filter")

// MaxPracticeSeq is the largest sequence number of a practice id: the
// largest integer a JSON number holds exactly, so clients in any language
// can read it.
const MaxPracticeSeq = 1<<53 - 1

// maxPracticeID bounds the text of a practice id: the longest one is
// "x99-d5-gmax_capture-t" + the longest theme + "-" + 16 digits.
const maxPracticeID = 64

// CheckFilter reports a filter out of range as ErrInvalidPractice.
func CheckFilter(f PracticeFilter) error {
	switch {
	case f.Difficulty < 0 || f.Difficulty > 5:
		return fmt.Errorf("%w: difficulty %d, want 1 to 5 (or none for any)", ErrInvalidPractice, f.Difficulty)
	case f.Goal != "" && !f.Goal.Valid():
		return fmt.Errorf("%w: unknown goal %q", ErrInvalidPractice, f.Goal)
	case f.Theme != "" && !slices.Contains(themeNames, f.Theme):
		return fmt.Errorf("%w: unknown theme %q", ErrInvalidPractice, f.Theme)
	}
	return nil
}

// Meets reports whether p is a puzzle f asks for.
func Meets(p Puzzle, f PracticeFilter) bool {
	return (f.Difficulty == 0 || p.Difficulty == f.Difficulty) &&
		(f.Goal == "" || p.Goal == f.Goal) &&
		(f.Theme == "" || slices.Contains(p.Themes, f.Theme))
}

// PracticeID names one practice puzzle by how it is made.
type PracticeID struct {
	Version int // the generator version, 1 to 99
	Filter  PracticeFilter
	Seq     uint64 // 0 to MaxPracticeSeq
}

// String spells the id.
func (id PracticeID) String() string {
	goal, theme := string(id.Filter.Goal), id.Filter.Theme
	if goal == "" {
		goal = "any"
	}
	if theme == "" {
		theme = "any"
	}
	return fmt.Sprintf("x%d-d%d-g%s-t%s-%d", id.Version, id.Filter.Difficulty, goal, theme, id.Seq)
}

// IsPracticeID reports whether id is spelled as a practice id (it may still
// not parse); a daily id never is.
func IsPracticeID(id string) bool { return strings.HasPrefix(id, "x") }

// ParsePracticeID reads a practice id, strictly: only the spelling String
// gives parses, so each puzzle has one id.
func ParsePracticeID(s string) (PracticeID, error) {
	bad := func(why string) (PracticeID, error) {
		return PracticeID{}, fmt.Errorf("%w: %q is not a practice puzzle id: %s", ErrInvalidPractice, s, why)
	}
	if len(s) > maxPracticeID {
		return bad("too long")
	}
	parts := strings.Split(s, "-")
	if len(parts) != 5 {
		return bad("want x<version>-d<difficulty>-g<goal>-t<theme>-<seq>")
	}
	var id PracticeID
	for i, prefix := range []string{"x", "d", "g", "t"} {
		if !strings.HasPrefix(parts[i], prefix) {
			return bad("want x<version>-d<difficulty>-g<goal>-t<theme>-<seq>")
		}
		parts[i] = parts[i][1:]
	}
	v, err := strconv.Atoi(parts[0])
	if err != nil || v < 1 || v > 99 {
		return bad("version")
	}
	id.Version = v
	if id.Filter.Difficulty, err = strconv.Atoi(parts[1]); err != nil {
		return bad("difficulty")
	}
	if parts[2] != "any" {
		id.Filter.Goal = Goal(parts[2])
	}
	if parts[3] != "any" {
		id.Filter.Theme = parts[3]
	}
	if err := CheckFilter(id.Filter); err != nil {
		return bad("filter out of range")
	}
	if id.Seq, err = strconv.ParseUint(parts[4], 10, 64); err != nil || id.Seq > MaxPracticeSeq {
		return bad("sequence number")
	}
	if id.String() != s {
		return bad("not in its one spelling")
	}
	return id, nil
}
