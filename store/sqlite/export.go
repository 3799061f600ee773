package sqlite

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/games"
)

var _ games.ExportStore = (*Store)(nil)

// exportQuery is a page of a player's games: a walk down each seat's export
// index (0015_export.sql) from the cursor, merged; a game where the player
// holds both seats comes from South's.
var exportQuery = `SELECT * FROM (SELECT ` + gameColumns + ` FROM games
		WHERE south_player = ?1 AND status IN ('active', 'finished') AND (created_at, id) > (?2, ?3) AND created_at < ?4
		ORDER BY created_at, id LIMIT ?5)
	UNION ALL
	SELECT * FROM (SELECT ` + gameColumns + ` FROM games
		WHERE north_player = ?1 AND status IN ('active', 'finished') AND (created_at, id) > (?2, ?3) AND created_at < ?4
			AND south_player IS NOT ?1
		ORDER BY created_at, id LIMIT ?5)
	ORDER BY 2, 1 LIMIT ?5`

// ExportGames implements games.ExportStore: two statements a page in one
// read transaction, one for the games and one for all their moves.
func (s *Store) ExportGames(ctx context.Context, q games.ExportQuery) ([]games.Exported, error) {
	out, err := s.exportGames(ctx, q)
	return out, s.read(err)
}

func (s *Store) exportGames(ctx context.Context, q games.ExportQuery) ([]games.Exported, error) {
	if q.Limit < 1 || q.Player == "" {
		return nil, nil
	}
	after, afterID := formatTime(q.Since), ""
	if q.AfterID != "" && !q.AfterCreated.Before(q.Since) {
		after, afterID = formatTime(q.AfterCreated), q.AfterID
	}
	until := "9999"
	if !q.Until.IsZero() {
		until = formatTime(q.Until)
	}
	// One read transaction: the games and their moves as of one moment,
	// whatever moves or takebacks land meanwhile.
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	r := runner{s: s, tx: tx}
	rows, err := r.query(ctx, exportQuery, q.Player, after, afterID, until, q.Limit)
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
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	args := make([]any, len(out))
	for i := range out {
		args[i] = out[i].Game.ID
	}
	// One row a game, its moves a JSON array of [ply, pit, by_ai, at,
	// version]: a row costs far more to step through than its JSON to decode.
	mrows, err := r.query(ctx, `SELECT game_id, json_group_array(json_array(ply, pit, by_ai, at, version)) FROM moves
		WHERE game_id IN (?`+strings.Repeat(", ?", len(out)-1)+`) GROUP BY game_id`, args...)
	if err != nil {
		return nil, err
	}
	defer mrows.Close()
	var (
		id    string
		moves []byte
		cells [][5]int64
	)
	for mrows.Next() {
		if err := mrows.Scan(&id, &moves); err != nil {
			return nil, err
		}
		cells = cells[:0]
		if err := json.Unmarshal(moves, &cells); err != nil {
			return nil, fmt.Errorf("the moves of game %s: %w", id, err)
		}
		slices.SortFunc(cells, func(a, b [5]int64) int { return cmp.Compare(a[0], b[0]) })
		e := &out[byID[id]]
		for _, c := range cells {
			e.Records = append(e.Records, games.Record{Ply: int(c[0]), Pit: int(c[1]), ByAI: c[2] != 0,
				At: time.UnixMicro(c[3]).UTC(), Version: c[4]})
		}
	}
	return out, mrows.Err()
}
