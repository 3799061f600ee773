package api

// The /v1/games handlers: they decode, find the caller's token and address,
// ask the game service (gamesvc.go) and encode. Errors are returned for
// errors.go to answer.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/engine"
	store "github.com/ayoayo/ayoayo/store/sqlite"
)

// Defaults of the game options.
const (
	DefaultAIMoveTime     = time.Second
	DefaultEventHeartbeat = 15 * time.Second
	defaultMovesLimit     = 100
	// eventWriteTimeout bounds each write of an event stream, in place of the
	// server's write timeout, which would cut every stream after its time.
	eventWriteTimeout = 30 * time.Second
)

// errNoGames answers the game operations of a server built without a store.
var errNoGames = newError(ErrNotReady, "this server was started without a game store")

// gameAPI is the games part of the Server.
type gameAPI struct {
	svc         *gameService
	createLimit *rateLimiter
	trustProxy  bool
	heartbeat   time.Duration
}

// initGames builds the games part from the options; without a store the game
// operations answer 503.
func (s *Server) initGames() {
	o := s.opts
	if o.Games == nil {
		return
	}
	g := &gameAPI{
		svc:         newGameService(o.Games, o.ChooseMove, o.AIMoveTime, o.AIConcurrency, o.Logger),
		createLimit: newRateLimiter(o.GameCreateRate, o.GameCreateBurst, nil),
		trustProxy:  o.TrustProxyHeaders,
		heartbeat:   o.EventHeartbeat,
	}
	g.svc.stopping = o.Stopping
	if g.heartbeat <= 0 {
		g.heartbeat = DefaultEventHeartbeat
	}
	s.games = g
}

// callerKey keys the caller's token and address in a request's context.
type callerKey struct{}

type caller struct {
	token string // the bearer token, "" when none
	addr  string // the client's address, for rate limits
}

// withCaller is a strict middleware that puts the bearer token and the
// client address in the context the handlers get, since the generated
// handlers see no headers that the document does not declare as parameters.
func (s *Server) withCaller(f StrictHandlerFunc, _ string) StrictHandlerFunc {
	return func(c echo.Context, req any) (any, error) {
		r := c.Request()
		cl := caller{token: bearerToken(r.Header.Get(echo.HeaderAuthorization))}
		if s.games != nil && s.games.trustProxy {
			cl.addr = c.RealIP()
		} else if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
			cl.addr = host
		} else {
			cl.addr = r.RemoteAddr
		}
		c.SetRequest(r.WithContext(context.WithValue(r.Context(), callerKey{}, cl)))
		return f(c, req)
	}
}

// bearerToken reads "Bearer TOKEN" (the scheme in any case, RFC 7235).
func bearerToken(h string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

func callerOf(ctx context.Context) caller {
	c, _ := ctx.Value(callerKey{}).(caller)
	return c
}

// CreateGame starts a game for the caller.
func (s *Server) CreateGame(ctx context.Context, req CreateGameRequestObject) (CreateGameResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	if req.Body == nil {
		return nil, errNoBody
	}
	if err := s.games.createLimit.allow(callerOf(ctx).addr); err != nil {
		return nil, err
	}
	b := req.Body
	nr := newGameRequest{Start: engine.Start(), Seat: engine.South}
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
	case b.Opponent.Type == OpponentTypeAi && b.Opponent.Level == nil:
		return nil, newError(ErrInvalidRequest, "request body at /opponent/level: the AI needs a level from 1 to 8")
	case b.Opponent.Type == OpponentTypeAi:
		nr.AILevel = *b.Opponent.Level
	case b.Opponent.Level != nil:
		return nil, newError(ErrInvalidRequest, "request body at /opponent/level: a level is only for the AI")
	}
	seat, err := s.games.svc.create(ctx, nr)
	if err != nil {
		return nil, err
	}
	loc := "/v1/games/" + seat.Game.ID
	return CreateGame201JSONResponse{Body: seatToAPI(&seat), Headers: CreateGame201ResponseHeaders{Location: &loc}}, nil
}

// JoinGame gives the caller the second seat, once.
func (s *Server) JoinGame(ctx context.Context, req JoinGameRequestObject) (JoinGameResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	seat, err := s.games.svc.join(ctx, req.Id)
	if err != nil {
		return nil, gameError(req.Id, err)
	}
	return JoinGame201JSONResponse(seatToAPI(&seat)), nil
}

// gameError names the game in a not-found error's detail.
func gameError(id string, err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("game %s: %w", id, err)
	}
	return err
}

// gameETag is the game's entity tag: its version, which every change bumps.
func gameETag(version int64) string { return `"` + strconv.FormatInt(version, 10) + `"` }

// GetGame returns the game, or 304 when If-None-Match has its current ETag.
func (s *Server) GetGame(ctx context.Context, req GetGameRequestObject) (GetGameResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	g, err := s.games.svc.game(ctx, req.Id)
	if err != nil {
		return nil, gameError(req.Id, err)
	}
	etag := gameETag(g.Version)
	if notModified(req.Params.IfNoneMatch, etag) {
		return GetGame304Response{Headers: GetGame304ResponseHeaders{ETag: &etag}}, nil
	}
	return GetGame200JSONResponse{Body: gameToAPI(&g), Headers: GetGame200ResponseHeaders{ETag: &etag}}, nil
}

// ListGameMoves returns a page of the history.
func (s *Server) ListGameMoves(ctx context.Context, req ListGameMovesRequestObject) (ListGameMovesResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	from, limit := 0, defaultMovesLimit
	if req.Params.From != nil {
		from = *req.Params.From
	}
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	// One more than asked for tells whether a next page exists.
	ms, err := s.games.svc.moves(ctx, req.Id, from, limit+1)
	if err != nil {
		return nil, gameError(req.Id, err)
	}
	page := GameMovesPage{Moves: make([]GameMove, 0, min(len(ms), limit))}
	for i := range ms[:min(len(ms), limit)] {
		page.Moves = append(page.Moves, moveToAPI(&ms[i]))
	}
	if len(ms) > limit {
		page.NextFrom.Set(from + limit)
	} else {
		page.NextFrom.SetNull()
	}
	return ListGameMoves200JSONResponse(page), nil
}

// rawPlayAnswer writes a move's answer as it was encoded and stored, so a
// retry gets exactly the bytes the first request got.
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
func (s *Server) PlayGameMove(ctx context.Context, req PlayGameMoveRequestObject) (PlayGameMoveResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	if req.Body == nil {
		return nil, errNoBody
	}
	body, replayed, err := s.games.svc.play(ctx, req.Id, callerOf(ctx).token, req.Body.Ply, req.Body.Pit, encodePlay)
	if err != nil {
		return nil, gameError(req.Id, err)
	}
	if replayed {
		return rawPlayAnswer{status: http.StatusOK, body: body}, nil
	}
	return rawPlayAnswer{status: http.StatusCreated, body: body}, nil
}

// ResignGame ends the game for the caller's seat.
func (s *Server) ResignGame(ctx context.Context, req ResignGameRequestObject) (ResignGameResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	g, err := s.games.svc.resign(ctx, req.Id, callerOf(ctx).token)
	if err != nil {
		return nil, gameError(req.Id, err)
	}
	return ResignGame200JSONResponse(gameToAPI(&g)), nil
}

// FollowGameEvents streams the game's events. The game is looked up first,
// so an unknown one is a 404 problem, not an empty stream.
func (s *Server) FollowGameEvents(ctx context.Context, req FollowGameEventsRequestObject) (FollowGameEventsResponseObject, error) {
	if s.games == nil {
		return nil, errNoGames
	}
	if _, err := s.games.svc.game(ctx, req.Id); err != nil {
		return nil, gameError(req.Id, err)
	}
	last := -1
	if req.Params.LastEventID != nil {
		last = *req.Params.LastEventID
	}
	return gameStream{api: s.games, ctx: ctx, id: req.Id, last: last}, nil
}

// gameStream writes a game's events as Server-Sent Events.
type gameStream struct {
	api  *gameAPI
	ctx  context.Context
	id   string
	last int
}

func (gs gameStream) VisitFollowGameEventsResponse(w http.ResponseWriter) error {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // tell proxies not to hold events back
	w.WriteHeader(http.StatusOK)

	// Each write gets its own deadline instead of the server's write timeout,
	// which counts from the start of the response and would cut every stream.
	writeFailed := false
	write := func(b []byte) error {
		_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
		_, err := w.Write(b)
		if err == nil {
			err = rc.Flush()
		}
		writeFailed = err != nil
		return err
	}
	if err := write([]byte("retry: 2000\n\n")); err != nil {
		return nil // the client is gone
	}
	var buf []byte
	emit := func(e gameEvent) error {
		var data any
		switch e.Kind {
		case eventMove:
			data = moveToAPI(e.Move)
		default:
			data = gameToAPI(e.Game)
		}
		payload, err := json.Marshal(data)
		if err != nil {
			return err
		}
		buf = fmt.Appendf(buf[:0], "id: %d\nevent: %s\ndata: %s\n\n", e.ID, e.Kind, payload)
		return write(buf)
	}
	beat := func() error { return write([]byte(": ping\n\n")) }
	err := gs.api.svc.follow(gs.ctx, gs.id, gs.last, gs.api.heartbeat, emit, beat)
	if err != nil && gs.ctx.Err() == nil && !writeFailed {
		// The answer has started: the error can only be logged.
		gs.api.svc.log.ErrorContext(gs.ctx, "event stream failed", "game", gs.id, "error", err.Error())
	}
	return nil
}

// gameProblemMembers adds to a game problem what the client needs to
// recover: the current ply of a stale move, the rules' reason of an illegal
// one.
func gameProblemMembers(err error, p *problem) {
	var stale *store.StalePlyError
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
	var rl *RateLimitError
	if errors.As(err, &rl) {
		h.Set(echo.HeaderRetryAfter, strconv.Itoa(rl.RetrySeconds()))
	}
	if errors.Is(err, ErrUnauthorized) {
		h.Set(echo.HeaderWWWAuthenticate, "Bearer")
	}
}
