package api

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Every error a client can meet answers with the status, code, title and
// Retry-After it had when the api package held a row for each of them (the
// table of 54 rows this replaced, with the games' and the puzzles' store
// failures now the one fault's), and shows its text, or not, as it did:
// declaring errors with their kinds changed nothing for clients.
func TestAnswersUnchanged(t *testing.T) {
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   string
		title  string
		retry  int
		hide   bool
	}{
		{"ErrMalformedJSON", ErrMalformedJSON, 400, "malformed_json", "Malformed JSON", 0, false},
		{"ErrInvalidRequest", ErrInvalidRequest, 400, "invalid_request", "Invalid request", 0, false},
		{"httpx.ErrBodyTooLarge", httpx.ErrBodyTooLarge, 413, "body_too_large", "Request body too large", 0, false},
		{"ErrTooManyLines", ErrTooManyLines, 413, "too_many_lines", "Too many lines", 0, false},
		{"httpx.ErrBodyTimeout", httpx.ErrBodyTimeout, 408, "body_timeout", "Request body too slow", 0, false},
		{"httpx.ErrUnsupportedMediaType", httpx.ErrUnsupportedMediaType, 415, "unsupported_media_type", "Unsupported media type", 0, false},
		{"echo.ErrNotFound", echo.ErrNotFound, 404, problem.RouteNotFoundCode, problem.RouteNotFoundTitle, 0, true},
		{"echo.ErrMethodNotAllowed", echo.ErrMethodNotAllowed, 405, "method_not_allowed", "Method not allowed", 0, true},
		{"engine.ErrInvalidPosition", engine.ErrInvalidPosition, 422, "invalid_position", "Invalid position", 0, false},
		{"engine.ErrInvalidNotation", engine.ErrInvalidNotation, 400, "invalid_notation", "Invalid position notation", 0, false},
		{"engine.ErrInvalidRules", engine.ErrInvalidRules, 422, "invalid_rules", "Invalid rule options", 0, false},
		{"engine.ErrGameOver", engine.ErrGameOver, 409, "game_over", "Game over", 0, false},
		{"engine.ErrIllegalMove", engine.ErrIllegalMove, 422, "illegal_move", "Illegal move", 0, false},
		{"search.ErrNoMoves", search.ErrNoMoves, 422, "no_legal_move", "No legal move", 0, false},
		{"analysis.ErrBusy", analysis.ErrBusy, 429, "too_many_analyses", "Too many analyses", 1, false},
		{"ErrNotReady", ErrNotReady, 503, "not_ready", "Not ready", 5, false},
		{"fault.ErrOutcomeUnknown", fault.ErrOutcomeUnknown, 503, "store_unavailable", "Database unavailable", 5, true},
		{"fault.ErrStorageFull", fault.ErrStorageFull, 503, "storage_full", "Database storage full", 30, true},
		{"fault.ErrUnavailable", fault.ErrUnavailable, 503, "store_unavailable", "Database unavailable", 5, true},
		{"players.ErrRatingsChanged", players.ErrRatingsChanged, 503, "ratings_busy", "Ratings busy", 1, false},
		{"context.DeadlineExceeded", context.DeadlineExceeded, 503, "timeout", "Timed out", 0, false},
		{"context.Canceled", context.Canceled, 499, "client_closed_request", "Client closed request", 0, true},
		{"players.ErrUnauthorized", players.ErrUnauthorized, 401, "player_unauthorized", "Player token missing or unknown", 0, false},
		{"players.ErrForbidden", players.ErrForbidden, 403, "not_your_player", "Not your player", 0, false},
		{"players.ErrNotFound", players.ErrNotFound, 404, "player_not_found", "No such player", 0, false},
		{"players.ErrInvalidName", players.ErrInvalidName, 422, "invalid_player_name", "Invalid player name", 0, false},
		{"players.ErrInvalidCursor", players.ErrInvalidCursor, 400, "invalid_cursor", "Invalid cursor", 0, false},
		{"games.ErrRatedNotAllowed", games.ErrRatedNotAllowed, 422, "rated_not_allowed", "This game cannot be rated", 0, false},
		{"games.ErrUnauthorized", games.ErrUnauthorized, 401, "unauthorized", "Unauthorized", 0, false},
		{"games.ErrNotYourTurn", games.ErrNotYourTurn, 403, "not_your_turn", "Not your turn", 0, false},
		{"games.ErrStalePly", games.ErrStalePly, 409, "stale_ply", "Stale ply", 0, false},
		{"games.ErrFinished", games.ErrFinished, 409, "game_over", "Game over", 0, false},
		{"games.ErrNotStarted", games.ErrNotStarted, 409, "game_waiting", "Game waiting for a player", 0, false},
		{"games.ErrSeatTaken", games.ErrSeatTaken, 409, "seat_taken", "Seat taken", 0, false},
		{"games.ErrInvalidTimeControl", games.ErrInvalidTimeControl, 422, "invalid_time_control", "Invalid time control", 0, false},
		{"httpx.ErrRateLimited", httpx.ErrRateLimited, 429, "rate_limited", "Too many requests", 1, false},
		{"httpx.ErrTooManyStreams", httpx.ErrTooManyStreams, 429, "too_many_streams", "Too many event streams", 5, false},
		{"httpx.ErrStreamsFull", httpx.ErrStreamsFull, 503, "streams_full", "No room for another event stream", 5, false},
		{"games.ErrAIBusy", games.ErrAIBusy, 503, "ai_busy", "The AI is busy", 1, false},
		{"games.ErrNotFound", games.ErrNotFound, 404, "not_found", "Not found", 0, false},
		{"gen.ErrInvalidDate", gen.ErrInvalidDate, 400, "invalid_date", "Invalid date", 0, false},
		{"puzzles.ErrNotFound", puzzles.ErrNotFound, 404, "puzzle_not_found", "No such puzzle", 0, false},
		{"gen.ErrTooManyMoves", gen.ErrTooManyMoves, 422, "too_many_moves", "Too many moves", 0, false},
		{"gen.ErrEmptyAttempt", gen.ErrEmptyAttempt, 422, "empty_attempt", "Empty attempt", 0, false},
		{"gen.ErrInvalidPractice", gen.ErrInvalidPractice, 400, "invalid_practice_request", "Invalid practice request", 0, false},
		{"gen.ErrFilterUnmet", gen.ErrFilterUnmet, 422, "no_practice_puzzle", "No practice puzzle meets the filter", 0, false},
		{"puzzles.ErrPracticeBusy", puzzles.ErrPracticeBusy, 429, "practice_busy", "Practice pool busy", 1, false},
		{"puzzles.ErrPracticeTimeout", puzzles.ErrPracticeTimeout, 503, "practice_timeout", "No practice puzzle found in time", 1, false},
		{"puzzles.ErrNoPool", puzzles.ErrNoPool, 503, "not_ready", "Not ready", 0, false},
		{"gen.ErrUnverified", gen.ErrUnverified, 500, "puzzle_unverified", "Puzzle failed verification", 0, true},
		{"gen.ErrUnknownVersion", gen.ErrUnknownVersion, 500, "puzzle_version_unknown", "Puzzle from an unknown generator version", 0, true},
		{"ErrInternal", ErrInternal, 500, "internal_error", "Internal server error", 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("%w: wrapped with %s", tt.err, secret)
			p, row := problemOf(err)
			if p.Status != tt.status || p.Code != tt.code || p.Title != tt.title || row.RetryAfter != tt.retry {
				t.Errorf("%d %s %q retry %d, want %d %s %q retry %d", p.Status, p.Code, p.Title, row.RetryAfter,
					tt.status, tt.code, tt.title, tt.retry)
			}
			if shown := strings.Contains(p.Detail, secret); shown == tt.hide {
				t.Errorf("detail %q: the error's text shown %v, want %v", p.Detail, shown, !tt.hide)
			}
		})
	}
}

// Errors that are more than one named error at once answer as the first
// that matters: what the table's order decided before, the order of
// firstRows, declared errors and lastRows decides now.
func TestAnswersOfErrorsThatAreSeveral(t *testing.T) {
	badSum := "s-444444-444444-0-1" // reads, but its seeds do not add up to 48
	_, notation := engine.Parse(badSum)
	for _, tt := range []struct {
		name   string
		err    error
		status int
		code   string
		detail string // a word of the detail, "" for any
	}{
		{"a notation of a position that does not add up", notation, 422, "invalid_position", ""},
		{"an outage met while the client went away", fmt.Errorf("%w: %w", fault.ErrUnavailable, context.Canceled), 503, "store_unavailable", "does not answer"},
		{"a write of unknown fate", fmt.Errorf("EOF: %w", errors.Join(fault.ErrOutcomeUnknown, fault.ErrUnavailable)), 503, "store_unavailable", "may or may not"},
		{"a stale ply with the game's ply", &games.StalePlyError{Sent: 3, Current: 4}, 409, "stale_ply", "ply 4"},
		{"a rate limit with its wait", &httpx.RateLimitError{What: "moves", RetryAfter: 3 * time.Second}, 429, "rate_limited", "moves"},
		{"a body the client stopped sending", fmt.Errorf("read (%w): %w", httpx.ErrBodyTimeout, context.Canceled), 408, "body_timeout", ""},
		{"an echo error that wraps a declared one", echo.NewHTTPError(http.StatusBadRequest).SetInternal(players.ErrForbidden), 403, "not_your_player", "another player"},
		{"a detail made for the client", newError(ErrInvalidRequest, "pit %d is out of range", 12), 400, "invalid_request", "pit 12"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.err == nil {
				t.Fatal("no error to answer")
			}
			p, _ := problemOf(tt.err)
			if p.Status != tt.status || p.Code != tt.code || !strings.Contains(p.Detail, tt.detail) {
				t.Errorf("%d %s %q, want %d %s with %q", p.Status, p.Code, p.Detail, tt.status, tt.code, tt.detail)
			}
		})
	}
}

// Every kind has a status of its own row in kindAnswers, and a kind
// beyond them (one added to package fault and not here) is answered as a
// fault of the server, never as nothing.
func TestEveryKindAnswered(t *testing.T) {
	for _, k := range fault.Kinds() {
		if int(k) >= len(kindAnswers) || kindAnswers[k].Status < 400 || kindAnswers[k].Status > 599 {
			t.Errorf("kind %v has no status", k)
		}
	}
	for _, k := range []fault.Kind{fault.Internal, fault.Unavailable, fault.Uncertain, fault.Full} {
		if kindAnswers[k].Detail == "" {
			t.Errorf("kind %v, a fault of the server, shows the error's text", k)
		}
	}
	stray := fault.New(fault.Kind(len(kindAnswers)), "stray_kind", "Stray", secret)
	if p, _ := problemOf(stray); p.Status != 500 || p.Code != "stray_kind" || strings.Contains(p.Detail, secret) {
		t.Errorf("an unknown kind answers %d %s %q", p.Status, p.Code, p.Detail)
	}
}

// TestEveryDeclaredErrorIsListed reads the module's source for every
// declaration with package fault and checks its code is on the /docs page:
// an error is answered by its declaration alone, so only this test notices
// one left out of answered.
func TestEveryDeclaredErrorIsListed(t *testing.T) {
	codes := map[string]bool{}
	for _, p := range ProblemCodes() {
		codes[p.Code] = true
	}
	declared := declaredCodes(t, "..")
	if len(declared) < 35 {
		t.Fatalf("found %d declarations in the source, want them all", len(declared))
	}
	for code, where := range declared {
		if !codes[code] {
			t.Errorf("%s declares %s, which the /docs page does not list: add the error to answered", where, code)
		}
	}
}

// declaredCodes finds every fault.New and fault.NewRetry call in the
// module's Go files under root (the tests' and the clients' module
// apart), by the code each declares, with the place of one of them.
func declaredCodes(t *testing.T, root string) map[string]string {
	t.Helper()
	codeArg := map[string]int{"New": 1, "NewRetry": 2}
	found := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "clients") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			i, isDecl := codeArg[sel.Sel.Name]
			if !ok || pkg.Name != "fault" || !isDecl || len(call.Args) <= i {
				return true
			}
			lit, ok := call.Args[i].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: a code that is not a string literal", fset.Position(call.Pos()))
				return true
			}
			code, _ := strconv.Unquote(lit.Value)
			found[code] = fset.Position(call.Pos()).String()
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The fault package declares its own with New, unqualified.
	for _, err := range []error{fault.ErrUnavailable, fault.ErrStorageFull, fault.ErrOutcomeUnknown} {
		if !slices.Contains(answered, err) {
			t.Errorf("%v is not in answered", err)
		}
	}
	return found
}
