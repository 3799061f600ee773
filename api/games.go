package api

// The /v1/games handlers: they decode, find the caller's token and address,
// ask the game service (package games) and encode. Errors are returned for
// errors.go to answer.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// Defaults of the game options.
const (
	DefaultEventHeartbeat = 15 * time.Second
	defaultMovesLimit     = 100
)

// GameService is what the /v1/games handlers need: *games.Service has it.
type GameService interface {
	Create(ctx context.Context, req games.NewGame) (games.Seat, error)
	Join(ctx context.Context, id string, player *players.Player) (games.Seat, error)
	Game(ctx context.Context, id string) (games.Game, error)
	Moves(ctx context.Context, id string, from, limit int) ([]games.Move, error)
	Play(ctx context.Context, req games.MoveRequest) (res games.PlayResult, replayed bool, err error)
	Resign(ctx context.Context, id string, by games.Actor) (games.Game, error)
	Draw(ctx context.Context, id string, by games.Actor, offer bool) (games.Game, error)
	Takeback(ctx context.Context, id string, by games.Actor, offer bool) (games.Game, error)
	Abort(ctx context.Context, id string, by games.Actor) (games.Game, error)
	ClaimVictory(ctx context.Context, id string, by games.Actor) (games.Game, error)
	ClaimDraw(ctx context.Context, id string, by games.Actor) (games.Game, error)
}

// GameHub is what the event streams need: *games.Hub has it.
type GameHub interface {
	Follow(ctx context.Context, id string, lastID int, heartbeat time.Duration, out games.Stream) error
}

// noGames stands in for the game service and the hub of a server started
// without them: every operation answers 503.
type noGames struct{}

var errNoGames = newError(ErrNotReady, "this server was started without game sessions")

func (noGames) Create(context.Context, games.NewGame) (games.Seat, error) {
	return games.Seat{}, errNoGames
}
func (noGames) Join(context.Context, string, *players.Player) (games.Seat, error) {
	return games.Seat{}, errNoGames
}
func (noGames) Game(context.Context, string) (games.Game, error) { return games.Game{}, errNoGames }
func (noGames) Moves(context.Context, string, int, int) ([]games.Move, error) {
	return nil, errNoGames
}
func (noGames) Play(context.Context, games.MoveRequest) (games.PlayResult, bool, error) {
	return games.PlayResult{}, false, errNoGames
}
func (noGames) Resign(context.Context, string, games.Actor) (games.Game, error) {
	return games.Game{}, errNoGames
}
func (noGames) Draw(context.Context, string, games.Actor, bool) (games.Game, error) {
	return games.Game{}, errNoGames
}
func (noGames) Takeback(context.Context, string, games.Actor, bool) (games.Game, error) {
	return games.Game{}, errNoGames
}
func (noGames) Abort(context.Context, string, games.Actor) (games.Game, error) {
	return games.Game{}, errNoGames
}
func (noGames) ClaimVictory(context.Context, string, games.Actor) (games.Game, error) {
	return games.Game{}, errNoGames
}
func (noGames) ClaimDraw(context.Context, string, games.Actor) (games.Game, error) {
	return games.Game{}, errNoGames
}
func (noGames) Follow(context.Context, string, int, time.Duration, games.Stream) error {
	return errNoGames
}

// callerKey keys the caller's token and address in a request's context.
type callerKey struct{}

type caller struct {
	token string // the bearer token, "" when none
	// playerToken is the Player-Token header, "" when none. It goes to
	// the players service only, and into no log line or answer.
	playerToken string
	// need is what the operation asks of a player token (from the
	// document's security); player the player a scoped token acts as,
	// once withCaller has checked it has the scope (nil otherwise).
	need   need
	player *players.Player
	addr   string // the client's address (c.RealIP()), for rate limits, stream limits and the AI's fair share
	head   bool   // a HEAD request: the status and headers are the whole answer
	accept string // the Accept header: GET /v1/games/{id} answers the record notation when it asks for it
}

// withCaller is a strict middleware that puts the bearer token and the
// client address in the context the handlers get, since the generated
// handlers see no headers that the document does not declare as parameters.
//
// The operations that never ask who calls (callerless) are passed through
// as they are: a copy of the request and its context per request is a
// tenth of what /v1/evaluate costs the server.
func (s *Server) withCaller(f oapi.StrictHandlerFunc, operation string) oapi.StrictHandlerFunc {
	if callerless[operation] {
		return f
	}
	return func(c echo.Context, req any) (any, error) {
		r := c.Request()
		cl := caller{token: bearerToken(r.Header.Get(echo.HeaderAuthorization)), playerToken: strings.TrimSpace(r.Header.Get(PlayerTokenHeader)),
			need: s.needs[operation], addr: c.RealIP(), head: r.Method == http.MethodHead, accept: r.Header.Get(echo.HeaderAccept)}
		// A bearer token with a scoped token's prefix is no seat's: it is
		// the player's, unless a Player-Token says who the player is.
		if players.IsScopedToken(cl.token) {
			if cl.playerToken == "" {
				cl.playerToken = cl.token
			}
			cl.token = ""
		}
		if err := s.authorizeScoped(r.Context(), &cl); err != nil {
			return nil, err
		}
		c.SetRequest(r.WithContext(context.WithValue(r.Context(), callerKey{}, cl)))
		return f(c, req)
	}
}

// callerless are the operations whose handlers (in handlers.go, batch.go
// and ops.go) never read the caller: the stateless moves and the server's
// own pages. TestCallerlessHandlers keeps those files free of it.
var callerless = map[string]bool{
	"EvaluateMove": true, "ListMoves": true, "ValidateRecord": true, "ValidateRecordsBatch": true, "AnalyzePosition": true,
	"GetLivez": true, "GetReadyz": true, "GetMetrics": true, "GetOpenAPI": true, "GetDocs": true,
}

// bearerToken reads "Bearer TOKEN" (the scheme in any case, RFC 7235).
func bearerToken(h string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// actor is who the caller acts as in a game: the seat token it sends, or
// else the player its Player-Token authenticates (games decides which
// seat, if any, is that player's).
func (s *Server) actor(ctx context.Context) (games.Actor, error) {
	cl := callerOf(ctx)
	if players.IsPlayerToken(cl.token) {
		// A seat token is never one: the client sent the wrong header.
		return games.Actor{}, fmt.Errorf("%w: that is a Player-Token: send it as the Player-Token header", games.ErrUnauthorized)
	}
	if cl.token != "" || cl.playerToken == "" {
		return games.Actor{Token: cl.token}, nil
	}
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return games.Actor{}, err
	}
	return games.Actor{Player: p.ID}, nil
}

func callerOf(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// CreateGame starts a game for the caller.
func (s *Server) CreateGame(ctx context.Context, req oapi.CreateGameRequestObject) (oapi.CreateGameResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	b := req.Body
	nr := games.NewGame{Start: engine.Start(), Seat: engine.South, Client: callerOf(ctx).addr}
	var err error
	if nr.Rules, err = rulesFromAPI(b.Rules); err != nil {
		return nil, err
	}
	if b.Start != nil {
		if nr.Start, err = positionFromAPI(*b.Start); err != nil {
			return nil, err
		}
	}
	if b.Seat != nil {
		if nr.Seat, err = engine.ParseSide(string(*b.Seat)); err != nil {
			return nil, err
		}
	}
	switch {
	case b.Opponent.Type == oapi.OpponentTypeAi && b.Opponent.Level == nil:
		return nil, newError(ErrInvalidRequest, "request body at /opponent/level: the AI needs a level from 1 to 8")
	case b.Opponent.Type == oapi.OpponentTypeAi:
		nr.AILevel = *b.Opponent.Level
	case b.Opponent.Level != nil:
		return nil, newError(ErrInvalidRequest, "request body at /opponent/level: a level is only for the AI")
	}
	if tc, err := b.TimeControl.Get(); err == nil {
		nr.TimeControl = timeControlFromAPI(tc)
	}
	nr.Rated = b.Rated != nil && *b.Rated
	if nr.Player, err = s.callerPlayer(ctx); err != nil {
		return nil, err
	}
	seat, err := s.games.Create(ctx, nr)
	if err != nil {
		return nil, err
	}
	loc := "/v1/games/" + seat.Game.ID
	return oapi.CreateGame201JSONResponse{Body: seatToAPI(&seat, s.seatBots(ctx, &seat.Game)), Headers: oapi.CreateGame201ResponseHeaders{Location: &loc}}, nil
}

// JoinGame gives the caller the second seat, once.
func (s *Server) JoinGame(ctx context.Context, req oapi.JoinGameRequestObject) (oapi.JoinGameResponseObject, error) {
	player, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	seat, err := s.games.Join(ctx, req.Id, player)
	if err != nil {
		return nil, err
	}
	return oapi.JoinGame201JSONResponse(seatToAPI(&seat, s.seatBots(ctx, &seat.Game))), nil
}

// gameETag is the game's entity tag: its version, which every change bumps.
func gameETag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// GetGame returns the game, or 304 when If-None-Match has its current ETag.
func (s *Server) GetGame(ctx context.Context, req oapi.GetGameRequestObject) (oapi.GetGameResponseObject, error) {
	g, err := s.games.Game(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	etag, vary := gameETag(g.Version), "Accept"
	asRecord := wantsRecord(callerOf(ctx).accept)
	var text string
	if asRecord {
		// The record is written before the ETag is known: a review that
		// lands changes the record, not the game's version.
		var reviewed bool
		if text, reviewed, err = s.gameRecord(ctx, &g); err != nil {
			return nil, err
		}
		etag = strings.TrimSuffix(etag, `"`) + `-record"`
		if reviewed {
			etag = strings.TrimSuffix(etag, `"`) + `-reviewed"`
		}
	}
	if notModified(req.Params.IfNoneMatch, etag) {
		return oapi.GetGame304Response{Headers: oapi.GetGame304ResponseHeaders{ETag: &etag}}, nil
	}
	headers := oapi.GetGame200ResponseHeaders{ETag: &etag, Vary: &vary}
	if asRecord {
		return oapi.GetGame200ApplicationxAyoayoRecordResponse{Body: strings.NewReader(text), ContentLength: int64(len(text)), Headers: headers}, nil
	}
	return oapi.GetGame200JSONResponse{Body: gameToAPI(&g, s.seatBots(ctx, &g)), Headers: headers}, nil
}

// ListGameMoves returns a page of the history.
func (s *Server) ListGameMoves(ctx context.Context, req oapi.ListGameMovesRequestObject) (oapi.ListGameMovesResponseObject, error) {
	from, limit := 0, defaultMovesLimit
	if req.Params.From != nil {
		from = *req.Params.From
	}
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	// One more than asked for tells whether a next page exists.
	ms, err := s.games.Moves(ctx, req.Id, from, limit+1)
	if err != nil {
		return nil, err
	}
	page := oapi.GameMovesPage{Moves: make([]oapi.GameMove, 0, min(len(ms), limit))}
	for i := range ms[:min(len(ms), limit)] {
		page.Moves = append(page.Moves, moveToAPI(&ms[i]))
	}
	if len(ms) > limit {
		page.NextFrom.Set(from + limit)
	} else {
		page.NextFrom.SetNull()
	}
	return oapi.ListGameMoves200JSONResponse(page), nil
}

// rawPlayAnswer writes a move's answer as encodePlay made it: a retry's,
// rebuilt by the service, is the same bytes the first request got.
type rawPlayAnswer struct {
	status int
	body   []byte
}

func (r rawPlayAnswer) VisitPlayGameMoveResponse(w http.ResponseWriter) error {
	w.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	w.WriteHeader(r.status)
	_, err := w.Write(r.body)
	return err
}

// PlayGameMove plays a move for the seat whose token the caller sent.
func (s *Server) PlayGameMove(ctx context.Context, req oapi.PlayGameMoveRequestObject) (oapi.PlayGameMoveResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	by, err := s.actor(ctx)
	if err != nil {
		return nil, err
	}
	mr := games.MoveRequest{ID: req.Id, Token: by.Token, Player: by.Player, Ply: req.Body.Ply, Pit: req.Body.Pit, Client: callerOf(ctx).addr,
		OfferDraw: req.Body.OfferDraw != nil && *req.Body.OfferDraw}
	res, replayed, err := s.games.Play(ctx, mr)
	if err != nil {
		return nil, err
	}
	body, err := encodePlay(&res, s.seatBots(ctx, &res.Game))
	if err != nil {
		return nil, err
	}
	if replayed {
		return rawPlayAnswer{status: http.StatusOK, body: body}, nil
	}
	return rawPlayAnswer{status: http.StatusCreated, body: body}, nil
}

// ResignGame ends the game for the caller's seat; the same seat resigning
// again gets the same answer.
func (s *Server) ResignGame(ctx context.Context, req oapi.ResignGameRequestObject) (oapi.ResignGameResponseObject, error) {
	by, err := s.actor(ctx)
	if err != nil {
		return nil, err
	}
	g, err := s.games.Resign(ctx, req.Id, by)
	if err != nil {
		return nil, err
	}
	return oapi.ResignGame200JSONResponse(gameToAPI(&g, s.seatBots(ctx, &g))), nil
}

// OfferDraw offers, accepts, refuses or withdraws a draw for the caller's
// seat.
func (s *Server) OfferDraw(ctx context.Context, req oapi.OfferDrawRequestObject) (oapi.OfferDrawResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	by, err := s.actor(ctx)
	if err != nil {
		return nil, err
	}
	g, err := s.games.Draw(ctx, req.Id, by, req.Body.Offer)
	if err != nil {
		return nil, err
	}
	return oapi.OfferDraw200JSONResponse(gameToAPI(&g, s.seatBots(ctx, &g))), nil
}

// OfferTakeback asks for, accepts, refuses or withdraws a takeback for
// the caller's seat.
func (s *Server) OfferTakeback(ctx context.Context, req oapi.OfferTakebackRequestObject) (oapi.OfferTakebackResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	by, err := s.actor(ctx)
	if err != nil {
		return nil, err
	}
	g, err := s.games.Takeback(ctx, req.Id, by, req.Body.Offer)
	if err != nil {
		return nil, err
	}
	return oapi.OfferTakeback200JSONResponse(gameToAPI(&g, s.seatBots(ctx, &g))), nil
}

// AbortGame ends the game with no result before both sides have moved.
func (s *Server) AbortGame(ctx context.Context, req oapi.AbortGameRequestObject) (oapi.AbortGameResponseObject, error) {
	g, err := s.gameWrite(ctx, req.Id, s.games.Abort)
	if err != nil {
		return nil, err
	}
	return oapi.AbortGame200JSONResponse(g), nil
}

// ClaimVictory ends the game as the caller's win, its opponent gone.
func (s *Server) ClaimVictory(ctx context.Context, req oapi.ClaimVictoryRequestObject) (oapi.ClaimVictoryResponseObject, error) {
	g, err := s.gameWrite(ctx, req.Id, s.games.ClaimVictory)
	if err != nil {
		return nil, err
	}
	return oapi.ClaimVictory200JSONResponse(g), nil
}

// ClaimDraw ends the game as a draw, the caller's opponent gone.
func (s *Server) ClaimDraw(ctx context.Context, req oapi.ClaimDrawRequestObject) (oapi.ClaimDrawResponseObject, error) {
	g, err := s.gameWrite(ctx, req.Id, s.games.ClaimDraw)
	if err != nil {
		return nil, err
	}
	return oapi.ClaimDraw200JSONResponse(g), nil
}

// gameWrite does a bodiless write to game id for the caller's seat.
func (s *Server) gameWrite(ctx context.Context, id string, do func(context.Context, string, games.Actor) (games.Game, error)) (oapi.Game, error) {
	by, err := s.actor(ctx)
	if err != nil {
		return oapi.Game{}, err
	}
	g, err := do(ctx, id, by)
	if err != nil {
		return oapi.Game{}, err
	}
	return gameToAPI(&g, s.seatBots(ctx, &g)), nil
}

// FollowGameEvents streams the game's events. The game is looked up first,
// so an unknown one is a 404 problem, not an empty stream, and a
// Last-Event-ID the game has not reached a 400, not a stream that waits in
// silence for a ply that may never come. While the database is unavailable
// the stream opens all the same and waits for it: a browser's EventSource
// gives up for good on an answer other than 200, and on a 200 it keeps
// reconnecting, however the stream ends.
func (s *Server) FollowGameEvents(ctx context.Context, req oapi.FollowGameEventsRequestObject) (oapi.FollowGameEventsResponseObject, error) {
	if _, none := s.hub.(noGames); none {
		return nil, errNoGames
	}
	g, err := s.games.Game(ctx, req.Id)
	unavailable := errors.Is(err, fault.ErrUnavailable)
	if err != nil && !unavailable {
		return nil, err
	}
	last := -1
	if id := lastEventID(req.Params.LastEventID, req.Params.LastEventIDQuery); id != nil {
		last = *id
	}
	if !unavailable && last > games.MaxEventID(g.Version) {
		return nil, newError(ErrInvalidRequest, "header parameter Last-Event-ID: %d is after the game's last event id, at most %d", last, games.MaxEventID(g.Version))
	}
	release, err := s.streams.Acquire(callerOf(ctx).addr, req.Id)
	if err != nil {
		return nil, err
	}
	return gameStream{s: s, ctx: ctx, id: req.Id, last: last, release: release, head: callerOf(ctx).head}, nil
}

// gameStream writes a game's events as Server-Sent Events.
type gameStream struct {
	s       *Server
	release func() // gives back the stream's slot
	ctx     context.Context
	id      string
	last    int
	// head: a HEAD request gets the stream's headers and no stream, which
	// would never end (net/http drops what is written to it, so no write
	// would ever fail).
	head bool
}

func (gs gameStream) VisitFollowGameEventsResponse(w http.ResponseWriter) error {
	defer gs.release()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // tell proxies not to hold events back
	w.WriteHeader(http.StatusOK)
	if gs.head {
		return nil
	}

	out := eventStream{SSEWriter: httpx.NewSSEWriter(w), frames: gs.s.frames, game: gs.id}
	if err := out.SSEWriter.Send([]byte("retry: 2000\n\n")); err != nil {
		return nil // the client is gone
	}
	err := gs.s.hub.Follow(gs.ctx, gs.id, gs.last, gs.s.opts.EventHeartbeat, out)
	// When a game ends, all its followers' streams end at once, and the
	// teardown of one (the final chunk, closing the response, its log line)
	// would run before the followers woken with it have written the last
	// events. Yielding first puts that work behind their writes: with 5,000
	// followers it took the last move's delivery p99 from about 300 ms to
	// about 100 ms.
	runtime.Gosched()
	if err != nil && gs.ctx.Err() == nil && !out.Failed() {
		// The answer has started: the error can only be logged.
		gs.s.log.ErrorContext(gs.ctx, "event stream failed", "game", gs.id, "error", err.Error())
	}
	return nil
}

// eventStream is the games.Stream of one follower: each event's frame,
// made once for every follower of the game (frames), goes out through the
// Server-Sent Events writer as it is.
type eventStream struct {
	*httpx.SSEWriter
	frames *frames
	game   string
}

func (s eventStream) Send(e games.Event) error {
	frame, err := s.frames.frame(s.game, e)
	if err != nil {
		return err
	}
	return s.Write(frame)
}

// gameProblemMembers adds to a game problem what the client needs to
// recover: the current ply of a stale move, the rules' reason of an illegal
// one.
func gameProblemMembers(err error, p *problem.Problem) {
	var stale *games.StalePlyError
	if errors.As(err, &stale) {
		p.CurrentPly = &stale.Current
	}
	var me *engine.MoveError
	if errors.As(err, &me) {
		p.Reason = me.Reason.String()
	}
}

// gameProblemHeaders sets the headers some game problems carry: the real
// wait of a rate limit, and the scheme a 401 wants (RFC 9110 11.6.1).
func gameProblemHeaders(err error, h http.Header) {
	var rl *httpx.RateLimitError
	if errors.As(err, &rl) {
		h.Set(echo.HeaderRetryAfter, strconv.Itoa(rl.RetrySeconds()))
	}
	if errors.Is(err, games.ErrUnauthorized) {
		h.Set(echo.HeaderWWWAuthenticate, "Bearer")
	}
	// A player's token is no HTTP authentication scheme: the challenge
	// names the header it goes in.
	if errors.Is(err, players.ErrUnauthorized) || errors.Is(err, players.ErrTokenExpired) || errors.Is(err, players.ErrTokenRevoked) {
		h.Set(echo.HeaderWWWAuthenticate, PlayerTokenHeader)
	}
}
