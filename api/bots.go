package api

// Bot accounts over HTTP: becoming one, the caller's own player
// (/v1/players/me), the bots online, and the marks that show a bot
// wherever a player does. Players and seeks carry their own mark; a
// game's seats, standings and leaderboards name players by id, and their
// marks are read here, through botMarks.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// BotService is what the bot handlers need of the players service
// (*players.Service has it).
type BotService interface {
	MakeBot(ctx context.Context, id, token string) (players.Player, error)
	Bots(ctx context.Context, ids []string) (map[string]bool, error)
	OnlineBots(ctx context.Context, cursor string, limit int) ([]players.OnlineBot, string, error)
}

func (noPlayers) MakeBot(context.Context, string, string) (players.Player, error) {
	return players.Player{}, errNoPlayers
}
func (noPlayers) Bots(context.Context, []string) (map[string]bool, error) { return nil, nil }
func (noPlayers) OnlineBots(context.Context, string, int) ([]players.OnlineBot, string, error) {
	return nil, "", errNoPlayers
}

// BecomeBot makes the caller's own player a bot.
func (s *Server) BecomeBot(ctx context.Context, req oapi.BecomeBotRequestObject) (oapi.BecomeBotResponseObject, error) {
	p, err := s.players.MakeBot(ctx, req.Id, callerOf(ctx).playerToken)
	if err != nil {
		return nil, err
	}
	s.marks.learn(p.ID)
	out, err := s.withStreak(ctx, &p)
	if err != nil {
		return nil, err
	}
	return oapi.BecomeBot200JSONResponse(out), nil
}

// GetMyPlayer answers the player the caller's token names: its own or a
// scoped one, of any scope (the document declares no security for it, so
// that no scope is asked). Declared as its own path, /v1/players/me is
// matched before /v1/players/{id}, which took "me" for an id and answered
// 404 player_not_found.
func (s *Server) GetMyPlayer(ctx context.Context, _ oapi.GetMyPlayerRequestObject) (oapi.GetMyPlayerResponseObject, error) {
	token := callerOf(ctx).playerToken
	if token == "" {
		return nil, fmt.Errorf("%w: send it in the Player-Token header", players.ErrUnauthorized)
	}
	a, err := s.players.Access(ctx, token)
	if err != nil {
		return nil, err
	}
	p := a.Player
	out, err := s.withStreak(ctx, &p)
	if err != nil {
		return nil, err
	}
	return oapi.GetMyPlayer200JSONResponse(out), nil
}

// ListOnlineBots answers a page of the bots with an event stream open.
func (s *Server) ListOnlineBots(ctx context.Context, req oapi.ListOnlineBotsRequestObject) (oapi.ListOnlineBotsResponseObject, error) {
	var after string
	var limit int
	if p := req.Params.After; p != nil {
		after = *p
	}
	if p := req.Params.Limit; p != nil {
		limit = *p
	}
	bots, next, err := s.players.OnlineBots(ctx, after, limit)
	if err != nil {
		return nil, err
	}
	out := oapi.ListOnlineBots200JSONResponse{Bots: make([]oapi.OnlineBot, len(bots)), Next: nextCursor(next)}
	for i, b := range bots {
		out.Bots[i] = oapi.OnlineBot{Id: b.ID, Name: b.Name, SeenAt: b.SeenAt.UTC()}
	}
	return out, nil
}

// botSet says which players are bots; nil says none is.
type botSet map[string]bool

// How long botMarks trusts that a player is not a bot: a player becomes
// one at most once and never stops, so a bot is known for good, but a
// person may turn bot on another instance, whose seats this one shows
// unmarked for at most this long.
const (
	personTTL = 10 * time.Second
	// maxMarks bounds either map; past it the map starts again empty.
	maxMarks = 100_000
)

// botMarks remembers which players are bots, so that the answers that show
// seats (every move's) do not read the players each time.
type botMarks struct {
	players BotService
	now     func() time.Time

	mu     sync.Mutex
	bots   map[string]bool
	people map[string]time.Time // when each was last read a person
}

func newBotMarks(ps BotService, now func() time.Time) *botMarks {
	if now == nil {
		now = time.Now
	}
	return &botMarks{players: ps, now: now, bots: map[string]bool{}, people: map[string]time.Time{}}
}

// learn records that player id is a bot.
func (m *botMarks) learn(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.bots) >= maxMarks {
		m.bots = map[string]bool{}
	}
	m.bots[id] = true
	delete(m.people, id)
}

// of says which of ids are bots. A store that cannot answer leaves them
// unmarked rather than failing the answer they are part of.
func (m *botMarks) of(ctx context.Context, ids ...string) botSet {
	now := m.now()
	var ask []string
	out := botSet{}
	m.mu.Lock()
	for _, id := range ids {
		switch {
		case id == "":
		case m.bots[id]:
			out[id] = true
		case now.Sub(m.people[id]) < personTTL && !m.people[id].IsZero():
		default:
			ask = append(ask, id)
		}
	}
	m.mu.Unlock()
	if len(ask) == 0 {
		return out
	}
	bots, err := m.players.Bots(ctx, ask)
	if err != nil {
		return out
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.people) >= maxMarks {
		m.people = map[string]time.Time{}
	}
	for _, id := range ask {
		if bots[id] {
			if len(m.bots) >= maxMarks {
				m.bots = map[string]bool{}
			}
			m.bots[id], out[id] = true, true
			delete(m.people, id)
		} else {
			m.people[id] = now
		}
	}
	return out
}

// seatBots says which of g's seats' players are bots.
func (s *Server) seatBots(ctx context.Context, g *games.Game) botSet {
	return s.marks.of(ctx, g.Players[0].ID, g.Players[1].ID)
}

// lastEventID is where a stream resumes: the Last-Event-ID header, or the
// lastEventId query parameter that a new browser EventSource can send
// (it sends the header only on its own reconnections); nil for neither.
func lastEventID[N int | int64](header, query *N) *N {
	if header != nil {
		return header
	}
	return query
}
