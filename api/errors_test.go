package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// secret stands for what an error's text may hold that no client may read:
// a driver's words, a query, a value the request sent.
const secret = "s3cret"

// The errors the table does not name one by one, and those whose answer
// was decided rather than looked up: each gets its status and code, a body
// that says nothing of the error's text, and the log line its kind wants
// (none for a client that went away; a warning for an echo error no row
// names, so that the table can learn it; an error for a fault).
func TestProblemsOfUnnamedErrors(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   string
		log    string // the level of the line logged, "" for none
	}{
		{"a stray 400", echo.NewHTTPError(http.StatusBadRequest, secret), 400, "bad_request", "WARN"},
		{"a stray 404", echo.NewHTTPError(http.StatusNotFound, secret), 404, "resource_not_found", "WARN"},
		{"a stray 405", echo.NewHTTPError(http.StatusMethodNotAllowed, secret), 405, "method_not_allowed", "WARN"},
		{"a stray 409, not game_over", echo.NewHTTPError(http.StatusConflict, secret), 409, "conflict", "WARN"},
		{"a stray 413, not body_too_large", echo.NewHTTPError(http.StatusRequestEntityTooLarge, secret), 413, "client_error", "WARN"},
		{"a stray 418", echo.NewHTTPError(http.StatusTeapot, secret), 418, "client_error", "WARN"},
		{"a stray 429, not too_many_analyses", echo.NewHTTPError(http.StatusTooManyRequests, secret), 429, "client_error", "WARN"},
		{"a stray 503", echo.NewHTTPError(http.StatusServiceUnavailable, secret), 500, "internal_error", "ERROR"},
		{"echo's own 404", echo.ErrNotFound, 404, problem.RouteNotFoundCode, ""},
		{"a 400 that wraps a named error", echo.NewHTTPError(http.StatusBadRequest).SetInternal(games.ErrStalePly), 409, "stale_ply", ""},
		{"the client went away", fmt.Errorf("query %s: %w", secret, context.Canceled), 499, "client_closed_request", ""},
		{"a puzzle of an unknown generator", fmt.Errorf("%w: 7 (%s)", gen.ErrUnknownVersion, secret), 500, "puzzle_version_unknown", "ERROR"},
		{"a puzzle that does not verify", fmt.Errorf("%w: %s", gen.ErrUnverified, secret), 500, "puzzle_unverified", "ERROR"},
		{"anything else", errors.New(secret), 500, "internal_error", "ERROR"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var logged bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
			rec := httptest.NewRecorder()
			c := echo.New().NewContext(httptest.NewRequest(http.MethodPost, "/v1/evaluate", nil), rec)
			writeProblem(c, tt.err, log)
			p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes())
			if rec.Code != tt.status || p.Code != tt.code {
				t.Errorf("%d %s, want %d %s", rec.Code, p.Code, tt.status, tt.code)
			}
			if tt.code != "stale_ply" && strings.Contains(rec.Body.String(), secret) {
				t.Errorf("the body tells the error's text: %s", rec.Body)
			}
			switch line := logged.String(); {
			case tt.log == "" && line != "":
				t.Errorf("logged %q, want nothing", line)
			case tt.log != "" && (!strings.Contains(line, "level="+tt.log) || !strings.Contains(line, secret)):
				t.Errorf("logged %q, want a line at %s with the error's text", line, tt.log)
			}
		})
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// A request body that cannot be read: a client that went away is 499
// client_closed_request, anything else a 500 that says nothing.
func TestBodyReadFailures(t *testing.T) {
	ts := newTester(t, Options{})
	body := `{"position":` + startJSON + `,"pit":0}`
	for _, tt := range []struct {
		name   string
		body   io.Reader
		length int64
		status int
		code   string
	}{
		{"shorter than declared", strings.NewReader(body), int64(len(body) + 10), 499, "client_closed_request"},
		{"the connection closed mid-body", errReader{fmt.Errorf("read tcp: %w", io.ErrUnexpectedEOF)}, -1, 499, "client_closed_request"},
		{"the server's failure", errReader{errors.New("read " + secret)}, -1, 500, "internal_error"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/v1/evaluate", tt.body)
			req.Header.Set(echo.HeaderContentType, jsonType)
			req.ContentLength = tt.length
			rec := httptest.NewRecorder()
			ts.e.ServeHTTP(rec, req) // not ts.send: the document declares neither status for this operation
			p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes())
			if rec.Code != tt.status || p.Code != tt.code || strings.Contains(rec.Body.String(), secret) {
				t.Errorf("%d %s, want %d %s and nothing of the error: %s", rec.Code, p.Code, tt.status, tt.code, rec.Body)
			}
		})
	}
}
