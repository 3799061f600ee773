package games

import (
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// Errors of game sessions, each declared with its kind and the code the
// client reads (see package fault); callers match them with errors.Is.
var (
	// ErrNotFound: no game with that id.
	ErrNotFound = fault.New(fault.NotFound, "not_found", "Not found", "game not found")
	// ErrUnauthorized: no seat token, or one this game never issued.
	ErrUnauthorized = fault.New(fault.Unauthorized, "unauthorized", "Unauthorized", "missing or unknown seat token")
	// ErrNotYourTurn: a valid token for the seat that is not to move.
	ErrNotYourTurn = fault.New(fault.Forbidden, "not_your_turn", "Not your turn", "not this seat's turn")
	// ErrSeatTaken: the game's second seat already has a player (or the AI).
	ErrSeatTaken = fault.New(fault.Conflict, "seat_taken", "Seat taken", "seat already taken")
	// ErrStalePly: a move named a ply that is not the game's current one;
	// the error is a *StalePlyError that says which ply is.
	ErrStalePly = fault.New(fault.Conflict, "stale_ply", "Stale ply", "stale ply")
	// ErrFinished: the game has ended and takes no more moves. Its code is
	// the engine's for a finished position: the same news to the client.
	ErrFinished = fault.New(fault.Conflict, "game_over", "Game over", "game is finished")
	// ErrNotStarted: the game still waits for its second player.
	ErrNotStarted = fault.New(fault.Conflict, "game_waiting", "Game waiting for a player", "game has not started")
	// ErrClockNotStarted: a first move before the game's set start (a
	// bulk pairing's clocks start at a time the organiser chose).
	ErrClockNotStarted = fault.New(fault.Conflict, "clock_not_started", "The game's clocks have not started", "the game's clocks have not started")
	// ErrAIBusy: every AI search slot stayed taken for as long as an AI move
	// may take; nothing was played, and the same request may be sent again
	// in a second.
	ErrAIBusy = fault.NewRetry(fault.Busy, time.Second, "ai_busy", "The AI is busy", "the AI is busy")
	// ErrRatedNotAllowed: a rated game asked for where none can be: without
	// a time control, against the AI, without a player in a seat, or
	// between a player and itself.
	ErrRatedNotAllowed = fault.New(fault.Invalid, "rated_not_allowed", "This game cannot be rated", "this game cannot be rated")
)

// ErrConflict is an error a Store reports (ErrNotFound above is one too,
// and so are the database's failures, fault.ErrUnavailable,
// fault.ErrStorageFull and fault.ErrOutcomeUnknown). It never reaches a
// client as it is, so it has no kind: a conditional write found the game
// in another state than the one it was written for (another request
// changed it first), and the service reads the game again and tells the
// client why.
var ErrConflict = errors.New("the game changed before the write")

// StalePlyError is ErrStalePly with the game's current ply.
type StalePlyError struct {
	Sent, Current int
}

func (e *StalePlyError) Error() string {
	return fmt.Sprintf("stale ply: sent %d, the game is at ply %d", e.Sent, e.Current)
}

// Unwrap makes errors.Is(err, ErrStalePly) hold, and lets the api package
// find the declaration's code.
func (e *StalePlyError) Unwrap() error { return ErrStalePly }

// ErrCorrupt marks a stored game that is not what the rules say it should
// be: a fault of the server, never of the client. It is made by corrupt,
// which keeps the cause's text for the log but hides its identity, so that
// an engine error inside (an illegal move on replay, say) is never matched
// as the client's illegal move.
var ErrCorrupt = errors.New("stored game inconsistent")

// corruptError is ErrCorrupt with the cause's text.
type corruptError struct{ text string }

func (e *corruptError) Error() string { return ErrCorrupt.Error() + ": " + e.text }
func (e *corruptError) Unwrap() error { return ErrCorrupt }

// corrupt reports a stored game that does not hold together.
func corrupt(format string, args ...any) error {
	return &corruptError{text: fmt.Sprintf(format, args...)}
}
