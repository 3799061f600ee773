package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// gameColumns is the column list every game read selects, in scanGame's order.
var gameColumns = stored.GameColumns("deadline")

// seatArgs are the values of the seats' columns of g, South's then North's.
func seatArgs(g *games.Game) []any {
	return append(stored.SeatArgs(g.Players[engine.South]), stored.SeatArgs(g.Players[engine.North])...)
}

// scanGame reads one game row; games.ErrNotFound when there is none. The
// instants are PostgreSQL's timestamps; the rest is decoded as every store
// does.
func scanGame(row stored.Scanner) (games.Game, error) {
	var r gameRow
	err := row.Scan(r.targets()...)
	if noRows(err) {
		return games.Game{}, games.ErrNotFound
	}
	if err != nil {
		return games.Game{}, err
	}
	return r.game()
}

// gameRow is a game row as scanned, before it is decoded: a batch reads
// its joins' rows into these and decodes them only once it has committed,
// so that a row that does not decode fails its own join and not the batch
// (whose writes have been made by then).
type gameRow struct {
	r                stored.GameRow
	created, updated time.Time
	joined, deadline *time.Time
}

func (r *gameRow) targets() []any {
	return r.r.Targets(&r.created, &r.updated, &r.joined, &r.deadline)
}

func (r *gameRow) game() (games.Game, error) {
	g, err := r.r.Game()
	if err != nil {
		return games.Game{}, err
	}
	g.CreatedAt, g.UpdatedAt = r.created.UTC(), r.updated.UTC()
	if r.joined != nil {
		g.JoinedAt = r.joined.UTC()
	}
	if r.deadline != nil {
		g.Deadline = r.deadline.UTC()
	}
	return g, nil
}

// records are moves' records as parallel arrays, which unnest turns back
// into rows: every move of a write goes in the one statement.
type records struct {
	ply     []int32
	pit     []int16
	byAI    []bool
	at      []time.Time
	version []int64
	draw    []string
}

func recordsOf(ms []games.Record) records {
	r := records{
		ply:     make([]int32, len(ms)),
		pit:     make([]int16, len(ms)),
		byAI:    make([]bool, len(ms)),
		at:      make([]time.Time, len(ms)),
		version: make([]int64, len(ms)),
		draw:    make([]string, len(ms)),
	}
	for i, m := range ms {
		r.ply[i], r.pit[i], r.byAI[i], r.at[i], r.version[i] = int32(m.Ply), int16(m.Pit), m.ByAI, stamp(m.At), m.Version
		r.draw[i] = m.DrawOffer.String()
	}
	return r
}

// nullableTime is t for a nullable column: NULL for the zero time.
func nullableTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = stamp(t)
	return &t
}

// CreateGame implements games.Store: the game and its moves go in one
// statement, and the moves only if the game did (its id was free). It
// shares its transaction with the other writes under way (commit.go).
func (s *Store) CreateGame(ctx context.Context, g games.Game, moves []games.Record) error {
	args, err := createArgs(&g, moves)
	if err != nil {
		return fmt.Errorf("create game %s: %w", g.ID, err)
	}
	err = s.write(ctx, &pendingWrite{kind: creating, id: g.ID, args: args})
	if errors.Is(err, errUnmatched) {
		return fmt.Errorf("create game %s: the id is taken: %w", g.ID, games.ErrConflict)
	}
	if err != nil {
		return fmt.Errorf("create game %s: %w", g.ID, err)
	}
	return nil
}

// createGameOn stores a new game on q (a lobby pairing's transaction) and
// says whether it did: 0 when its id is taken.
func createGameOn(ctx context.Context, q querier, g *games.Game, moves []games.Record) (int, error) {
	args, err := createArgs(g, moves)
	if err != nil {
		return 0, err
	}
	var created int
	err = q.QueryRow(ctx, createSQL, args...).Scan(&created)
	return created, err
}

// createSQL inserts a game and its moves (createArgs), the moves only if
// the game's id was free, and returns how many games it inserted: 0 or 1.
// A game stored ended (a restore) gets its updated_at as ended_at.
var createSQL = `WITH game AS (
		INSERT INTO games (id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply,
			position, history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version,
			time_kind, time_initial_us, time_increment_us, time_per_move_us, south_clock_us, north_clock_us, deadline,
			rated, ` + stored.SeatColumns + `, ended_at, deadline_floor)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
			$23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36, $37, $38, $39, $40,
			CASE WHEN $11 IN ('finished', 'aborted') THEN $3::timestamptz END, $29)
		ON CONFLICT (id) DO NOTHING
		RETURNING id
	), moved AS (
		INSERT INTO moves (game_id, ply, pit, by_ai, at, version, draw_offer)
		SELECT game.id, m.ply, m.pit, m.by_ai, m.at, m.version, m.draw_offer
		FROM game, unnest($19::integer[], $20::smallint[], $21::boolean[], $22::timestamptz[], $41::bigint[], $42::text[])
			AS m (ply, pit, by_ai, at, version, draw_offer)
	)
	SELECT count(*) FROM game`

// createArgs are createSQL's arguments for g and its moves.
func createArgs(g *games.Game, moves []games.Record) ([]any, error) {
	var aiSide *string
	var aiLevel *int
	if g.AI != nil {
		side, level := g.AI.Side.String(), g.AI.Level
		aiSide, aiLevel = &side, &level
	}
	kind, err := stored.TimeKindOf(g.TimeControl)
	if err != nil {
		return nil, err
	}
	tc := g.TimeControl
	rs := recordsOf(moves)
	args := []any{g.ID, stamp(g.CreatedAt), stamp(g.UpdatedAt), nullableTime(g.JoinedAt), g.Rules.CaptureSeed.String(),
		g.Rules.Leftovers.String(), g.Start.String(), g.Ply, g.Position.String(), stored.EncodeHistory(g.History),
		string(g.Status), g.Result.Winner.String(), g.Result.Reason.String(), aiSide, aiLevel,
		g.Tokens[engine.South], g.Tokens[engine.North], max(g.Version, 1),
		rs.ply, rs.pit, rs.byAI, rs.at,
		kind, stored.Micros(tc.Initial), stored.Micros(tc.Increment), stored.Micros(tc.PerMove),
		stored.Micros(g.Clock[engine.South]), stored.Micros(g.Clock[engine.North]), nullableTime(g.Deadline), g.Rated}
	return append(append(args, seatArgs(g)...), rs.version, rs.draw), nil
}

// Game implements games.Store.
func (s *Store) Game(ctx context.Context, id string) (games.Game, error) {
	g, err := scanGame(s.pool.QueryRow(ctx, "SELECT "+gameColumns+" FROM games WHERE id = $1", id))
	return g, s.read(err)
}

// Join implements games.Store. The open seat is the first empty one, South
// before North; the right-hand sides of SET see the row as it was. A join
// at or after the game's deadline is refused in the same statement: the
// game is due to end instead. It shares its transaction with the other
// writes under way (commit.go).
func (s *Store) Join(ctx context.Context, id string, tokenHash []byte, at, deadline time.Time, player games.SeatPlayer) (games.Game, error) {
	var seated games.Game
	seated.Players[engine.South] = player // seatArgs' first five are the joiner's
	w := &pendingWrite{kind: joining, id: id, args: append(append([]any{id, tokenHash, stamp(at), nullableTime(deadline)},
		seatArgs(&seated)[:5]...), s.instance)}
	err := s.write(ctx, w)
	if errors.Is(err, errUnmatched) {
		return games.Game{}, s.unmatched(ctx, id)
	}
	if err != nil {
		return games.Game{}, err
	}
	return w.joined.game()
}

// joinSQL takes the open seat of a waiting game (Join's arguments, the
// last, $10, the Store's instance), announces the join on changesChannel
// when another instance listens (a line with the game's id, sent at
// commit: see AnnouncesJoins; the batch has taken listenersLock) and
// returns the game as it leaves it, or no row.
var joinSQL = `WITH joined AS (
		UPDATE games SET
			south_token = CASE WHEN south_token IS NULL THEN $2 ELSE south_token END,
			north_token = CASE WHEN south_token IS NOT NULL AND north_token IS NULL THEN $2 ELSE north_token END,
			` + joinSeat + `
			status = 'active', joined_at = $3, updated_at = $3, deadline = $4, deadline_floor = $4, version = version + 1
		WHERE id = $1 AND status = 'waiting' AND (south_token IS NULL OR north_token IS NULL)
			AND (deadline IS NULL OR deadline > $3)
		RETURNING ` + gameColumns + `
	), announced AS (
		SELECT pg_notify('` + changesChannel + `', id) FROM joined WHERE ` + othersListen(10) + `
	)
	SELECT ` + gameColumns + ` FROM joined CROSS JOIN (SELECT count(*) FROM announced) AS a`

// joinSeat gives the open seat (the one whose token Join sets) the
// joiner's player, parameters $5 to $9.
var joinSeat = func() string {
	var b strings.Builder
	for i, col := range []string{"player", "name", "rating", "deviation", "change"} {
		fmt.Fprintf(&b, "south_%[1]s = CASE WHEN south_token IS NULL THEN $%[2]d ELSE south_%[1]s END,\n", col, 5+i)
		fmt.Fprintf(&b, "north_%[1]s = CASE WHEN south_token IS NOT NULL AND north_token IS NULL THEN $%[2]d ELSE north_%[1]s END,\n", col, 5+i)
	}
	return b.String()
}()

// exists returns nil if game id is stored, else games.ErrNotFound.
func (s *Store) exists(ctx context.Context, id string) error { return existsOn(ctx, s.pool, id) }

func existsOn(ctx context.Context, q querier, id string) error {
	var one int
	err := q.QueryRow(ctx, "SELECT 1 FROM games WHERE id = $1", id).Scan(&one)
	if noRows(err) {
		return games.ErrNotFound
	}
	return err
}

// unmatched tells why a conditional write to game id matched no row:
// games.ErrNotFound when there is no such game, else games.ErrConflict.
func (s *Store) unmatched(ctx context.Context, id string) error {
	return s.unmatchedOn(ctx, s.pool, id)
}

// unmatchedOn is unmatched asked on q: inside a transaction, on its own
// connection, so that a transaction never waits for a second one from the
// pool (which, with every connection held by such a transaction, would
// never come).
func (s *Store) unmatchedOn(ctx context.Context, q querier, id string) error {
	if err := existsOn(ctx, q, id); err != nil {
		return s.read(err)
	}
	return games.ErrConflict
}

// Records implements games.Store.
func (s *Store) Records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	out, err := s.records(ctx, id, from, limit)
	return out, s.read(err)
}

func (s *Store) records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	rows, err := s.pool.Query(ctx, `SELECT ply, pit, by_ai, at, version, draw_offer FROM moves
		WHERE game_id = $1 AND ply >= $2 ORDER BY ply LIMIT $3`, id, max(from, 0), max(limit, 0))
	if err != nil {
		return nil, err
	}
	var out []games.Record
	var m games.Record
	var draw string
	_, err = pgx.ForEachRow(rows, []any{&m.Ply, &m.Pit, &m.ByAI, &m.At, &m.Version, &draw}, func() error {
		m.At = m.At.UTC()
		var err error
		if m.DrawOffer, err = games.ParseOffer(draw); err != nil {
			return stored.Undecodable("move of game "+id, err)
		}
		out = append(out, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		if err := s.exists(ctx, id); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ApplyPlay implements games.Store, in one statement: the UPDATE of the game
// row is conditional on the ply, version and status the play was made at
// (so it never undoes an offer written since), and the
// moves are written, and the change announced to every instance (a NOTIFY on
// changesChannel, sent at commit), only from what it returns. Of concurrent
// plays for one ply, the first to reach the row locks it; the others wait
// for its commit and then, under READ COMMITTED, re-check their WHERE against
// the row it left, whose ply has moved on: they update nothing, write
// nothing, and report games.ErrConflict. The moves' key (game, ply) would
// refuse a second set of moves for a ply even so.
//
// A play without a match (one that moves no ratings: nearly all of them)
// shares its transaction with the other plays under way (commit.go); one
// with a match runs in the match's own transaction.
func (s *Store) ApplyPlay(ctx context.Context, p games.Play) error {
	if len(p.Moves) == 0 {
		return fmt.Errorf("apply play at ply %d of %s: no moves", p.Ply, p.GameID)
	}
	var err error
	if p.Match == nil {
		err = s.write(ctx, playWrite(&p))
	} else {
		// The match's transaction writes the play with the batches'
		// statement, its ratings included.
		err = s.ending(ctx, p.Match, func(q querier) error {
			rows, err := q.Query(ctx, ratedPlaySQL, ratedPlayArgs(&p)...)
			if err != nil {
				return s.wrote(err)
			}
			matched, err := matchedIDs(rows)
			if err != nil {
				return s.wrote(err)
			}
			return verdict(matched[p.GameID])
		})
	}
	if errors.Is(err, errUnmatched) {
		err = s.unmatched(ctx, p.GameID)
	}
	if err != nil {
		return fmt.Errorf("apply play at ply %d of %s: %w", p.Ply, p.GameID, err)
	}
	return nil
}

// Resign implements games.Store: one conditional statement, in a
// transaction with the match's writes when there is a match.
func (s *Store) Resign(ctx context.Context, id string, result engine.Result, at time.Time, match *players.Match) (games.Game, error) {
	set, ratings := seatRatings(match, 5)
	var g games.Game
	err := s.ending(ctx, match, func(q querier) error {
		var err error
		g, err = scanGame(q.QueryRow(ctx, `UPDATE games SET status = 'finished', winner = $2, end_reason = $3,
				updated_at = $4, ended_at = $4, deadline = NULL, deadline_floor = NULL, draw_offer = '', takeback_offer = '', version = version + 1`+set+`
			WHERE id = $1 AND status = 'active' RETURNING `+gameColumns,
			append([]any{id, result.Winner.String(), result.Reason.String(), stamp(at)}, ratings...)...))
		if errors.Is(err, games.ErrNotFound) {
			return s.unmatchedOn(ctx, q, id)
		}
		return s.wrote(err)
	})
	if err != nil {
		return games.Game{}, err
	}
	return g, nil
}

// End implements games.Store, in one statement conditional on the version
// the caller read: of every instance that tries to end a game at once, the
// first to reach the row locks it, and the others, re-checking the WHERE
// against the row it left under READ COMMITTED, find the version moved on,
// update nothing and report games.ErrConflict.
//
// With a match, the statement runs in a transaction that has locked the
// players' rows first; the loser of the race then rolls back having
// written nothing.
func (s *Store) End(ctx context.Context, e games.End) (games.Game, error) {
	set, ratings := seatRatings(e.Match, 9)
	var g games.Game
	err := s.ending(ctx, e.Match, func(q querier) error {
		var err error
		g, err = scanGame(q.QueryRow(ctx, `UPDATE games SET status = $3, winner = $4, end_reason = $5,
				south_clock_us = $6, north_clock_us = $7, updated_at = $8, ended_at = $8, deadline = NULL, deadline_floor = NULL,
				draw_offer = '', takeback_offer = '', version = version + 1`+set+`
			WHERE id = $1 AND version = $2 RETURNING `+gameColumns,
			append([]any{e.ID, e.Version, string(e.Status), e.Result.Winner.String(), e.Result.Reason.String(),
				stored.Micros(e.Clock[engine.South]), stored.Micros(e.Clock[engine.North]), stamp(e.At)}, ratings...)...))
		if errors.Is(err, games.ErrNotFound) {
			return s.unmatchedOn(ctx, q, e.ID)
		}
		return s.wrote(err)
	})
	if err != nil {
		return games.Game{}, err
	}
	return g, nil
}

// Amend implements games.Store in one statement conditional on the
// version the caller read; a takeback's deletion of the undone moves is
// part of it, so it happens exactly when the game's row changes.
func (s *Store) Amend(ctx context.Context, a games.Amend) (games.Game, error) {
	n := &a.Game
	g, err := scanGame(s.pool.QueryRow(ctx, `WITH game AS (
			UPDATE games SET ply = $3, history = left(history, $3), position = $4, south_clock_us = $5,
				north_clock_us = $6, updated_at = $7, deadline = $8, deadline_floor = $8, draw_offer = $9, takeback_offer = $10,
				version = version + 1
			WHERE id = $1 AND version = $2 AND status = 'active' AND ply >= $3
			RETURNING `+gameColumns+`
		), undone AS (
			DELETE FROM moves m USING game WHERE m.game_id = game.id AND m.ply >= $3
		)
		SELECT `+gameColumns+` FROM game`,
		a.ID, a.Version, n.Ply, n.Position.String(), stored.Micros(n.Clock[engine.South]), stored.Micros(n.Clock[engine.North]),
		stamp(n.UpdatedAt), nullableTime(n.Deadline), n.DrawOffer.String(), n.TakebackOffer.String()))
	if errors.Is(err, games.ErrNotFound) {
		return games.Game{}, s.unmatched(ctx, a.ID)
	}
	if err != nil {
		return games.Game{}, s.wrote(err)
	}
	return g, nil
}

// pendingGames is the condition of the partial index games_deadline,
// whose key is deadline_floor: a time at or before the game's deadline
// (migration 20). A move of the committer's batches keeps the floor it
// finds unless its new deadline is sooner (batchSQL), so that the move
// changes no indexed column and its update is heap-only; every other
// write that sets a deadline sets the floor to it. A floor that has
// passed while its game's deadline has not is raised to the deadline by
// the next Overdue.
const pendingGames = `status IN ('waiting', 'active') AND deadline_floor IS NOT NULL`

// overdueSQL is Overdue's statement: $1 now, $2 the limit. It raises the
// floors that have passed to their games' deadlines that have not (their
// rows locked in id order first, as the committer's batches lock theirs),
// and returns the games that are due, found from the floors.
var overdueSQL = `WITH raised AS (
		UPDATE games g SET deadline_floor = g.deadline
		FROM (SELECT id FROM games WHERE ` + pendingGames + ` AND deadline_floor <= $1 AND deadline > $1
			ORDER BY id FOR NO KEY UPDATE) AS l
		WHERE g.id = l.id
	)
	SELECT ` + gameColumns + ` FROM games WHERE ` + pendingGames + ` AND deadline_floor <= $1 AND deadline <= $1
	ORDER BY deadline LIMIT $2`

// Overdue implements games.Store, from the start of the index
// games_deadline, raising the floors that have passed (overdueSQL).
func (s *Store) Overdue(ctx context.Context, now time.Time, limit int) ([]games.Game, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, overdueSQL, stamp(now), limit)
	if err != nil {
		return nil, s.wrote(err)
	}
	defer rows.Close()
	out, err := stored.Collect(rows, scanGame)
	return out, s.wrote(err)
}

// NextDeadline implements games.Store: the first entry of the index
// games_deadline, a floor, at or before the earliest deadline. When a
// move pushed that game's deadline later, the sweeper wakes at the floor,
// finds it not due, and Overdue raises the floor to the deadline.
func (s *Store) NextDeadline(ctx context.Context) (time.Time, error) {
	var next time.Time
	err := s.pool.QueryRow(ctx, "SELECT deadline_floor FROM games WHERE "+pendingGames+
		" ORDER BY deadline_floor LIMIT 1").Scan(&next)
	if noRows(err) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, s.read(err)
	}
	return next.UTC(), nil
}

// deleteEndedSQL is DeleteEnded's statement: $1 the time before which
// the games ended, $2 the limit.
const deleteEndedSQL = `WITH gone AS (
			DELETE FROM games WHERE id IN (SELECT id FROM games
				WHERE status IN ('finished', 'aborted') AND ended_at < $1 ORDER BY ended_at LIMIT $2
				FOR UPDATE SKIP LOCKED)
			RETURNING id),
		reviews_gone AS (DELETE FROM reviews WHERE game_id IN (SELECT id FROM gone))
		SELECT count(*) FROM gone`

// DeleteEnded implements games.Store, in one statement: the oldest ended
// games first, found through the index games_ended, with their moves (the
// trigger games_deleted, migration 17) and their reviews (the reviews
// table has no reference to games: deleted by key, in the same
// statement). Games another instance is deleting at the same moment are
// skipped rather than waited for. The
// explorer's rows are counts and keep the game: a pruned game's id may stay
// among a move's recent games.
func (s *Store) DeleteEnded(ctx context.Context, before time.Time, limit int) (int, error) {
	if limit < 1 {
		return 0, nil
	}
	var n int
	err := s.pool.QueryRow(ctx, deleteEndedSQL, stamp(before), limit).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("delete ended games: %w", s.wrote(err))
	}
	return n, nil
}
