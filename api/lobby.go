package api

// The lobby's handlers (/v1/seeks, /v1/lobby, /v1/challenges, rematches and
// the players' event streams): they decode, find the caller's player, ask
// the lobby service (package lobby) and encode. Errors are returned for
// errors.go to answer.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/oapi-codegen/nullable"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

// defaultLobbyLimit is GET /v1/lobby's page without a limit.
const defaultLobbyLimit = 50

// LobbyService is what the lobby's handlers need: *lobby.Service has it.
type LobbyService interface {
	PostSeek(ctx context.Context, p *players.Player, req lobby.NewSeek) (lobby.Seek, error)
	Seek(ctx context.Context, p *players.Player, id string) (lobby.Seek, error)
	CancelSeek(ctx context.Context, p *players.Player, id string) (lobby.Seek, error)
	Lobby(ctx context.Context, kind games.TimeKind, rated *bool, limit int) ([]lobby.Seek, error)
	Challenge(ctx context.Context, p *players.Player, req lobby.NewChallenge) (lobby.Challenge, error)
	GetChallenge(ctx context.Context, id string) (lobby.Challenge, error)
	Accept(ctx context.Context, p *players.Player, id string) (lobby.Challenge, error)
	Decline(ctx context.Context, p *players.Player, id string, reason lobby.DeclineReason) (lobby.Challenge, error)
	CancelChallenge(ctx context.Context, p *players.Player, id string) (lobby.Challenge, error)
	Challenges(ctx context.Context, p *players.Player) (in, out []lobby.Challenge, err error)
	Rematch(ctx context.Context, p *players.Player, gameID string) (lobby.Challenge, error)
	Ticket(ctx context.Context, p *players.Player) (string, time.Time, error)
	UseTicket(ctx context.Context, ticket string) (string, error)
	OpenStream(player string) (release func(), err error)
	LastEvent(ctx context.Context, stream string) (int64, error)
	Follow(ctx context.Context, stream string, last int64, heartbeat time.Duration, out lobby.Stream) error
}

// noLobby stands in for the lobby of a server started without one: every
// operation answers 503.
type noLobby struct{}

var errNoLobby = newError(ErrNotReady, "this server was started without the lobby")

func (noLobby) PostSeek(context.Context, *players.Player, lobby.NewSeek) (lobby.Seek, error) {
	return lobby.Seek{}, errNoLobby
}
func (noLobby) Seek(context.Context, *players.Player, string) (lobby.Seek, error) {
	return lobby.Seek{}, errNoLobby
}
func (noLobby) CancelSeek(context.Context, *players.Player, string) (lobby.Seek, error) {
	return lobby.Seek{}, errNoLobby
}
func (noLobby) Lobby(context.Context, games.TimeKind, *bool, int) ([]lobby.Seek, error) {
	return nil, errNoLobby
}
func (noLobby) Challenge(context.Context, *players.Player, lobby.NewChallenge) (lobby.Challenge, error) {
	return lobby.Challenge{}, errNoLobby
}
func (noLobby) GetChallenge(context.Context, string) (lobby.Challenge, error) {
	return lobby.Challenge{}, errNoLobby
}
func (noLobby) Accept(context.Context, *players.Player, string) (lobby.Challenge, error) {
	return lobby.Challenge{}, errNoLobby
}
func (noLobby) Decline(context.Context, *players.Player, string, lobby.DeclineReason) (lobby.Challenge, error) {
	return lobby.Challenge{}, errNoLobby
}
func (noLobby) CancelChallenge(context.Context, *players.Player, string) (lobby.Challenge, error) {
	return lobby.Challenge{}, errNoLobby
}
func (noLobby) Challenges(context.Context, *players.Player) ([]lobby.Challenge, []lobby.Challenge, error) {
	return nil, nil, errNoLobby
}
func (noLobby) Rematch(context.Context, *players.Player, string) (lobby.Challenge, error) {
	return lobby.Challenge{}, errNoLobby
}
func (noLobby) Ticket(context.Context, *players.Player) (string, time.Time, error) {
	return "", time.Time{}, errNoLobby
}
func (noLobby) UseTicket(context.Context, string) (string, error) { return "", errNoLobby }
func (noLobby) OpenStream(string) (func(), error)                 { return nil, errNoLobby }
func (noLobby) LastEvent(context.Context, string) (int64, error)  { return 0, errNoLobby }
func (noLobby) Follow(context.Context, string, int64, time.Duration, lobby.Stream) error {
	return errNoLobby
}

// seatChoice reads an optional seat choice; "" is the default.
func seatChoice(c *oapi.SeatChoice) lobby.SeatChoice {
	if c == nil {
		return ""
	}
	return lobby.SeatChoice(*c)
}

// requestTimeControl reads a request's time control; null is untimed,
// which the lobby refuses with its own code.
func requestTimeControl(tc nullable.Nullable[oapi.TimeControl]) games.TimeControl {
	if v, err := tc.Get(); err == nil {
		return timeControlFromAPI(v)
	}
	return games.TimeControl{}
}

// CreateSeek posts the caller's seek.
func (s *Server) CreateSeek(ctx context.Context, req oapi.CreateSeekRequestObject) (oapi.CreateSeekResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	b := req.Body
	ns := lobby.NewSeek{TimeControl: requestTimeControl(b.TimeControl), Rated: b.Rated != nil && *b.Rated, Seat: seatChoice(b.Seat),
		NoBots: b.AllowBots != nil && !*b.AllowBots}
	if r := b.RatingRange; r != nil {
		ns.Range = lobby.Range{Min: r.Min, Max: r.Max, Set: true}
	}
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	sk, err := s.lobby.PostSeek(ctx, p, ns)
	if err != nil {
		return nil, err
	}
	loc := "/v1/seeks/" + sk.ID
	return oapi.CreateSeek201JSONResponse{Body: seekToAPI(&sk), Headers: oapi.CreateSeek201ResponseHeaders{Location: &loc}}, nil
}

// GetSeek answers the caller's seek.
func (s *Server) GetSeek(ctx context.Context, req oapi.GetSeekRequestObject) (oapi.GetSeekResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	sk, err := s.lobby.Seek(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.GetSeek200JSONResponse(seekToAPI(&sk)), nil
}

// CancelSeek cancels the caller's open seek.
func (s *Server) CancelSeek(ctx context.Context, req oapi.CancelSeekRequestObject) (oapi.CancelSeekResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	sk, err := s.lobby.CancelSeek(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.CancelSeek200JSONResponse(seekToAPI(&sk)), nil
}

// GetLobby lists the open seeks.
func (s *Server) GetLobby(ctx context.Context, req oapi.GetLobbyRequestObject) (oapi.GetLobbyResponseObject, error) {
	kind, limit := games.Untimed, defaultLobbyLimit
	if k := req.Params.Kind; k != nil {
		kind = games.Live
		if *k == oapi.GetLobbyParamsKindCorrespondence {
			kind = games.Correspondence
		}
	}
	if l := req.Params.Limit; l != nil {
		limit = *l
	}
	seeks, err := s.lobby.Lobby(ctx, kind, req.Params.Rated, limit)
	if err != nil {
		return nil, err
	}
	out := oapi.GetLobby200JSONResponse{Seeks: make([]oapi.LobbySeek, len(seeks))}
	for i := range seeks {
		out.Seeks[i] = lobbySeekToAPI(&seeks[i])
	}
	return out, nil
}

// CreateChallenge sends the caller's challenge.
func (s *Server) CreateChallenge(ctx context.Context, req oapi.CreateChallengeRequestObject) (oapi.CreateChallengeResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	b := req.Body
	nc := lobby.NewChallenge{TimeControl: requestTimeControl(b.TimeControl), Rated: b.Rated != nil && *b.Rated, Seat: seatChoice(b.Seat),
		NoBots: b.AllowBots != nil && !*b.AllowBots}
	if b.To != nil {
		nc.To = *b.To
	}
	var err error
	if nc.Rules, err = rulesFromAPI(b.Rules); err != nil {
		return nil, err
	}
	if b.Position != nil {
		pos, err := positionFromAPI(*b.Position)
		if err != nil {
			return nil, err
		}
		nc.Start = &pos
	}
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.lobby.Challenge(ctx, p, nc)
	if err != nil {
		return nil, err
	}
	loc := "/v1/challenges/" + c.ID
	return oapi.CreateChallenge201JSONResponse{Body: challengeToAPI(&c), Headers: oapi.CreateChallenge201ResponseHeaders{Location: &loc}}, nil
}

// ListChallenges answers the caller's pending challenges.
func (s *Server) ListChallenges(ctx context.Context, _ oapi.ListChallengesRequestObject) (oapi.ListChallengesResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	in, out, err := s.lobby.Challenges(ctx, p)
	if err != nil {
		return nil, err
	}
	list := oapi.ListChallenges200JSONResponse{Incoming: make([]oapi.Challenge, len(in)), Outgoing: make([]oapi.Challenge, len(out))}
	for i := range in {
		list.Incoming[i] = challengeToAPI(&in[i])
	}
	for i := range out {
		list.Outgoing[i] = challengeToAPI(&out[i])
	}
	return list, nil
}

// GetChallenge answers a challenge to anyone who has its id.
func (s *Server) GetChallenge(ctx context.Context, req oapi.GetChallengeRequestObject) (oapi.GetChallengeResponseObject, error) {
	c, err := s.lobby.GetChallenge(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.GetChallenge200JSONResponse(challengeToAPI(&c)), nil
}

// CancelChallenge withdraws the caller's challenge.
func (s *Server) CancelChallenge(ctx context.Context, req oapi.CancelChallengeRequestObject) (oapi.CancelChallengeResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.lobby.CancelChallenge(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.CancelChallenge200JSONResponse(challengeToAPI(&c)), nil
}

// AcceptChallenge accepts a challenge for the caller and starts its game.
func (s *Server) AcceptChallenge(ctx context.Context, req oapi.AcceptChallengeRequestObject) (oapi.AcceptChallengeResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.lobby.Accept(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.AcceptChallenge200JSONResponse(challengeToAPI(&c)), nil
}

// DeclineChallenge declines a challenge sent to the caller.
func (s *Server) DeclineChallenge(ctx context.Context, req oapi.DeclineChallengeRequestObject) (oapi.DeclineChallengeResponseObject, error) {
	var reason lobby.DeclineReason
	if req.Body != nil && req.Body.Reason != nil {
		reason = lobby.DeclineReason(*req.Body.Reason)
	}
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.lobby.Decline(ctx, p, req.Id, reason)
	if err != nil {
		return nil, err
	}
	return oapi.DeclineChallenge200JSONResponse(challengeToAPI(&c)), nil
}

// RematchGame asks for a rematch of a finished game for the caller.
func (s *Server) RematchGame(ctx context.Context, req oapi.RematchGameRequestObject) (oapi.RematchGameResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	c, err := s.lobby.Rematch(ctx, p, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.RematchGame201JSONResponse(challengeToAPI(&c)), nil
}

// CreateStreamTicket answers a ticket for the caller's event stream.
func (s *Server) CreateStreamTicket(ctx context.Context, _ oapi.CreateStreamTicketRequestObject) (oapi.CreateStreamTicketResponseObject, error) {
	p, err := s.callerPlayer(ctx)
	if err != nil {
		return nil, err
	}
	ticket, expires, err := s.lobby.Ticket(ctx, p)
	if err != nil {
		return nil, err
	}
	return oapi.CreateStreamTicket201JSONResponse{Ticket: ticket, ExpiresAt: expires}, nil
}

// FollowPlayerEvents streams the caller's events: the player is the
// Player-Token's, or the ticket's.
func (s *Server) FollowPlayerEvents(ctx context.Context, req oapi.FollowPlayerEventsRequestObject) (oapi.FollowPlayerEventsResponseObject, error) {
	var player string
	if t := req.Params.Ticket; t != nil {
		id, err := s.lobby.UseTicket(ctx, *t)
		if err != nil {
			return nil, err
		}
		player = id
	} else {
		p, err := s.callerPlayer(ctx)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, fmt.Errorf("%w: send your Player-Token, or a ticket from POST /v1/players/me/events/tickets", players.ErrUnauthorized)
		}
		player = p.ID
	}
	return s.openStream(ctx, player, lastEventID(req.Params.LastEventID, req.Params.LastEventIDQuery))
}

// FollowLobbyEvents streams the lobby's events.
func (s *Server) FollowLobbyEvents(ctx context.Context, req oapi.FollowLobbyEventsRequestObject) (oapi.FollowLobbyEventsResponseObject, error) {
	return s.openStream(ctx, lobby.LobbyStream, lastEventID(req.Params.LastEventID, req.Params.LastEventIDQuery))
}

// openStream checks a Last-Event-ID and takes the stream's slots.
func (s *Server) openStream(ctx context.Context, stream string, lastID *int64) (lobbyStream, error) {
	last := int64(-1)
	if lastID != nil {
		newest, err := s.lobby.LastEvent(ctx, stream)
		if err != nil {
			return lobbyStream{}, err
		}
		if *lastID > newest {
			return lobbyStream{}, newError(ErrInvalidRequest, "header parameter Last-Event-ID: %d is after the stream's last event, id %d", *lastID, newest)
		}
		last = *lastID
	}
	release := func() {}
	if lobby.PlayerStream(stream) {
		var err error
		if release, err = s.lobby.OpenStream(stream); err != nil {
			return lobbyStream{}, err
		}
	}
	slot, err := s.streams.Acquire(callerOf(ctx).addr, "~stream:"+stream)
	if err != nil {
		release()
		return lobbyStream{}, err
	}
	return lobbyStream{s: s, ctx: ctx, stream: stream, last: last, head: callerOf(ctx).head,
		release: func() { slot(); release() }}, nil
}

// lobbyStream writes a player's or the lobby's events as Server-Sent
// Events.
type lobbyStream struct {
	s       *Server
	ctx     context.Context
	stream  string
	last    int64
	head    bool
	release func()
}

func (ls lobbyStream) VisitFollowPlayerEventsResponse(w http.ResponseWriter) error {
	return ls.visit(w)
}
func (ls lobbyStream) VisitFollowLobbyEventsResponse(w http.ResponseWriter) error { return ls.visit(w) }

func (ls lobbyStream) visit(w http.ResponseWriter) error {
	defer ls.release()
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if ls.head {
		return nil
	}
	out := lobbyEvents{httpx.NewSSEWriter(w)}
	if err := out.SSEWriter.Send([]byte("retry: 2000\n\n")); err != nil {
		return nil
	}
	err := ls.s.lobby.Follow(ls.ctx, ls.stream, ls.last, ls.s.opts.EventHeartbeat, out)
	if err != nil && ls.ctx.Err() == nil && !out.Failed() {
		ls.s.log.ErrorContext(ls.ctx, "event stream failed", "error", err.Error())
	}
	return nil
}

// lobbyEvents is the lobby.Stream of one follower.
type lobbyEvents struct{ *httpx.SSEWriter }

func (le lobbyEvents) Send(e lobby.Event) error {
	frame, err := encodeLobbyEvent(&e)
	if err != nil {
		return err
	}
	return le.SSEWriter.Send(frame)
}

// encodeLobbyEvent is the Server-Sent Events frame of e.
func encodeLobbyEvent(e *lobby.Event) ([]byte, error) {
	data := map[string]any{}
	switch {
	case e.Kind == lobby.EventSeekAdded && e.Seek != nil:
		data["seek"] = lobbySeekToAPI(e.Seek)
	case e.Kind == lobby.EventSeekRemoved:
		data["id"] = e.SeekID
	case e.Seek != nil:
		data["seek"] = seekToAPI(e.Seek)
	}
	if e.Challenge != nil {
		data["challenge"] = challengeToAPI(e.Challenge)
	}
	if e.GameID != "" {
		data["gameId"] = e.GameID
		if lobby.PlayerStream(e.Stream) {
			data["side"] = e.Side.String()
		}
	}
	if e.Reason != "" {
		data["reason"] = string(e.Reason)
	}
	if e.TournamentID != "" {
		data["tournamentId"] = e.TournamentID
	}
	if e.Kind == lobby.EventGameFinish && e.Game != nil {
		finishToAPI(data, e.Game, e.Side)
	}
	payload, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return fmt.Appendf(nil, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Kind, payload), nil
}

func rangeToAPI(r lobby.Range) nullable.Nullable[oapi.NullableRatingRange] {
	if !r.Set {
		return nullable.NewNullNullable[oapi.NullableRatingRange]()
	}
	return nullable.NewNullableWithValue(oapi.NullableRatingRange{Min: r.Min, Max: r.Max})
}

func nullableText(s string) nullable.Nullable[string] {
	if s == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(s)
}

func seekToAPI(sk *lobby.Seek) oapi.Seek {
	return oapi.Seek{Id: sk.ID, Status: oapi.SeekStatus(sk.Status), TimeControl: timeControlToAPI(sk.TimeControl), Rated: sk.Rated,
		Seat: oapi.SeatChoice(sk.Seat), RatingRange: rangeToAPI(sk.Range), AllowBots: !sk.NoBots, CreatedAt: sk.CreatedAt, ExpiresAt: sk.ExpiresAt,
		Game: nullableText(sk.GameID), Side: nullableSide(sk.Side, sk.GameID != "")}
}

func lobbySeekToAPI(sk *lobby.Seek) oapi.LobbySeek {
	return oapi.LobbySeek{Id: sk.ID, Player: oapi.LobbyPlayer{Id: sk.PlayerID, Name: sk.Name, Bot: sk.Bot}, Rating: sk.Rating.Value,
		Provisional: sk.Rating.Provisional(), TimeControl: timeControlToAPI(sk.TimeControl), Rated: sk.Rated,
		Seat: oapi.SeatChoice(sk.Seat), RatingRange: rangeToAPI(sk.Range), AllowBots: !sk.NoBots, CreatedAt: sk.CreatedAt}
}

func challengeToAPI(c *lobby.Challenge) oapi.Challenge {
	out := oapi.Challenge{Id: c.ID, Status: oapi.ChallengeStatus(c.Status), From: oapi.LobbyPlayer{Id: c.From, Name: c.FromName, Bot: c.FromBot},
		To: nullable.NewNullNullable[oapi.NullableLobbyPlayer](), TimeControl: timeControlToAPI(c.TimeControl), Rated: c.Rated,
		Seat: oapi.SeatChoice(c.Seat), Rules: rulesToAPI(c.Rules), Position: nullable.NewNullNullable[oapi.Position](), AllowBots: !c.NoBots,
		RematchOf: nullableText(c.RematchOf), Reason: nullableText(string(c.Reason)), CreatedAt: c.CreatedAt,
		ExpiresAt: c.ExpiresAt, Game: nullableText(c.GameID), Side: nullableSide(c.Side, c.GameID != "")}
	if c.To != "" {
		out.To.Set(oapi.NullableLobbyPlayer{Id: c.To, Name: c.ToName, Bot: c.ToBot})
	}
	if c.HasStart {
		out.Position.Set(positionToAPI(c.Start))
	}
	return out
}

// finishToAPI adds to a gameFinish event's data how g ended for the player
// in seat side: the game's status, its result (null when aborted) and the
// change of the player's rating (null when the game moved none).
func finishToAPI(data map[string]any, g *games.Game, side engine.Side) {
	data["status"] = string(g.Status)
	data["result"] = resultOrNull(g.Result)
	data["ratingChange"] = nil
	if seat := g.Players[side]; seat.HasChange {
		b, a := rounded(seat.Rating), rounded(seat.Rating+seat.Change)
		data["ratingChange"] = oapi.RatingChange{Before: b, After: a, Change: a - b}
	}
}
