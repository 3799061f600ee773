package api

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/docs"
	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/idempotency"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/tournaments"
)

// answered names every declared error a client can meet, for the /docs
// page's list of codes. It decides nothing: an error is answered by its
// declaration whether it is here or not. TestEveryDeclaredErrorIsListed
// reads the module's source for declarations, so that none is left out.
var answered = []error{
	ErrMalformedJSON, ErrInvalidRequest, httpx.ErrBodyTooLarge, ErrTooManyLines,
	httpx.ErrBodyTimeout, httpx.ErrUnsupportedMediaType,
	analysis.ErrBusy, ErrNotReady,
	fault.ErrOutcomeUnknown, fault.ErrStorageFull, fault.ErrUnavailable,
	players.ErrRatingsChanged,
	players.ErrUnauthorized, players.ErrForbidden, players.ErrNotFound, players.ErrInvalidName, players.ErrInvalidCursor,
	players.ErrBotRefused, lobby.ErrBotsRefused,
	games.ErrRatedNotAllowed, games.ErrUnauthorized, games.ErrNotYourTurn, games.ErrStalePly, games.ErrFinished,
	games.ErrNotStarted, games.ErrSeatTaken, games.ErrInvalidTimeControl,
	idempotency.ErrInFlight, idempotency.ErrMismatch, idempotency.ErrInvalidKey,
	games.ErrNoOffer, games.ErrTakebackRated, games.ErrNothingToTakeBack,
	httpx.ErrRateLimited, httpx.ErrTooManyStreams, httpx.ErrStreamsFull,
	games.ErrAIBusy, games.ErrNotFound,
	lobby.ErrSeekNotFound, lobby.ErrChallengeNotFound, lobby.ErrNotYourSeek, lobby.ErrNotYourChallenge,
	lobby.ErrSeekClosed, lobby.ErrChallengeClosed, lobby.ErrTooManySeeks, lobby.ErrPlaying, lobby.ErrChallengePlaying,
	lobby.ErrTimeControlRequired, lobby.ErrInvalidRange, lobby.ErrSelfChallenge, lobby.ErrRematch,
	lobby.ErrInvalidTicket, lobby.ErrTooManyStreams, lobby.ErrConflict,
	gen.ErrInvalidDate, puzzles.ErrNotFound, gen.ErrTooManyMoves, gen.ErrEmptyAttempt, gen.ErrInvalidPractice,
	gen.ErrFilterUnmet, puzzles.ErrPracticeBusy, puzzles.ErrPracticeTimeout, puzzles.ErrNoPool,
	gen.ErrUnverified, gen.ErrUnknownVersion,
	record.ErrSyntax, record.ErrMismatch,
	review.ErrNotFinished, review.ErrNotRequested, review.ErrTimeout,
	explorer.ErrInvalidPosition, explorer.ErrInvalidCategory, explorer.ErrInvalidRatings,
	tournaments.ErrNotFound, tournaments.ErrInvalid, tournaments.ErrStartInPast, tournaments.ErrFinished,
	tournaments.ErrAlreadyJoined, tournaments.ErrNotJoined, tournaments.ErrConditions, tournaments.ErrTooLate,
	tournaments.ErrConflict, tournaments.ErrBulkInvalid, tournaments.ErrBulkPlayer, tournaments.ErrBulkNotFound,
	games.ErrBerserk, games.ErrClockNotStarted,
	games.ErrClaimUnavailable, games.ErrClaimTooEarly, games.ErrAbortTooLate,
	players.ErrTokenExpired, players.ErrTokenRevoked, players.ErrMissingScope, players.ErrOwnTokenRequired,
	players.ErrTokenNotFound, players.ErrInvalidScope, players.ErrInvalidTokenRequest, players.ErrInvalidAuthorization,
	ErrInternal,
}

// answeredRows are the answers to the errors in answered, in its order.
func answeredRows() []problemRow {
	rows := make([]problemRow, 0, len(answered))
	for _, err := range answered {
		rows = append(rows, rowFor(err))
	}
	return rows
}

// ProblemCodes lists every code with its status and title, for the /docs
// page, by status: the declared errors', the undeclared errors' rows and
// the generic rows' (client_error's status is "4xx", after the other 4xx
// statuses: it keeps the status it answers).
func ProblemCodes() []docs.Problem {
	var out []docs.Problem
	seen := map[string]bool{}
	for _, row := range slices.Concat(firstRows, answeredRows(), lastRows, statusRows, []problemRow{clientErrorRow}) {
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
	slices.SortStableFunc(out, func(a, b docs.Problem) int { return strings.Compare(a.Status, b.Status) })
	return out
}
