// Package httpx is the API's HTTP infrastructure, apart from what the API
// decides: per-address token buckets, event-stream slots, request body
// limits and media-type checks, the Server-Sent Events writer, request IDs,
// request logging and panic recovery. It imports echo, the standard
// library and package fault only; which operation gets which limit, and how each error is
// answered, is the api package's business.
package httpx

import (
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// The kinds of error this package's middleware returns, each declared with
// its kind and the code the client reads (see package fault).
var (
	ErrBodyTooLarge         = fault.New(fault.TooLarge, "body_too_large", "Request body too large", "request body too large")
	ErrUnsupportedMediaType = fault.New(fault.Unsupported, "unsupported_media_type", "Unsupported media type", "unsupported media type")
	// ErrBodyTimeout: the client sent its body too slowly, past the
	// server's read deadline: its doing, not the server's.
	ErrBodyTimeout = fault.New(fault.TooSlow, "body_timeout", "Request body too slow", "request body not received in time")
	// ErrRateLimited: too many requests from one client address; the error
	// is a *RateLimitError that says when to come back.
	ErrRateLimited = fault.NewRetry(fault.Limited, time.Second, "rate_limited", "Too many requests", "rate limited")
	// ErrTooManyStreams: one client address holds as many event streams as
	// it may; one of them has to end first, which takes longer than a
	// second's wait.
	ErrTooManyStreams = fault.NewRetry(fault.Limited, 5*time.Second, "too_many_streams", "Too many event streams", "too many event streams from this client")
	// ErrStreamsFull: the server, or the game, has as many event streams as
	// it takes.
	ErrStreamsFull = fault.NewRetry(fault.Busy, 5*time.Second, "streams_full", "No room for another event stream", "no room for another event stream")
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
