package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Errors of the api package itself. Handlers and middleware return them
// (made by newError, with a detail for the client); problemFor turns them into
// answers through the table below. Handlers never build error bodies.
var (
	ErrMalformedJSON        = errors.New("malformed JSON")
	ErrInvalidRequest       = errors.New("invalid request")
	ErrBodyTooLarge         = errors.New("request body too large")
	ErrTooManyLines         = errors.New("too many lines")
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	ErrNotReady             = errors.New("not ready")
	// ErrRateLimited: too many requests from one client address; the error
	// is a *RateLimitError that says when to come back.
	ErrRateLimited = errors.New("rate limited")
	ErrInternal    = errors.New("internal error")
)

// apiError is this package's error: its kind, one of the sentinels above,
// and the detail the client reads.
type apiError struct {
	kind   error
	detail string
}

func (e *apiError) Error() string { return e.detail }
func (e *apiError) Unwrap() error { return e.kind }

// newError makes an error of the given kind with a detail for the client.
func newError(kind error, format string, args ...any) error {
	return &apiError{kind: kind, detail: fmt.Sprintf(format, args...)}
}

// ProblemTypeBase prefixes each problem's code to make its type URI; the
// /docs page has an anchor for every code, so the type resolves to its
// documentation.
const ProblemTypeBase = "/docs#problem-"

// problemRow says how one sentinel error is answered. Code is a stable
// snake_case word clients switch on; never change it once published.
type problemRow struct {
	Err        error  // matched with errors.Is, in table order
	Status     int    // HTTP status
	Code       string // stable snake_case word; the type URI is ProblemTypeBase+Code
	Title      string // short, fixed summary of the kind of problem
	RetryAfter int    // seconds, sent as Retry-After when > 0
	Hide       bool   // never show the error's text: say DefaultDetail instead
	Detail     string // detail when the error's own text is not shown
}

// problemTable maps every error that can reach a client to its answer. The
// first row whose Err matches wins, so put specific errors before general
// ones. To add a kind of error: declare the sentinel in your package, wrap it
// with %w where it happens, and add a row here (a test checks the codes are
// unique snake_case words and the statuses are errors).
var problemTable = []problemRow{
	// Requests that do not match the OpenAPI document.
	{Err: ErrMalformedJSON, Status: http.StatusBadRequest, Code: "malformed_json", Title: "Malformed JSON"},
	{Err: ErrInvalidRequest, Status: http.StatusBadRequest, Code: "invalid_request", Title: "Invalid request"},
	{Err: ErrBodyTooLarge, Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Title: "Request body too large"},
	{Err: ErrTooManyLines, Status: http.StatusRequestEntityTooLarge, Code: "too_many_lines", Title: "Too many lines"},
	{Err: ErrUnsupportedMediaType, Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type", Title: "Unsupported media type"},
	{Err: echo.ErrNotFound, Status: http.StatusNotFound, Code: "route_not_found", Title: "No such route",
		Hide: true, Detail: "no operation has this path; see /docs"},
	{Err: echo.ErrMethodNotAllowed, Status: http.StatusMethodNotAllowed, Code: "method_not_allowed", Title: "Method not allowed",
		Hide: true, Detail: "this path does not take this method; the Allow header lists those it takes"},

	// Requests that match the document but not the game.
	{Err: engine.ErrInvalidPosition, Status: http.StatusUnprocessableEntity, Code: "invalid_position", Title: "Invalid position"},
	{Err: engine.ErrInvalidNotation, Status: http.StatusBadRequest, Code: "invalid_notation", Title: "Invalid position notation"},
	{Err: engine.ErrInvalidRules, Status: http.StatusUnprocessableEntity, Code: "invalid_rules", Title: "Invalid rule options"},
	{Err: engine.ErrGameOver, Status: http.StatusConflict, Code: "game_over", Title: "Game over"},
	{Err: engine.ErrIllegalMove, Status: http.StatusUnprocessableEntity, Code: "illegal_move", Title: "Illegal move"},
	{Err: search.ErrNoMoves, Status: http.StatusUnprocessableEntity, Code: "no_legal_move", Title: "No legal move"},

	// Capacity and dependencies.
	{Err: analysis.ErrBusy, Status: http.StatusTooManyRequests, Code: "too_many_analyses", Title: "Too many analyses", RetryAfter: 1},
	{Err: ErrNotReady, Status: http.StatusServiceUnavailable, Code: "not_ready", Title: "Not ready", RetryAfter: notReadyRetry},
	// The database failed, as the store names it (never by the driver's
	// words, which only the log sees). A write that may have been stored
	// comes first: the client must know that before it decides anything.
	{Err: games.ErrOutcomeUnknown, Status: http.StatusServiceUnavailable, Code: "store_unavailable", Title: "Database unavailable",
		RetryAfter: storeRetry, Hide: true, Detail: "the database went away while this change was on its way to it, so it may or may not have been " +
			"stored. Sending the same request again is safe: a move names its ply, so it is stored at most once, and a copy of a stored " +
			"one gets its answer again; a resignation or a join that took effect answers 409 the second time; a creation sent again makes a second game"},
	{Err: games.ErrStorageFull, Status: http.StatusServiceUnavailable, Code: "storage_full", Title: "Database storage full",
		RetryAfter: fullRetry, Hide: true, Detail: storageFullDetail},
	{Err: puzzles.ErrStorageFull, Status: http.StatusServiceUnavailable, Code: "storage_full", Title: "Database storage full",
		RetryAfter: fullRetry, Hide: true, Detail: storageFullDetail},
	{Err: games.ErrUnavailable, Status: http.StatusServiceUnavailable, Code: "store_unavailable", Title: "Database unavailable",
		RetryAfter: storeRetry, Hide: true, Detail: storeUnavailableDetail},
	{Err: puzzles.ErrUnavailable, Status: http.StatusServiceUnavailable, Code: "store_unavailable", Title: "Database unavailable",
		RetryAfter: storeRetry, Hide: true, Detail: storeUnavailableDetail},
	// Two results kept rating the same player at once, past the
	// service's retries: nothing was written, and the request may be sent
	// again as it was.
	{Err: players.ErrRatingsChanged, Status: http.StatusServiceUnavailable, Code: "ratings_busy", Title: "Ratings busy", RetryAfter: 1},
	{Err: context.DeadlineExceeded, Status: http.StatusServiceUnavailable, Code: "timeout", Title: "Timed out"},
	// The client went away; nobody reads this answer, but logs and metrics do.
	{Err: context.Canceled, Status: 499, Code: "client_closed_request", Title: "Client closed request"},

	// Players. A game or a puzzle operation may return these too (a
	// Player-Token no player holds, a rated game joined anonymously), so
	// they come before the games' rows.
	{Err: players.ErrUnauthorized, Status: http.StatusUnauthorized, Code: "player_unauthorized", Title: "Player token missing or unknown"},
	{Err: players.ErrForbidden, Status: http.StatusForbidden, Code: "not_your_player", Title: "Not your player"},
	{Err: players.ErrNotFound, Status: http.StatusNotFound, Code: "player_not_found", Title: "No such player"},
	{Err: players.ErrInvalidName, Status: http.StatusUnprocessableEntity, Code: "invalid_player_name", Title: "Invalid player name"},
	{Err: players.ErrInvalidCursor, Status: http.StatusBadRequest, Code: "invalid_cursor", Title: "Invalid cursor"},
	{Err: games.ErrRatedNotAllowed, Status: http.StatusUnprocessableEntity, Code: "rated_not_allowed", Title: "This game cannot be rated"},

	// Game sessions.
	{Err: games.ErrUnauthorized, Status: http.StatusUnauthorized, Code: "unauthorized", Title: "Unauthorized"},
	{Err: games.ErrNotYourTurn, Status: http.StatusForbidden, Code: "not_your_turn", Title: "Not your turn"},
	{Err: games.ErrStalePly, Status: http.StatusConflict, Code: "stale_ply", Title: "Stale ply"},
	{Err: games.ErrFinished, Status: http.StatusConflict, Code: "game_over", Title: "Game over"},
	{Err: games.ErrNotStarted, Status: http.StatusConflict, Code: "game_waiting", Title: "Game waiting for a player"},
	{Err: games.ErrSeatTaken, Status: http.StatusConflict, Code: "seat_taken", Title: "Seat taken"},
	{Err: games.ErrInvalidTimeControl, Status: http.StatusUnprocessableEntity, Code: "invalid_time_control", Title: "Invalid time control"},
	{Err: ErrRateLimited, Status: http.StatusTooManyRequests, Code: "rate_limited", Title: "Too many requests", RetryAfter: 1},
	{Err: ErrTooManyStreams, Status: http.StatusTooManyRequests, Code: "too_many_streams", Title: "Too many event streams", RetryAfter: 5},
	{Err: ErrStreamsFull, Status: http.StatusServiceUnavailable, Code: "streams_full", Title: "No room for another event stream", RetryAfter: 5},
	{Err: games.ErrAIBusy, Status: http.StatusServiceUnavailable, Code: "ai_busy", Title: "The AI is busy", RetryAfter: 1},
	{Err: games.ErrNotFound, Status: http.StatusNotFound, Code: "not_found", Title: "Not found"},

	// The daily puzzle feed.
	{Err: gen.ErrInvalidDate, Status: http.StatusBadRequest, Code: "invalid_date", Title: "Invalid date"},
	{Err: puzzles.ErrNotFound, Status: http.StatusNotFound, Code: "puzzle_not_found", Title: "No such puzzle"},
	{Err: gen.ErrTooManyMoves, Status: http.StatusUnprocessableEntity, Code: "too_many_moves", Title: "Too many moves"},
	{Err: gen.ErrEmptyAttempt, Status: http.StatusUnprocessableEntity, Code: "empty_attempt", Title: "Empty attempt"},
	{Err: gen.ErrInvalidPractice, Status: http.StatusBadRequest, Code: "invalid_practice_request", Title: "Invalid practice request"},
	{Err: gen.ErrFilterUnmet, Status: http.StatusUnprocessableEntity, Code: "no_practice_puzzle", Title: "No practice puzzle meets the filter"},
	{Err: puzzles.ErrPracticeBusy, Status: http.StatusTooManyRequests, Code: "practice_busy", Title: "Practice pool busy", RetryAfter: 1},
	{Err: puzzles.ErrPracticeTimeout, Status: http.StatusServiceUnavailable, Code: "practice_timeout", Title: "No practice puzzle found in time", RetryAfter: 1},
	{Err: puzzles.ErrNoPool, Status: http.StatusServiceUnavailable, Code: "not_ready", Title: "Not ready"},
	// A stored puzzle that no longer proves (a bad restore, a newer
	// generator's row): the server's fault, never served.
	{Err: gen.ErrUnverified, Status: http.StatusInternalServerError, Code: "puzzle_unverified", Title: "Puzzle failed verification",
		Hide: true, Detail: "the stored puzzle did not verify and is not served; it has been logged"},
	{Err: gen.ErrUnknownVersion, Status: http.StatusInternalServerError, Code: "puzzle_unverified", Title: "Puzzle failed verification",
		Hide: true, Detail: "the stored puzzle did not verify and is not served; it has been logged"},

	// Anything else is a fault of the server: logged in full, answered
	// without a word about its internals.
	{Err: ErrInternal, Status: http.StatusInternalServerError, Code: "internal_error", Title: "Internal server error",
		Hide: true, Detail: "the server failed to answer this request; it has been logged"},
}

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
	storageFullDetail      = "the database has no room left for this change, which was not made. Reads still work; send the same request again after Retry-After seconds"
)

// internalRow is the last row: the answer to an error no row matches.
var internalRow = problemTable[len(problemTable)-1]

// problem is the RFC 9457 body. Field order is the order clients read it in.
type problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail,omitempty"`
	Code      string `json:"code"`
	Instance  string `json:"instance,omitempty"`
	RequestID string `json:"requestId,omitempty"`
	// Members some problems add, so a client can recover without parsing
	// the detail (see gameProblemMembers).
	CurrentPly *int   `json:"currentPly,omitempty"`
	Reason     string `json:"reason,omitempty"`
}

// rowFor finds the table row for err. Echo's own *HTTPError values other
// than its sentinels (a 413 from elsewhere, say) are matched by status.
func rowFor(err error) problemRow {
	for _, row := range problemTable {
		if errors.Is(err, row.Err) {
			return row
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		for _, row := range problemTable {
			if row.Status == he.Code && !row.Hide {
				return row
			}
		}
		if he.Code >= 400 && he.Code < 500 {
			return problemRow{Status: he.Code, Code: "invalid_request", Title: http.StatusText(he.Code)}
		}
	}
	return internalRow
}

// StatusOf returns the HTTP status err is answered with.
func StatusOf(err error) int { return rowFor(err).Status }

// problemFor builds the answer to err.
func problemFor(err error, c echo.Context) (problem, problemRow) {
	p, row := problemOf(err)
	p.Instance = c.Request().URL.Path
	p.RequestID = c.Response().Header().Get(echo.HeaderXRequestID)
	return p, row
}

// problemOf builds the problem for err without a request: the answer's
// body less instance and requestId, as a line of /v1/validate/batch has it.
func problemOf(err error) (problem, problemRow) {
	row := rowFor(err)
	p := problem{
		Type:   ProblemTypeBase + row.Code,
		Title:  row.Title,
		Status: row.Status,
		Code:   row.Code,
	}
	if row.Hide {
		p.Detail = row.Detail
		return p, row
	}
	gameProblemMembers(err, &p)
	p.Detail = err.Error()
	// Echo's errors print as "code=..., message=..."; the client wants the
	// message, or the error it wraps.
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if he.Internal != nil {
			p.Detail = he.Internal.Error()
		} else {
			p.Detail = fmt.Sprint(he.Message)
		}
	}
	return p, row
}

// writeProblem answers err as application/problem+json, unless an answer has
// already started. Faults (5xx) are logged with the error's full text, which
// the client never sees.
func writeProblem(c echo.Context, err error, log *slog.Logger) {
	p, row := problemFor(err, c)
	if row.Status >= 500 {
		log.ErrorContext(c.Request().Context(), "request failed", "error", err.Error(),
			"status", row.Status, "requestId", p.RequestID, "method", c.Request().Method, "path", c.Request().URL.Path)
	}
	if c.Response().Committed {
		return
	}
	body, merr := json.Marshal(p)
	if merr != nil { // a problem of strings and ints always marshals
		body = []byte(`{"type":"` + ProblemTypeBase + `internal_error","title":"Internal server error","status":500,"code":"internal_error"}`)
	}
	h := c.Response().Header()
	h.Set(echo.HeaderContentType, "application/problem+json")
	h.Set("X-Content-Type-Options", "nosniff")
	if row.RetryAfter > 0 {
		h.Set(echo.HeaderRetryAfter, strconv.Itoa(row.RetryAfter))
	}
	gameProblemHeaders(err, h)
	c.Response().WriteHeader(row.Status)
	// Written to a HEAD request too: net/http drops the body and keeps its
	// Content-Length, so the headers are those of the GET.
	_, _ = c.Response().Write(body)
}

// ProblemInfo describes one problem code, for documentation.
type ProblemInfo struct {
	Code   string
	Status int
	Title  string
}

// ProblemCodes lists every code with its status and title, in table order.
func ProblemCodes() []ProblemInfo {
	var out []ProblemInfo
	seen := map[string]bool{}
	for _, row := range problemTable {
		if !seen[row.Code] {
			seen[row.Code] = true
			out = append(out, ProblemInfo{row.Code, row.Status, row.Title})
		}
	}
	return out
}
