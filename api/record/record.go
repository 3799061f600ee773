// Package record reads and writes the game record notation: a whole Ayoayo
// game as text, bracketed tags then numbered moves, in the family of PGN and
// of the mancala notations built on it (Aualé's OGN, PlayStrategy's Oware
// PGN). docs/notation.md is its specification. It is a conversion of the api
// package, apart so that cmd/ayoayo's validate reads the same text; it knows
// the rules only through the engine.
//
// Parse reads the syntax (and the tags the syntax needs: the start position
// that numbers the moves); Check replays the moves and compares what the
// record states (captures, result, termination) with what they do. String
// writes a record in the one export form: Parse then String gives back the
// text String wrote.
package record

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
)

// MediaType is the record's media type: UTF-8 text, one or more records.
const MediaType = "application/x-ayoayo-record"

// The errors of a record, with the move or line they are about in their text.
var (
	// ErrSyntax: the text is not a record (a broken tag, an unknown pit
	// letter, a move number out of turn, a malformed clock).
	ErrSyntax = fault.New(fault.Malformed, "invalid_record", "Invalid game record", "invalid game record")
	// ErrMismatch: a record that reads, whose stated captures, result or
	// termination are not what its moves do.
	ErrMismatch = fault.New(fault.Invalid, "record_mismatch", "Record contradicts its moves", "record contradicts its moves")
)

// The tags the notation gives a meaning to, in the order String writes a
// game's (Export). Others are kept as they are.
const (
	TagEvent       = "Event"
	TagSite        = "Site"
	TagDate        = "Date"
	TagSouth       = "South"
	TagNorth       = "North"
	TagSouthRating = "SouthRating"
	TagNorthRating = "NorthRating"
	TagTimeControl = "TimeControl"
	TagRules       = "Rules"
	TagStart       = "Start"
	TagTermination = "Termination"
	TagWinner      = "Winner"
	TagResult      = "Result"
	// TagRound is a Swiss event's round (a tournament's games' export).
	TagRound = "Round"
)

// The Termination tag's words.
const (
	TermNormal      = "normal"      // the rules ended it: a majority, no move, a repetition
	TermTimeout     = "timeout"     // a side ran out of time
	TermResignation = "resignation" // a side resigned
	TermAgreement   = "agreement"   // both agreed to a draw
	TermAbandoned   = "abandoned"   // aborted: no result, it counts for nobody
)

// Unfinished is the Result of a game in play or abandoned.
const Unfinished = "*"

// Tag is one tag pair.
type Tag struct {
	Name, Value string
}

// Move is one ply.
type Move struct {
	Pit int // 0-11: South's a-f, North's A-F
	// Captured is the seeds the move captured as the record states them: 0
	// when it states none (a move written without "x"), which Check does not
	// hold against the move.
	Captured int
	// Clock is the mover's time left after the move ([%clk]); Elapsed is the
	// time the move took ([%emt]). Each only when Has... is set.
	Clock, Elapsed       time.Duration
	HasClock, HasElapsed bool
	// Comment is the comment's free text, less the commands, its spaces
	// collapsed; "" for none.
	Comment string
}

// Record is one game.
type Record struct {
	Tags  []Tag // in order; a name at most once
	Moves []Move
}

// Get returns the value of the tag name.
func (r *Record) Get(name string) (string, bool) {
	for _, t := range r.Tags {
		if t.Name == name {
			return t.Value, true
		}
	}
	return "", false
}

// Set sets the tag name, adding it at the end if it is new.
func (r *Record) Set(name, value string) {
	for i := range r.Tags {
		if r.Tags[i].Name == name {
			r.Tags[i].Value = value
			return
		}
	}
	r.Tags = append(r.Tags, Tag{name, value})
}

// Start returns the start position: the Start tag's, or the usual one.
func (r *Record) Start() (engine.Position, error) {
	v, ok := r.Get(TagStart)
	if !ok {
		return engine.Start(), nil
	}
	p, err := engine.Parse(v)
	if err != nil {
		return engine.Position{}, fmt.Errorf("%w: tag Start: %w", ErrSyntax, err)
	}
	return p, nil
}

// Rules returns the rule options of the Rules tag, the defaults without one.
func (r *Record) Rules() (engine.Rules, error) {
	v, ok := r.Get(TagRules)
	if !ok {
		return engine.Rules{}, nil
	}
	rules, err := ParseRules(v)
	if err != nil {
		return engine.Rules{}, fmt.Errorf("%w: tag Rules: %w", ErrSyntax, err)
	}
	return rules, nil
}

// Pits returns the moves' pits.
func (r *Record) Pits() []int {
	pits := make([]int, len(r.Moves))
	for i, m := range r.Moves {
		pits[i] = m.Pit
	}
	return pits
}

// RulesTag writes the rule options as the Rules tag has them.
func RulesTag(r engine.Rules) string {
	return "captureSeed=" + r.CaptureSeed.String() + " leftovers=" + r.Leftovers.String()
}

// ParseRules reads a Rules tag: space-separated option=word pairs, each
// option at most once, in any order; a missing one is its default.
func ParseRules(s string) (engine.Rules, error) {
	var capture, leftovers string
	seen := map[string]bool{}
	for f := range strings.FieldsSeq(s) {
		name, word, ok := strings.Cut(f, "=")
		if !ok || word == "" {
			return engine.Rules{}, fmt.Errorf("%q is not option=word", f)
		}
		if seen[name] {
			return engine.Rules{}, fmt.Errorf("option %s given twice", name)
		}
		seen[name] = true
		switch name {
		case "captureSeed":
			capture = word
		case "leftovers":
			leftovers = word
		default:
			return engine.Rules{}, fmt.Errorf("unknown option %q: want captureSeed or leftovers", name)
		}
	}
	return engine.ParseRules(capture, leftovers)
}

// ResultTag writes the captured seeds of p as the Result tag has them:
// South's, a hyphen, North's.
func ResultTag(p engine.Position) string {
	return strconv.Itoa(int(p.Captured[engine.South])) + "-" + strconv.Itoa(int(p.Captured[engine.North]))
}

// parseResult reads a Result: "*", or the two captured counts.
func parseResult(s string) (south, north int, finished bool, err error) {
	if s == Unfinished {
		return 0, 0, false, nil
	}
	a, b, ok := strings.Cut(s, "-")
	if ok {
		south, err = decimal(a)
		if err == nil {
			north, err = decimal(b)
		}
	}
	if !ok || err != nil || south+north > engine.SeedCount {
		return 0, 0, false, fmt.Errorf("%q: want * or the seeds each side captured, South's first, such as 25-23", s)
	}
	return south, north, true, nil
}

// decimal reads a plain decimal number: digits, no sign, no leading zero.
func decimal(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || s != strconv.Itoa(n) || n < 0 {
		return 0, fmt.Errorf("%q is not a plain decimal number", s)
	}
	return n, nil
}

// TimeControlTag writes a time control as PGN does: "-" for none, "300+5"
// for a clock of 300 s with 5 s added after each move, "1/259200" for one
// move in 259,200 s (3 days).
func TimeControlTag(initial, increment, perMove time.Duration) string {
	switch {
	case perMove > 0:
		return "1/" + strconv.FormatInt(int64(perMove/time.Second), 10)
	case initial > 0 || increment > 0:
		return strconv.FormatInt(int64(initial/time.Second), 10) + "+" + strconv.FormatInt(int64(increment/time.Second), 10)
	}
	return "-"
}

// checkTimeControl checks the TimeControl tag's form.
func checkTimeControl(s string) error {
	if s == "-" {
		return nil
	}
	if a, b, ok := strings.Cut(s, "+"); ok {
		if _, err := decimal(a); err == nil {
			if _, err := decimal(b); err == nil {
				return nil
			}
		}
	}
	if a, b, ok := strings.Cut(s, "/"); ok && a == "1" {
		if _, err := decimal(b); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%q: want - (untimed), INITIAL+INCREMENT in seconds, or 1/SECONDS per move", s)
}

// PitLetter is the letter of pit: a-f for South's 0-5, A-F for North's 6-11.
func PitLetter(pit int) byte {
	if pit < engine.RowPits {
		return 'a' + byte(pit)
	}
	return 'A' + byte(pit-engine.RowPits)
}

// pitOf reads a pit letter; -1 if it is none.
func pitOf(c byte) int {
	switch {
	case c >= 'a' && c <= 'f':
		return int(c - 'a')
	case c >= 'A' && c <= 'F':
		return engine.RowPits + int(c-'A')
	}
	return -1
}

// moveNumber is the number of the move at ply when start side moves first,
// and whether that ply is North's.
func moveNumber(first engine.Side, ply int) (int, bool) {
	n := ply + int(first)
	return n/2 + 1, n%2 == 1
}

// MoveName names the ply as the notation numbers it: "12." for South's
// move, "12..." for North's.
func MoveName(first engine.Side, ply int) string {
	n, north := moveNumber(first, ply)
	if north {
		return strconv.Itoa(n) + "..."
	}
	return strconv.Itoa(n) + "."
}
