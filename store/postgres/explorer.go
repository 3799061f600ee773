package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ explorer.Store = (*Store)(nil)

// explorerPending is the condition of the partial index
// games_explorer_pending.
const explorerPending = `status = 'finished' AND rated AND NOT explorer_indexed`

// unindexedSQL is UnindexedGames' query, $1 the limit.
var unindexedSQL = "SELECT " + gameColumns + " FROM games WHERE " + explorerPending +
	" ORDER BY ended_at, id LIMIT $1"

// UnindexedGames implements explorer.Store, from the partial index.
func (s *Store) UnindexedGames(ctx context.Context, limit int) ([]games.Game, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, unindexedSQL, limit)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	out, err := stored.Collect(rows, scanGame)
	return out, s.read(err)
}

// explorerUpsert adds one game to a row: its result, its rating, its id
// first of the three latest. The lines of one game are sorted by key
// before they are written, so two transactions that add rows in common
// lock them in one order.
const explorerUpsert = `INSERT INTO explorer_moves AS m (position, category, band, move, south, draws, north,
		rating_sum, last_at, recent1) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
	ON CONFLICT (position, category, band, move) DO UPDATE SET
		south = m.south + excluded.south, draws = m.draws + excluded.draws, north = m.north + excluded.north,
		rating_sum = m.rating_sum + excluded.rating_sum, last_at = greatest(m.last_at, excluded.last_at),
		recent3 = m.recent2, recent2 = m.recent1, recent1 = excluded.recent1`

// IndexGame implements explorer.Store: the mark, conditional on its not
// being there, and the rows, in one transaction.
func (s *Store) IndexGame(ctx context.Context, e explorer.Entry) (bool, error) {
	cat, err := stored.ExplorerCategory(e.Category)
	if len(e.Lines) > 0 && err != nil {
		return false, err
	}
	south, draws, north := e.Results()
	lines := explorer.SortedLines(e.Lines)
	var indexed bool
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		indexed = false
		tag, err := tx.Exec(ctx, "UPDATE games SET explorer_indexed = true WHERE id = $1 AND NOT explorer_indexed", e.GameID)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		indexed = true
		var b pgx.Batch
		for _, l := range lines {
			b.Queue(explorerUpsert, int64(l.Position), cat, e.Band, l.Move, south, draws, north,
				e.Rating, stamp(e.EndedAt), e.GameID)
		}
		return tx.SendBatch(ctx, &b).Close()
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
	rows, err := s.pool.Query(ctx, `SELECT move, band, south, draws, north, rating_sum, last_at, recent1, recent2, recent3
		FROM explorer_moves WHERE position = $1 AND category = $2 AND band BETWEEN $3 AND $4`, int64(position), cat, lo, hi)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	var out []explorer.Row
	for rows.Next() {
		var (
			row        explorer.Row
			move, band int16
			at         time.Time
			recent     [3]*string
		)
		if err := rows.Scan(&move, &band, &row.South, &row.Draws, &row.North, &row.RatingSum, &at,
			&recent[0], &recent[1], &recent[2]); err != nil {
			return nil, s.read(err)
		}
		row.Move, row.Band, row.LastAt = int(move), int(band), at.UTC()
		for _, id := range recent {
			if id != nil {
				row.Recent = append(row.Recent, *id)
			}
		}
		out = append(out, row)
	}
	return out, s.read(rows.Err())
}
