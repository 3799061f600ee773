package postgres

// Players and their ratings. The writes that change a rating (the end of a
// game, a first attempt at a puzzle) are transactions: each locks the
// rows of the players it touches first, in id order, then the game or
// rating rows, so writes that share a player queue on its row and never
// deadlock; each then compares the games count of every rating it is to
// move with the count the service read, and rolls everything back with
// players.ErrRatingsChanged when one moved in between.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

var _ players.Store = (*Store)(nil)

// querier is what a statement runs on: the pool, or a transaction.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// txOptions: READ COMMITTED, so that each statement after a lock sees
// what the lock's previous holder committed, and a conditional UPDATE that
// waited re-checks its condition against the row as it was left (see
// ApplyPlay); a stricter level would answer a lost race with a
// serialization failure instead of games.ErrConflict.
var txOptions = pgx.TxOptions{IsoLevel: pgx.ReadCommitted}

// deadlockRetries bounds how often inTx runs a transaction again after
// the server broke a deadlock by aborting it.
const deadlockRetries = 3

// inTx runs fn in a transaction, committed when fn returns nil and rolled
// back otherwise, and names the error. The rating writes lock players
// first, so they do not deadlock one another; but two deletions of players
// who share several games clear their seats in whatever order each finds
// them, and the server may abort one of them: having written nothing, it
// is simply run again. fn must set its results afresh on each run.
func (s *Store) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	var err error
	for range deadlockRetries + 1 {
		err = pgx.BeginTxFunc(ctx, s.pool, txOptions, fn)
		if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != deadlockDetected {
			break
		}
	}
	if err != nil {
		return s.wrote(err)
	}
	return nil
}

// deadlockDetected is the SQLSTATE of a transaction the server aborted to
// break a deadlock.
const deadlockDetected = "40P01"

// ending runs write, the conditional write that ends a game, and applies m
// in the same transaction (games.Store's ApplyMatch). Without a match the
// write is the single statement it always was.
func (s *Store) ending(ctx context.Context, m *players.Match, write func(q querier) error) error {
	if m == nil {
		if err := write(s.pool); err != nil {
			return err
		}
		return nil
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		present, err := lockPlayers(ctx, tx, m.Players[:]...)
		if err != nil {
			return err
		}
		if err := write(tx); err != nil {
			return err
		}
		return applyMatch(ctx, tx, m, present)
	})
}

// lockPlayers locks the rows of the players ids names ("" for none), in id
// order, and returns those that exist. NO KEY UPDATE: the writes change
// counts, never the key, so they do not wait for inserts of rating rows
// that reference the player.
func lockPlayers(ctx context.Context, tx pgx.Tx, ids ...string) (map[string]bool, error) {
	var named []string
	for _, id := range ids {
		if id != "" {
			named = append(named, id)
		}
	}
	present := map[string]bool{}
	if len(named) == 0 {
		return present, nil
	}
	rows, err := tx.Query(ctx, "SELECT id FROM players WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE", named)
	if err != nil {
		return nil, err
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	for _, id := range found {
		present[id] = true
	}
	return present, nil
}

// seatRatings is the SET clause with which the write that ends a rated
// game keeps each seat's rating before it and the change (parameters $n
// to $n+5), and their values; NULL values leave the columns as they are,
// as they do for an unrated game or no match. The memory store writes
// both seats whether or not their players still exist: so does this.
func seatRatings(m *players.Match, n int) (string, []any) {
	args := make([]any, 6)
	for i := range args {
		args[i] = (*float64)(nil)
	}
	if m != nil && m.Rated() {
		for side := range 2 {
			b, a := m.Before[side], m.After[side]
			args[3*side], args[3*side+1], args[3*side+2] = b.Value, b.Deviation, a.Value-b.Value
		}
	}
	set := fmt.Sprintf(`,
				south_rating = COALESCE($%d, south_rating), south_deviation = COALESCE($%d, south_deviation),
				south_change = COALESCE($%d, south_change),
				north_rating = COALESCE($%d, north_rating), north_deviation = COALESCE($%d, north_deviation),
				north_change = COALESCE($%d, north_change)`, n, n+1, n+2, n+3, n+4, n+5)
	return set, args
}

// applyMatch moves the counts and, for a rated match, the ratings of m's
// players that still exist (present, their rows locked by lockPlayers).
func applyMatch(ctx context.Context, tx pgx.Tx, m *players.Match, present map[string]bool) error {
	if m.Rated() {
		counted, err := ratingGames(ctx, tx, m.Category, m.Players[:])
		if err != nil {
			return err
		}
		for i, id := range m.Players {
			if present[id] && counted[id] != m.Before[i].Games {
				return fmt.Errorf("player %s's %s rating counts %d games, not %d: %w",
					id, m.Category, counted[id], m.Before[i].Games, players.ErrRatingsChanged)
			}
		}
	}
	for i, id := range m.Players {
		if !present[id] {
			continue
		}
		if err := addCounts(ctx, tx, id, m.Count(players.Counts{}, i)); err != nil {
			return err
		}
		if m.Rated() {
			if err := putRating(ctx, tx, id, m.Category, m.After[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ratingGames returns the games count of each of the players' ratings in
// c that has a row, locking the rows. The players' own rows are locked
// already, so no rating row of theirs can appear meanwhile; the lock
// keeps the rows still all the same for any writer that takes them
// without.
func ratingGames(ctx context.Context, tx pgx.Tx, c players.Category, ids []string) (map[string]int, error) {
	rows, err := tx.Query(ctx, `SELECT player_id, games FROM player_ratings
		WHERE player_id = ANY($1) AND category = $2 ORDER BY player_id FOR UPDATE`, ids, string(c))
	if err != nil {
		return nil, err
	}
	counted := map[string]int{}
	var id string
	var n int
	_, err = pgx.ForEachRow(rows, []any{&id, &n}, func() error {
		counted[id] = n
		return nil
	})
	return counted, err
}

// addCounts adds c to player id's counts.
func addCounts(ctx context.Context, tx pgx.Tx, id string, c players.Counts) error {
	_, err := tx.Exec(ctx, `UPDATE players SET games = games + $2, wins = wins + $3, losses = losses + $4,
		draws = draws + $5, rated = rated + $6, puzzles = puzzles + $7, solved = solved + $8 WHERE id = $1`,
		id, c.Games, c.Wins, c.Losses, c.Draws, c.Rated, c.Puzzles, c.Solved)
	return err
}

// putRating makes r player id's rating in c.
func putRating(ctx context.Context, tx pgx.Tx, id string, c players.Category, r players.Rating) error {
	_, err := tx.Exec(ctx, `INSERT INTO player_ratings (player_id, category, value, deviation, volatility, games, at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (player_id, category) DO UPDATE SET value = excluded.value, deviation = excluded.deviation,
			volatility = excluded.volatility, games = excluded.games, at = excluded.at`,
		id, string(c), r.Value, r.Deviation, r.Volatility, r.Games, stamp(r.At))
	return err
}

// playerColumns is what a player read selects, in scanPlayer's order: the
// player, then one of its ratings (NULLs when it has none), a row per
// rating.
const playerColumns = `p.id, p.name, p.token_hash, p.created_at, p.updated_at,
	p.games, p.wins, p.losses, p.draws, p.rated, p.puzzles, p.solved, p.bot,
	r.category, r.value, r.deviation, r.volatility, r.games, r.at`

// readPlayer reads the player the WHERE clause (on players p) finds, with
// its ratings, in one statement: one snapshot.
func (s *Store) readPlayer(ctx context.Context, where string, arg any) (players.Player, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+playerColumns+
		" FROM players p LEFT JOIN player_ratings r ON r.player_id = p.id WHERE "+where, arg)
	if err != nil {
		return players.Player{}, s.read(err)
	}
	var (
		p      players.Player
		found  bool
		cat    *string
		rating struct {
			value, deviation, volatility *float64
			games                        *int
			at                           *time.Time
		}
	)
	c := &p.Counts
	_, err = pgx.ForEachRow(rows, []any{&p.ID, &p.Name, &p.TokenHash, &p.CreatedAt, &p.UpdatedAt,
		&c.Games, &c.Wins, &c.Losses, &c.Draws, &c.Rated, &c.Puzzles, &c.Solved, &p.Bot,
		&cat, &rating.value, &rating.deviation, &rating.volatility, &rating.games, &rating.at}, func() error {
		found = true
		if cat == nil {
			return nil
		}
		if p.Ratings == nil {
			p.Ratings = map[players.Category]players.Rating{}
		}
		p.Ratings[players.Category(*cat)] = players.Rating{Value: *rating.value, Deviation: *rating.deviation,
			Volatility: *rating.volatility, Games: *rating.games, At: rating.at.UTC()}
		return nil
	})
	if err != nil {
		return players.Player{}, s.read(err)
	}
	if !found {
		return players.Player{}, players.ErrNotFound
	}
	p.CreatedAt, p.UpdatedAt = p.CreatedAt.UTC(), p.UpdatedAt.UTC()
	return p, nil
}

// CreatePlayer implements players.Store.
func (s *Store) CreatePlayer(ctx context.Context, p players.Player) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO players (id, name, token_hash, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
		p.ID, p.Name, p.TokenHash, stamp(p.CreatedAt), stamp(p.UpdatedAt))
	if err != nil {
		return fmt.Errorf("create player %s: %w", p.ID, s.wrote(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("create player %s: %w", p.ID, players.ErrConflict)
	}
	return nil
}

// Player implements players.Store, games.Store and puzzles.Store.
func (s *Store) Player(ctx context.Context, id string) (players.Player, error) {
	return s.readPlayer(ctx, "p.id = $1", id)
}

// PlayerByToken implements players.Store, through the token's unique
// index.
func (s *Store) PlayerByToken(ctx context.Context, hash []byte) (players.Player, error) {
	return s.readPlayer(ctx, "p.token_hash = $1", hash)
}

// RenamePlayer implements players.Store. Seats the player already holds
// keep the name they were taken with.
func (s *Store) RenamePlayer(ctx context.Context, id, name string, at time.Time) (players.Player, error) {
	tag, err := s.pool.Exec(ctx, "UPDATE players SET name = $2, updated_at = $3 WHERE id = $1", id, name, stamp(at))
	if err != nil {
		return players.Player{}, fmt.Errorf("rename player %s: %w", id, s.wrote(err))
	}
	if tag.RowsAffected() == 0 {
		return players.Player{}, players.ErrNotFound
	}
	return s.Player(ctx, id)
}

// SetPlayerToken implements players.Store: the UPDATE is conditional on the
// old hash, and of two rotations with one token the second re-checks it
// against the row the first left, so it changes nothing.
func (s *Store) SetPlayerToken(ctx context.Context, id string, old, hash []byte, at time.Time) error {
	// The row p reads is the statement's snapshot, before any rotation it
	// waited for: it tells an unknown player, only u tells who won.
	var matched bool
	err := s.pool.QueryRow(ctx, `WITH p AS (SELECT id FROM players WHERE id = $1),
			u AS (UPDATE players SET token_hash = $3, updated_at = $4 WHERE id = $1 AND token_hash = $2 RETURNING id)
		SELECT EXISTS (SELECT 1 FROM u) FROM p`, id, old, hash, stamp(at)).Scan(&matched)
	if noRows(err) {
		return players.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set player %s's token: %w", id, s.wrote(err))
	}
	if !matched {
		return fmt.Errorf("player %s's token changed meanwhile: %w", id, players.ErrConflict)
	}
	return nil
}

// DeletePlayer implements players.Store: the player's row goes first (its
// ratings, history and streak with it, ON DELETE CASCADE), taking the lock
// every rating write takes first, then its seats are cleared, found
// through the indexes on the seats' players.
func (s *Store) DeletePlayer(ctx context.Context, id string) error {
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "DELETE FROM players WHERE id = $1", id)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return players.ErrNotFound
		}
		// One statement per seat and per index, so each WHERE implies its
		// partial index's predicate.
		for _, side := range []string{"south", "north"} {
			for _, which := range []string{"status = 'finished'", "status <> 'finished'"} {
				_, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE games SET %[1]s_player = NULL, %[1]s_name = ''
					WHERE %[1]s_player = $1 AND %[2]s`, side, which), id)
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete player %s: %w", id, err)
	}
	return nil
}

// playerGamesSQL is PlayerGames' query: $1 the player, $2 and $3 the
// cursor, $4 the time kind (empty: any), $5 the result (empty: any), $6
// the limit.
var playerGamesSQL = func() string {
	side := func(col, me, them string) string {
		return fmt.Sprintf(`(SELECT %[1]s FROM games WHERE %[2]s_player = $1 AND status = 'finished'
			AND (ended_at, id) < ($2, $3)
			AND ($4 = '' OR time_kind = $4)
			AND ($5 = '' OR winner = CASE $5 WHEN 'win' THEN '%[2]s' WHEN 'loss' THEN '%[3]s' ELSE 'draw' END)
			ORDER BY ended_at DESC, id DESC LIMIT $6)`, col, me, them)
	}
	cols := gameColumns + ", %d AS side"
	return "SELECT * FROM (" +
		side(fmt.Sprintf(cols, engine.South), "south", "north") + " UNION ALL " +
		side(fmt.Sprintf(cols, engine.North), "north", "south") +
		") AS mine ORDER BY updated_at DESC, id DESC LIMIT $6"
}()

// PlayerGames implements players.Store: the start of each seat's index,
// after the cursor, merged (the indexes hold ended_at, which for a
// finished game is its updated_at: the merge orders by the latter, which
// the rows carry). Each row is the whole game, so that the entry
// is the one games.Game.Entry makes, as in every store.
func (s *Store) PlayerGames(ctx context.Context, id string, q players.GamesQuery) ([]players.GameEntry, error) {
	if q.Limit < 1 {
		return nil, nil
	}
	var kind string
	switch q.Category {
	case "":
	case players.Live:
		kind = "live"
	case players.Correspondence:
		kind = "correspondence"
	default:
		return nil, nil // puzzles: no game is in that category
	}
	after := cursorTime(q.After.IsZero(), q.After.EndedAt)
	rows, err := s.pool.Query(ctx, playerGamesSQL,
		id, after, q.After.GameID, kind, string(q.Result), q.Limit)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	var out []players.GameEntry
	for rows.Next() {
		var sideOf int
		g, err := scanGame(withSide{rows, &sideOf})
		if err != nil {
			return nil, s.read(err)
		}
		out = append(out, g.Entry(engine.Side(sideOf)))
	}
	return out, s.read(rows.Err())
}

// cursorTime is the time of a page's cursor, as the histories compare
// (time, id) with it: infinity for the first page, which every row is
// before. The row comparison is the index scan's own condition, so a
// later page starts where the cursor is instead of filtering its way there.
func cursorTime(start bool, at time.Time) pgtype.Timestamptz {
	if start {
		return pgtype.Timestamptz{InfinityModifier: pgtype.Infinity, Valid: true}
	}
	return pgtype.Timestamptz{Time: stamp(at), Valid: true}
}

// withSide is a row of a game followed by one more column, the side.
type withSide struct {
	row  pgx.Row
	side *int
}

func (w withSide) Scan(dest ...any) error { return w.row.Scan(append(dest, w.side)...) }

// PlayerPuzzles implements players.Store, from the index
// player_puzzles_newest.
func (s *Store) PlayerPuzzles(ctx context.Context, id string, after players.PuzzleCursor, limit int) ([]players.PuzzleEntry, error) {
	if limit < 1 {
		return nil, nil
	}
	at := cursorTime(after.IsZero(), after.At)
	rows, err := s.pool.Query(ctx, `SELECT puzzle_id, at, solved, daily,
			before_value, before_deviation, after_value, after_deviation
		FROM player_puzzles WHERE player_id = $1
			AND (at, puzzle_id) < ($2, $3)
		ORDER BY at DESC, puzzle_id DESC LIMIT $4`, id, at, after.PuzzleID, limit)
	if err != nil {
		return nil, s.read(err)
	}
	var (
		out   []players.PuzzleEntry
		e     players.PuzzleEntry
		daily *time.Time
	)
	r := &e.Rating
	_, err = pgx.ForEachRow(rows, []any{&e.PuzzleID, &e.At, &e.Solved, &daily,
		&r.Before.Value, &r.Before.Deviation, &r.After.Value, &r.After.Deviation}, func() error {
		e.At, e.Daily = e.At.UTC(), time.Time{}
		if daily != nil {
			e.Daily = day(*daily)
		}
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, s.read(err)
	}
	return out, nil
}

// day is a date column's value as the feed's days are: midnight UTC.
func day(d time.Time) time.Time { return time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, time.UTC) }

// DailySolves implements players.Store.
func (s *Store) DailySolves(ctx context.Context, id string, limit int) ([]time.Time, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, "SELECT day FROM player_daily WHERE player_id = $1 ORDER BY day DESC LIMIT $2",
		id, limit)
	if err != nil {
		return nil, s.read(err)
	}
	days, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (time.Time, error) {
		var d time.Time
		err := row.Scan(&d)
		return day(d), err
	})
	return days, s.read(err)
}

// Leaderboard implements players.Store, from the start of the index
// player_ratings_board for c.
func (s *Store) Leaderboard(ctx context.Context, c players.Category, maxDeviation float64, since time.Time, limit int) ([]players.Leader, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT p.id, p.name, r.value, r.deviation, r.volatility, r.games, r.at
		FROM player_ratings r JOIN players p ON p.id = r.player_id
		WHERE r.category = $1 AND r.deviation <= $2 AND r.at >= $3
		ORDER BY r.value DESC, r.player_id LIMIT $4`, string(c), maxDeviation, stamp(since), limit)
	if err != nil {
		return nil, s.read(err)
	}
	var (
		out []players.Leader
		l   players.Leader
	)
	r := &l.Rating
	_, err = pgx.ForEachRow(rows, []any{&l.PlayerID, &l.Name, &r.Value, &r.Deviation, &r.Volatility, &r.Games, &r.At},
		func() error {
			r.At = r.At.UTC()
			out = append(out, l)
			return nil
		})
	if err != nil {
		return nil, s.read(err)
	}
	return out, nil
}

// PuzzleRating implements puzzles.Store.
func (s *Store) PuzzleRating(ctx context.Context, key string) (players.Rating, bool, error) {
	var r players.Rating
	err := s.pool.QueryRow(ctx, "SELECT value, deviation, volatility, games, at FROM puzzle_ratings WHERE key = $1",
		key).Scan(&r.Value, &r.Deviation, &r.Volatility, &r.Games, &r.At)
	if noRows(err) {
		return players.Rating{}, false, nil
	}
	if err != nil {
		return players.Rating{}, false, s.read(err)
	}
	r.At = r.At.UTC()
	return r, true, nil
}

// Attempted implements puzzles.Store.
func (s *Store) Attempted(ctx context.Context, player, id string) (bool, error) {
	var seen bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM player_puzzles WHERE player_id = $1 AND puzzle_id = $2)",
		player, id).Scan(&seen)
	return seen, s.read(err)
}

// RecordSolve implements puzzles.Store, in one transaction: the player's
// row is locked first (as every rating write does), then the insert of
// the attempt into the player's history decides whether it is the first
// (of two first attempts at once, the second waits for the first's commit
// and then inserts nothing), then the two ratings are compared and moved.
func (s *Store) RecordSolve(ctx context.Context, sv players.Solve, count bool) (puzzles.Stats, bool, error) {
	var (
		stats puzzles.Stats
		first bool
	)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		stats, first = puzzles.Stats{}, false // afresh on a run again
		present, err := lockPlayers(ctx, tx, sv.Player)
		if err != nil {
			return err
		}
		if !present[sv.Player] {
			return players.ErrNotFound
		}
		var daily *time.Time
		if !sv.Daily.IsZero() {
			d := gen.Day(sv.Daily)
			daily = &d
		}
		b, a := sv.Before[0], sv.After[0]
		tag, err := tx.Exec(ctx, `INSERT INTO player_puzzles (player_id, puzzle_id, at, solved, daily,
				before_value, before_deviation, after_value, after_deviation)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
			sv.Player, sv.PuzzleID, stamp(sv.At), sv.Solved, daily, b.Value, b.Deviation, a.Value, a.Deviation)
		if err != nil {
			return err
		}
		if first = tag.RowsAffected() == 1; first {
			if err := rateSolve(ctx, tx, sv); err != nil {
				return err
			}
		}
		if sv.OnDay() {
			_, err := tx.Exec(ctx, "INSERT INTO player_daily (player_id, day) VALUES ($1, $2) ON CONFLICT DO NOTHING",
				sv.Player, gen.Day(sv.Daily))
			if err != nil {
				return err
			}
		}
		if !count {
			return nil
		}
		err = tx.QueryRow(ctx, `UPDATE puzzles SET attempts = attempts + 1, solved = solved + $2
			WHERE id = $1 RETURNING attempts, solved`, sv.PuzzleID, solvedCount(sv.Solved)).Scan(&stats.Attempts, &stats.Solved)
		if noRows(err) {
			return fmt.Errorf("puzzle %s: %w", sv.PuzzleID, puzzles.ErrNotFound)
		}
		return err
	})
	if err != nil {
		return puzzles.Stats{}, false, fmt.Errorf("record %s's attempt at %s: %w", sv.Player, sv.PuzzleID, err)
	}
	return stats, first, nil
}

func solvedCount(solved bool) int {
	if solved {
		return 1
	}
	return 0
}

// rateSolve moves the player's puzzle rating and the puzzle's, a first
// attempt's, if both still count sv.Before's games. A puzzle's rating has
// no parent row to lock: a row is inserted first (with no games, and
// nothing if it exists), so that two first attempts at one key queue on
// it; the insert is rolled back or overwritten before the commit.
func rateSolve(ctx context.Context, tx pgx.Tx, sv players.Solve) error {
	counted, err := ratingGames(ctx, tx, players.Puzzles, []string{sv.Player})
	if err != nil {
		return err
	}
	if counted[sv.Player] != sv.Before[0].Games {
		return fmt.Errorf("the player's puzzle rating counts %d games, not %d: %w",
			counted[sv.Player], sv.Before[0].Games, players.ErrRatingsChanged)
	}
	b := sv.Before[1]
	_, err = tx.Exec(ctx, `INSERT INTO puzzle_ratings (key, value, deviation, volatility, games, at)
		VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT DO NOTHING`, sv.Key, b.Value, b.Deviation, b.Volatility, stamp(sv.At))
	if err != nil {
		return err
	}
	var games int
	if err := tx.QueryRow(ctx, "SELECT games FROM puzzle_ratings WHERE key = $1 FOR UPDATE", sv.Key).Scan(&games); err != nil {
		return err
	}
	if games != b.Games {
		return fmt.Errorf("puzzle rating %s counts %d games, not %d: %w", sv.Key, games, b.Games, players.ErrRatingsChanged)
	}
	a := sv.After[1]
	_, err = tx.Exec(ctx, `UPDATE puzzle_ratings SET value = $2, deviation = $3, volatility = $4, games = $5, at = $6
		WHERE key = $1`, sv.Key, a.Value, a.Deviation, a.Volatility, a.Games, stamp(a.At))
	if err != nil {
		return err
	}
	if err := putRating(ctx, tx, sv.Player, players.Puzzles, sv.After[0]); err != nil {
		return err
	}
	return addCounts(ctx, tx, sv.Player, players.Counts{Puzzles: 1, Solved: solvedCount(sv.Solved)})
}
