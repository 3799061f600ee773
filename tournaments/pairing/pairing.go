package pairing

import "errors"

// Seat is a side of the board.
type Seat int

const (
	South Seat = 0 // moves first
	North Seat = 1
)

// Outcome is how a finished game ended, from South's view.
type Outcome int

const (
	SouthWins Outcome = iota
	NorthWins
	Draw
)

// Pair is one game to start: who sits South and who North.
type Pair struct{ South, North string }

// Points, in Swiss standings and arena scores alike, count a win as 2 and a
// draw as 1, so that a Swiss draw needs no fraction.
const (
	winPoints  = 2
	drawPoints = 1
)

// Errors of SwissRound; the tournaments service matches them with errors.Is.
var (
	// ErrBadInput: the round is below 1, an entrant has no id or the same
	// id as another, or a game or bye names a player who is no entrant.
	ErrBadInput = errors.New("pairing: inconsistent event")
	// ErrNoPairing: no pairing of the round keeps every absolute rule (no
	// second meeting, no second bye, seats within ±2) within the search's
	// bounds; the event cannot go on as a Swiss.
	ErrNoPairing = errors.New("pairing: no legal pairing")
)
