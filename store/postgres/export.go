package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/games"
)

var _ games.ExportStore = (*Store)(nil)

// exportQuery is a page of a player's games: a walk down each seat's export
// index (0013_export.sql) from the cursor, merged; a game where the player
// holds both seats comes from South's.
var exportQuery = `SELECT * FROM ((SELECT ` + gameColumns + ` FROM games
		WHERE south_player = $1 AND status IN ('active', 'finished') AND (created_at, id) > ($2, $3) AND created_at < $4
		ORDER BY created_at, id LIMIT $5)
	UNION ALL
	(SELECT ` + gameColumns + ` FROM games
		WHERE north_player = $1 AND status IN ('active', 'finished') AND (created_at, id) > ($2, $3) AND created_at < $4
			AND south_player IS DISTINCT FROM $1
		ORDER BY created_at, id LIMIT $5)) AS page
	ORDER BY created_at, id LIMIT $5`

// ExportGames implements games.ExportStore: two statements a page in one
// repeatable-read transaction, one for the games and one for all their
// moves.
func (s *Store) ExportGames(ctx context.Context, q games.ExportQuery) ([]games.Exported, error) {
	out, err := s.exportGames(ctx, q)
	return out, s.read(err)
}

func (s *Store) exportGames(ctx context.Context, q games.ExportQuery) ([]games.Exported, error) {
	if q.Limit < 1 || q.Player == "" {
		return nil, nil
	}
	after, afterID := q.Since, ""
	if q.AfterID != "" && !q.AfterCreated.Before(q.Since) {
		after, afterID = q.AfterCreated, q.AfterID
	}
	until := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if !q.Until.IsZero() {
		until = q.Until
	}
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, exportQuery, q.Player, after, afterID, until, q.Limit)
	if err != nil {
		return nil, err
	}
	var out []games.Exported
	byID := map[string]int{}
	for rows.Next() {
		g, err := scanGame(rows)
		if err != nil {
			rows.Close()
			return nil, err
		}
		byID[g.ID] = len(out)
		out = append(out, games.Exported{Game: g, Records: make([]games.Record, 0, g.Ply)})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	ids := make([]string, len(out))
	for i := range out {
		ids[i] = out[i].Game.ID
	}
	mrows, err := tx.Query(ctx, `SELECT game_id, ply, pit, by_ai, at, version FROM moves
		WHERE game_id = ANY($1) ORDER BY game_id, ply`, ids)
	if err != nil {
		return nil, err
	}
	var id string
	var m games.Record
	_, err = pgx.ForEachRow(mrows, []any{&id, &m.Ply, &m.Pit, &m.ByAI, &m.At, &m.Version}, func() error {
		m.At = m.At.UTC()
		e := &out[byID[id]]
		e.Records = append(e.Records, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, tx.Commit(ctx)
}
