// Command clients/go plays through the API with nothing but the client that
// oapi-codegen generates from openapi.yaml (package ayoayo beside it), as a
// third party would: it fetches the document, creates a game against the AI,
// plays a move, plays it again at a stale ply, plays a game between two
// seats with a one-second clock that the server ends by timeout with nobody
// calling, evaluates a move, validates a record, reads the daily puzzle and
// two practice puzzles; then makes two players, plays a rated game with a
// clock between them to its end (a resignation) and checks both rating
// changes, plays an unrated game between them with a takeback and a draw
// offered and accepted; meets them through seeks (the second seek's answer
// already matched, the first player's event stream telling of the game),
// through a challenge one accepts, and through a rematch of the drawn game
// both ask for; and attempts the daily puzzle as a player and checks its rating
// change. It stops at the first answer that is not the one the document
// promises. .ci/run runs it
// against a real server:
//
//	cd clients/go && go run . -server http://127.0.0.1:8080
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/ayoayo/ayoayo/clients/go/ayoayo"
)

func main() {
	server := flag.String("server", "http://127.0.0.1:8080", "the API's base URL")
	timeout := flag.Duration("timeout", time.Minute, "how long the whole run may take")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	if err := run(ctx, *server); err != nil {
		fmt.Fprintln(os.Stderr, "clients/go:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, server string) error {
	c, err := ayoayo.NewClientWithResponses(server, ayoayo.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}))
	if err != nil {
		return err
	}

	requestID := "clients-go-1"
	doc, err := c.GetOpenAPIWithResponse(ctx, &ayoayo.GetOpenAPIParams{XRequestID: &requestID})
	if err != nil {
		return fmt.Errorf("GET /openapi.yaml: %w", err)
	}
	if doc.YAML200 == nil || (*doc.YAML200)["openapi"] != "3.0.3" {
		return unexpected("GET /openapi.yaml", doc.HTTPResponse, doc.Body)
	}
	if doc.Headers200 == nil || doc.Headers200.XRequestID == nil || *doc.Headers200.XRequestID != requestID {
		return fmt.Errorf("GET /openapi.yaml: X-Request-ID %v, want %q back", doc.Headers200, requestID)
	}
	fmt.Printf("openapi.yaml: OpenAPI %v, X-Request-ID %s echoed\n", (*doc.YAML200)["openapi"], requestID)

	level := 1
	captureSeed := ayoayo.RulesCaptureSeedTaken
	created, err := c.CreateGameWithResponse(ctx, nil, ayoayo.CreateGameRequest{
		Opponent: ayoayo.Opponent{Type: ayoayo.OpponentTypeAi, Level: &level},
		Rules:    &ayoayo.Rules{CaptureSeed: &captureSeed},
	})
	if err != nil {
		return fmt.Errorf("POST /v1/games: %w", err)
	}
	if created.JSON201 == nil {
		return unexpected("POST /v1/games", created.HTTPResponse, created.Body)
	}
	seat := created.JSON201
	fmt.Printf("game %s: seat %s, status %s, the AI at level %d\n", seat.Game.ID, seat.Seat, seat.Game.Status, level)

	bearer := func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+seat.Token)
		return nil
	}
	played, err := c.PlayGameMoveWithResponse(ctx, seat.Game.ID, nil, ayoayo.PlayMoveRequest{Ply: 0, Pit: 0}, bearer)
	if err != nil {
		return fmt.Errorf("POST /v1/games/%s/moves: %w", seat.Game.ID, err)
	}
	if played.JSON201 == nil {
		return unexpected("POST moves", played.HTTPResponse, played.Body)
	}
	move := played.JSON201.Move
	capture := "nothing"
	if cp, err := move.Capture.Get(); err == nil {
		capture = fmt.Sprintf("%d seeds from pit %d", cp.Seeds, cp.Pit)
	}
	reply := "none"
	if r := played.JSON201.Reply; r != nil {
		reply = fmt.Sprintf("pit %d", r.Pit)
	}
	fmt.Printf("move: pit 0 in %d legs, captured %s; the AI replied %s; the game is at ply %d\n",
		len(move.Legs), capture, reply, played.JSON201.Game.Ply)

	// The same ply again is stale now: a 409 problem with the current ply.
	stale, err := c.PlayGameMoveWithResponse(ctx, seat.Game.ID, nil, ayoayo.PlayMoveRequest{Ply: 0, Pit: 1}, bearer)
	if err != nil {
		return fmt.Errorf("POST moves at a stale ply: %w", err)
	}
	if p := stale.ApplicationProblemJSON409; p == nil || p.Code != "stale_ply" || p.CurrentPly == nil || *p.CurrentPly != played.JSON201.Game.Ply {
		return unexpected("POST moves at a stale ply", stale.HTTPResponse, stale.Body)
	}
	fmt.Printf("stale ply: %d %s, currentPly %d\n", stale.StatusCode(), stale.ApplicationProblemJSON409.Code, *stale.ApplicationProblemJSON409.CurrentPly)

	if err := flagged(ctx, c); err != nil {
		return err
	}

	opening := ayoayo.Position{
		Pits:     []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
		Captured: ayoayo.Captured{South: 0, North: 0},
		ToMove:   ayoayo.SideSouth,
	}
	evaluated, err := c.EvaluateMoveWithResponse(ctx, nil, ayoayo.EvaluateRequest{Position: opening, Pit: 0,
		Rules: &ayoayo.Rules{CaptureSeed: &captureSeed}})
	if err != nil {
		return fmt.Errorf("POST /v1/evaluate: %w", err)
	}
	if evaluated.JSON200 == nil || !evaluated.JSON200.Legal {
		return unexpected("POST /v1/evaluate", evaluated.HTTPResponse, evaluated.Body)
	}
	fmt.Printf("evaluate: pit 0 is legal, %d legs\n", len(*evaluated.JSON200.Legs))

	validated, err := c.ValidateRecordWithResponse(ctx, nil, ayoayo.ValidateRequest{Moves: []ayoayo.Pit{0, 7, 1}})
	if err != nil {
		return fmt.Errorf("POST /v1/validate: %w", err)
	}
	if validated.JSON200 == nil {
		return unexpected("POST /v1/validate", validated.HTTPResponse, validated.Body)
	}
	fmt.Printf("validate: valid %t, %d plies applied\n", validated.JSON200.Valid, validated.JSON200.Plies)

	daily, err := c.GetDailyPuzzleWithResponse(ctx, nil)
	if err != nil {
		return fmt.Errorf("GET /v1/puzzles/daily: %w", err)
	}
	if daily.JSON200 == nil {
		return unexpected("GET /v1/puzzles/daily", daily.HTTPResponse, daily.Body)
	}
	fmt.Printf("daily puzzle %s (%s): %s\n", daily.JSON200.ID, daily.JSON200.Goal, daily.JSON200.Prompt)

	// A practice puzzle, and the next one after it: no date, the same filter.
	// Until the server's stock of practice puzzles has one, it makes them
	// on request, and a search that outlasts the request is a 503 with
	// Retry-After: asking again the same way finds the work done.
	two := 2
	first, err := retryUnavailable(func() (*ayoayo.GetPracticePuzzleResponse, error) {
		return c.GetPracticePuzzleWithResponse(ctx, &ayoayo.GetPracticePuzzleParams{Difficulty: &two})
	})
	if err != nil {
		return fmt.Errorf("GET /v1/puzzles/practice: %w", err)
	}
	if first.JSON200 == nil || !first.JSON200.Date.IsNull() || first.JSON200.Difficulty != two {
		return unexpected("GET /v1/puzzles/practice", first.HTTPResponse, first.Body)
	}
	next, err := retryUnavailable(func() (*ayoayo.GetPracticePuzzleResponse, error) {
		return c.GetPracticePuzzleWithResponse(ctx, &ayoayo.GetPracticePuzzleParams{Difficulty: &two, After: &first.JSON200.ID})
	})
	if err != nil {
		return fmt.Errorf("GET /v1/puzzles/practice after %s: %w", first.JSON200.ID, err)
	}
	if next.JSON200 == nil || next.JSON200.ID == first.JSON200.ID {
		return unexpected("GET /v1/puzzles/practice after "+first.JSON200.ID, next.HTTPResponse, next.Body)
	}
	fmt.Printf("practice puzzles %s, then %s\n", first.JSON200.ID, next.JSON200.ID)
	return rated(ctx, c, daily.JSON200.ID)
}

// asPlayer sends a player's token, in the header the document's
// playerToken scheme names.
func asPlayer(token string) ayoayo.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Player-Token", token)
		return nil
	}
}

// bearer sends a seat's token.
func bearer(token string) ayoayo.RequestEditorFn {
	return func(_ context.Context, req *http.Request) error {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
}

// rated makes two players, plays a rated live game between them that ends
// by resignation, and checks the game, both players and the winner's
// history show the rating changes; then attempts the daily puzzle as a
// player, twice, and checks that only the first attempt is rated.
func rated(ctx context.Context, c *ayoayo.ClientWithResponses, dailyID string) error {
	var ids, tokens [2]string
	for i, name := range []string{"Go client South", "Go client North"} {
		made, err := c.CreatePlayerWithResponse(ctx, nil, ayoayo.CreatePlayerRequest{Name: &name})
		if err != nil || made.JSON201 == nil {
			return errors.Join(err, unexpected("POST /v1/players", made.HTTPResponse, made.Body))
		}
		ids[i], tokens[i] = made.JSON201.Player.ID, made.JSON201.Token
	}
	yes, five := true, 300
	created, err := c.CreateGameWithResponse(ctx, nil, ayoayo.CreateGameRequest{
		Opponent:    ayoayo.Opponent{Type: ayoayo.OpponentTypeHuman},
		TimeControl: nullable.NewNullableWithValue(ayoayo.TimeControl{Kind: ayoayo.TimeControlKindClock, InitialSeconds: &five}),
		Rated:       &yes,
	}, asPlayer(tokens[0]))
	if err != nil || created.JSON201 == nil || !created.JSON201.Game.Rated {
		return errors.Join(err, unexpected("POST /v1/games rated", created.HTTPResponse, created.Body))
	}
	id := created.JSON201.Game.ID
	joined, err := c.JoinGameWithResponse(ctx, id, nil, asPlayer(tokens[1]))
	if err != nil || joined.JSON201 == nil {
		return errors.Join(err, unexpected("POST join as a player", joined.HTTPResponse, joined.Body))
	}
	// Both sides move, each by its player's token (before that, a
	// resignation would abort the rated game); a takeback is refused in a
	// rated game with its own code.
	for ply, pit := range []int{0, 6} {
		played, err := c.PlayGameMoveWithResponse(ctx, id, nil, ayoayo.PlayMoveRequest{Ply: ply, Pit: pit}, asPlayer(tokens[ply]))
		if err != nil || played.JSON201 == nil {
			return errors.Join(err, unexpected("POST moves by a player's token", played.HTTPResponse, played.Body))
		}
	}
	refused, err := c.OfferTakebackWithResponse(ctx, id, nil, ayoayo.OfferRequest{Offer: true}, asPlayer(tokens[1]))
	if err != nil || refused.ApplicationProblemJSON403 == nil || refused.ApplicationProblemJSON403.Code != "takeback_rated" {
		return errors.Join(err, unexpected("POST takeback in a rated game", refused.HTTPResponse, refused.Body))
	}
	fmt.Printf("takeback in a rated game: %d %s\n", refused.StatusCode(), refused.ApplicationProblemJSON403.Code)
	resigned, err := c.ResignGameWithResponse(ctx, id, nil, bearer(joined.JSON201.Token))
	if err != nil || resigned.JSON200 == nil {
		return errors.Join(err, unexpected("POST resign", resigned.HTTPResponse, resigned.Body))
	}
	if err := reviewGame(ctx, c, id, resigned.JSON200.Ply); err != nil {
		return err
	}
	var changes [2]int
	for i, seat := range []nullable.Nullable[ayoayo.SeatPlayer]{resigned.JSON200.Players.South, resigned.JSON200.Players.North} {
		sp, err := seat.Get()
		if err != nil || sp.ID != ids[i] {
			return fmt.Errorf("the rated game's seat %d names %+v, want player %s", i, sp, ids[i])
		}
		if changes[i], err = sp.Change.Get(); err != nil {
			return fmt.Errorf("the rated game ended, yet seat %d shows no rating change: %s", i, resigned.Body)
		}
	}
	if changes[0] <= 0 || changes[1] >= 0 {
		return fmt.Errorf("South won by resignation, yet the changes are %v", changes)
	}
	for i := range ids {
		p, err := c.GetPlayerWithResponse(ctx, ids[i], nil)
		if err != nil || p.JSON200 == nil {
			return errors.Join(err, unexpected("GET /v1/players/"+ids[i], p.HTTPResponse, p.Body))
		}
		if live := p.JSON200.Ratings.Live; live.Games != 1 || live.Rating != 1500+changes[i] {
			return fmt.Errorf("player %s's live rating %+v, want 1500%+d from one game", ids[i], live, changes[i])
		}
	}
	history, err := c.ListPlayerGamesWithResponse(ctx, ids[0], nil)
	if err != nil || history.JSON200 == nil || len(history.JSON200.Games) != 1 {
		return errors.Join(err, unexpected("GET /v1/players/{id}/games", history.HTTPResponse, history.Body))
	}
	if r, err := history.JSON200.Games[0].Rating.Get(); err != nil || r.Change != changes[0] || history.JSON200.Games[0].Result != ayoayo.PlayerResultWin {
		return fmt.Errorf("the winner's history: %s", history.Body)
	}
	fmt.Printf("rated game %s: South %+d, North %+d, in both players' ratings and the history\n", id, changes[0], changes[1])
	// The game as a record in the text notation, and the winner's games
	// exported as records: both say how the game ended.
	text, err := c.GetGameWithResponse(ctx, id, nil, func(_ context.Context, req *http.Request) error {
		req.Header.Set("Accept", "application/x-ayoayo-record")
		return nil
	})
	if err != nil || text.StatusCode() != http.StatusOK || !strings.Contains(string(text.Body), `[Termination "resignation"]`) {
		return errors.Join(err, unexpected("GET /v1/games/{id} as a record", text.HTTPResponse, text.Body))
	}
	format := ayoayo.ExportPlayerGamesParamsFormatRecord
	export, err := c.ExportPlayerGamesWithResponse(ctx, ids[0], &ayoayo.ExportPlayerGamesParams{Format: &format})
	if err != nil || export.StatusCode() != http.StatusOK || strings.Count(string(export.Body), "[Event ") != 1 ||
		!strings.Contains(string(export.Body), `[Site "/v1/games/`+id+`"]`) {
		return errors.Join(err, unexpected("GET /v1/players/{id}/games/export", export.HTTPResponse, export.Body))
	}
	fmt.Printf("rated game %s as a record and in the winner's export: %d bytes\n", id, len(export.Body))
	drawn, err := offers(ctx, c, tokens)
	if err != nil {
		return err
	}
	if err := meet(ctx, c, ids, tokens, drawn); err != nil {
		return err
	}
	if err := explored(ctx, c, id); err != nil {
		return err
	}

	// The daily puzzle, solved as a player: the first attempt is rated,
	// the second is not.
	sol, err := c.GetPuzzleSolutionWithResponse(ctx, dailyID, nil)
	if err != nil || sol.JSON200 == nil {
		return errors.Join(err, unexpected("GET the solution", sol.HTTPResponse, sol.Body))
	}
	var moves []ayoayo.Pit
	for _, s := range sol.JSON200.Solution {
		if !s.Reply {
			moves = append(moves, s.Pit)
		}
	}
	for attempt := 1; attempt <= 2; attempt++ {
		a, err := c.SubmitPuzzleAttemptWithResponse(ctx, dailyID, nil, ayoayo.PuzzleAttempt{Moves: moves}, asPlayer(tokens[0]))
		if err != nil || a.JSON200 == nil || !a.JSON200.Complete {
			return errors.Join(err, unexpected("POST the daily puzzle's attempt as a player", a.HTTPResponse, a.Body))
		}
		r, rerr := a.JSON200.Rating.Get()
		switch {
		case attempt == 1 && (!a.JSON200.Rated || rerr != nil || r.Player.Change <= 0 || r.Player.After-r.Player.Before != r.Player.Change):
			return fmt.Errorf("a player's first attempt that solves the puzzle: %s", a.Body)
		case attempt == 2 && (a.JSON200.Rated || !a.JSON200.Rating.IsNull()):
			return fmt.Errorf("a player's second attempt changed a rating: %s", a.Body)
		}
		if attempt == 1 {
			fmt.Printf("daily puzzle %s solved as a player: puzzle rating %d -> %d; the puzzle's %d -> %d\n", dailyID,
				r.Player.Before, r.Player.After, r.Puzzle.Before, r.Puzzle.After)
		}
	}
	fmt.Println("the second attempt changed no rating")
	return nil
}

// explored waits (a few seconds at most) for the rated game id, which
// opened with pit 0, to be in the opening explorer, and asks for a
// position that is not one, which is refused with the explorer's code.
func explored(ctx context.Context, c *ayoayo.ClientWithResponses, id string) error {
	start := "s-444444-444444-0-0"
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		ex, err := c.GetExplorerWithResponse(ctx, &ayoayo.GetExplorerParams{Position: start})
		if err != nil || ex.JSON200 == nil {
			return errors.Join(err, unexpected("GET /v1/explorer", ex.HTTPResponse, ex.Body))
		}
		found := false
		for _, m := range ex.JSON200.Moves {
			found = found || (m.Pit == 0 && slices.Contains(m.RecentGames, id))
		}
		if found {
			fmt.Printf("explorer: the rated game %s is in the start's pit 0, %d games from the start\n", id, ex.JSON200.Games)
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the rated game %s is not in the explorer 10 s after its end: %s", id, ex.Body)
		}
	}
	bad, err := c.GetExplorerWithResponse(ctx, &ayoayo.GetExplorerParams{Position: "s-44"})
	if err != nil || bad.ApplicationProblemJSON400 == nil || bad.ApplicationProblemJSON400.Code != "invalid_explorer_position" {
		return errors.Join(err, unexpected("GET /v1/explorer with no position", bad.HTTPResponse, bad.Body))
	}
	return nil
}

// unexpected reports an answer the client found no declared type for.
// retryUnavailable calls get until its answer is not a 503, waiting the
// answer's Retry-After (at most 10 s) between calls, six calls at most.
func retryUnavailable(get func() (*ayoayo.GetPracticePuzzleResponse, error)) (*ayoayo.GetPracticePuzzleResponse, error) {
	for try := 1; ; try++ {
		r, err := get()
		if err != nil || try == 6 || r.StatusCode() != http.StatusServiceUnavailable {
			return r, err
		}
		wait, err := strconv.Atoi(r.HTTPResponse.Header.Get("Retry-After"))
		if err != nil || wait < 0 {
			wait = 1
		}
		time.Sleep(time.Duration(min(wait, 10)) * time.Second)
	}
}

func unexpected(what string, r *http.Response, body []byte) error {
	if r == nil {
		return errors.New(what + ": no answer")
	}
	return fmt.Errorf("%s: unexpected answer %s: %s", what, r.Status, body)
}

// flagged plays a game between two seats with a one-second clock: each
// side's first move has only its window, then South's clock runs, and the
// server ends the game by timeout at the clock's deadline with nobody
// calling; a read after it says so.
func flagged(ctx context.Context, c *ayoayo.ClientWithResponses) error {
	one := 1
	created, err := c.CreateGameWithResponse(ctx, nil, ayoayo.CreateGameRequest{
		Opponent:    ayoayo.Opponent{Type: ayoayo.OpponentTypeHuman},
		TimeControl: nullable.NewNullableWithValue(ayoayo.TimeControl{Kind: ayoayo.TimeControlKindClock, InitialSeconds: &one}),
	})
	if err != nil || created.JSON201 == nil {
		return errors.Join(err, unexpected("POST /v1/games with a clock", created.HTTPResponse, created.Body))
	}
	id := created.JSON201.Game.ID
	joined, err := c.JoinGameWithResponse(ctx, id, nil)
	if err != nil || joined.JSON201 == nil {
		return errors.Join(err, unexpected("POST join", joined.HTTPResponse, joined.Body))
	}
	tokens := map[ayoayo.Side]string{created.JSON201.Seat: created.JSON201.Token, joined.JSON201.Seat: joined.JSON201.Token}
	var game ayoayo.Game
	for ply, pit := range []int{0, 6} {
		bearer := func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+tokens[[]ayoayo.Side{ayoayo.SideSouth, ayoayo.SideNorth}[ply]])
			return nil
		}
		played, err := c.PlayGameMoveWithResponse(ctx, id, nil, ayoayo.PlayMoveRequest{Ply: ply, Pit: pit}, bearer)
		if err != nil || played.JSON201 == nil {
			return errors.Join(err, unexpected("POST moves in the clocked game", played.HTTPResponse, played.Body))
		}
		game = played.JSON201.Game
	}
	clock, err := game.Clock.Get()
	if err != nil {
		return fmt.Errorf("the clocked game has no clock after two moves: %w", err)
	}
	running, _ := clock.Running.Get()
	deadline, err := clock.Deadline.Get()
	if running != ayoayo.NullableSideSouth || err != nil {
		return fmt.Errorf("after both first moves South's clock should run with a deadline: running %q, deadline %v", running, err)
	}
	fmt.Printf("clock: South has %d ms, North %d ms; South's runs out at %s\n", clock.RemainingMs.South, clock.RemainingMs.North, deadline.Format(time.RFC3339Nano))

	// Nobody calls until a little after the deadline; then a read shows the
	// game ended by timeout at the deadline.
	select {
	case <-time.After(time.Until(deadline) + 200*time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	got, err := c.GetGameWithResponse(ctx, id, nil)
	if err != nil || got.JSON200 == nil {
		return errors.Join(err, unexpected("GET the clocked game", got.HTTPResponse, got.Body))
	}
	result, err := got.JSON200.Result.Get()
	if got.JSON200.Status != ayoayo.GameStatusFinished || err != nil || result.Reason != ayoayo.ResultReasonTimeout || result.Winner != ayoayo.ResultWinnerNorth {
		return unexpected("GET the clocked game after its deadline", got.HTTPResponse, got.Body)
	}
	fmt.Printf("the clocked game ended by %s, %s wins, at %s\n", result.Reason, result.Winner, got.JSON200.UpdatedAt.Format(time.RFC3339Nano))
	return nil
}

// offers plays an unrated game between the two players (tokens, South's
// first), each acting by its player's token: two moves, a takeback North
// asks for and South accepts, a draw North offers and South accepts; then
// checks that an offer in the finished game is refused. It returns the
// drawn game's id.
func offers(ctx context.Context, c *ayoayo.ClientWithResponses, tokens [2]string) (string, error) {
	created, err := c.CreateGameWithResponse(ctx, nil, ayoayo.CreateGameRequest{Opponent: ayoayo.Opponent{Type: ayoayo.OpponentTypeHuman}},
		asPlayer(tokens[0]))
	if err != nil || created.JSON201 == nil {
		return "", errors.Join(err, unexpected("POST /v1/games unrated", created.HTTPResponse, created.Body))
	}
	id := created.JSON201.Game.ID
	if joined, err := c.JoinGameWithResponse(ctx, id, nil, asPlayer(tokens[1])); err != nil || joined.JSON201 == nil {
		return "", errors.Join(err, unexpected("POST join unrated", joined.HTTPResponse, joined.Body))
	}
	for ply, pit := range []int{0, 6} {
		played, err := c.PlayGameMoveWithResponse(ctx, id, nil, ayoayo.PlayMoveRequest{Ply: ply, Pit: pit}, asPlayer(tokens[ply]))
		if err != nil || played.JSON201 == nil {
			return "", errors.Join(err, unexpected("POST moves in the unrated game", played.HTTPResponse, played.Body))
		}
	}
	asked, err := c.OfferTakebackWithResponse(ctx, id, nil, ayoayo.OfferRequest{Offer: true}, asPlayer(tokens[1]))
	if err != nil || asked.JSON200 == nil {
		return "", errors.Join(err, unexpected("POST takeback (ask)", asked.HTTPResponse, asked.Body))
	}
	if by, err := asked.JSON200.Offers.Takeback.Get(); err != nil || by != ayoayo.NullableSideNorth {
		return "", fmt.Errorf("after North asked for a takeback, offers %s", asked.Body)
	}
	back, err := c.OfferTakebackWithResponse(ctx, id, nil, ayoayo.OfferRequest{Offer: true}, asPlayer(tokens[0]))
	if err != nil || back.JSON200 == nil || back.JSON200.Ply != 1 || !back.JSON200.Offers.Takeback.IsNull() {
		return "", errors.Join(err, unexpected("POST takeback (accept)", back.HTTPResponse, back.Body))
	}
	fmt.Printf("takeback in game %s: North's move undone, the game is back at ply %d\n", id, back.JSON200.Ply)
	if offered, err := c.OfferDrawWithResponse(ctx, id, nil, ayoayo.OfferRequest{Offer: true}, asPlayer(tokens[1])); err != nil || offered.JSON200 == nil {
		return "", errors.Join(err, unexpected("POST draw (offer)", offered.HTTPResponse, offered.Body))
	}
	agreed, err := c.OfferDrawWithResponse(ctx, id, nil, ayoayo.OfferRequest{Offer: true}, asPlayer(tokens[0]))
	if err != nil || agreed.JSON200 == nil || agreed.JSON200.Status != ayoayo.GameStatusFinished {
		return "", errors.Join(err, unexpected("POST draw (accept)", agreed.HTTPResponse, agreed.Body))
	}
	if r, err := agreed.JSON200.Result.Get(); err != nil || r.Reason != ayoayo.ResultReasonAgreement || r.Winner != ayoayo.ResultWinnerDraw {
		return "", fmt.Errorf("a draw by agreement: %s", agreed.Body)
	}
	late, err := c.OfferDrawWithResponse(ctx, id, nil, ayoayo.OfferRequest{Offer: false}, asPlayer(tokens[1]))
	if err != nil || late.ApplicationProblemJSON409 == nil || late.ApplicationProblemJSON409.Code != "game_over" {
		return "", errors.Join(err, unexpected("POST draw in a finished game", late.HTTPResponse, late.Body))
	}
	fmt.Printf("draw by agreement in game %s; an offer after it: %d %s\n", id, late.StatusCode(), late.ApplicationProblemJSON409.Code)
	return id, nil
}

// meet brings the two players (ids, tokens, South's first) together the
// three ways the lobby offers: two seeks for the same 3+2 clock, the second
// answered already matched, both seeing the game (the first player's event
// stream starts with its gameStart); a challenge the second player accepts;
// and a rematch of the finished game drawn, which both ask for and which
// starts at once with the seats swapped. The clocked games are resigned
// so that neither player is left playing.
func meet(ctx context.Context, c *ayoayo.ClientWithResponses, ids, tokens [2]string, drawn string) error {
	three, two := 180, 2
	blitz := nullable.NewNullableWithValue(ayoayo.TimeControl{Kind: ayoayo.TimeControlKindClock, InitialSeconds: &three, IncrementSeconds: &two})
	var seeks [2]ayoayo.Seek
	for i := range tokens {
		posted, err := c.CreateSeekWithResponse(ctx, nil, ayoayo.SeekRequest{TimeControl: blitz}, asPlayer(tokens[i]))
		if err != nil || posted.JSON201 == nil {
			return errors.Join(err, unexpected("POST /v1/seeks", posted.HTTPResponse, posted.Body))
		}
		seeks[i] = *posted.JSON201
	}
	game, err := seeks[1].Game.Get()
	if seeks[0].Status != ayoayo.SeekStatusOpen || seeks[1].Status != ayoayo.SeekStatusMatched || err != nil {
		return fmt.Errorf("two compatible seeks: the first %s, the second %s (game %q), want open then matched", seeks[0].Status, seeks[1].Status, game)
	}
	first, err := c.GetSeekWithResponse(ctx, seeks[0].ID, nil, asPlayer(tokens[0]))
	if err != nil || first.JSON200 == nil {
		return errors.Join(err, unexpected("GET /v1/seeks/"+seeks[0].ID, first.HTTPResponse, first.Body))
	}
	if g, err := first.JSON200.Game.Get(); err != nil || first.JSON200.Status != ayoayo.SeekStatusMatched || g != game {
		return fmt.Errorf("the first seek after the second: %s, want matched in game %s", first.Body, game)
	}
	started, err := firstGameStart(ctx, c, tokens[0])
	if err != nil {
		return err
	}
	if started.GameID != game {
		return fmt.Errorf("the first player's event stream starts with game %s, want %s", started.GameID, game)
	}
	if err := bothSeated(ctx, c, game, ids, false); err != nil {
		return err
	}
	if err := resign(ctx, c, game, tokens[0]); err != nil {
		return err
	}
	fmt.Printf("seeks: %s open, %s matched at once into game %s; the first player's event stream: gameStart as %s\n",
		seeks[0].ID, seeks[1].ID, game, started.Side)

	to := ids[1]
	sent, err := c.CreateChallengeWithResponse(ctx, nil, ayoayo.ChallengeRequest{To: &to, TimeControl: blitz}, asPlayer(tokens[0]))
	if err != nil || sent.JSON201 == nil || sent.JSON201.Status != ayoayo.ChallengeStatusPending {
		return errors.Join(err, unexpected("POST /v1/challenges", sent.HTTPResponse, sent.Body))
	}
	accepted, err := c.AcceptChallengeWithResponse(ctx, sent.JSON201.ID, nil, asPlayer(tokens[1]))
	if err != nil || accepted.JSON200 == nil || accepted.JSON200.Status != ayoayo.ChallengeStatusAccepted {
		return errors.Join(err, unexpected("POST /v1/challenges/{id}/accept", accepted.HTTPResponse, accepted.Body))
	}
	game, err = accepted.JSON200.Game.Get()
	if err != nil {
		return fmt.Errorf("an accepted challenge names no game: %s", accepted.Body)
	}
	if err := bothSeated(ctx, c, game, ids, false); err != nil {
		return err
	}
	if err := resign(ctx, c, game, tokens[1]); err != nil {
		return err
	}
	fmt.Printf("challenge %s to %s accepted: game %s\n", sent.JSON201.ID, to, game)

	asked, err := c.RematchGameWithResponse(ctx, drawn, nil, asPlayer(tokens[0]))
	if err != nil || asked.JSON201 == nil || asked.JSON201.Status != ayoayo.ChallengeStatusPending {
		return errors.Join(err, unexpected("POST /v1/games/{id}/rematch (ask)", asked.HTTPResponse, asked.Body))
	}
	both, err := c.RematchGameWithResponse(ctx, drawn, nil, asPlayer(tokens[1]))
	if err != nil || both.JSON201 == nil || both.JSON201.Status != ayoayo.ChallengeStatusAccepted {
		return errors.Join(err, unexpected("POST /v1/games/{id}/rematch (both asked)", both.HTTPResponse, both.Body))
	}
	game, err = both.JSON201.Game.Get()
	if err != nil {
		return fmt.Errorf("a rematch both asked for names no game: %s", both.Body)
	}
	// The drawn game had the first player South: the rematch swaps seats.
	if err := bothSeated(ctx, c, game, [2]string{ids[1], ids[0]}, true); err != nil {
		return err
	}
	fmt.Printf("rematch of %s asked by both: game %s started at once, seats swapped\n", drawn, game)
	return nil
}

// firstGameStart opens a player's event stream (GET /v1/players/me/events,
// Server-Sent Events read with the plain HTTP client the generated one
// hands back) and returns its first gameStart: a new stream starts with the
// player's games in play.
func firstGameStart(ctx context.Context, c *ayoayo.ClientWithResponses, token string) (ayoayo.PlayerGameStartEvent, error) {
	var start ayoayo.PlayerGameStartEvent
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resp, err := c.ClientInterface.FollowPlayerEvents(ctx, nil, asPlayer(token))
	if err != nil {
		return start, fmt.Errorf("GET /v1/players/me/events: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return start, unexpected("GET /v1/players/me/events", resp, nil)
	}
	event := ""
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		line := lines.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			event = name
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok && event == "gameStart" {
			if err := json.Unmarshal([]byte(data), &start); err != nil {
				return start, fmt.Errorf("a gameStart event %s: %w", data, err)
			}
			return start, nil
		}
	}
	return start, fmt.Errorf("the event stream ended without a gameStart: %v", lines.Err())
}

// bothSeated checks that game is active between players ids: South's first
// when ordered, else in either seat (the seat was left to chance).
func bothSeated(ctx context.Context, c *ayoayo.ClientWithResponses, game string, ids [2]string, ordered bool) error {
	got, err := c.GetGameWithResponse(ctx, game, nil)
	if err != nil || got.JSON200 == nil {
		return errors.Join(err, unexpected("GET /v1/games/"+game, got.HTTPResponse, got.Body))
	}
	south, serr := got.JSON200.Players.South.Get()
	north, nerr := got.JSON200.Players.North.Get()
	seated := [2]string{south.ID, north.ID}
	if got.JSON200.Status != ayoayo.GameStatusActive || serr != nil || nerr != nil ||
		seated != ids && (ordered || seated != [2]string{ids[1], ids[0]}) {
		return fmt.Errorf("game %s should be active between South %s and North %s: %s", game, ids[0], ids[1], got.Body)
	}
	return nil
}

// resign ends a game by a player's resignation (in a rated game in which
// nobody has moved, an abort).
func resign(ctx context.Context, c *ayoayo.ClientWithResponses, game, token string) error {
	r, err := c.ResignGameWithResponse(ctx, game, nil, asPlayer(token))
	if err != nil || r.JSON200 == nil || r.JSON200.Status == ayoayo.GameStatusActive {
		return errors.Join(err, unexpected("POST resign by a player's token", r.HTTPResponse, r.Body))
	}
	return nil
}

// reviewGame asks for the engine's review of a finished game and reads it
// until it is done: one entry per move, an accuracy per side.
func reviewGame(ctx context.Context, c *ayoayo.ClientWithResponses, id string, plies int) error {
	asked, err := c.RequestGameReviewWithResponse(ctx, id, nil)
	if err != nil || (asked.JSON202 == nil && asked.JSON200 == nil) {
		return errors.Join(err, unexpected("POST review", asked.HTTPResponse, asked.Body))
	}
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		got, err := c.GetGameReviewWithResponse(ctx, id, nil)
		if err != nil || got.JSON200 == nil {
			return errors.Join(err, unexpected("GET review", got.HTTPResponse, got.Body))
		}
		r := got.JSON200
		if r.State != ayoayo.GameReviewStateDone {
			continue
		}
		if r.Review == nil || len(r.Review.Plies) != plies {
			return fmt.Errorf("the review of %d plies is %s", plies, got.Body)
		}
		fmt.Printf("review: %d plies, accuracy south %.2f north %.2f\n", plies, r.Review.South.Accuracy, r.Review.North.Accuracy)
		return nil
	}
	return fmt.Errorf("the review of game %s was not done in 3 minutes", id)
}
