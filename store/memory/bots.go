package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// MakeBot implements players.Store.
func (s *Store) MakeBot(ctx context.Context, id string, at time.Time) (players.Player, error) {
	if err := ctx.Err(); err != nil {
		return players.Player{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.players[id]
	if !ok {
		return players.Player{}, players.ErrNotFound
	}
	if p.Bot {
		return copyPlayer(p), nil
	}
	if p.Counts.Rated > 0 {
		return players.Player{}, players.ErrConflict
	}
	for _, row := range s.games {
		if g := &row.game; g.Rated && g.Status != games.Finished && (g.Players[0].ID == id || g.Players[1].ID == id) {
			return players.Player{}, players.ErrConflict
		}
	}
	p.Bot, p.UpdatedAt = true, at
	return copyPlayer(p), nil
}

// BotsAmong implements players.Store.
func (s *Store) BotsAmong(ctx context.Context, ids []string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []string
	for _, id := range ids {
		if p, ok := s.players[id]; ok && p.Bot && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, nil
}

// OnlineBots implements players.Store.
func (s *Store) OnlineBots(ctx context.Context, since time.Time, after string, limit int) ([]players.OnlineBot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []players.OnlineBot
	for id, at := range s.seen {
		if p, ok := s.players[id]; ok && p.Bot && !at.Before(since) && id > after {
			out = append(out, players.OnlineBot{ID: id, Name: p.Name, SeenAt: at})
		}
	}
	slices.SortFunc(out, func(a, b players.OnlineBot) int { return cmp.Compare(a.ID, b.ID) })
	return out[:min(len(out), max(limit, 0))], nil
}

// seenBot records, with s.mu held, that an event stream touched player at
// at, if it is a bot (lobby.Store.Touch).
func (s *Store) seenBot(player string, at time.Time) {
	if p, ok := s.players[player]; ok && p.Bot {
		s.seen[player] = at
	}
}
