package postgres

// The events' rows (tournaments.Store), shared by instances. Every write
// that changes an event updates its row first, on the write's condition
// (the pairing sequence, the status), in a transaction at READ COMMITTED:
// the row lock makes writes to one event wait for each other, and one
// that waited re-checks its condition against the row the other left, so
// of instances pairing one event at once one commits and the others find
// the sequence moved on (tournaments.ErrConflict), having written nothing.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
	"github.com/ayoayo/ayoayo/tournaments"
	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

var _ tournaments.Store = (*Store)(nil)

const tournamentColumns = `id, kind, name, created_by, created_at, time_kind, time_initial_us, time_increment_us,
	time_per_move_us, rated, starts_at, minutes, rounds, round_gap_us, berserk, min_rated_games, min_rating,
	max_rating, status, round, round_at, pair_seq, finished_at, version, bots`

// timeOf reads a nullable instant: the zero time for NULL.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func scanTournament(row stored.Scanner) (tournaments.Tournament, error) {
	var t tournaments.Tournament
	var roundAt, finished *time.Time
	var kind string
	var initial, increment, perMove, gap int64
	err := row.Scan(&t.ID, &t.Kind, &t.Name, &t.CreatedBy, &t.CreatedAt, &kind, &initial, &increment, &perMove,
		&t.Rated, &t.StartsAt, &t.Minutes, &t.Rounds, &gap, &t.Berserk, &t.Conditions.MinRatedGames,
		&t.Conditions.MinRating, &t.Conditions.MaxRating, &t.Status, &t.Round, &roundAt, &t.PairSeq, &finished, &t.Version, &t.Conditions.Bots)
	if noRows(err) {
		return t, tournaments.ErrStoreNotFound
	}
	if err != nil {
		return t, err
	}
	tk, err := stored.ParseTimeKind(kind)
	if err != nil {
		return t, stored.Undecodable("tournament "+t.ID, err)
	}
	t.TimeControl = games.TimeControl{Kind: tk, Initial: stored.Duration(initial), Increment: stored.Duration(increment),
		PerMove: stored.Duration(perMove)}
	t.CreatedAt, t.StartsAt, t.RoundGap = t.CreatedAt.UTC(), t.StartsAt.UTC(), stored.Duration(gap)
	t.RoundAt, t.FinishedAt = timeOf(roundAt), timeOf(finished)
	return t, nil
}

func scanTournaments(rows pgx.Rows, err error) ([]tournaments.Tournament, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournaments.Tournament
	for rows.Next() {
		t, err := scanTournament(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// tournamentFound tells ErrStoreNotFound from ErrConflict after a
// conditional write on event id changed nothing.
func tournamentFound(ctx context.Context, q querier, id string) error {
	var one int
	err := q.QueryRow(ctx, "SELECT 1 FROM tournaments WHERE id = $1", id).Scan(&one)
	if noRows(err) {
		return tournaments.ErrStoreNotFound
	}
	if err != nil {
		return err
	}
	return tournaments.ErrConflict
}

// execFound runs a write that must change a row: none is its answer when
// it changed none.
func execFound(ctx context.Context, q querier, none error, query string, args ...any) error {
	tag, err := q.Exec(ctx, query, args...)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return none
	}
	return nil
}

// errNoRow: a conditional write changed no row; the caller finds out why.
var errNoRow = errors.New("no row")

// CreateTournament implements tournaments.Store.
func (s *Store) CreateTournament(ctx context.Context, t tournaments.Tournament) error {
	kind, err := stored.TimeKindOf(t.TimeControl)
	if err != nil {
		return fmt.Errorf("create tournament %s: %w", t.ID, err)
	}
	tc, c := t.TimeControl, t.Conditions
	return s.inTx(ctx, func(tx pgx.Tx) error {
		return execFound(ctx, tx, tournaments.ErrConflict, `INSERT INTO tournaments (`+tournamentColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
			ON CONFLICT (id) DO NOTHING`,
			t.ID, string(t.Kind), t.Name, t.CreatedBy, stamp(t.CreatedAt), kind, stored.Micros(tc.Initial),
			stored.Micros(tc.Increment), stored.Micros(tc.PerMove), t.Rated, stamp(t.StartsAt), t.Minutes, t.Rounds,
			stored.Micros(t.RoundGap), t.Berserk, c.MinRatedGames, c.MinRating, c.MaxRating, string(t.Status), t.Round,
			nullableTime(t.RoundAt), t.PairSeq, nullableTime(t.FinishedAt), t.Version, c.Bots)
	})
}

// Tournament implements tournaments.Store.
func (s *Store) Tournament(ctx context.Context, id string) (tournaments.Tournament, error) {
	t, err := scanTournament(s.pool.QueryRow(ctx, "SELECT "+tournamentColumns+" FROM tournaments WHERE id = $1", id))
	return t, s.read(err)
}

// Event implements tournaments.Store: four statements in one read-only
// transaction at REPEATABLE READ, so they read one snapshot whatever
// writes land meanwhile.
func (s *Store) Event(ctx context.Context, id string) (tournaments.Event, error) {
	ev, err := s.event(ctx, id)
	return ev, s.read(err)
}

func (s *Store) event(ctx context.Context, id string) (tournaments.Event, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return tournaments.Event{}, err
	}
	defer tx.Rollback(ctx)
	var ev tournaments.Event
	if ev.Tournament, err = scanTournament(tx.QueryRow(ctx, "SELECT "+tournamentColumns+" FROM tournaments WHERE id = $1", id)); err != nil {
		return ev, err
	}
	rows, err := tx.Query(ctx, `SELECT player_id, name, rating, joined_at, joined_round, withdrawn
		FROM tournament_entrants WHERE tournament_id = $1 ORDER BY joined_at, player_id`, id)
	if err != nil {
		return ev, err
	}
	for rows.Next() {
		var e tournaments.Entrant
		if err := rows.Scan(&e.PlayerID, &e.Name, &e.Rating, &e.JoinedAt, &e.JoinedRound, &e.Withdrawn); err != nil {
			rows.Close()
			return ev, err
		}
		e.JoinedAt = e.JoinedAt.UTC()
		ev.Entrants = append(ev.Entrants, e)
	}
	if rows.Close(); rows.Err() != nil {
		return ev, rows.Err()
	}
	rows, err = tx.Query(ctx, `SELECT game_id, round, south, north, created_at, south_berserk, north_berserk, done,
		outcome, plies, ended_at, aborted FROM tournament_games WHERE tournament_id = $1 ORDER BY created_at, game_id`, id)
	if err != nil {
		return ev, err
	}
	for rows.Next() {
		var g tournaments.Game
		var ended *time.Time
		var outcome int16
		if err := rows.Scan(&g.GameID, &g.Round, &g.South, &g.North, &g.CreatedAt, &g.Berserk[engine.South],
			&g.Berserk[engine.North], &g.Done, &outcome, &g.Plies, &ended, &g.Aborted); err != nil {
			rows.Close()
			return ev, err
		}
		g.CreatedAt, g.EndedAt, g.Outcome = g.CreatedAt.UTC(), timeOf(ended), pairing.Outcome(outcome)
		ev.Games = append(ev.Games, g)
	}
	if rows.Close(); rows.Err() != nil {
		return ev, rows.Err()
	}
	rows, err = tx.Query(ctx, `SELECT round, player_id FROM tournament_byes WHERE tournament_id = $1
		ORDER BY round, player_id`, id)
	if err != nil {
		return ev, err
	}
	ev.Byes, err = pgx.CollectRows(rows, pgx.RowToStructByPos[tournaments.Bye])
	return ev, err
}

// Tournaments implements tournaments.Store, through tournaments_by_start
// or, for finished events, tournaments_finished.
func (s *Store) Tournaments(ctx context.Context, q tournaments.ListQuery) ([]tournaments.Tournament, error) {
	limit := max(q.Limit, 0)
	var out []tournaments.Tournament
	var err error
	switch {
	case q.Status == tournaments.Finished && q.After == nil:
		out, err = scanTournaments(s.pool.Query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = 'finished' ORDER BY finished_at DESC, id DESC LIMIT $1`, limit))
	case q.Status == tournaments.Finished:
		out, err = scanTournaments(s.pool.Query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = 'finished' AND (finished_at, id) < ($1, $2) ORDER BY finished_at DESC, id DESC LIMIT $3`,
			stamp(q.After.FinishedAt), q.After.ID, limit))
	case q.After == nil:
		out, err = scanTournaments(s.pool.Query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = $1 ORDER BY starts_at, id LIMIT $2`, string(q.Status), limit))
	default:
		out, err = scanTournaments(s.pool.Query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = $1 AND (starts_at, id) > ($2, $3) ORDER BY starts_at, id LIMIT $4`,
			string(q.Status), stamp(q.After.StartsAt), q.After.ID, limit))
	}
	return out, s.read(err)
}

// Due implements tournaments.Store: the running events and the upcoming
// ones that have started, each a range of tournaments_by_start.
func (s *Store) Due(ctx context.Context, at time.Time, limit int) ([]tournaments.Tournament, error) {
	out, err := scanTournaments(s.pool.Query(ctx, `SELECT * FROM (
			SELECT `+tournamentColumns+` FROM tournaments WHERE status = 'running'
			UNION ALL
			SELECT `+tournamentColumns+` FROM tournaments WHERE status = 'upcoming' AND starts_at <= $1
		) AS due ORDER BY starts_at, id LIMIT $2`, stamp(at), max(limit, 0)))
	return out, s.read(err)
}

// JoinTournament implements tournaments.Store. The event's row is
// written first, on its condition, and the entrant's after: a new one
// inserted, a withdrawn one made active again, an active one refused
// (which undoes the first).
func (s *Store) JoinTournament(ctx context.Context, id string, e tournaments.Entrant) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		err := execFound(ctx, tx, errNoRow, `UPDATE tournaments SET version = version + 1
			WHERE id = $1 AND status <> 'finished'`, id)
		if errors.Is(err, errNoRow) {
			return tournamentFound(ctx, tx, id)
		}
		if err != nil {
			return err
		}
		return execFound(ctx, tx, tournaments.ErrConflict, `INSERT INTO tournament_entrants AS e
			(tournament_id, player_id, name, rating, joined_at, joined_round, withdrawn) VALUES ($1, $2, $3, $4, $5, $6, false)
			ON CONFLICT (tournament_id, player_id) DO UPDATE SET withdrawn = false, joined_round = excluded.joined_round
			WHERE e.withdrawn`,
			id, e.PlayerID, e.Name, e.Rating, stamp(e.JoinedAt), e.JoinedRound)
	})
}

// Withdraw implements tournaments.Store.
func (s *Store) Withdraw(ctx context.Context, id, player string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		err := execFound(ctx, tx, errNoRow, `UPDATE tournaments SET pair_seq = pair_seq + 1, version = version + 1
			WHERE id = $1 AND status <> 'finished'`, id)
		if errors.Is(err, errNoRow) {
			return tournamentFound(ctx, tx, id)
		}
		if err != nil {
			return err
		}
		return execFound(ctx, tx, tournaments.ErrConflict, `UPDATE tournament_entrants SET withdrawn = true
			WHERE tournament_id = $1 AND player_id = $2 AND NOT withdrawn`, id, player)
	})
}

// PairTournament implements tournaments.Store: the event's row on its
// condition first (a racing pairing waits for its lock here, and then
// finds pair_seq moved on), then the rows and games of the pairing; any of
// them refused rolls the whole back.
func (s *Store) PairTournament(ctx context.Context, p tournaments.Pairing) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := execFound(ctx, tx, tournaments.ErrConflict, `UPDATE tournaments SET pair_seq = pair_seq + 1, version = version + 1,
				round = CASE WHEN $3::integer > 0 THEN $3::integer ELSE round END,
				round_at = CASE WHEN $3::integer > 0 THEN $4::timestamptz ELSE round_at END
			WHERE id = $1 AND pair_seq = $2 AND status = 'running'`,
			p.Tournament, p.PairSeq, p.Round, stamp(p.At)); err != nil {
			return err
		}
		if p.Round > 0 && len(p.Byes) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO tournament_byes (tournament_id, round, player_id)
				SELECT $1, $2, unnest($3::text[])`, p.Tournament, p.Round, p.Byes); err != nil {
				return err
			}
		}
		for i := range p.Games {
			if err := insertEventGame(ctx, tx, p.Tournament, &p.Games[i]); err != nil {
				return err
			}
		}
		return insertSessions(ctx, tx, p.Sessions)
	})
}

// insertEventGame adds g to event id's games; ErrConflict when its id is
// an event's game already.
func insertEventGame(ctx context.Context, q querier, id string, g *tournaments.Game) error {
	return execFound(ctx, q, tournaments.ErrConflict, `INSERT INTO tournament_games (game_id, tournament_id, round, south, north,
		created_at, south_berserk, north_berserk, done, outcome, plies, ended_at, aborted)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (game_id) DO NOTHING`,
		g.GameID, id, g.Round, g.South, g.North, stamp(g.CreatedAt), g.Berserk[engine.South], g.Berserk[engine.North],
		g.Done, int16(g.Outcome), g.Plies, nullableTime(g.EndedAt), g.Aborted)
}

// insertSessions stores gs as CreateGame does; ErrConflict when a game's
// id is taken.
func insertSessions(ctx context.Context, q querier, gs []games.Game) error {
	for i := range gs {
		created, err := createGameOn(ctx, q, &gs[i], nil)
		if err != nil {
			return err
		}
		if created == 0 {
			return tournaments.ErrConflict
		}
	}
	return nil
}

// updateEventGame runs a conditional write of an event's game that
// returns its event's id, and bumps that event's version.
func (s *Store) updateEventGame(ctx context.Context, gameID, query string, args ...any) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var id string
		err := tx.QueryRow(ctx, query, args...).Scan(&id)
		if noRows(err) {
			var one int
			err := tx.QueryRow(ctx, "SELECT 1 FROM tournament_games WHERE game_id = $1", gameID).Scan(&one)
			if noRows(err) {
				return tournaments.ErrStoreNotFound
			}
			if err != nil {
				return err
			}
			return tournaments.ErrConflict
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE tournaments SET version = version + 1 WHERE id = $1`, id)
		return err
	})
}

// RecordResult implements tournaments.Store.
func (s *Store) RecordResult(ctx context.Context, gameID string, res tournaments.Result) error {
	return s.updateEventGame(ctx, gameID, `UPDATE tournament_games SET done = true, outcome = $1, plies = $2, ended_at = $3,
		aborted = $4 WHERE game_id = $5 AND NOT done RETURNING tournament_id`,
		int16(res.Outcome), res.Plies, nullableTime(res.EndedAt), res.Aborted, gameID)
}

// SetBerserk implements tournaments.Store.
func (s *Store) SetBerserk(ctx context.Context, gameID string, side engine.Side) error {
	column := "south_berserk"
	if side == engine.North {
		column = "north_berserk"
	}
	return s.updateEventGame(ctx, gameID, `UPDATE tournament_games SET `+column+` = true
		WHERE game_id = $1 AND NOT done AND NOT `+column+` RETURNING tournament_id`, gameID)
}

// GameTournament implements tournaments.Store.
func (s *Store) GameTournament(ctx context.Context, gameID string) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT tournament_id FROM tournament_games WHERE game_id = $1`, gameID).Scan(&id)
	if noRows(err) {
		return "", tournaments.ErrStoreNotFound
	}
	return id, s.read(err)
}

// Start implements tournaments.Store.
func (s *Store) Start(ctx context.Context, id string, _ time.Time) error {
	return s.move(ctx, id, `UPDATE tournaments SET status = 'running', version = version + 1
		WHERE id = $1 AND status = 'upcoming'`, id)
}

// Finish implements tournaments.Store.
func (s *Store) Finish(ctx context.Context, id string, at time.Time) error {
	return s.move(ctx, id, `UPDATE tournaments SET status = 'finished', finished_at = $2, version = version + 1
		WHERE id = $1 AND status = 'running'`, id, stamp(at))
}

// move runs a conditional write of event id's status.
func (s *Store) move(ctx context.Context, id, query string, args ...any) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		err := execFound(ctx, tx, errNoRow, query, args...)
		if errors.Is(err, errNoRow) {
			return tournamentFound(ctx, tx, id)
		}
		return err
	})
}

// CreateBulk implements tournaments.Store.
func (s *Store) CreateBulk(ctx context.Context, b tournaments.Bulk, sessions []games.Game) error {
	kind, err := stored.TimeKindOf(b.TimeControl)
	if err != nil {
		return fmt.Errorf("create bulk pairing %s: %w", b.ID, err)
	}
	tc := b.TimeControl
	ids, souths, norths := make([]string, len(b.Games)), make([]string, len(b.Games)), make([]string, len(b.Games))
	for i, g := range b.Games {
		ids[i], souths[i], norths[i] = g.GameID, g.South, g.North
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if err := execFound(ctx, tx, tournaments.ErrConflict, `INSERT INTO bulk_pairings (id, created_by, created_at, time_kind,
				time_initial_us, time_increment_us, time_per_move_us, rated, clock_starts_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
			b.ID, b.CreatedBy, stamp(b.CreatedAt), kind, stored.Micros(tc.Initial), stored.Micros(tc.Increment),
			stored.Micros(tc.PerMove), b.Rated, nullableTime(b.ClockStartsAt)); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `INSERT INTO bulk_pairing_games (bulk_id, seq, game_id, south, north)
			SELECT $1, g.seq - 1, g.game_id, g.south, g.north
			FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS g (game_id, south, north, seq)
			ON CONFLICT DO NOTHING`, b.ID, ids, souths, norths)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != int64(len(b.Games)) {
			return tournaments.ErrConflict // a game id of another bulk pairing's
		}
		return insertSessions(ctx, tx, sessions)
	})
}

// Bulk implements tournaments.Store. Its rows never change once made, so
// two statements read them.
func (s *Store) Bulk(ctx context.Context, id string) (tournaments.Bulk, error) {
	b, err := s.bulk(ctx, id)
	return b, s.read(err)
}

func (s *Store) bulk(ctx context.Context, id string) (tournaments.Bulk, error) {
	b := tournaments.Bulk{ID: id}
	var clock *time.Time
	var kind string
	var initial, increment, perMove int64
	err := s.pool.QueryRow(ctx, `SELECT created_by, created_at, time_kind, time_initial_us, time_increment_us,
		time_per_move_us, rated, clock_starts_at FROM bulk_pairings WHERE id = $1`, id).Scan(&b.CreatedBy, &b.CreatedAt,
		&kind, &initial, &increment, &perMove, &b.Rated, &clock)
	if noRows(err) {
		return b, tournaments.ErrStoreNotFound
	}
	if err != nil {
		return b, err
	}
	tk, err := stored.ParseTimeKind(kind)
	if err != nil {
		return b, stored.Undecodable("bulk pairing "+id, err)
	}
	b.TimeControl = games.TimeControl{Kind: tk, Initial: stored.Duration(initial), Increment: stored.Duration(increment),
		PerMove: stored.Duration(perMove)}
	b.CreatedAt, b.ClockStartsAt = b.CreatedAt.UTC(), timeOf(clock)
	rows, err := s.pool.Query(ctx, `SELECT game_id, south, north FROM bulk_pairing_games WHERE bulk_id = $1 ORDER BY seq`, id)
	if err != nil {
		return b, err
	}
	b.Games, err = pgx.CollectRows(rows, pgx.RowToStructByPos[tournaments.BulkGame])
	return b, err
}
