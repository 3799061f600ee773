// Package httpx is the API's HTTP infrastructure, apart from what the API
// decides: per-address token buckets, event-stream slots, request body
// limits and media-type checks, the Server-Sent Events writer, request IDs,
// request logging and panic recovery. It imports echo and the standard
// library only; which operation gets which limit, and how each error is
// answered, is the api package's business.
package httpx

import (
	"errors"
	"fmt"
)

// The kinds of error this package's middleware returns. The api package's
// problem table answers each of them.
var (
	ErrBodyTooLarge         = errors.New("request body too large")
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrBodyTimeout: the client sent its body too slowly, past the
	// server's read deadline: its doing, not the server's.
	ErrBodyTimeout = errors.New("request body not received in time")
	// ErrRateLimited: too many requests from one client address; the error
	// is a *RateLimitError that says when to come back.
	ErrRateLimited = errors.New("rate limited")
	// ErrTooManyStreams: one client address holds as many event streams as
	// it may.
	ErrTooManyStreams = errors.New("too many event streams from this client")
	// ErrStreamsFull: the server, or the game, has as many event streams as
	// it takes.
	ErrStreamsFull = errors.New("no room for another event stream")
)

// Error is an error of a known kind (a sentinel, matched with errors.Is)
// with a detail written for the client, which the answer shows as it is.
type Error struct {
	Kind   error
	Detail string
}

func (e *Error) Error() string { return e.Detail }
func (e *Error) Unwrap() error { return e.Kind }

// Errorf makes an *Error of kind with a detail for the client.
func Errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Detail: fmt.Sprintf(format, args...)}
}
