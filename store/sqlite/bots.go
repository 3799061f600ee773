package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"

	"time"

	"github.com/ayoayo/ayoayo/players"
)

// MakeBot implements players.Store: one conditional UPDATE, on the
// player's rated count and its rated games not finished, so a rated game
// that ends or begins meanwhile wins or loses against it wholly.
func (s *Store) MakeBot(ctx context.Context, id string, at time.Time) (players.Player, error) {
	var p players.Player
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, `UPDATE players SET bot = 1, updated_at = ?2 WHERE id = ?1 AND bot = 0 AND rated = 0
			AND NOT EXISTS (SELECT 1 FROM games WHERE rated = 1 AND status <> 'finished' AND south_player = ?1)
			AND NOT EXISTS (SELECT 1 FROM games WHERE rated = 1 AND status <> 'finished' AND north_player = ?1)`, id, usOf(at))
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if p, err = readPlayer(ctx, r, "WHERE p.id = ?", id); err != nil {
			return err
		}
		if n == 0 && !p.Bot {
			return players.ErrConflict
		}
		return nil
	})
	return p, err
}

// BotsAmong implements players.Store: the ids go as one JSON array, so
// that the statement is one whatever their number.
func (s *Store) BotsAmong(ctx context.Context, ids []string) ([]string, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := runner{s: s}.query(ctx, `SELECT id FROM players WHERE bot = 1 AND id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, s.read(err)
		}
		out = append(out, id)
	}
	return out, s.read(rows.Err())
}

// OnlineBots implements players.Store, through players_bots.
func (s *Store) OnlineBots(ctx context.Context, since time.Time, after string, limit int) ([]players.OnlineBot, error) {
	rows, err := runner{s: s}.query(ctx, `SELECT id, name, seen_at FROM players
		WHERE bot = 1 AND id > ? AND seen_at >= ? ORDER BY id LIMIT ?`, after, usOf(since), limit)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	var out []players.OnlineBot
	for rows.Next() {
		var b players.OnlineBot
		var seen sql.NullInt64
		if err := rows.Scan(&b.ID, &b.Name, &seen); err != nil {
			return nil, s.read(err)
		}
		b.SeenAt = timeOfNullUs(seen)
		out = append(out, b)
	}
	return out, s.read(rows.Err())
}
