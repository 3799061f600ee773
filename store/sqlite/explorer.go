package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ explorer.Store = (*Store)(nil)

// explorerPending is the condition of the partial index
// games_explorer_pending, word for word, so that SQLite uses it.
const explorerPending = `status = 'finished' AND rated = 1 AND explorer_indexed = 0`

// UnindexedGames implements explorer.Store, from the partial index.
func (s *Store) UnindexedGames(ctx context.Context, limit int) ([]games.Game, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := runner{s: s}.query(ctx, "SELECT "+gameColumns+" FROM games WHERE "+explorerPending+
		" ORDER BY updated_at, id LIMIT ?", limit)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	out, err := stored.Collect(rows, scanGame)
	return out, s.read(err)
}

// explorerUpsert adds one game to a row: its result, its rating, its id
// first of the three latest.
const explorerUpsert = `INSERT INTO explorer_moves (position, category, band, move, south, draws, north,
		rating_sum, last_at, recent1) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
	ON CONFLICT (position, category, band, move) DO UPDATE SET
		south = south + excluded.south, draws = draws + excluded.draws, north = north + excluded.north,
		rating_sum = rating_sum + excluded.rating_sum, last_at = max(last_at, excluded.last_at),
		recent3 = recent2, recent2 = recent1, recent1 = excluded.recent1`

// IndexGame implements explorer.Store: the mark, conditional on its not
// being there, and the rows, in one write of the group committer.
func (s *Store) IndexGame(ctx context.Context, e explorer.Entry) (bool, error) {
	var indexed bool
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, "UPDATE games SET explorer_indexed = 1 WHERE id = ? AND explorer_indexed = 0", e.GameID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		indexed = true
		if len(e.Lines) == 0 {
			return nil
		}
		cat, err := stored.ExplorerCategory(e.Category)
		if err != nil {
			return err
		}
		south, draws, north := e.Results()
		for _, l := range e.Lines {
			if _, err := r.exec(ctx, explorerUpsert, int64(l.Position), cat, e.Band, l.Move, south, draws, north,
				e.Rating, e.EndedAt.UnixMicro(), e.GameID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	return indexed, nil
}

// ExplorerRows implements explorer.Store: one range of the table's key.
func (s *Store) ExplorerRows(ctx context.Context, position explorer.Key, c players.Category, lo, hi int) ([]explorer.Row, error) {
	cat, err := stored.ExplorerCategory(c)
	if err != nil {
		return nil, err
	}
	rows, err := runner{s: s}.query(ctx, `SELECT move, band, south, draws, north, rating_sum, last_at, recent1, recent2, recent3
		FROM explorer_moves WHERE position = ? AND category = ? AND band BETWEEN ? AND ?`, int64(position), cat, lo, hi)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	var out []explorer.Row
	for rows.Next() {
		var (
			row    explorer.Row
			at     int64
			recent [3]sql.NullString
		)
		if err := rows.Scan(&row.Move, &row.Band, &row.South, &row.Draws, &row.North, &row.RatingSum, &at,
			&recent[0], &recent[1], &recent[2]); err != nil {
			return nil, s.read(err)
		}
		row.LastAt = time.UnixMicro(at).UTC()
		for _, id := range recent {
			if id.Valid {
				row.Recent = append(row.Recent, id.String)
			}
		}
		out = append(out, row)
	}
	return out, s.read(rows.Err())
}
