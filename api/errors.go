package api

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/fault"
)

// Errors of the api package itself, declared with their kinds and codes as
// every domain's are (see package fault). Handlers and middleware return
// them (made by newError, with a detail for the client); problemFor
// answers them as it answers any declared error. Handlers never build
// error bodies.
var (
	ErrMalformedJSON  = fault.New(fault.Malformed, "malformed_json", "Malformed JSON", "malformed JSON")
	ErrInvalidRequest = fault.New(fault.Malformed, "invalid_request", "Invalid request", "invalid request")
	ErrTooManyLines   = fault.New(fault.TooLarge, "too_many_lines", "Too many lines", "too many lines")
	// ErrNotReady: the server is starting (it waits for its database) or
	// stopping, or runs without what the operation needs.
	ErrNotReady = fault.NewRetry(fault.Busy, notReadyRetry*time.Second, "not_ready", "Not ready", "not ready")
	// ErrInternal: anything no declaration names is a fault of the server:
	// logged in full, answered without a word about its internals.
	ErrInternal = fault.New(fault.Internal, "internal_error", "Internal server error", "internal error")
)

// newError makes an error of the given kind with a detail for the client.
func newError(kind error, format string, args ...any) error {
	return httpx.Errorf(kind, format, args...)
}

// problemRow says how an error is answered: a declared error's code and
// title with its kind's status, or a row of its own for an error that
// cannot declare its kind.
type problemRow struct {
	Err        error  // the sentinel answered: the declared one, or the row's, matched with errors.Is
	Status     int    // HTTP status
	Code       string // stable snake_case word; the type URI is problem.TypeBase+Code
	Title      string // short, fixed summary of the kind of problem
	RetryAfter int    // seconds, sent as Retry-After when > 0
	Hide       bool   // never show the error's text: say Detail instead
	Detail     string // detail when the error's own text is not shown
}

// kindAnswer is how every declared error of a kind is answered.
type kindAnswer struct {
	Status     int
	RetryAfter int    // seconds, unless the error says how long itself
	Detail     string // when set, said instead of the error's text: the server's faults
}

// kindAnswers is the one table: each kind of failure's status. The code
// and title are the declared error's own (see package fault); to add a
// kind of error to the API, declare it where it happens with its kind and
// code, wrap it with %w, and list it in answered (codes.go) for the /docs
// page. A test checks every kind has its status.
var kindAnswers = [...]kindAnswer{
	fault.Malformed:    {Status: http.StatusBadRequest},
	fault.Unauthorized: {Status: http.StatusUnauthorized},
	fault.Forbidden:    {Status: http.StatusForbidden},
	fault.NotFound:     {Status: http.StatusNotFound},
	fault.TooSlow:      {Status: http.StatusRequestTimeout},
	fault.Conflict:     {Status: http.StatusConflict},
	fault.TooLarge:     {Status: http.StatusRequestEntityTooLarge},
	fault.Unsupported:  {Status: http.StatusUnsupportedMediaType},
	fault.Invalid:      {Status: http.StatusUnprocessableEntity},
	fault.Limited:      {Status: http.StatusTooManyRequests},
	fault.Busy:         {Status: http.StatusServiceUnavailable},
	// The database failed, as the store names it (never by the driver's
	// words, which only the log sees).
	fault.Unavailable: {Status: http.StatusServiceUnavailable, RetryAfter: storeRetry, Detail: storeUnavailableDetail},
	fault.Uncertain:   {Status: http.StatusServiceUnavailable, RetryAfter: storeRetry, Detail: outcomeUnknownDetail},
	fault.Full:        {Status: http.StatusServiceUnavailable, RetryAfter: fullRetry, Detail: storageFullDetail},
	fault.Internal:    {Status: http.StatusInternalServerError, Detail: internalDetail},
}

// The errors that cannot declare their kind: the engine's (it imports
// nothing of this module), echo's and the context package's. firstRows
// are matched before any declared error, in order (a notation that reads
// as a position that does not add up is invalid_position); lastRows after
// them (a store's failure met while the request was cancelled is the
// store's).
var (
	firstRows = []problemRow{
		{Err: echo.ErrNotFound, Status: http.StatusNotFound, Code: problem.RouteNotFoundCode, Title: problem.RouteNotFoundTitle,
			Hide: true, Detail: "no operation has this path; see /docs"},
		{Err: echo.ErrMethodNotAllowed, Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Title: "Method not allowed",
			Hide: true, Detail: "this path does not take this method; the Allow header lists those it takes"},
		{Err: engine.ErrInvalidPosition, Status: http.StatusUnprocessableEntity, Code: "invalid_position", Title: "Invalid position"},
		{Err: engine.ErrInvalidNotation, Status: http.StatusBadRequest, Code: "invalid_notation", Title: "Invalid position notation"},
		{Err: engine.ErrInvalidRules, Status: http.StatusUnprocessableEntity, Code: "invalid_rules", Title: "Invalid rule options"},
		{Err: engine.ErrGameOver, Status: http.StatusConflict, Code: "game_over", Title: "Game over"},
		{Err: engine.ErrIllegalMove, Status: http.StatusUnprocessableEntity, Code: "illegal_move", Title: "Illegal move"},
		{Err: search.ErrNoMoves, Status: http.StatusUnprocessableEntity, Code: "no_legal_move", Title: "No legal move"},
	}
	lastRows = []problemRow{
		{Err: context.DeadlineExceeded, Status: http.StatusServiceUnavailable, Code: "timeout", Title: "Timed out"},
		// The client went away: it cancelled the request, or closed the
		// connection before the end of its body. This is decided, not an
		// accident of the table: the status is 499 (nginx's "client closed
		// request", no status of RFC 9110 fits), so the request's log line
		// and the request metrics tell these apart from the server's faults
		// and from requests that were refused; it is not logged as a
		// failure, because the server has nothing to fix; and the answer is
		// written all the same, for a client that only half-closed its
		// side, with a detail of its own: what was cancelled (a query, a
		// search) is no client's business. docs/errors.md says more.
		{Err: context.Canceled, Status: 499, Code: "client_closed_request", Title: "Client closed request",
			Hide: true, Detail: "the client went away before the answer was ready"},
	}
)

// How long clients are asked to wait (Retry-After, in seconds). An outage
// of the database is usually a restart or a failover, seconds long; a full
// disk waits for an operator, so clients are asked to come back less often.
// A server that is starting or stopping is ready, or replaced, in seconds.
const (
	storeRetry    = 5
	fullRetry     = 30
	notReadyRetry = 5
)

const (
	storeUnavailableDetail = "the database does not answer; nothing was read or changed. Send the same request again after Retry-After seconds"
	// A write that may have been stored: the client must know that before
	// it decides anything.
	outcomeUnknownDetail = "the database went away while this change was on its way to it, so it may or may not have been " +
		"stored. Sending the same request again is safe: a move names its ply, so it is stored at most once, and a copy of a stored " +
		"one gets its answer again; a resignation or a join that took effect answers 409 the second time; a creation sent again makes a second game"
	storageFullDetail = "the database has no room left for this change, which was not made. Reads still work; send the same request again after Retry-After seconds"
	internalDetail    = "the server failed to answer this request; it has been logged"
)

// declaredRow is the answer to a declared error: its kind's, with its own
// code, title and wait.
func declaredRow(e *fault.Error) problemRow {
	k := kindAnswers[fault.Internal]
	if int(e.Kind()) < len(kindAnswers) && kindAnswers[e.Kind()].Status != 0 {
		k = kindAnswers[e.Kind()]
	}
	row := problemRow{Err: e, Status: k.Status, Code: e.Code(), Title: e.Title(),
		RetryAfter: k.RetryAfter, Hide: k.Detail != "", Detail: k.Detail}
	if w := e.Wait(); w > 0 {
		row.RetryAfter = int(math.Ceil(w.Seconds()))
	}
	return row
}

// internalRow is the answer to an error nothing names.
var internalRow = declaredRow(ErrInternal.(*fault.Error))

// An *echo.HTTPError that no row above claims (one that echo, a library or
// the generated code made, which the table does not know) is answered by
// the generic row of its status: its status is kept, a 5xx excepted, which
// is internalRow. Its code promises nothing more than the status does, and
// its message is not shown, as it may quote the request. A stray 409 is
// never a domain row's code that happens to share the status: not
// game_over. writeProblem logs each such answer, so that the table can
// learn the error.
var (
	statusRows = []problemRow{
		{Status: http.StatusBadRequest, Code: "bad_request", Title: "Bad request",
			Hide: true, Detail: "the server cannot read this request; see /docs for what it takes"},
		{Status: http.StatusNotFound, Code: "resource_not_found", Title: "Not found",
			Hide: true, Detail: "the server has nothing at this address"},
		{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Title: "Method not allowed",
			Hide: true, Detail: "this path does not take this method"},
		{Status: http.StatusConflict, Code: "conflict", Title: "Conflict",
			Hide: true, Detail: "the request conflicts with the state of what it changes"},
	}
	// clientErrorRow answers any other 4xx, with that status.
	clientErrorRow = problemRow{Code: "client_error", Title: "Client error",
		Hide: true, Detail: "the server refused this request; see /docs for what it takes"}
)

// rowFor finds the answer to err: the first of firstRows it is, else the
// first declared error it wraps (as errors.As finds it), else the first of
// lastRows, else the generic row of an unknown *echo.HTTPError's 4xx
// status, else internalRow. Never by the error's text.
func rowFor(err error) problemRow {
	for _, row := range firstRows {
		if errors.Is(err, row.Err) {
			return row
		}
	}
	if e, ok := fault.Of(err); ok {
		return declaredRow(e)
	}
	for _, row := range lastRows {
		if errors.Is(err, row.Err) {
			return row
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code >= 400 && he.Code < 500 {
		for _, row := range statusRows {
			if row.Status == he.Code {
				return row
			}
		}
		row := clientErrorRow
		row.Status = he.Code
		return row
	}
	return internalRow
}

// problemFor builds the answer to err.
func problemFor(err error, c echo.Context) (problem.Problem, problemRow) {
	p, row := problemOf(err)
	p.Instance = c.Request().URL.Path
	p.RequestID = c.Response().Header().Get(echo.HeaderXRequestID)
	return p, row
}

// problemOf builds the problem for err without a request: the answer's
// body less instance and requestId, as a line of /v1/validate/batch has it.
func problemOf(err error) (problem.Problem, problemRow) {
	row := rowFor(err)
	p := problem.New(row.Status, row.Code, row.Title, "")
	if row.Hide {
		p.Detail = row.Detail
		return p, row
	}
	gameProblemMembers(err, &p)
	tokenProblemMembers(err, &p)
	p.Detail = err.Error()
	// An echo error that wraps a named error prints as "code=...,
	// message=..., internal=..."; the client wants the error it wraps.
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Internal != nil {
		p.Detail = he.Internal.Error()
	}
	return p, row
}

// writeProblem answers err as application/problem+json, unless an answer has
// already started. Faults (5xx) are logged with the error's full text, which
// the client never sees, and so are the errors only a generic row answers.
func writeProblem(c echo.Context, err error, log *slog.Logger) {
	p, row := problemFor(err, c)
	switch {
	case row.Status >= 500:
		log.ErrorContext(c.Request().Context(), "request failed", "error", err.Error(),
			"status", row.Status, "requestId", p.RequestID, "method", c.Request().Method, "path", c.Request().URL.Path)
	case row.Err == nil:
		log.WarnContext(c.Request().Context(), "an error no problem row names", "error", err.Error(),
			"status", row.Status, "code", row.Code, "requestId", p.RequestID, "method", c.Request().Method, "path", c.Request().URL.Path)
	}
	if c.Response().Committed {
		return
	}
	h := c.Response().Header()
	if row.RetryAfter > 0 {
		h.Set(echo.HeaderRetryAfter, strconv.Itoa(row.RetryAfter))
	}
	gameProblemHeaders(err, h)
	problem.Write(c.Response(), p)
}
