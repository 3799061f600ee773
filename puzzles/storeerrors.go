package puzzles

import "errors"

// Errors a Store reports when the database itself fails, as games declares
// its own: the stores wrap their drivers' errors in them, so the api package
// can answer 503 without knowing which database is behind.
var (
	// ErrUnavailable: the database did not answer; nothing was read or
	// written.
	ErrUnavailable = errors.New("the database is unavailable")
	// ErrStorageFull: the database has no room left for the write, which
	// was not made.
	ErrStorageFull = errors.New("the database's storage is full")
)
