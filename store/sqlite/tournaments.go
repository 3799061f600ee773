package sqlite

// The events' rows (tournaments.Store). Every write goes through the
// committer, one at a time, and each is one step: a pairing's condition
// on the event's pair_seq, its rows and the games it stores commit
// together or not at all (a write that fails is rolled back to its
// savepoint).

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
	"github.com/ayoayo/ayoayo/tournaments"
)

var _ tournaments.Store = (*Store)(nil)

// nullMicros is t for a nullable column: NULL for the zero time.
func nullMicros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return micros(t)
}

func fromNullMicros(us sql.NullInt64) time.Time {
	if !us.Valid {
		return time.Time{}
	}
	return fromMicros(us.Int64)
}

const tournamentColumns = `id, kind, name, created_by, created_at, time_kind, time_initial_us, time_increment_us,
	time_per_move_us, rated, starts_at, minutes, rounds, round_gap_us, berserk, min_rated_games, min_rating,
	max_rating, status, round, round_at, pair_seq, finished_at, version, bots`

func scanTournament(row stored.Scanner) (tournaments.Tournament, error) {
	var t tournaments.Tournament
	var created, starts int64
	var roundAt, finished sql.NullInt64
	var kind string
	var initial, increment, perMove, gap int64
	err := row.Scan(&t.ID, &t.Kind, &t.Name, &t.CreatedBy, &created, &kind, &initial, &increment, &perMove,
		&t.Rated, &starts, &t.Minutes, &t.Rounds, &gap, &t.Berserk, &t.Conditions.MinRatedGames,
		&t.Conditions.MinRating, &t.Conditions.MaxRating, &t.Status, &t.Round, &roundAt, &t.PairSeq, &finished, &t.Version, &t.Conditions.Bots)
	if errors.Is(err, sql.ErrNoRows) {
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
	t.CreatedAt, t.StartsAt, t.RoundGap = fromMicros(created), fromMicros(starts), stored.Duration(gap)
	t.RoundAt, t.FinishedAt = fromNullMicros(roundAt), fromNullMicros(finished)
	return t, nil
}

func scanTournaments(rows *sql.Rows, err error) ([]tournaments.Tournament, error) {
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
func tournamentFound(ctx context.Context, r runner, id string) error {
	var one int
	err := r.queryRow(ctx, "SELECT 1 FROM tournaments WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return tournaments.ErrStoreNotFound
	}
	if err != nil {
		return err
	}
	return tournaments.ErrConflict
}

// CreateTournament implements tournaments.Store.
func (s *Store) CreateTournament(ctx context.Context, t tournaments.Tournament) error {
	kind, err := stored.TimeKindOf(t.TimeControl)
	if err != nil {
		return fmt.Errorf("create tournament %s: %w", t.ID, err)
	}
	tc, c := t.TimeControl, t.Conditions
	return s.write(ctx, func(ctx context.Context, r runner) error {
		return r.execFound(ctx, tournaments.ErrConflict, `INSERT INTO tournaments (`+tournamentColumns+`)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (id) DO NOTHING`,
			t.ID, string(t.Kind), t.Name, t.CreatedBy, micros(t.CreatedAt), kind, stored.Micros(tc.Initial),
			stored.Micros(tc.Increment), stored.Micros(tc.PerMove), t.Rated, micros(t.StartsAt), t.Minutes, t.Rounds,
			stored.Micros(t.RoundGap), t.Berserk, c.MinRatedGames, c.MinRating, c.MaxRating, string(t.Status), t.Round,
			nullMicros(t.RoundAt), t.PairSeq, nullMicros(t.FinishedAt), t.Version, c.Bots)
	})
}

// Tournament implements tournaments.Store.
func (s *Store) Tournament(ctx context.Context, id string) (tournaments.Tournament, error) {
	t, err := scanTournament(runner{s: s}.queryRow(ctx, "SELECT "+tournamentColumns+" FROM tournaments WHERE id = ?", id))
	return t, s.read(err)
}

// Event implements tournaments.Store: four statements in one read
// transaction, so the rows are as of one moment whatever writes land
// meanwhile.
func (s *Store) Event(ctx context.Context, id string) (tournaments.Event, error) {
	ev, err := s.event(ctx, id)
	return ev, s.read(err)
}

func (s *Store) event(ctx context.Context, id string) (tournaments.Event, error) {
	// Read-only: a deferred transaction, which takes no write lock and
	// reads one snapshot of the WAL from its first statement.
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return tournaments.Event{}, err
	}
	defer tx.Rollback()
	r := runner{s: s, tx: tx}
	var ev tournaments.Event
	if ev.Tournament, err = scanTournament(r.queryRow(ctx, "SELECT "+tournamentColumns+" FROM tournaments WHERE id = ?", id)); err != nil {
		return ev, err
	}
	if ev.Entrants, err = scanEntrants(r.query(ctx, `SELECT player_id, name, rating, joined_at, joined_round, withdrawn
		FROM tournament_entrants WHERE tournament_id = ? ORDER BY joined_at, player_id`, id)); err != nil {
		return ev, err
	}
	if ev.Games, err = scanEventGames(r.query(ctx, `SELECT game_id, round, south, north, created_at, south_berserk,
		north_berserk, done, outcome, plies, ended_at, aborted
		FROM tournament_games WHERE tournament_id = ? ORDER BY created_at, game_id`, id)); err != nil {
		return ev, err
	}
	ev.Byes, err = scanByes(r.query(ctx, `SELECT round, player_id FROM tournament_byes WHERE tournament_id = ?
		ORDER BY round, player_id`, id))
	return ev, err
}

func scanEntrants(rows *sql.Rows, err error) ([]tournaments.Entrant, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournaments.Entrant
	for rows.Next() {
		var e tournaments.Entrant
		var joined int64
		if err := rows.Scan(&e.PlayerID, &e.Name, &e.Rating, &joined, &e.JoinedRound, &e.Withdrawn); err != nil {
			return nil, err
		}
		e.JoinedAt = fromMicros(joined)
		out = append(out, e)
	}
	return out, rows.Err()
}

func scanEventGames(rows *sql.Rows, err error) ([]tournaments.Game, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournaments.Game
	for rows.Next() {
		var g tournaments.Game
		var created int64
		var ended sql.NullInt64
		if err := rows.Scan(&g.GameID, &g.Round, &g.South, &g.North, &created, &g.Berserk[engine.South],
			&g.Berserk[engine.North], &g.Done, &g.Outcome, &g.Plies, &ended, &g.Aborted); err != nil {
			return nil, err
		}
		g.CreatedAt, g.EndedAt = fromMicros(created), fromNullMicros(ended)
		out = append(out, g)
	}
	return out, rows.Err()
}

func scanByes(rows *sql.Rows, err error) ([]tournaments.Bye, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tournaments.Bye
	for rows.Next() {
		var b tournaments.Bye
		if err := rows.Scan(&b.Round, &b.PlayerID); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// Tournaments implements tournaments.Store, through tournaments_by_start
// or, for finished events, tournaments_finished.
func (s *Store) Tournaments(ctx context.Context, q tournaments.ListQuery) ([]tournaments.Tournament, error) {
	r := runner{s: s}
	limit := max(q.Limit, 0)
	var out []tournaments.Tournament
	var err error
	switch {
	case q.Status == tournaments.Finished && q.After == nil:
		out, err = scanTournaments(r.query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = 'finished' ORDER BY finished_at DESC, id DESC LIMIT ?`, limit))
	case q.Status == tournaments.Finished:
		out, err = scanTournaments(r.query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = 'finished' AND (finished_at, id) < (?, ?) ORDER BY finished_at DESC, id DESC LIMIT ?`,
			micros(q.After.FinishedAt), q.After.ID, limit))
	case q.After == nil:
		out, err = scanTournaments(r.query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = ? ORDER BY starts_at, id LIMIT ?`, string(q.Status), limit))
	default:
		out, err = scanTournaments(r.query(ctx, `SELECT `+tournamentColumns+` FROM tournaments
			WHERE status = ? AND (starts_at, id) > (?, ?) ORDER BY starts_at, id LIMIT ?`,
			string(q.Status), micros(q.After.StartsAt), q.After.ID, limit))
	}
	return out, s.read(err)
}

// Due implements tournaments.Store: the running events and the upcoming
// ones that have started, each a range of tournaments_by_start.
func (s *Store) Due(ctx context.Context, at time.Time, limit int) ([]tournaments.Tournament, error) {
	out, err := scanTournaments(runner{s: s}.query(ctx, `SELECT * FROM (
			SELECT `+tournamentColumns+` FROM tournaments WHERE status = 'running'
			UNION ALL
			SELECT `+tournamentColumns+` FROM tournaments WHERE status = 'upcoming' AND starts_at <= ?
		) ORDER BY starts_at, id LIMIT ?`, micros(at), max(limit, 0)))
	return out, s.read(err)
}

// JoinTournament implements tournaments.Store. The event's row is
// written first, on its condition, and the entrant's after: a new one
// inserted, a withdrawn one made active again, an active one refused
// (which undoes the first).
func (s *Store) JoinTournament(ctx context.Context, id string, e tournaments.Entrant) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		err := r.execFound(ctx, errNoRow, `UPDATE tournaments SET version = version + 1
			WHERE id = ? AND status <> 'finished'`, id)
		if errors.Is(err, errNoRow) {
			return tournamentFound(ctx, r, id)
		}
		if err != nil {
			return err
		}
		return r.execFound(ctx, tournaments.ErrConflict, `INSERT INTO tournament_entrants
			(tournament_id, player_id, name, rating, joined_at, joined_round, withdrawn) VALUES (?, ?, ?, ?, ?, ?, 0)
			ON CONFLICT (tournament_id, player_id) DO UPDATE SET withdrawn = 0, joined_round = excluded.joined_round
			WHERE withdrawn = 1`,
			id, e.PlayerID, e.Name, e.Rating, micros(e.JoinedAt), e.JoinedRound)
	})
}

// errNoRow: a conditional write changed no row; the caller finds out why.
var errNoRow = errors.New("no row")

// Withdraw implements tournaments.Store.
func (s *Store) Withdraw(ctx context.Context, id, player string) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		err := r.execFound(ctx, errNoRow, `UPDATE tournaments SET pair_seq = pair_seq + 1, version = version + 1
			WHERE id = ? AND status <> 'finished'`, id)
		if errors.Is(err, errNoRow) {
			return tournamentFound(ctx, r, id)
		}
		if err != nil {
			return err
		}
		return r.execFound(ctx, tournaments.ErrConflict, `UPDATE tournament_entrants SET withdrawn = 1
			WHERE tournament_id = ? AND player_id = ? AND withdrawn = 0`, id, player)
	})
}

// PairTournament implements tournaments.Store: the event's row on its
// condition first, then the rows and games of the pairing; any of them
// refused undoes the whole.
func (s *Store) PairTournament(ctx context.Context, p tournaments.Pairing) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		if err := r.execFound(ctx, tournaments.ErrConflict, `UPDATE tournaments SET pair_seq = pair_seq + 1, version = version + 1,
				round = CASE WHEN ?3 > 0 THEN ?3 ELSE round END, round_at = CASE WHEN ?3 > 0 THEN ?4 ELSE round_at END
			WHERE id = ?1 AND pair_seq = ?2 AND status = 'running'`,
			p.Tournament, p.PairSeq, p.Round, micros(p.At)); err != nil {
			return err
		}
		if p.Round > 0 {
			for _, b := range p.Byes {
				if _, err := r.exec(ctx, `INSERT INTO tournament_byes (tournament_id, round, player_id) VALUES (?, ?, ?)`,
					p.Tournament, p.Round, b); err != nil {
					return err
				}
			}
		}
		for i := range p.Games {
			if err := insertEventGame(ctx, r, p.Tournament, &p.Games[i]); err != nil {
				return err
			}
		}
		return insertSessions(ctx, r, p.Sessions)
	})
}

// insertEventGame adds g to event id's games; ErrConflict when its id is
// an event's game already.
func insertEventGame(ctx context.Context, r runner, id string, g *tournaments.Game) error {
	return r.execFound(ctx, tournaments.ErrConflict, `INSERT INTO tournament_games (game_id, tournament_id, round, south, north,
		created_at, south_berserk, north_berserk, done, outcome, plies, ended_at, aborted)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING`,
		g.GameID, id, g.Round, g.South, g.North, micros(g.CreatedAt), g.Berserk[engine.South], g.Berserk[engine.North],
		g.Done, int(g.Outcome), g.Plies, nullMicros(g.EndedAt), g.Aborted)
}

// insertSessions stores gs as CreateGame does; ErrConflict when a game's
// id is taken.
func insertSessions(ctx context.Context, r runner, gs []games.Game) error {
	for i := range gs {
		err := insertGame(ctx, r, &gs[i], nil)
		if errors.Is(err, games.ErrConflict) {
			return tournaments.ErrConflict
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// gameFound tells ErrStoreNotFound from ErrConflict after a conditional
// write on an event's game changed nothing.
func gameFound(ctx context.Context, r runner, gameID string) error {
	var one int
	err := r.queryRow(ctx, "SELECT 1 FROM tournament_games WHERE game_id = ?", gameID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return tournaments.ErrStoreNotFound
	}
	if err != nil {
		return err
	}
	return tournaments.ErrConflict
}

// updateEventGame runs a conditional write of an event's game that
// returns its event's id, and bumps that event's version.
func (s *Store) updateEventGame(ctx context.Context, gameID, query string, args ...any) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		var id string
		err := r.queryRow(ctx, query, args...).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return gameFound(ctx, r, gameID)
		}
		if err != nil {
			return err
		}
		_, err = r.exec(ctx, `UPDATE tournaments SET version = version + 1 WHERE id = ?`, id)
		return err
	})
}

// RecordResult implements tournaments.Store.
func (s *Store) RecordResult(ctx context.Context, gameID string, res tournaments.Result) error {
	return s.updateEventGame(ctx, gameID, `UPDATE tournament_games SET done = 1, outcome = ?, plies = ?, ended_at = ?, aborted = ?
		WHERE game_id = ? AND done = 0 RETURNING tournament_id`,
		int(res.Outcome), res.Plies, nullMicros(res.EndedAt), res.Aborted, gameID)
}

// SetBerserk implements tournaments.Store.
func (s *Store) SetBerserk(ctx context.Context, gameID string, side engine.Side) error {
	column := "south_berserk"
	if side == engine.North {
		column = "north_berserk"
	}
	return s.updateEventGame(ctx, gameID, `UPDATE tournament_games SET `+column+` = 1
		WHERE game_id = ? AND done = 0 AND `+column+` = 0 RETURNING tournament_id`, gameID)
}

// GameTournament implements tournaments.Store.
func (s *Store) GameTournament(ctx context.Context, gameID string) (string, error) {
	var id string
	err := runner{s: s}.queryRow(ctx, `SELECT tournament_id FROM tournament_games WHERE game_id = ?`, gameID).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", tournaments.ErrStoreNotFound
	}
	return id, s.read(err)
}

// Start implements tournaments.Store.
func (s *Store) Start(ctx context.Context, id string, _ time.Time) error {
	return s.move(ctx, id, `UPDATE tournaments SET status = 'running', version = version + 1
		WHERE id = ? AND status = 'upcoming'`, id)
}

// Finish implements tournaments.Store.
func (s *Store) Finish(ctx context.Context, id string, at time.Time) error {
	return s.move(ctx, id, `UPDATE tournaments SET status = 'finished', finished_at = ?, version = version + 1
		WHERE id = ? AND status = 'running'`, micros(at), id)
}

// move runs a conditional write of event id's status.
func (s *Store) move(ctx context.Context, id, query string, args ...any) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		err := r.execFound(ctx, errNoRow, query, args...)
		if errors.Is(err, errNoRow) {
			return tournamentFound(ctx, r, id)
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
	return s.write(ctx, func(ctx context.Context, r runner) error {
		if err := r.execFound(ctx, tournaments.ErrConflict, `INSERT INTO bulk_pairings (id, created_by, created_at, time_kind,
				time_initial_us, time_increment_us, time_per_move_us, rated, clock_starts_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			b.ID, b.CreatedBy, micros(b.CreatedAt), kind, stored.Micros(tc.Initial), stored.Micros(tc.Increment),
			stored.Micros(tc.PerMove), b.Rated, nullMicros(b.ClockStartsAt)); err != nil {
			return err
		}
		for i, g := range b.Games {
			if err := r.execFound(ctx, tournaments.ErrConflict, `INSERT INTO bulk_pairing_games (bulk_id, seq, game_id, south, north)
				VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, b.ID, i, g.GameID, g.South, g.North); err != nil {
				return err
			}
		}
		return insertSessions(ctx, r, sessions)
	})
}

// Bulk implements tournaments.Store. Its rows never change once made, so
// two statements read them.
func (s *Store) Bulk(ctx context.Context, id string) (tournaments.Bulk, error) {
	b, err := s.bulk(ctx, id)
	return b, s.read(err)
}

func (s *Store) bulk(ctx context.Context, id string) (tournaments.Bulk, error) {
	r := runner{s: s}
	b := tournaments.Bulk{ID: id}
	var created int64
	var clock sql.NullInt64
	var kind string
	var initial, increment, perMove int64
	err := r.queryRow(ctx, `SELECT created_by, created_at, time_kind, time_initial_us, time_increment_us, time_per_move_us,
		rated, clock_starts_at FROM bulk_pairings WHERE id = ?`, id).Scan(&b.CreatedBy, &created, &kind, &initial, &increment,
		&perMove, &b.Rated, &clock)
	if errors.Is(err, sql.ErrNoRows) {
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
	b.CreatedAt, b.ClockStartsAt = fromMicros(created), fromNullMicros(clock)
	rows, err := r.query(ctx, `SELECT game_id, south, north FROM bulk_pairing_games WHERE bulk_id = ? ORDER BY seq`, id)
	if err != nil {
		return b, err
	}
	defer rows.Close()
	for rows.Next() {
		var g tournaments.BulkGame
		if err := rows.Scan(&g.GameID, &g.South, &g.North); err != nil {
			return b, err
		}
		b.Games = append(b.Games, g)
	}
	return b, rows.Err()
}
