package memory

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/games"
)

var _ games.ExportStore = (*Store)(nil)

// ExportGames implements games.ExportStore. It looks at every game: the
// memory store is for tests and small demos.
func (s *Store) ExportGames(ctx context.Context, q games.ExportQuery) ([]games.Exported, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if q.Limit < 1 || q.Player == "" {
		return nil, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []games.Exported
	for _, row := range s.games {
		g := &row.game
		switch {
		case g.Players[0].ID != q.Player && g.Players[1].ID != q.Player,
			g.Status != games.Active && g.Status != games.Finished,
			g.CreatedAt.Before(q.Since),
			!q.Until.IsZero() && !g.CreatedAt.Before(q.Until),
			q.AfterID != "" && exportOrder(g, q.AfterCreated, q.AfterID) <= 0:
			continue
		}
		out = append(out, games.Exported{Game: copyGame(*g), Records: slices.Clone(row.records)})
	}
	slices.SortFunc(out, func(a, b games.Exported) int {
		return exportOrder(&a.Game, b.Game.CreatedAt, b.Game.ID)
	})
	return out[:min(len(out), q.Limit)], nil
}

// exportOrder compares g with the game created at created with id in the
// export's order.
func exportOrder(g *games.Game, created time.Time, id string) int {
	if c := g.CreatedAt.Compare(created); c != 0 {
		return c
	}
	return strings.Compare(g.ID, id)
}
