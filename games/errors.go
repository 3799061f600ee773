package games

import (
	"errors"
	"fmt"
)

// Errors of game sessions; callers match them with errors.Is, and the api
// package's problem table gives each one its status and code.
var (
	// ErrNotFound: no game with that id.
	ErrNotFound = errors.New("game not found")
	// ErrUnauthorized: no seat token, or one this game never issued.
	ErrUnauthorized = errors.New("missing or unknown seat token")
	// ErrNotYourTurn: a valid token for the seat that is not to move.
	ErrNotYourTurn = errors.New("not this seat's turn")
	// ErrSeatTaken: the game's second seat already has a player (or the AI).
	ErrSeatTaken = errors.New("seat already taken")
	// ErrStalePly: a move named a ply that is not the game's current one;
	// the error is a *StalePlyError that says which ply is.
	ErrStalePly = errors.New("stale ply")
	// ErrFinished: the game has ended and takes no more moves.
	ErrFinished = errors.New("game is finished")
	// ErrNotStarted: the game still waits for its second player.
	ErrNotStarted = errors.New("game has not started")
	// ErrAIBusy: every AI search slot stayed taken for as long as an AI move
	// may take; nothing was played, and the same request may be sent again.
	ErrAIBusy = errors.New("the AI is busy")
	// ErrRatedNotAllowed: a rated game asked for where none can be: without
	// a time control, against the AI, without a player in a seat, or
	// between a player and itself.
	ErrRatedNotAllowed = errors.New("this game cannot be rated")
)

// Errors a Store reports. ErrNotFound above is one too.
var (
	// ErrConflict: a conditional write found the game in another state than
	// the one it was written for (another request changed it first). The
	// service reads the game again and tells the client why.
	ErrConflict = errors.New("the game changed before the write")
	// ErrUnavailable: the database did not answer (refused, lost, starting
	// up or shutting down, a read-only file system). Nothing was decided
	// about the game; the same request may be sent again later.
	ErrUnavailable = errors.New("the database is unavailable")
	// ErrStorageFull: the database has no room left for the write, which
	// was not made. Reads still work; writes do once room is made.
	ErrStorageFull = errors.New("the database's storage is full")
	// ErrOutcomeUnknown: the database went away while a write was on its
	// way, so it may or may not have been stored. It is an ErrUnavailable
	// too. A move sent again is safe: it names its ply, so it is stored at
	// most once and a copy gets the first one's answer.
	ErrOutcomeUnknown = errors.New("the write may or may not have been stored")
)

// StalePlyError is ErrStalePly with the game's current ply.
type StalePlyError struct {
	Sent, Current int
}

func (e *StalePlyError) Error() string {
	return fmt.Sprintf("stale ply: sent %d, the game is at ply %d", e.Sent, e.Current)
}

// Is makes errors.Is(err, ErrStalePly) hold.
func (e *StalePlyError) Is(target error) bool { return target == ErrStalePly }

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
