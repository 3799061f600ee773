package httpx

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// RequestIDs gives every request an X-Request-ID: the client's own, when it
// is at most maxRequestIDLen of requestIDChars, or a new one.
func RequestIDs() echo.MiddlewareFunc {
	return middleware.RequestIDWithConfig(middleware.RequestIDConfig{Generator: newRequestID, RequestIDHandler: replaceBadRequestID})
}

// newRequestID makes a random 128-bit request ID. IDs only need to be
// unique, not secret, so math/rand's generator serves, without the system
// call crypto/rand may make on every request.
func newRequestID() string {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint64(b[8:], rand.Uint64())
	return hex.EncodeToString(b[:])
}

// A client's X-Request-ID is kept when it is at most maxRequestIDLen of
// requestIDChars: enough for any ID scheme in use (UUIDs, trace ids), and
// nothing a log line or an answer should not carry.
const (
	maxRequestIDLen = 64
	requestIDChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"
)

// replaceBadRequestID is the RequestID middleware's handler of the ID it
// chose: a client's ID that is too long or has other characters is replaced
// by a new one before anything logs or echoes it.
func replaceBadRequestID(c echo.Context, id string) {
	if len(id) > maxRequestIDLen || strings.TrimLeft(id, requestIDChars) != "" {
		c.Response().Header().Set(echo.HeaderXRequestID, newRequestID())
	}
}

// RecoverPanic turns a panic in a handler into an error carrying the panic
// value and stack for the log. No problem row claims it, so the client
// gets an internal error that says none of it.
func RecoverPanic(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			if r == http.ErrAbortHandler { //nolint:errorlint // the sentinel is compared as net/http does
				panic(r)
			}
			stack := make([]byte, 8<<10)
			stack = stack[:runtime.Stack(stack, false)]
			err = fmt.Errorf("panic: %v\n%s", r, stack)
		}()
		return next(c)
	}
}

// LogRequests writes one structured line per request to log: at error
// level for a 5xx, at info level otherwise (a 499, the client gone,
// included).
//
// Only answers of minStatus and above are logged; a negative minStatus logs
// none (the middleware does nothing).
func LogRequests(log *slog.Logger, minStatus int) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if minStatus < 0 {
			return next
		}
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			req, res := c.Request(), c.Response()
			if res.Status < minStatus {
				return err
			}
			level := slog.LevelInfo
			if res.Status >= 500 {
				level = slog.LevelError
			}
			if !log.Enabled(req.Context(), level) {
				return err
			}
			log.LogAttrs(req.Context(), level, "request",
				slog.String("method", req.Method),
				slog.String("path", req.URL.Path),
				slog.Int("status", res.Status),
				slog.Int64("bytesOut", res.Size),
				slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
				slog.String("requestId", res.Header().Get(echo.HeaderXRequestID)),
				slog.String("remote", req.RemoteAddr),
				slog.String("client", c.RealIP()), // the address limits count, behind trusted proxies too
			)
			return err
		}
	}
}

// ClientAddress is how c.RealIP() finds the client: the connection's
// address, or behind trusted proxies echo's reading of X-Forwarded-For,
// trusting those ranges only (echo would trust every private, loopback and
// link-local address by default).
func ClientAddress(proxies []*net.IPNet) echo.IPExtractor {
	if len(proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	trust := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, r := range proxies {
		trust = append(trust, echo.TrustIPRange(r))
	}
	return echo.ExtractIPFromXFFHeader(trust...)
}

// GetAndHead registers every GET route for HEAD too (RFC 9110 9.3.2), with
// the same handler and middleware, the GET operation's validator included:
// the answer has the status and headers of the GET, and net/http sends no
// body to a HEAD request, whatever the handler writes.
type GetAndHead struct{ *echo.Echo }

func (r GetAndHead) GET(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	r.Echo.HEAD(path, h, m...)
	return r.Echo.GET(path, h, m...)
}
