// Package fault is the one vocabulary of failures a client can be told
// about. A package declares each of its errors once, with the kind of
// failure it is (what the client did wrong, or what the server cannot do
// now) and the stable snake_case code clients switch on:
//
//	var ErrNotFound = fault.New(fault.NotFound, "not_found", "Not found", "game not found")
//
// It wraps the sentinel with %w where the failure happens, and callers
// match it with errors.Is as ever. The api package answers any error by the
// first declared error it wraps: the kind gives the HTTP status, the
// declaration the code and title. The failures of the database (ErrUnavailable,
// ErrStorageFull, ErrOutcomeUnknown) are declared here, once, because every
// domain's Store interface reports them and every store names them.
//
// The package imports the standard library only, so that every domain
// package may import it; the engine imports nothing of this module, and
// the api package gives its few errors their kinds.
package fault

import (
	"errors"
	"strconv"
	"time"
)

// Kind is what a failure means for the client: which of its requests can
// succeed, and when. The api package gives each kind its HTTP status.
type Kind uint8

// The kinds. The zero Kind is Internal, so that a forgotten kind is a fault
// of the server rather than a promise to the client.
const (
	// Internal: the server's fault; the client is told nothing of it.
	Internal Kind = iota
	// Malformed: the request cannot be read as what it must be (bad JSON,
	// a cursor or a date this server never gave or cannot parse).
	Malformed
	// Unauthorized: a credential missing, or one nobody holds.
	Unauthorized
	// Forbidden: a valid credential that does not allow this.
	Forbidden
	// NotFound: nothing by that name.
	NotFound
	// TooSlow: the client sent its request too slowly.
	TooSlow
	// Conflict: the state of what the request changes does not allow it
	// now (a game over, a stale ply, a seat taken).
	Conflict
	// TooLarge: the request is larger than the server takes.
	TooLarge
	// Unsupported: the request's media type is not one the server takes.
	Unsupported
	// Invalid: the request was read but breaks a rule (an illegal move,
	// a position that does not add up, a name too long).
	Invalid
	// Limited: the client (or everyone) asked for more of this at once
	// than the server allows; the same request later may be let through.
	Limited
	// Busy: the server cannot do this now (its slots are taken, it is not
	// ready, it ran out of time); nothing was done, and the same request
	// later may succeed.
	Busy
	// Unavailable: the database did not answer; nothing was read or
	// written.
	Unavailable
	// Uncertain: the database went away while a write was on its way to
	// it, so the write may or may not have been stored.
	Uncertain
	// Full: the database has no room left for the write, which was not
	// made.
	Full
)

var kindNames = [...]string{
	Internal: "internal", Malformed: "malformed", Unauthorized: "unauthorized",
	Forbidden: "forbidden", NotFound: "not_found", TooSlow: "too_slow",
	Conflict: "conflict", TooLarge: "too_large", Unsupported: "unsupported",
	Invalid: "invalid", Limited: "limited", Busy: "busy",
	Unavailable: "unavailable", Uncertain: "uncertain", Full: "full",
}

// Kinds lists every kind, in the order declared.
func Kinds() []Kind {
	ks := make([]Kind, len(kindNames))
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is a declared failure: a sentinel with its kind and code. Make one
// with New or NewRetry, once, at package level; never one per call, as
// errors.Is compares sentinels by identity.
type Error struct {
	kind        Kind
	code, title string
	text        string
	wait        time.Duration
	also        error // a sentinel this one is a case of, for errors.Is
}

// New declares a failure of kind. code is the stable snake_case word the
// client switches on (never change it once published; two errors may
// share one when they mean the same to the client); title is its short,
// fixed summary; text is the error's own message, which the client reads
// as the answer's detail unless the kind is a fault of the server's.
func New(kind Kind, code, title, text string) error {
	return &Error{kind: kind, code: code, title: title, text: text}
}

// NewRetry is New for a failure the same request may get past after wait:
// the answer asks the client to wait that long.
func NewRetry(kind Kind, wait time.Duration, code, title, text string) error {
	return &Error{kind: kind, code: code, title: title, text: text, wait: wait}
}

func (e *Error) Error() string { return e.text }

// Unwrap makes a declared case of another sentinel (ErrOutcomeUnknown of
// ErrUnavailable) match it too.
func (e *Error) Unwrap() error { return e.also }

// Kind is what the failure means for the client.
func (e *Error) Kind() Kind { return e.kind }

// Code is the stable snake_case word the client switches on.
func (e *Error) Code() string { return e.code }

// Title is the short, fixed summary of the code.
func (e *Error) Title() string { return e.title }

// Wait is how long the client should wait before sending the same request
// again; zero when the error does not say (its kind may).
func (e *Error) Wait() time.Duration { return e.wait }

// Of returns the declared failure err is: the first *Error in its tree,
// in the order errors.As walks it (an error's own before those it wraps).
func Of(err error) (*Error, bool) { return errors.AsType[*Error](err) }

// The failures of the database, as the stores name them: each store reads
// its driver's errors into these (never by their text), so that neither
// the domains nor the api package need know which database is behind.
var (
	// ErrUnavailable: the database did not answer (refused, lost, starting
	// up or shutting down, a read-only file system). Nothing was read or
	// written; the same request may be sent again later.
	ErrUnavailable = New(Unavailable, "store_unavailable", "Database unavailable", "the database is unavailable")
	// ErrStorageFull: the database has no room left for the write, which
	// was not made. Reads still work; writes do once room is made.
	ErrStorageFull = New(Full, "storage_full", "Database storage full", "the database's storage is full")
	// ErrOutcomeUnknown: the database went away while a write was on its
	// way, so it may or may not have been stored. It is an ErrUnavailable
	// too. A move sent again is safe: it names its ply, so it is stored at
	// most once and a copy gets the first one's answer.
	ErrOutcomeUnknown error = &Error{kind: Uncertain, code: "store_unavailable", title: "Database unavailable",
		text: "the write may or may not have been stored", also: ErrUnavailable}
)
