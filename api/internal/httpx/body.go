package httpx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"

	"github.com/labstack/echo/v4"
)

// BodyLimit reads the whole request body, up to limit bytes (or the
// route's own limit in routes, by echo path), before anything else looks at
// it: a larger body is refused with ErrBodyTooLarge whether or not it
// declares its length, and what comes after shares one in-memory copy.
//
// A body that cannot be read is the client's doing only when the client
// went away (it closed the connection before the end of its body, or the
// request was cancelled): that error wraps context.Canceled. Any other
// failure to read is the server's: an error of no kind a problem row names.
func BodyLimit(limit int64, routes map[string]int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			limit := limit
			if l, ok := routes[c.Path()]; ok {
				limit = l
			}
			req := c.Request()
			if req.Body == nil || req.Body == http.NoBody {
				return next(c)
			}
			if req.ContentLength > limit {
				return tooLarge(limit)
			}
			var body []byte
			var err error
			if n := req.ContentLength; n > 0 {
				// net/http delivers exactly the declared length, so it is
				// read in one allocation.
				body = make([]byte, n)
				_, err = io.ReadFull(req.Body, body)
			} else {
				body, err = io.ReadAll(io.LimitReader(req.Body, limit+1))
			}
			if err != nil {
				return readError(req.Context(), err, limit)
			}
			if int64(len(body)) > limit {
				return tooLarge(limit)
			}
			_ = req.Body.Close()
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			return next(c)
		}
	}
}

// readError classifies a failure to read a request body.
func readError(ctx context.Context, err error, limit int64) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return tooLarge(limit)
	}
	if clientGone(ctx, err) {
		return fmt.Errorf("the client went away while sending its body (%w): %w", err, context.Canceled)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return Errorf(ErrBodyTimeout, "the request body did not arrive within the server's read deadline")
	}
	return fmt.Errorf("reading the request body: %w", err)
}

// tooLarge is the error of a body over limit bytes. (A function, not a
// closure made per request: it is needed only on the way out.)
func tooLarge(limit int64) error {
	return Errorf(ErrBodyTooLarge, "the request body is larger than %d bytes", limit)
}

// clientGone reports whether err, met while reading a request, means that
// the client went away: the request's context is cancelled, or the
// connection ended before the body did (net/http's io.ErrUnexpectedEOF)
// or was reset or closed under the read.
func clientGone(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, net.ErrClosed)
}

// RequireMediaType refuses a request body whose Content-Type's media type
// (lower case, without parameters) is not one that ok accepts, with
// ErrUnsupportedMediaType naming want.
func RequireMediaType(want string, ok func(mt string) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.ContentLength == 0 {
				return next(c)
			}
			ct := req.Header.Get(echo.HeaderContentType)
			mt, _, _ := strings.Cut(ct, ";")
			if !ok(strings.ToLower(strings.TrimSpace(mt))) {
				return Errorf(ErrUnsupportedMediaType, "Content-Type %q is not %s", ct, want)
			}
			return next(c)
		}
	}
}
