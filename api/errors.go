package api

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/docs"
	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Errors of the api package itself. Handlers and middleware return them
// (made by newError, with a detail for the client); problemFor turns them into
// answers through the table below. Handlers never build error bodies. The
// HTTP infrastructure's own kinds (body limits, media types, rate limits,
// stream slots) are httpx's, answered by rows of the same table.
var (
	ErrMalformedJSON  = errors.New("malformed JSON")
	ErrInvalidRequest = errors.New("invalid request")
	ErrTooManyLines   = errors.New("too many lines")
	ErrNotReady       = errors.New("not ready")
	ErrInternal       = errors.New("internal error")
)

// newError makes an error of the given kind with a detail for the client.
func newError(kind error, format string, args ...any) error {
	return httpx.Errorf(kind, format, args...)
}

// problemRow says how one sentinel error is answered. Code is a stable
// snake_case word clients switch on; never change it once published.
type problemRow struct {
	Err        error  // matched with errors.Is, in table order
	Status     int    // HTTP status
	Code       string // stable snake_case word; the type URI is problem.TypeBase+Code
	Title      string // short, fixed summary of the kind of problem
	RetryAfter int    // seconds, sent as Retry-After when > 0
	Hide       bool   // never show the error's text: say Detail instead
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
	{Err: httpx.ErrBodyTooLarge, Status: http.StatusRequestEntityTooLarge, Code: "body_too_large", Title: "Request body too large"},
	{Err: ErrTooManyLines, Status: http.StatusRequestEntityTooLarge, Code: "too_many_lines", Title: "Too many lines"},
	{Err: httpx.ErrBodyTimeout, Status: http.StatusRequestTimeout, Code: "body_timeout", Title: "Request body too slow"},
	{Err: httpx.ErrUnsupportedMediaType, Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type", Title: "Unsupported media type"},
	{Err: echo.ErrNotFound, Status: http.StatusNotFound, Code: problem.RouteNotFoundCode, Title: problem.RouteNotFoundTitle,
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
	// The client went away: it cancelled the request, or closed the
	// connection before the end of its body. This is decided, not an
	// accident of the table: the status is 499 (nginx's "client closed
	// request", no status of RFC 9110 fits), so the request's log line and
	// the request metrics tell these apart from the server's faults and
	// from requests that were refused; it is not logged as a failure,
	// because the server has nothing to fix; and the answer is written all
	// the same, for a client that only half-closed its side, with a detail
	// of its own: what was cancelled (a query, a search) is no client's
	// business. docs/errors.md says more.
	{Err: context.Canceled, Status: 499, Code: "client_closed_request", Title: "Client closed request",
		Hide: true, Detail: "the client went away before the answer was ready"},

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
	{Err: httpx.ErrRateLimited, Status: http.StatusTooManyRequests, Code: "rate_limited", Title: "Too many requests", RetryAfter: 1},
	{Err: httpx.ErrTooManyStreams, Status: http.StatusTooManyRequests, Code: "too_many_streams", Title: "Too many event streams", RetryAfter: 5},
	{Err: httpx.ErrStreamsFull, Status: http.StatusServiceUnavailable, Code: "streams_full", Title: "No room for another event stream", RetryAfter: 5},
	{Err: games.ErrAIBusy, Status: http.StatusServiceUnavailable, Code: "ai_busy", Title: "The AI is busy", RetryAfter: 1},
	{Err: games.ErrNotFound, Status: http.StatusNotFound, Code: "not_found", Title: "Not found"},

	// The lobby.
	{Err: lobby.ErrSeekNotFound, Status: http.StatusNotFound, Code: "seek_not_found", Title: "No such seek"},
	{Err: lobby.ErrChallengeNotFound, Status: http.StatusNotFound, Code: "challenge_not_found", Title: "No such challenge"},
	{Err: lobby.ErrNotYourSeek, Status: http.StatusForbidden, Code: "not_your_seek", Title: "Not your seek"},
	{Err: lobby.ErrNotYourChallenge, Status: http.StatusForbidden, Code: "not_your_challenge", Title: "Not your challenge"},
	{Err: lobby.ErrSeekClosed, Status: http.StatusConflict, Code: "seek_closed", Title: "Seek no longer open"},
	{Err: lobby.ErrChallengeClosed, Status: http.StatusConflict, Code: "challenge_closed", Title: "Challenge no longer pending"},
	{Err: lobby.ErrTooManySeeks, Status: http.StatusConflict, Code: "too_many_seeks", Title: "Too many open seeks"},
	{Err: lobby.ErrPlaying, Status: http.StatusConflict, Code: "already_playing", Title: "Already playing a game with a clock"},
	{Err: lobby.ErrTimeControlRequired, Status: http.StatusUnprocessableEntity, Code: "time_control_required", Title: "Time control required"},
	{Err: lobby.ErrInvalidRange, Status: http.StatusUnprocessableEntity, Code: "invalid_rating_range", Title: "Invalid rating range"},
	{Err: lobby.ErrSelfChallenge, Status: http.StatusUnprocessableEntity, Code: "self_challenge", Title: "Challenging yourself"},
	{Err: lobby.ErrRematch, Status: http.StatusUnprocessableEntity, Code: "rematch_not_possible", Title: "No rematch possible"},
	{Err: lobby.ErrInvalidTicket, Status: http.StatusUnauthorized, Code: "invalid_stream_ticket", Title: "Invalid stream ticket"},
	{Err: lobby.ErrTooManyStreams, Status: http.StatusTooManyRequests, Code: "too_many_player_streams", Title: "Too many event streams for this player", RetryAfter: 5},
	// A lobby write that kept losing races past the service's retries.
	{Err: lobby.ErrConflict, Status: http.StatusServiceUnavailable, Code: "lobby_busy", Title: "Lobby busy", RetryAfter: 1},

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
	// A stored puzzle that no longer proves (a bad restore, a row edited
	// by hand): the server's fault, never served.
	{Err: gen.ErrUnverified, Status: http.StatusInternalServerError, Code: "puzzle_unverified", Title: "Puzzle failed verification",
		Hide: true, Detail: "the stored puzzle did not verify and is not served; it has been logged"},
	// A stored puzzle made by a generator version this build does not
	// have (a newer instance wrote it, or an older binary reads it): it was
	// never checked, so it is not served, but nothing says it is wrong.
	{Err: gen.ErrUnknownVersion, Status: http.StatusInternalServerError, Code: "puzzle_version_unknown", Title: "Puzzle from an unknown generator version",
		Hide: true, Detail: "the stored puzzle was made by a generator version this server does not have, so it cannot check it and does not serve it; it has been logged"},

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

// rowFor finds the table row for err: the first row whose sentinel err
// is, the generic row of an unknown *echo.HTTPError's 4xx status, or
// internalRow.
func rowFor(err error) problemRow {
	for _, row := range problemTable {
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
	p.Detail = err.Error()
	// An echo error that wraps one of the table's prints as "code=...,
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

// ProblemCodes lists every code with its status and title, for the /docs
// page: the table's, in its order, then the generic rows' (client_error's
// status is "4xx": it keeps the status it answers).
func ProblemCodes() []docs.Problem {
	var out []docs.Problem
	seen := map[string]bool{}
	for _, row := range slices.Concat(problemTable, statusRows, []problemRow{clientErrorRow}) {
		if seen[row.Code] {
			continue
		}
		seen[row.Code] = true
		status := "4xx"
		if row.Status != 0 {
			status = strconv.Itoa(row.Status)
		}
		out = append(out, docs.Problem{Code: row.Code, Status: status, Title: row.Title})
	}
	return out
}
