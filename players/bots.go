package players

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// ErrBotRefused: a player who has played a rated game (or is playing one)
// cannot become a bot: its rating was earned as a person.
var ErrBotRefused = fault.New(fault.Conflict, "bot_upgrade_refused", "Cannot become a bot", "the player cannot become a bot")

// BotStore is what bot accounts need of a store.
type BotStore interface {
	// MakeBot sets the player's Bot and UpdatedAt, in one conditional
	// write, if it has no rated game, finished or not, and returns it; a
	// bot already is returned as it is. ErrNotFound when unknown,
	// ErrConflict when it has a rated game.
	MakeBot(ctx context.Context, id string, at time.Time) (Player, error)
	// BotsAmong returns those of ids that are bots, in any order.
	BotsAmong(ctx context.Context, ids []string) ([]string, error)
	// OnlineBots returns up to limit bots seen at or after since (lobby's
	// Store.Touch records when an open event stream touches a bot), by id,
	// after the id after ("" the start).
	OnlineBots(ctx context.Context, since time.Time, after string, limit int) ([]OnlineBot, error)
}

// OnlineBot is a bot with an event stream open, as lately as SeenAt.
type OnlineBot struct {
	ID     string
	Name   string
	SeenAt time.Time
}

// MakeBot makes player id, with its own token, a bot: once, for good, and
// only before its first rated game. A bot already is answered as it is, so
// that a retry succeeds.
func (s *Service) MakeBot(ctx context.Context, id, token string) (Player, error) {
	p, err := s.owner(ctx, id, token, "") // its own token only: a bot for good is the owner's decision
	if err != nil {
		return Player{}, err
	}
	if p.Bot {
		return p, nil
	}
	if p.Counts.Rated > 0 {
		return Player{}, fmt.Errorf("%w: %d rated games played", ErrBotRefused, p.Counts.Rated)
	}
	b, err := s.store.MakeBot(ctx, id, s.clock())
	if errors.Is(err, ErrConflict) {
		return Player{}, fmt.Errorf("%w: it has a rated game", ErrBotRefused)
	}
	return b, err
}

// Bots returns which of ids are bots.
func (s *Service) Bots(ctx context.Context, ids []string) (map[string]bool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	bots, err := s.store.BotsAmong(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(bots))
	for _, id := range bots {
		out[id] = true
	}
	return out, nil
}

// OnlineGrace is how long after its event stream last touched it a bot
// still counts as online: lobby's streams touch every StreamGrace/2 (10 s
// by default), so a bot with a stream open on any instance is always seen
// within it, and one whose stream is gone drops out within it.
const OnlineGrace = 30 * time.Second

// OnlineBots returns a page of the bots with an event stream open now, by
// id, and the cursor of the next page ("" when this is the last); cursor
// "" is the first page.
func (s *Service) OnlineBots(ctx context.Context, cursor string, limit int) ([]OnlineBot, string, error) {
	after, err := parseCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	limit = pageSize(limit)
	bots, err := s.store.OnlineBots(ctx, s.clock().Add(-OnlineGrace), after.id, limit+1)
	if err != nil {
		return nil, "", err
	}
	var next string
	if len(bots) > limit {
		bots = bots[:limit]
		next = cursorOf(time.UnixMicro(0), bots[limit-1].ID)
	}
	return bots, next, nil
}
