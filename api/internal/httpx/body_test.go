package httpx

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/labstack/echo/v4"
)

// failingBody gives some bytes, then fails with err.
type failingBody struct {
	r   io.Reader
	err error
}

func (b *failingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err == io.EOF {
		return n, b.err
	}
	return n, err
}

func (b *failingBody) Close() error { return nil }

// A body that cannot be read is the client's doing (context.Canceled, 499)
// only when the client went away; any other failure to read is the
// server's: an error of no kind a problem row names, so a 500.
func TestBodyLimitReadErrors(t *testing.T) {
	const body = `{"pit":0}`
	for _, tt := range []struct {
		name     string
		declared int64 // Content-Length; -1 chunked
		err      error // the read's error after the body; nil: none
		cancel   bool  // the request's context is cancelled
		want     error // the kind of error BodyLimit returns; nil: the handler runs
		notKinds bool  // the error must be of none of the kinds: the server's fault
	}{
		{name: "whole body", declared: int64(len(body))},
		{name: "chunked body", declared: -1},
		{name: "shorter than declared", declared: int64(len(body) + 10), err: io.ErrUnexpectedEOF, want: context.Canceled},
		{name: "chunked, connection closed", declared: -1, err: io.ErrUnexpectedEOF, want: context.Canceled},
		{name: "connection reset", declared: int64(len(body) + 10),
			err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, want: context.Canceled},
		{name: "request cancelled", declared: int64(len(body) + 10), err: errors.New("read on a cancelled request"), cancel: true, want: context.Canceled},
		{name: "read deadline", declared: int64(len(body) + 10), err: os.ErrDeadlineExceeded, want: ErrBodyTimeout},
		{name: "other read failure", declared: -1, err: errors.New("device s3cret failed"), notKinds: true},
		{name: "http.MaxBytesReader's limit", declared: -1, err: &http.MaxBytesError{Limit: 4}, want: ErrBodyTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/v1/evaluate", nil)
			req.Body = &failingBody{r: strings.NewReader(body), err: tt.err}
			if tt.err == nil {
				req.Body = io.NopCloser(strings.NewReader(body))
			}
			req.ContentLength = tt.declared
			if tt.cancel {
				ctx, cancel := context.WithCancel(req.Context())
				cancel()
				req = req.WithContext(ctx)
			}
			c := echo.New().NewContext(req, httptest.NewRecorder())
			ran := false
			err := BodyLimit(1<<10, nil)(func(c echo.Context) error {
				ran = true
				got, err := io.ReadAll(c.Request().Body)
				if err != nil || string(got) != body {
					t.Errorf("the handler read %q, %v", got, err)
				}
				return nil
			})(c)
			switch {
			case tt.want == nil && !tt.notKinds:
				if err != nil || !ran {
					t.Fatalf("%v (handler ran: %v), want the handler to run", err, ran)
				}
			case tt.notKinds:
				for _, kind := range []error{context.Canceled, ErrBodyTooLarge} {
					if errors.Is(err, kind) {
						t.Fatalf("%v is %v, want a fault of the server", err, kind)
					}
				}
				if err == nil || ran {
					t.Fatalf("%v (handler ran: %v), want an error", err, ran)
				}
			default:
				if !errors.Is(err, tt.want) || ran {
					t.Fatalf("%v (handler ran: %v), want %v", err, ran, tt.want)
				}
			}
		})
	}
}

// Beyond the limit, declared or not, the body is refused before the
// handler.
func TestBodyLimitTooLarge(t *testing.T) {
	for _, declared := range []int64{100, -1} {
		req := httptest.NewRequest(http.MethodPost, "/v1/evaluate", strings.NewReader(strings.Repeat("x", 100)))
		req.ContentLength = declared
		c := echo.New().NewContext(req, httptest.NewRecorder())
		err := BodyLimit(10, nil)(func(echo.Context) error { t.Error("the handler ran"); return nil })(c)
		if !errors.Is(err, ErrBodyTooLarge) {
			t.Errorf("declared %d: %v, want ErrBodyTooLarge", declared, err)
		}
	}
}
