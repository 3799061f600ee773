package sqlite

// Players, their ratings and histories (migration 0007). Every write goes
// through the group committer (commit.go) like the game writes, and the
// rating writes are made inside the write that ends a game or records an
// attempt: each reads the rating rows it is conditional on in that same
// transaction, and SQLite has one writer at a time (in this process the
// committer, across processes the write lock every transaction takes at
// its start), so nothing can change them between the read and the write.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// usOf is an instant as the players' tables keep it: whole microseconds
// since 1970, UTC.
func usOf(t time.Time) int64 { return t.UnixMicro() }

func timeOfUs(us int64) time.Time { return time.UnixMicro(us).UTC() }

// nullableUs is a rating's time, NULL for the zero time (never updated).
func nullableUs(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

func timeOfNullUs(us sql.NullInt64) time.Time {
	if !us.Valid {
		return time.Time{}
	}
	return timeOfUs(us.Int64)
}

// playerSelect reads a player with its ratings: one row per rating, or one
// with NULL rating columns for a player with none. One statement, so the
// counts and the ratings come from one snapshot.
const playerSelect = `SELECT p.id, p.name, p.token_hash, p.created_at, p.updated_at,
	p.games, p.wins, p.losses, p.draws, p.rated, p.puzzles, p.solved, p.bot,
	r.category, r.value, r.deviation, r.volatility, r.games, r.at
	FROM players p LEFT JOIN player_ratings r ON r.player_id = p.id `

// readPlayer runs playerSelect with where and arg; players.ErrNotFound
// when no player matches.
func readPlayer(ctx context.Context, r runner, where string, arg any) (players.Player, error) {
	rows, err := r.query(ctx, playerSelect+where, arg)
	if err != nil {
		return players.Player{}, err
	}
	defer rows.Close()
	var (
		p     players.Player
		found bool
	)
	for rows.Next() {
		var (
			created, updated           int64
			category                   sql.NullString
			value, deviation, volatile sql.NullFloat64
			games, at                  sql.NullInt64
		)
		c := &p.Counts
		if err := rows.Scan(&p.ID, &p.Name, &p.TokenHash, &created, &updated,
			&c.Games, &c.Wins, &c.Losses, &c.Draws, &c.Rated, &c.Puzzles, &c.Solved, &p.Bot,
			&category, &value, &deviation, &volatile, &games, &at); err != nil {
			return players.Player{}, err
		}
		found = true
		p.CreatedAt, p.UpdatedAt = timeOfUs(created), timeOfUs(updated)
		if !category.Valid {
			continue
		}
		if p.Ratings == nil {
			p.Ratings = map[players.Category]players.Rating{}
		}
		p.Ratings[players.Category(category.String)] = players.Rating{Value: value.Float64, Deviation: deviation.Float64,
			Volatility: volatile.Float64, Games: int(games.Int64), At: timeOfNullUs(at)}
	}
	if err := rows.Err(); err != nil {
		return players.Player{}, err
	}
	if !found {
		return players.Player{}, players.ErrNotFound
	}
	return p, nil
}

// CreatePlayer implements players.Store: a new player has played nothing,
// whatever p says.
func (s *Store) CreatePlayer(ctx context.Context, p players.Player) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, `INSERT INTO players (id, name, token_hash, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
			p.ID, p.Name, p.TokenHash, usOf(p.CreatedAt), usOf(p.UpdatedAt))
		if err != nil {
			return fmt.Errorf("create player %s: %w", p.ID, err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			if err != nil {
				return err
			}
			return fmt.Errorf("player %s: %w", p.ID, players.ErrConflict)
		}
		return nil
	})
}

// Player implements players.Store, games.Store and puzzles.Store.
func (s *Store) Player(ctx context.Context, id string) (players.Player, error) {
	p, err := readPlayer(ctx, runner{s: s}, "WHERE p.id = ?", id)
	return p, s.read(err)
}

// PlayerByToken implements players.Store, through the token's unique index.
func (s *Store) PlayerByToken(ctx context.Context, hash []byte) (players.Player, error) {
	if hash == nil {
		return players.Player{}, players.ErrNotFound
	}
	p, err := readPlayer(ctx, runner{s: s}, "WHERE p.token_hash = ?", hash)
	return p, s.read(err)
}

// RenamePlayer implements players.Store; the player it returns is read in
// the write, so it is the one renamed.
func (s *Store) RenamePlayer(ctx context.Context, id, name string, at time.Time) (players.Player, error) {
	var p players.Player
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		err := r.execFound(ctx, players.ErrNotFound, `UPDATE players SET name = ?, updated_at = ? WHERE id = ?`,
			name, usOf(at), id)
		if err != nil {
			return err
		}
		p, err = readPlayer(ctx, r, "WHERE p.id = ?", id)
		return err
	})
	return p, err
}

// SetPlayerToken implements players.Store: the update is conditional on the
// old hash, so of two rotations with one token exactly one succeeds.
func (s *Store) SetPlayerToken(ctx context.Context, id string, old, hash []byte, at time.Time) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, `UPDATE players SET token_hash = ?, updated_at = ? WHERE id = ? AND token_hash = ?`,
			hash, usOf(at), id, old)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 1 {
			return err
		}
		var one int
		err = r.queryRow(ctx, `SELECT 1 FROM players WHERE id = ?`, id).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return players.ErrNotFound
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("player %s's token: %w", id, players.ErrConflict)
	})
}

// clearSeats are the statements that take a deleted player out of its
// games' seats, each matching one of the partial indexes of 0007 term for
// term (SQLite uses a partial index only for a WHERE clause that holds its
// own), so the games are found through them rather than by a scan.
var clearSeats = []string{
	`UPDATE games SET south_player = NULL, south_name = ''
		WHERE south_player = ? AND status = 'finished' AND south_player IS NOT NULL`,
	`UPDATE games SET south_player = NULL, south_name = ''
		WHERE south_player = ? AND status <> 'finished' AND south_player IS NOT NULL`,
	`UPDATE games SET north_player = NULL, north_name = ''
		WHERE north_player = ? AND status = 'finished' AND north_player IS NOT NULL`,
	`UPDATE games SET north_player = NULL, north_name = ''
		WHERE north_player = ? AND status <> 'finished' AND north_player IS NOT NULL`,
}

// DeletePlayer implements players.Store. The player's ratings, attempts and
// daily solves go with its row (ON DELETE CASCADE); its games stay, their
// seats cleared of its id and name.
func (s *Store) DeletePlayer(ctx context.Context, id string) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		if err := r.execFound(ctx, players.ErrNotFound, `DELETE FROM players WHERE id = ?`, id); err != nil {
			return err
		}
		for _, q := range clearSeats {
			if _, err := r.exec(ctx, q, id); err != nil {
				return fmt.Errorf("clear player %s's seats: %w", id, err)
			}
		}
		return nil
	})
}

// seatChangeSet sets the seats' rating, deviation and change of a rated
// end, and leaves them as they are when its arguments (seatChanges) are
// NULL.
const seatChangeSet = `south_rating = coalesce(?, south_rating), south_deviation = coalesce(?, south_deviation),
	south_change = coalesce(?, south_change), north_rating = coalesce(?, north_rating),
	north_deviation = coalesce(?, north_deviation), north_change = coalesce(?, north_change)`

// seatChanges are seatChangeSet's arguments for m: each seat's rating
// before and its change, when m is rated.
func seatChanges(m *players.Match) []any {
	if m == nil || !m.Rated() {
		return make([]any, 6)
	}
	out := make([]any, 0, 6)
	for i := range m.Players {
		out = append(out, m.Before[i].Value, m.Before[i].Deviation, m.After[i].Value-m.Before[i].Value)
	}
	return out
}

// ratingGames reads, in r's transaction, whether player id exists and how
// many games its rating in c counts (0 with no rating).
func ratingGames(ctx context.Context, r runner, id string, c players.Category) (int, bool, error) {
	var n sql.NullInt64
	err := r.queryRow(ctx, `SELECT (SELECT games FROM player_ratings WHERE player_id = p.id AND category = ?)
		FROM players p WHERE p.id = ?`, string(c), id).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return int(n.Int64), err == nil, err
}

// putRating writes player id's rating in c.
func putRating(ctx context.Context, r runner, id string, c players.Category, rt players.Rating) error {
	_, err := r.exec(ctx, `INSERT INTO player_ratings (player_id, category, value, deviation, volatility, games, at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (player_id, category) DO UPDATE SET value = excluded.value, deviation = excluded.deviation,
			volatility = excluded.volatility, games = excluded.games, at = excluded.at`,
		id, string(c), rt.Value, rt.Deviation, rt.Volatility, rt.Games, nullableUs(rt.At))
	return err
}

// applyMatch applies m in the write that ends its game, after the game's
// own update (whose seats seatChangeSet has set): games.Store's ApplyMatch.
// Every check comes before any write, though a failure would be undone
// anyway with the rest of the write (its savepoint, or the transaction).
func applyMatch(ctx context.Context, r runner, m *players.Match) error {
	if m == nil {
		return nil
	}
	var present [2]bool
	for i, id := range m.Players {
		if id == "" {
			continue
		}
		n, ok, err := ratingGames(ctx, r, id, m.Category)
		if err != nil {
			return err
		}
		present[i] = ok // a player deleted since the match was made is skipped
		if ok && m.Rated() && n != m.Before[i].Games {
			return fmt.Errorf("player %s's %s rating counts %d games, the match %d: %w",
				id, m.Category, n, m.Before[i].Games, players.ErrRatingsChanged)
		}
	}
	for i, id := range m.Players {
		if !present[i] {
			continue
		}
		c := m.Count(players.Counts{}, i) // what this game adds
		_, err := r.exec(ctx, `UPDATE players SET games = games + ?, wins = wins + ?, losses = losses + ?,
			draws = draws + ?, rated = rated + ? WHERE id = ?`, c.Games, c.Wins, c.Losses, c.Draws, c.Rated, id)
		if err != nil {
			return err
		}
		if m.Rated() {
			if err := putRating(ctx, r, id, m.Category, m.After[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// historySide selects one side's finished games of a player, newest first,
// from that side's index games_<side>_history (its WHERE terms repeated):
// ?1 the player, ?2 and ?3 the cursor, ?4 the category (empty: any), ?5 the
// winner that is a result asked for (empty: any), ?6 the limit. The side rides
// along as the last column.
func historySide(side, word string) string {
	return `SELECT * FROM (SELECT ` + gameColumns + `, ` + side + ` AS side FROM games
		WHERE ` + word + `_player = ?1 AND status = 'finished' AND ` + word + `_player IS NOT NULL
			AND (updated_at, id) < (?2, ?3) AND (?4 = '' OR time_kind = ?4) AND (?5 = '' OR winner = ?5)
		ORDER BY updated_at DESC, id DESC LIMIT ?6)`
}

// historyQuery merges the two sides' walks: each is limited already, so the
// merge sorts at most twice the page.
// North's result filter is ?7: a win is another winner word on each side.
var historyQuery = historySide("0", "south") + ` UNION ALL ` +
	strings.ReplaceAll(historySide("1", "north"), "?5", "?7") + ` ORDER BY updated_at DESC, id DESC LIMIT ?6`

// winnerFor is the winner word of a finished game that is result for the
// player in seat side; "" for any result.
func winnerFor(result players.Result, side engine.Side) string {
	switch result {
	case players.Win:
		return engine.WinnerOf(side).String()
	case players.Loss:
		return engine.WinnerOf(side.Other()).String()
	case players.Draw:
		return engine.Draw.String()
	}
	return ""
}

// withSide scans a history row: the game's columns, then its side.
type withSide struct {
	rows *sql.Rows
	side *int
}

func (w withSide) Scan(dest ...any) error { return w.rows.Scan(append(dest, w.side)...) }

// PlayerGames implements players.Store.
func (s *Store) PlayerGames(ctx context.Context, id string, q players.GamesQuery) ([]players.GameEntry, error) {
	out, err := s.playerGames(ctx, id, q)
	return out, s.read(err)
}

func (s *Store) playerGames(ctx context.Context, id string, q players.GamesQuery) ([]players.GameEntry, error) {
	if q.Limit < 1 {
		return nil, nil
	}
	// No cursor: a time above every stored one (they start with a digit).
	at, after := "~", ""
	if !q.After.IsZero() {
		at, after = formatTime(q.After.EndedAt), q.After.GameID
	}
	rows, err := runner{s: s}.query(ctx, historyQuery, id, at, after, string(q.Category),
		winnerFor(q.Result, engine.South), q.Limit, winnerFor(q.Result, engine.North))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []players.GameEntry
	for rows.Next() {
		var side int
		g, err := scanGame(withSide{rows, &side})
		if err != nil {
			return nil, err
		}
		out = append(out, g.Entry(engine.Side(side)))
	}
	return out, rows.Err()
}

// PlayerPuzzles implements players.Store, down the index
// player_puzzles_newest.
func (s *Store) PlayerPuzzles(ctx context.Context, id string, after players.PuzzleCursor, limit int) ([]players.PuzzleEntry, error) {
	out, err := s.playerPuzzles(ctx, id, after, limit)
	return out, s.read(err)
}

func (s *Store) playerPuzzles(ctx context.Context, id string, after players.PuzzleCursor, limit int) ([]players.PuzzleEntry, error) {
	if limit < 1 {
		return nil, nil
	}
	at, puzzleID := int64(math.MaxInt64), ""
	if !after.IsZero() {
		at, puzzleID = usOf(after.At), after.PuzzleID
	}
	rows, err := runner{s: s}.query(ctx, `SELECT puzzle_id, at, solved, daily, before_value, before_deviation,
			after_value, after_deviation
		FROM player_puzzles WHERE player_id = ? AND (at, puzzle_id) < (?, ?)
		ORDER BY at DESC, puzzle_id DESC LIMIT ?`, id, at, puzzleID, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []players.PuzzleEntry
	for rows.Next() {
		var (
			e     players.PuzzleEntry
			us    int64
			daily sql.NullString
			rt    = &e.Rating
		)
		if err := rows.Scan(&e.PuzzleID, &us, &e.Solved, &daily, &rt.Before.Value, &rt.Before.Deviation,
			&rt.After.Value, &rt.After.Deviation); err != nil {
			return nil, err
		}
		e.At = timeOfUs(us)
		if daily.Valid {
			if e.Daily, err = gen.ParseDate(daily.String); err != nil {
				return nil, fmt.Errorf("stored attempt at %s: day %q: %s", e.PuzzleID, daily.String, err.Error())
			}
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// DailySolves implements players.Store.
func (s *Store) DailySolves(ctx context.Context, id string, limit int) ([]time.Time, error) {
	out, err := s.dailySolves(ctx, id, limit)
	return out, s.read(err)
}

func (s *Store) dailySolves(ctx context.Context, id string, limit int) ([]time.Time, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := runner{s: s}.query(ctx, `SELECT day FROM player_daily WHERE player_id = ? ORDER BY day DESC LIMIT ?`, id, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []time.Time
	for rows.Next() {
		var day string
		if err := rows.Scan(&day); err != nil {
			return nil, err
		}
		d, err := gen.ParseDate(day)
		if err != nil {
			return nil, fmt.Errorf("stored daily solve %q: %s", day, err.Error())
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Leaderboard implements players.Store, down the index player_ratings_board
// from the top, skipping the uncertain and the idle.
func (s *Store) Leaderboard(ctx context.Context, c players.Category, maxDeviation float64, since time.Time, limit int) ([]players.Leader, error) {
	out, err := s.leaderboard(ctx, c, maxDeviation, since, limit)
	return out, s.read(err)
}

func (s *Store) leaderboard(ctx context.Context, c players.Category, maxDeviation float64, since time.Time, limit int) ([]players.Leader, error) {
	if limit < 1 {
		return nil, nil
	}
	rows, err := runner{s: s}.query(ctx, `SELECT r.player_id, p.name, r.value, r.deviation, r.volatility, r.games, r.at
		FROM player_ratings r JOIN players p ON p.id = r.player_id
		WHERE r.category = ? AND r.deviation <= ? AND (? OR r.at >= ?)
		ORDER BY r.value DESC, r.player_id LIMIT ?`,
		string(c), maxDeviation, since.IsZero(), usOf(since), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []players.Leader
	for rows.Next() {
		var (
			l  players.Leader
			at sql.NullInt64
		)
		if err := rows.Scan(&l.PlayerID, &l.Name, &l.Rating.Value, &l.Rating.Deviation, &l.Rating.Volatility,
			&l.Rating.Games, &at); err != nil {
			return nil, err
		}
		l.Rating.At = timeOfNullUs(at)
		out = append(out, l)
	}
	return out, rows.Err()
}

// PuzzleRating implements puzzles.Store.
func (s *Store) PuzzleRating(ctx context.Context, key string) (players.Rating, bool, error) {
	var (
		rt players.Rating
		at sql.NullInt64
	)
	err := runner{s: s}.queryRow(ctx, `SELECT value, deviation, volatility, games, at FROM puzzle_ratings WHERE key = ?`,
		key).Scan(&rt.Value, &rt.Deviation, &rt.Volatility, &rt.Games, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return players.Rating{}, false, nil
	}
	if err != nil {
		return players.Rating{}, false, s.read(err)
	}
	rt.At = timeOfNullUs(at)
	return rt, true, nil
}

// Attempted implements puzzles.Store.
func (s *Store) Attempted(ctx context.Context, player, id string) (bool, error) {
	var one int
	err := runner{s: s}.queryRow(ctx, `SELECT 1 FROM player_puzzles WHERE player_id = ? AND puzzle_id = ?`,
		player, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, s.read(err)
}

// RecordSolve implements puzzles.Store in one write. Whether the attempt
// is the player's first is the insert of its history row (the key refuses
// a second), so of attempts that race exactly one is first; the ratings it
// is conditional on are read after that insert, in the same transaction.
func (s *Store) RecordSolve(ctx context.Context, sv players.Solve, count bool) (puzzles.Stats, bool, error) {
	var (
		stats puzzles.Stats
		first bool
	)
	solved := 0
	if sv.Solved {
		solved = 1
	}
	var daily any
	if !sv.Daily.IsZero() {
		daily = gen.Day(sv.Daily).Format(gen.DateLayout)
	}
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		stats, first = puzzles.Stats{}, false
		n, ok, err := ratingGames(ctx, r, sv.Player, players.Puzzles)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("player %s: %w", sv.Player, players.ErrNotFound)
		}
		if count {
			var one int
			err := r.queryRow(ctx, `SELECT 1 FROM puzzles WHERE id = ?`, sv.PuzzleID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("puzzle %s: %w", sv.PuzzleID, puzzles.ErrNotFound)
			}
			if err != nil {
				return err
			}
		}
		res, err := r.exec(ctx, `INSERT INTO player_puzzles (player_id, puzzle_id, at, solved, daily,
				before_value, before_deviation, after_value, after_deviation)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (player_id, puzzle_id) DO NOTHING`,
			sv.Player, sv.PuzzleID, usOf(sv.At), solved, daily, sv.Before[0].Value, sv.Before[0].Deviation,
			sv.After[0].Value, sv.After[0].Deviation)
		if err != nil {
			return err
		}
		added, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if first = added == 1; first {
			if err := rateSolve(ctx, r, sv, n, solved); err != nil {
				return err
			}
		}
		if sv.OnDay() {
			_, err := r.exec(ctx, `INSERT INTO player_daily (player_id, day) VALUES (?, ?) ON CONFLICT DO NOTHING`,
				sv.Player, gen.Day(sv.Daily).Format(gen.DateLayout))
			if err != nil {
				return err
			}
		}
		if count {
			return r.queryRow(ctx, `UPDATE puzzles SET attempts = attempts + 1, solved = solved + ?
				WHERE id = ? RETURNING attempts, solved`, solved, sv.PuzzleID).Scan(&stats.Attempts, &stats.Solved)
		}
		return nil
	})
	if err != nil {
		return puzzles.Stats{}, false, err
	}
	return stats, first, nil
}

// rateSolve moves the ratings and counts of sv, a first attempt, provided
// the player's puzzle rating (which counts playerGames, read in this
// write) and the puzzle's still count what sv.Before says.
func rateSolve(ctx context.Context, r runner, sv players.Solve, playerGames, solved int) error {
	var keyGames int
	err := r.queryRow(ctx, `SELECT games FROM puzzle_ratings WHERE key = ?`, sv.Key).Scan(&keyGames)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if playerGames != sv.Before[0].Games || keyGames != sv.Before[1].Games {
		return fmt.Errorf("player %s's puzzle rating counts %d games (the attempt %d), puzzle %s's %d (%d): %w",
			sv.Player, playerGames, sv.Before[0].Games, sv.Key, keyGames, sv.Before[1].Games, players.ErrRatingsChanged)
	}
	if err := putRating(ctx, r, sv.Player, players.Puzzles, sv.After[0]); err != nil {
		return err
	}
	rt := sv.After[1]
	_, err = r.exec(ctx, `INSERT INTO puzzle_ratings (key, value, deviation, volatility, games, at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, deviation = excluded.deviation,
			volatility = excluded.volatility, games = excluded.games, at = excluded.at`,
		sv.Key, rt.Value, rt.Deviation, rt.Volatility, rt.Games, nullableUs(rt.At))
	if err != nil {
		return err
	}
	_, err = r.exec(ctx, `UPDATE players SET puzzles = puzzles + 1, solved = solved + ? WHERE id = ?`, solved, sv.Player)
	return err
}
