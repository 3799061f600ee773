package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// timeFormat keeps a fixed width so the text sorts as the time does.
const timeFormat = "2006-01-02T15:04:05.000000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

func parseTime(s string) (time.Time, error) { return time.Parse(time.RFC3339Nano, s) }

// gameColumns is the column list every game read selects, in scanGame's order.
var gameColumns = stored.GameColumns("deadline_us")

// deadlineOf is a deadline as its column keeps it: NULL for none.
func deadlineOf(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// scanGame reads one game row; games.ErrNotFound when there is none. The
// instants are SQLite's own (text, and the deadline in microseconds); the
// rest is decoded as every store does.
func scanGame(row stored.Scanner) (games.Game, error) {
	var (
		r                stored.GameRow
		created, updated string
		joined           sql.NullString
		deadline         sql.NullInt64
	)
	err := row.Scan(r.Targets(&created, &updated, &joined, &deadline)...)
	if errors.Is(err, sql.ErrNoRows) {
		return games.Game{}, games.ErrNotFound
	}
	if err != nil {
		return games.Game{}, err
	}
	g, err := r.Game()
	if err != nil {
		return games.Game{}, err
	}
	if err := instants(&g, created, updated, joined); err != nil {
		return games.Game{}, stored.Undecodable("game "+g.ID, err)
	}
	if deadline.Valid {
		g.Deadline = time.UnixMicro(deadline.Int64).UTC()
	}
	return g, nil
}

// instants sets the times g's row keeps as text.
func instants(g *games.Game, created, updated string, joined sql.NullString) error {
	var err error
	if g.CreatedAt, err = parseTime(created); err != nil {
		return err
	}
	if g.UpdatedAt, err = parseTime(updated); err != nil {
		return err
	}
	if joined.Valid {
		if g.JoinedAt, err = parseTime(joined.String); err != nil {
			return err
		}
	}
	return nil
}

// CreateGame stores a new game with the moves already played in it (the AI's
// opening move when the AI plays South).
func (s *Store) CreateGame(ctx context.Context, g games.Game, moves []games.Record) error {
	return s.write(ctx, func(ctx context.Context, r runner) error { return insertGame(ctx, r, &g, moves) })
}

// insertGame stores a new game in the write r is part of: CreateGame's, or
// a lobby pairing's; games.ErrConflict when its id is taken.
func insertGame(ctx context.Context, r runner, g *games.Game, moves []games.Record) error {
	var aiSide, aiLevel any
	if g.AI != nil {
		aiSide, aiLevel = g.AI.Side.String(), g.AI.Level
	}
	var joined any
	if !g.JoinedAt.IsZero() {
		joined = formatTime(g.JoinedAt)
	}
	kind, err := stored.TimeKindOf(g.TimeControl)
	if err != nil {
		return fmt.Errorf("create game %s: %w", g.ID, err)
	}
	tc := g.TimeControl
	res, err := r.exec(ctx, `INSERT INTO games (id, created_at, updated_at, joined_at, capture_seed,
			leftovers, start, ply, position, history, status, winner, end_reason, ai_side, ai_level,
			south_token, north_token, version, time_kind, time_initial_us, time_increment_us, time_per_move_us,
			south_clock_us, north_clock_us, deadline_us, rated, `+stored.SeatColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
				?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`,
		slices.Concat([]any{g.ID, formatTime(g.CreatedAt), formatTime(g.UpdatedAt), joined, g.Rules.CaptureSeed.String(),
			g.Rules.Leftovers.String(), g.Start.String(), g.Ply, g.Position.String(), stored.EncodeHistory(g.History),
			string(g.Status), g.Result.Winner.String(), g.Result.Reason.String(), aiSide, aiLevel,
			nullableBytes(g.Tokens[engine.South]), nullableBytes(g.Tokens[engine.North]), max(g.Version, 1),
			kind, stored.Micros(tc.Initial), stored.Micros(tc.Increment), stored.Micros(tc.PerMove),
			stored.Micros(g.Clock[engine.South]), stored.Micros(g.Clock[engine.North]), deadlineOf(g.Deadline), g.Rated},
			stored.SeatArgs(g.Players[engine.South]), stored.SeatArgs(g.Players[engine.North]))...)
	if err != nil {
		return fmt.Errorf("create game %s: %w", g.ID, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		if err != nil {
			return err
		}
		return games.ErrConflict // a game with that id exists
	}
	return insertRecords(ctx, r, g.ID, moves)
}

func nullableBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return b
}

// Game implements games.Store.
func (s *Store) Game(ctx context.Context, id string) (games.Game, error) {
	g, err := scanGame(runner{s: s}.queryRow(ctx, "SELECT "+gameColumns+" FROM games WHERE id = ?", id))
	return g, s.read(err)
}

// Join implements games.Store. A join at or after the game's deadline is
// refused in the same statement: the game is due to end instead. The open
// seat is South's when both are (as the memory store picks it), and its
// player goes with its token. Every SET term reads the row as it was.
func (s *Store) Join(ctx context.Context, id string, tokenHash []byte, at, deadline time.Time, player games.SeatPlayer) (games.Game, error) {
	var g games.Game
	seat := stored.SeatArgs(player)
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		g, err = scanGame(r.queryRow(ctx, `UPDATE games SET
				south_token = coalesce(south_token, ?1),
				north_token = CASE WHEN south_token IS NULL THEN north_token ELSE coalesce(north_token, ?1) END,
				south_player = CASE WHEN south_token IS NULL THEN ?6 ELSE south_player END,
				south_name = CASE WHEN south_token IS NULL THEN ?7 ELSE south_name END,
				south_rating = CASE WHEN south_token IS NULL THEN ?8 ELSE south_rating END,
				south_deviation = CASE WHEN south_token IS NULL THEN ?9 ELSE south_deviation END,
				south_change = CASE WHEN south_token IS NULL THEN ?10 ELSE south_change END,
				north_player = CASE WHEN south_token IS NULL THEN north_player ELSE ?6 END,
				north_name = CASE WHEN south_token IS NULL THEN north_name ELSE ?7 END,
				north_rating = CASE WHEN south_token IS NULL THEN north_rating ELSE ?8 END,
				north_deviation = CASE WHEN south_token IS NULL THEN north_deviation ELSE ?9 END,
				north_change = CASE WHEN south_token IS NULL THEN north_change ELSE ?10 END,
				status = 'active', joined_at = ?2, updated_at = ?2, deadline_us = ?3, version = version + 1
			WHERE id = ?4 AND status = 'waiting' AND (south_token IS NULL OR north_token IS NULL)
				AND (deadline_us IS NULL OR deadline_us > ?5)
			RETURNING `+gameColumns, tokenHash, formatTime(at), deadlineOf(deadline), id, at.UnixMicro(),
			seat[0], seat[1], seat[2], seat[3], seat[4]))
		if errors.Is(err, games.ErrNotFound) {
			if err := exists(ctx, r, id); err != nil {
				return err
			}
			return games.ErrConflict
		}
		return err
	})
	return g, err
}

// runner runs statements prepared once (see Store.prepared), on the pool or
// inside a transaction.
type runner struct {
	s  *Store
	tx *sql.Tx // nil: the pool
}

func (r runner) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	st, err := r.s.prepared(ctx, query)
	if err != nil || r.tx == nil {
		return st, err
	}
	return r.tx.StmtContext(ctx, st), nil
}

func (r runner) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := r.stmt(ctx, query)
	if err != nil {
		// Unprepared, the query reports the same error through its Row.
		if r.tx != nil {
			return r.tx.QueryRowContext(ctx, query, args...)
		}
		return r.s.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

func (r runner) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	st, err := r.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (r runner) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := r.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

func exists(ctx context.Context, q runner, id string) error {
	var one int
	err := q.queryRow(ctx, "SELECT 1 FROM games WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return games.ErrNotFound
	}
	return err
}

// Resign implements games.Store.
func (s *Store) Resign(ctx context.Context, id string, result engine.Result, at time.Time, match *players.Match) (games.Game, error) {
	var g games.Game
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		g, err = scanGame(r.queryRow(ctx, `UPDATE games SET status = 'finished', winner = ?, end_reason = ?,
				updated_at = ?, deadline_us = NULL, draw_offer = '', takeback_offer = '', version = version + 1, `+seatChangeSet+`
			WHERE id = ? AND status = 'active' RETURNING `+gameColumns,
			slices.Concat([]any{result.Winner.String(), result.Reason.String(), formatTime(at)}, seatChanges(match), []any{id})...))
		if errors.Is(err, games.ErrNotFound) {
			if err := exists(ctx, r, id); err != nil {
				return err
			}
			return games.ErrConflict
		}
		if err != nil {
			return err
		}
		return applyMatch(ctx, r, match)
	})
	return g, err
}

// ApplyPlay implements games.Store: one write (see commit.go) that first
// re-checks that the game is still active at p.Ply and at the version p was
// made from, so of concurrent plays for the same ply exactly one is stored,
// and none undoes an offer written since. A finishing move's match is
// applied in the same write, and undoes all of it when a rating changed.
func (s *Store) ApplyPlay(ctx context.Context, p games.Play) error {
	// The history grows by one digit per move, appended in SQL, so the
	// caller's copy of it need not be sent back.
	add := p.Pits()
	g := &p.Game
	return s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, `UPDATE games SET ply = ply + ?, position = ?, history = history || ?,
				status = ?, winner = ?, end_reason = ?, updated_at = ?, south_clock_us = ?, north_clock_us = ?,
				deadline_us = ?, draw_offer = ?, takeback_offer = ?, version = version + 1, `+seatChangeSet+`
			WHERE id = ? AND ply = ? AND version = ? AND status = 'active'`,
			slices.Concat([]any{len(p.Moves), g.Position.String(), stored.EncodeHistory(add), string(g.Status), g.Result.Winner.String(),
				g.Result.Reason.String(), formatTime(p.At), stored.Micros(g.Clock[engine.South]), stored.Micros(g.Clock[engine.North]),
				deadlineOf(g.Deadline), g.DrawOffer.String(), g.TakebackOffer.String()}, seatChanges(p.Match), []any{p.GameID, p.Ply, g.Version - 1})...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			if err := exists(ctx, r, p.GameID); err != nil {
				return err
			}
			return games.ErrConflict
		}
		if err := applyMatch(ctx, r, p.Match); err != nil {
			return err
		}
		return insertRecords(ctx, r, p.GameID, p.Moves)
	})
}

// Amend implements games.Store: one conditional UPDATE on the version the
// caller read, and for a takeback the deletion of the undone moves, in one
// write of the group committer.
func (s *Store) Amend(ctx context.Context, a games.Amend) (games.Game, error) {
	n := &a.Game
	var g games.Game
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		g, err = scanGame(r.queryRow(ctx, `UPDATE games SET ply = ?1, history = substr(history, 1, ?1), position = ?2,
				south_clock_us = ?3, north_clock_us = ?4, updated_at = ?5, deadline_us = ?6, draw_offer = ?7,
				takeback_offer = ?8, version = version + 1
			WHERE id = ?9 AND version = ?10 AND status = 'active' AND ply >= ?1 RETURNING `+gameColumns,
			n.Ply, n.Position.String(), stored.Micros(n.Clock[engine.South]), stored.Micros(n.Clock[engine.North]),
			formatTime(n.UpdatedAt), deadlineOf(n.Deadline), n.DrawOffer.String(), n.TakebackOffer.String(), a.ID, a.Version))
		if errors.Is(err, games.ErrNotFound) {
			if err := exists(ctx, r, a.ID); err != nil {
				return err
			}
			return games.ErrConflict
		}
		if err != nil {
			return err
		}
		_, err = r.exec(ctx, `DELETE FROM moves WHERE game_id = ? AND ply >= ?`, a.ID, n.Ply)
		return err
	})
	return g, err
}

// execFound runs a write that must change a row: none is its answer when
// the write changed no row.
func (r runner) execFound(ctx context.Context, none error, query string, args ...any) error {
	res, err := r.exec(ctx, query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return none
	}
	return nil
}

// insertRecords stores the records of moves.
func insertRecords(ctx context.Context, r runner, gameID string, moves []games.Record) error {
	for _, m := range moves {
		_, err := r.exec(ctx, `INSERT INTO moves (game_id, ply, pit, by_ai, at, version, draw_offer) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			gameID, m.Ply, m.Pit, m.ByAI, m.At.UnixMicro(), m.Version, m.DrawOffer.String())
		if err != nil {
			return fmt.Errorf("store move %d of %s: %w", m.Ply, gameID, err)
		}
	}
	return nil
}

// Records implements games.Store.
func (s *Store) Records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	out, err := s.records(ctx, id, from, limit)
	return out, s.read(err)
}

func (s *Store) records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	rows, err := runner{s: s}.query(ctx, `SELECT ply, pit, by_ai, at, version, draw_offer FROM moves
		WHERE game_id = ? AND ply >= ? ORDER BY ply LIMIT ?`, id, max(from, 0), max(limit, 0))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []games.Record
	for rows.Next() {
		var m games.Record
		var at int64
		var draw string
		if err := rows.Scan(&m.Ply, &m.Pit, &m.ByAI, &at, &m.Version, &draw); err != nil {
			return nil, err
		}
		var err error
		if m.DrawOffer, err = games.ParseOffer(draw); err != nil {
			return nil, stored.Undecodable("move of game "+id, err)
		}
		m.At = time.UnixMicro(at).UTC()
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if err := exists(ctx, runner{s: s}, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// End implements games.Store: one conditional write, on the version the
// caller read, so of everyone who tries to end a game (this process's
// requests and sweeper, other processes on the same file) exactly one does.
func (s *Store) End(ctx context.Context, e games.End) (games.Game, error) {
	var g games.Game
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		g, err = scanGame(r.queryRow(ctx, `UPDATE games SET status = ?, winner = ?, end_reason = ?,
				south_clock_us = ?, north_clock_us = ?, updated_at = ?, deadline_us = NULL, draw_offer = '', takeback_offer = '',
				version = version + 1, `+seatChangeSet+`
			WHERE id = ? AND version = ? RETURNING `+gameColumns,
			slices.Concat([]any{string(e.Status), e.Result.Winner.String(), e.Result.Reason.String(), stored.Micros(e.Clock[engine.South]),
				stored.Micros(e.Clock[engine.North]), formatTime(e.At)}, seatChanges(e.Match), []any{e.ID, e.Version})...))
		if errors.Is(err, games.ErrNotFound) {
			if err := exists(ctx, r, e.ID); err != nil {
				return err
			}
			return games.ErrConflict
		}
		if err != nil {
			return err
		}
		return applyMatch(ctx, r, e.Match)
	})
	return g, err
}

// pendingGames is the condition of the partial index games_deadline, word
// for word: SQLite uses that index only for a query whose WHERE clause
// holds the index's own terms.
const pendingGames = `status IN ('waiting', 'active') AND deadline_us IS NOT NULL`

// Overdue implements games.Store, from the start of the index games_deadline.
func (s *Store) Overdue(ctx context.Context, now time.Time, limit int) ([]games.Game, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := runner{s: s}.query(ctx, "SELECT "+gameColumns+" FROM games WHERE "+pendingGames+
		" AND deadline_us <= ? ORDER BY deadline_us LIMIT ?", now.UnixMicro(), limit)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	out, err := stored.Collect(rows, scanGame)
	return out, s.read(err)
}

// NextDeadline implements games.Store: the first entry of the index
// games_deadline, read without touching the table.
func (s *Store) NextDeadline(ctx context.Context) (time.Time, error) {
	var next int64
	err := runner{s: s}.queryRow(ctx, "SELECT deadline_us FROM games WHERE "+pendingGames+
		" ORDER BY deadline_us LIMIT 1").Scan(&next)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, s.read(err)
	}
	return time.UnixMicro(next).UTC(), nil
}

// DeleteEnded implements games.Store: the oldest ended games first, found
// through the index games_ended, in one write of the group committer; their
// moves go with them (ON DELETE CASCADE, through the key that starts with
// the game's id), and so do their reviews, in the same transaction (the
// reviews table has no reference to games, so each is deleted by its key).
// The explorer's rows are counts and keep the game: a pruned game's id may
// stay among a move's recent games.
func (s *Store) DeleteEnded(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	n := 0
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		n = 0
		rows, err := r.query(ctx, `DELETE FROM games WHERE id IN (SELECT id FROM games
			WHERE status IN ('finished', 'aborted') AND updated_at < ? ORDER BY updated_at LIMIT ?)
			RETURNING id`,
			formatTime(before), limit)
		if err != nil {
			return err
		}
		var ids []string
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			if _, err := r.exec(ctx, `DELETE FROM reviews WHERE game_id = ?`, id); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	return n, err
}
