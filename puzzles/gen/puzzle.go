// Package gen generates and proves puzzles: a pure, deterministic function
// from a date (or a practice filter and sequence number) and a generator
// version to a position with a goal and a proven, unique solution, and the
// judge of a solver's attempt at one. Version 2's endgame puzzles are proved
// with an endgame table the caller hands in (CheckTable); gen keeps no
// caches, slots or timeouts: the feed and the practice pool in package
// puzzles do.
//
// The generator plays seeded self-play games from varied openings, keeps the
// positions whose key move relays through at least MinKeyLegs legs and whose
// solution is unique under exhaustive search, grades them by measurable
// features, and picks one of the difficulty the weekday asks for. Nothing in it
// reads the clock, the environment or a database, so every machine derives the
// same puzzle for the same date.
package gen

import (
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
)

// Version is the newest generator version, the one days from the cutover are
// made with (VersionFor). A stored puzzle keeps the version it was made with,
// and Verify checks it against the rules of that version, so changing the
// generator never changes a published puzzle.
const Version = 2

// MinKeyLegs is the fewest relay legs the key move of any puzzle sows: the
// answer has to be calculated seed by seed, not guessed.
const MinKeyLegs = 8

// MaxWinDepth is the most moves of its own the side to move may need in a win
// puzzle.
const MaxWinDepth = 3

// Goal is what the solver must find.
type Goal string

// The goals.
const (
	// GoalMaxCapture: exactly one move captures the most seeds this turn, by a
	// margin of at least MinCaptureMargin over every other move.
	GoalMaxCapture Goal = "max_capture"
	// GoalWin: the side to move forces a win within Depth of its own moves,
	// whatever the opponent replies, and exactly one first move does.
	GoalWin Goal = "win"
	// GoalDefend: every move but one lets the opponent capture a lot next turn;
	// the key move keeps the opponent's best capture small and is also the best
	// move counting its own capture.
	GoalDefend Goal = "defend"
	// GoalEndgame (from version 2): the side to move wins with perfect
	// play, proven by the endgame table, and exactly one move keeps the win;
	// Depth is how many moves of its own the win then needs (see
	// endgame.go).
	GoalEndgame Goal = "endgame"
)

// Goals lists every goal, in the order the API documents them.
var Goals = []Goal{GoalMaxCapture, GoalWin, GoalDefend, GoalEndgame}

// Valid reports whether g is one of the goals.
func (g Goal) Valid() bool {
	return g == GoalMaxCapture || g == GoalWin || g == GoalDefend || g == GoalEndgame
}

// Errors returned across the package boundary, each declared with its kind
// and the code the client reads (see package fault); callers match them
// with errors.Is.
var (
	// ErrInvalidDate: a date that is not YYYY-MM-DD, or out of range.
	ErrInvalidDate = fault.New(fault.Malformed, "invalid_date", "Invalid date", "invalid puzzle date")
	// ErrUnverified: a puzzle whose solution does not hold (a corrupt or
	// tampered record, or one made by a different generator version's
	// rules): the server's fault, never served.
	ErrUnverified = fault.New(fault.Internal, "puzzle_unverified", "Puzzle failed verification", "puzzle does not verify")
	// ErrUnknownVersion: a puzzle made by a generator version this build does
	// not know (a newer instance wrote it, or an older binary reads it): it
	// was never checked, so it is not served, but nothing says it is wrong.
	ErrUnknownVersion = fault.New(fault.Internal, "puzzle_version_unknown", "Puzzle from an unknown generator version", "unknown puzzle generator version")
	// ErrTooManyMoves: an attempt with moves after the puzzle is already over.
	ErrTooManyMoves = fault.New(fault.Invalid, "too_many_moves", "Too many moves", "more moves than the puzzle has")
	// ErrEmptyAttempt: an attempt with no move that does not give up either.
	ErrEmptyAttempt = fault.New(fault.Invalid, "empty_attempt", "Empty attempt", "attempt has no moves")
)

// Puzzle is one day's puzzle. Everything but Date, Version, Position, Rules and
// Goal is derived from those by the verifier, and checked by Verify.
type Puzzle struct {
	ID         string // stable, derived from the date: "p20260314"
	Date       time.Time
	Version    int
	Position   engine.Position
	Rules      engine.Rules
	Goal       Goal
	Depth      int // moves of its own the solver plays: N for a win or an endgame, else 1
	Prompt     string
	Themes     []string
	Difficulty int // 1 (easiest) to 5
	KeyLegs    int // relay legs of the key (first) move
	// Solution is the whole line, every ply: the solver's moves and the
	// opponent's replies (the most stubborn defence, see Verify).
	Solution []int
}

// Plies returns the length of the solution line.
func (p *Puzzle) Plies() int { return len(p.Solution) }

// Key returns the key move: the first move of the solution.
func (p *Puzzle) Key() int { return p.Solution[0] }

// DateLayout is the date format of the feed, in dates and in requests.
const DateLayout = "2006-01-02"

// ParseDate reads a YYYY-MM-DD date as midnight UTC.
func ParseDate(s string) (time.Time, error) {
	d, err := time.Parse(DateLayout, s)
	if err != nil || d.Format(DateLayout) != s {
		return time.Time{}, fmt.Errorf("%w: %q, want YYYY-MM-DD", ErrInvalidDate, s)
	}
	if err := checkDate(d); err != nil {
		return time.Time{}, err
	}
	return d, nil
}

// Day truncates t to its UTC calendar day.
func Day(t time.Time) time.Time {
	y, m, d := t.UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// The generator's calendar: dates outside it are refused, so day numbers stay
// small and every date has four-digit years.
var (
	minDate = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDate = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
)

func checkDate(d time.Time) error {
	if d.Before(minDate) || d.After(maxDate) {
		return fmt.Errorf("%w: %s is outside %s to %s", ErrInvalidDate,
			d.Format(DateLayout), minDate.Format(DateLayout), maxDate.Format(DateLayout))
	}
	return nil
}

// dayNumber counts days since 1970-01-01 (UTC).
func dayNumber(d time.Time) int64 {
	return Day(d).Unix() / 86400
}

// IDFor returns the puzzle id of a date.
func IDFor(d time.Time) string { return "p" + Day(d).Format("20060102") }

// DateOfID reads the date back from an id made by IDFor.
func DateOfID(id string) (time.Time, error) {
	if len(id) != 9 || id[0] != 'p' {
		return time.Time{}, fmt.Errorf("%w: id %q, want p and YYYYMMDD", ErrInvalidDate, id)
	}
	d, err := time.Parse("20060102", id[1:])
	if err != nil || d.Format("20060102") != id[1:] {
		return time.Time{}, fmt.Errorf("%w: id %q, want p and YYYYMMDD", ErrInvalidDate, id)
	}
	if err := checkDate(d); err != nil {
		return time.Time{}, err
	}
	return d, nil
}
