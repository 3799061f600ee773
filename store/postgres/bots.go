package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/players"
)

// MakeBot implements players.Store: one conditional UPDATE, on the
// player's rated count (which the write that ends a rated game changes
// under the row's lock, so the two are ordered) and on its rated games not
// finished.
func (s *Store) MakeBot(ctx context.Context, id string, at time.Time) (players.Player, error) {
	_, err := s.pool.Exec(ctx, `UPDATE players SET bot = true, updated_at = $2 WHERE id = $1 AND NOT bot AND rated = 0
		AND NOT EXISTS (SELECT 1 FROM games WHERE rated AND status <> 'finished' AND south_player = $1)
		AND NOT EXISTS (SELECT 1 FROM games WHERE rated AND status <> 'finished' AND north_player = $1)`, id, stamp(at))
	if err != nil {
		return players.Player{}, fmt.Errorf("make player %s a bot: %w", id, s.wrote(err))
	}
	p, err := s.Player(ctx, id)
	if err != nil {
		return players.Player{}, err
	}
	if !p.Bot {
		return players.Player{}, players.ErrConflict
	}
	return p, nil
}

// BotsAmong implements players.Store.
func (s *Store) BotsAmong(ctx context.Context, ids []string) ([]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM players WHERE bot AND id = ANY($1)`, ids)
	if err != nil {
		return nil, s.read(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	return out, s.read(err)
}

// OnlineBots implements players.Store, through players_bots. Ids compare
// bytewise (COLLATE "C"), as the other stores and the cursor do.
func (s *Store) OnlineBots(ctx context.Context, since time.Time, after string, limit int) ([]players.OnlineBot, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, seen_at FROM players
		WHERE bot AND id COLLATE "C" > $1 AND seen_at >= $2 ORDER BY id COLLATE "C" LIMIT $3`, after, stamp(since), limit)
	if err != nil {
		return nil, s.read(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (players.OnlineBot, error) {
		var b players.OnlineBot
		err := row.Scan(&b.ID, &b.Name, &b.SeenAt)
		b.SeenAt = b.SeenAt.UTC()
		return b, err
	})
	return out, s.read(err)
}
