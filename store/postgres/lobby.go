package postgres

// The lobby's rows (lobby.Store), shared by instances. A pairing is one
// transaction that locks both seeks if they are open and no other pairing
// holds them (SKIP LOCKED), then updates them: of concurrent pairings of
// one seek one commits and the others find it held or matched. The cancellation of the owners' other clock seeks in the same
// transaction locks those rows too: two pairings of one player's two clock
// seeks each wait for the other's, the server breaks the deadlock, and the
// rerun finds its seek cancelled. Appends to a stream take a transaction
// lock on the stream's name, so its numbering has no gap or repeat.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ lobby.Store = (*Store)(nil)

// Advisory lock classes (the first key of pg_advisory_xact_lock).
const (
	lockSeeker = 31 // a player's seeks, while one is added
	lockStream = 32 // a stream's numbering
)

const seekColumns = `id, player_id, status, rated, created_at, updated_at, expires_at, game_id, side, terms`

func scanSeek(row stored.Scanner) (lobby.Seek, error) {
	var sk lobby.Seek
	var game, side *string
	var terms string
	err := row.Scan(&sk.ID, &sk.PlayerID, &sk.Status, &sk.Rated, &sk.CreatedAt, &sk.UpdatedAt, &sk.ExpiresAt, &game, &side, &terms)
	if noRows(err) {
		return sk, lobby.ErrNotFound
	}
	if err != nil {
		return sk, err
	}
	sk.CreatedAt, sk.UpdatedAt, sk.ExpiresAt = sk.CreatedAt.UTC(), sk.UpdatedAt.UTC(), sk.ExpiresAt.UTC()
	if game != nil {
		sk.GameID = *game
	}
	if side != nil {
		if sk.Side, err = engine.ParseSide(*side); err != nil {
			return sk, stored.Undecodable("seek "+sk.ID, err)
		}
	}
	return sk, stored.SetSeekTerms(&sk, terms)
}

func scanSeeks(rows pgx.Rows, err error) ([]lobby.Seek, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lobby.Seek
	for rows.Next() {
		sk, err := scanSeek(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sk)
	}
	return out, rows.Err()
}

func rangeArgs(r lobby.Range) (*float64, *float64) {
	if !r.Set {
		return nil, nil
	}
	return &r.Min, &r.Max
}

func textOrNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// AddSeek implements lobby.Store.
func (s *Store) AddSeek(ctx context.Context, sk lobby.Seek, maxOpen int) error {
	terms, err := stored.SeekTerms(&sk)
	if err != nil {
		return err
	}
	kind, _ := stored.TimeKindWord(sk.TimeControl.Kind)
	key := stored.TimeControlKey(sk.TimeControl)
	lo, hi := rangeArgs(sk.Range)
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockSeeker, sk.PlayerID); err != nil {
			return err
		}
		var open, same int
		err := tx.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE time_control = $1) FROM seeks
			WHERE player_id = $2 AND status = 'open' AND expires_at > $3`, key, sk.PlayerID, stamp(sk.CreatedAt)).Scan(&open, &same)
		if err != nil {
			return err
		}
		if open >= maxOpen || same > 0 {
			return lobby.ErrTooManySeeks
		}
		if sk.Clock() {
			if err := notPlaying(ctx, tx, []string{sk.PlayerID}); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `INSERT INTO seeks (id, player_id, status, time_kind, time_control, rated, rating, range_min, range_max,
			created_at, updated_at, expires_at, terms) VALUES ($1, $2, 'open', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			sk.ID, sk.PlayerID, kind, key, sk.Rated, sk.Rating.Value, lo, hi,
			stamp(sk.CreatedAt), stamp(sk.UpdatedAt), stamp(sk.ExpiresAt), terms)
		return err
	})
}

// Seek implements lobby.Store.
func (s *Store) Seek(ctx context.Context, id string) (lobby.Seek, error) {
	sk, err := scanSeek(s.pool.QueryRow(ctx, "SELECT "+seekColumns+" FROM seeks WHERE id = $1", id))
	return sk, s.read(err)
}

// Candidates implements lobby.Store.
func (s *Store) Candidates(ctx context.Context, q lobby.CandidateQuery) ([]lobby.Seek, error) {
	lo, hi := rangeArgs(q.Range)
	out, err := scanSeeks(s.pool.Query(ctx, `SELECT `+seekColumns+` FROM seeks
		WHERE status = 'open' AND time_control = $1 AND rated = $2 AND expires_at > $3 AND player_id <> $4
			AND ($5::double precision IS NULL OR rating BETWEEN $5 AND $6)
			AND (range_min IS NULL OR (range_min <= $7 AND range_max >= $7))
		ORDER BY created_at, id LIMIT $8`,
		stored.TimeControlKey(q.TimeControl), q.Rated, stamp(q.At), q.Player, lo, hi, q.Rating, max(q.Limit, 0)))
	return out, s.read(err)
}

// Pair implements lobby.Store.
func (s *Store) Pair(ctx context.Context, p lobby.Pairing) ([]lobby.Seek, error) {
	var cancelled []lobby.Seek
	owners := []string{p.Game.Players[0].ID, p.Game.Players[1].ID}
	slices.Sort(owners)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cancelled = nil
		if p.CancelClock {
			// The owners' locks, in one order, as AddSeek takes them: a
			// seek posted while this runs is cancelled below, or sees the
			// game this makes.
			if err := lockSeekers(ctx, tx, owners); err != nil {
				return err
			}
			if err := notPlaying(ctx, tx, owners); err != nil {
				return err
			}
		}
		// Both rows, or none: a seek another pairing holds is skipped, not
		// waited for, so that many seeks racing for the oldest one move
		// on to the next at once; the service tries again while any was
		// skipped (lobby.Service.pair), so one whose pairing is undone is
		// tried again.
		var free int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM (SELECT id FROM seeks
			WHERE id IN ($1, $2) AND status = 'open' AND expires_at > $3 FOR UPDATE SKIP LOCKED) AS s`,
			p.Seek, p.Other, stamp(p.At)).Scan(&free); err != nil {
			return err
		}
		if free != 2 {
			return lobby.ErrConflict
		}
		rows, err := tx.Query(ctx, `UPDATE seeks SET status = 'matched', game_id = $1, updated_at = $2,
				side = CASE WHEN id = $3 THEN $4 ELSE $5 END
			WHERE id IN ($3, $6) AND status = 'open' AND expires_at > $2 RETURNING player_id`,
			p.Game.ID, stamp(p.At), p.Seek, p.SeekSide.String(), p.OtherSide.String(), p.Other)
		if err != nil {
			return err
		}
		owners, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		if len(owners) != 2 {
			return lobby.ErrConflict
		}
		if p.CancelClock {
			if cancelled, err = cancelClock(ctx, tx, p.At, owners); err != nil {
				return err
			}
		}
		created, err := createGameOn(ctx, tx, &p.Game, nil)
		if err == nil && created == 0 {
			return lobby.ErrConflict
		}
		return err
	})
	slices.SortFunc(cancelled, func(a, b lobby.Seek) int { return cmp.Compare(a.ID, b.ID) })
	return cancelled, err
}

// lockSeekers takes the seeker locks of ps, which are sorted (one order
// everywhere, so that two writes never wait for each other in a circle).
func lockSeekers(ctx context.Context, tx pgx.Tx, ps []string) error {
	for _, p := range ps {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockSeeker, p); err != nil {
			return err
		}
	}
	return nil
}

// cancelClock cancels the open seeks with a live clock of ps as of at and
// returns them.
func cancelClock(ctx context.Context, q querier, at time.Time, ps []string) ([]lobby.Seek, error) {
	return scanSeeks(q.Query(ctx, `UPDATE seeks SET status = 'cancelled', updated_at = $1
		WHERE player_id = ANY($2) AND status = 'open' AND time_kind = 'live' RETURNING `+seekColumns, stamp(at), ps))
}

// notPlaying is lobby.ErrPlaying when one of ps has an active game with a
// live clock.
func notPlaying(ctx context.Context, q querier, ps []string) error {
	var playing bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM games WHERE status = 'active' AND time_kind = 'live'
		AND (south_player = ANY($1) OR north_player = ANY($1)))`, ps).Scan(&playing)
	if err == nil && playing {
		return lobby.ErrPlaying
	}
	return err
}

// found tells ErrNotFound from ErrConflict after a conditional write on
// table's row id changed nothing.
func found(ctx context.Context, q querier, table, id string) error {
	var one int
	err := q.QueryRow(ctx, "SELECT 1 FROM "+table+" WHERE id = $1", id).Scan(&one)
	if noRows(err) {
		return lobby.ErrNotFound
	}
	if err != nil {
		return err
	}
	return lobby.ErrConflict
}

// CancelSeek implements lobby.Store.
func (s *Store) CancelSeek(ctx context.Context, id string, at time.Time) (lobby.Seek, error) {
	sk, err := scanSeek(s.pool.QueryRow(ctx, `UPDATE seeks SET status = 'cancelled', updated_at = $1
		WHERE id = $2 AND status = 'open' AND expires_at > $1 RETURNING `+seekColumns, stamp(at), id))
	if errors.Is(err, lobby.ErrNotFound) {
		err = found(ctx, s.pool, "seeks", id)
	}
	if err != nil && !errors.Is(err, lobby.ErrNotFound) && !errors.Is(err, lobby.ErrConflict) {
		return sk, s.wrote(err)
	}
	return sk, err
}

// OpenSeeks implements lobby.Store.
func (s *Store) OpenSeeks(ctx context.Context, q lobby.LobbyQuery) ([]lobby.Seek, error) {
	var where strings.Builder
	args := []any{stamp(q.At), max(q.Limit, 0)}
	if q.Kind != games.Untimed {
		kind, _ := stored.TimeKindWord(q.Kind)
		args = append(args, kind)
		fmt.Fprintf(&where, " AND time_kind = $%d", len(args))
	}
	if q.Rated != nil {
		args = append(args, *q.Rated)
		fmt.Fprintf(&where, " AND rated = $%d", len(args))
	}
	out, err := scanSeeks(s.pool.Query(ctx, `SELECT `+seekColumns+` FROM seeks WHERE status = 'open' AND expires_at > $1`+
		where.String()+` ORDER BY created_at DESC, id DESC LIMIT $2`, args...))
	return out, s.read(err)
}

// PlayerSeeks implements lobby.Store.
func (s *Store) PlayerSeeks(ctx context.Context, player string, at time.Time) ([]lobby.Seek, error) {
	out, err := scanSeeks(s.pool.Query(ctx, `SELECT `+seekColumns+` FROM seeks
		WHERE player_id = $1 AND status = 'open' AND expires_at > $2 ORDER BY created_at, id`, player, stamp(at)))
	return out, s.read(err)
}

const challengeColumns = `id, from_player, to_player, status, rated, rematch_of, reason, created_at, updated_at, expires_at,
	game_id, side, accepted_by, terms`

func scanChallenge(row stored.Scanner) (lobby.Challenge, error) {
	var c lobby.Challenge
	var to, rematch, reason, game, side, by *string
	var terms string
	err := row.Scan(&c.ID, &c.From, &to, &c.Status, &c.Rated, &rematch, &reason, &c.CreatedAt, &c.UpdatedAt, &c.ExpiresAt,
		&game, &side, &by, &terms)
	if noRows(err) {
		return c, lobby.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	c.To, c.RematchOf, c.Reason, c.GameID, c.AcceptedBy = str(to), str(rematch), lobby.DeclineReason(str(reason)), str(game), str(by)
	c.CreatedAt, c.UpdatedAt, c.ExpiresAt = c.CreatedAt.UTC(), c.UpdatedAt.UTC(), c.ExpiresAt.UTC()
	if side != nil {
		if c.Side, err = engine.ParseSide(*side); err != nil {
			return c, stored.Undecodable("challenge "+c.ID, err)
		}
	}
	return c, stored.SetChallengeTerms(&c, terms)
}

func scanChallenges(rows pgx.Rows, err error) ([]lobby.Challenge, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lobby.Challenge
	for rows.Next() {
		c, err := scanChallenge(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// AddChallenge implements lobby.Store.
func (s *Store) AddChallenge(ctx context.Context, c lobby.Challenge) error {
	terms, err := stored.ChallengeTerms(&c)
	if err != nil {
		return err
	}
	kind, _ := stored.TimeKindWord(c.TimeControl.Kind)
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if c.RematchOf != "" {
			// A pending rematch past its expiry, not yet swept, makes way.
			if _, err := tx.Exec(ctx, `UPDATE challenges SET status = 'expired', updated_at = $1
				WHERE rematch_of = $2 AND status = 'pending' AND expires_at <= $1`, stamp(c.CreatedAt), c.RematchOf); err != nil {
				return err
			}
		}
		tag, err := tx.Exec(ctx, `INSERT INTO challenges (id, from_player, to_player, status, time_kind, rated, rematch_of,
			created_at, updated_at, expires_at, terms) VALUES ($1, $2, $3, 'pending', $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT DO NOTHING`,
			c.ID, c.From, textOrNull(c.To), kind, c.Rated, textOrNull(c.RematchOf),
			stamp(c.CreatedAt), stamp(c.UpdatedAt), stamp(c.ExpiresAt), terms)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return lobby.ErrConflict
		}
		return nil
	})
}

// Challenge implements lobby.Store.
func (s *Store) Challenge(ctx context.Context, id string) (lobby.Challenge, error) {
	c, err := scanChallenge(s.pool.QueryRow(ctx, "SELECT "+challengeColumns+" FROM challenges WHERE id = $1", id))
	return c, s.read(err)
}

// Accept implements lobby.Store.
func (s *Store) Accept(ctx context.Context, a lobby.Acceptance) (lobby.Challenge, []lobby.Seek, error) {
	var c lobby.Challenge
	var cancelled []lobby.Seek
	owners := []string{a.Game.Players[0].ID, a.Game.Players[1].ID}
	slices.Sort(owners)
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		cancelled = nil
		if a.CancelClock {
			// The players' locks, as Pair and AddSeek take them: no clock
			// game or clock seek of theirs begins while this runs.
			if err := lockSeekers(ctx, tx, owners); err != nil {
				return err
			}
		}
		var err error
		c, err = scanChallenge(tx.QueryRow(ctx, `UPDATE challenges SET status = 'accepted', accepted_by = $1, game_id = $2,
				side = $3, updated_at = $4
			WHERE id = $5 AND status = 'pending' AND expires_at > $4 RETURNING `+challengeColumns,
			a.By, a.Game.ID, a.Side.String(), stamp(a.At), a.ID))
		if errors.Is(err, lobby.ErrNotFound) {
			return found(ctx, tx, "challenges", a.ID)
		}
		if err != nil {
			return err
		}
		if a.CancelClock {
			// After the challenge's own condition: of two accepts, the
			// second hears that the challenge is taken, not that the first
			// one's game is being played.
			if err := notPlaying(ctx, tx, owners); err != nil {
				return err
			}
			if cancelled, err = cancelClock(ctx, tx, a.At, owners); err != nil {
				return err
			}
		}
		created, err := createGameOn(ctx, tx, &a.Game, nil)
		if err == nil && created == 0 {
			return lobby.ErrConflict
		}
		return err
	})
	slices.SortFunc(cancelled, func(a, b lobby.Seek) int { return cmp.Compare(a.ID, b.ID) })
	return c, cancelled, err
}

// CloseChallenge implements lobby.Store.
func (s *Store) CloseChallenge(ctx context.Context, id string, status lobby.ChallengeStatus, reason lobby.DeclineReason, at time.Time) (lobby.Challenge, error) {
	var c lobby.Challenge
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		c, err = scanChallenge(tx.QueryRow(ctx, `UPDATE challenges SET status = $1, reason = $2, updated_at = $3
			WHERE id = $4 AND status = 'pending' AND expires_at > $3 RETURNING `+challengeColumns,
			string(status), textOrNull(string(reason)), stamp(at), id))
		if errors.Is(err, lobby.ErrNotFound) {
			return found(ctx, tx, "challenges", id)
		}
		return err
	})
	return c, err
}

// PlayerChallenges implements lobby.Store.
func (s *Store) PlayerChallenges(ctx context.Context, player string, at time.Time) ([]lobby.Challenge, error) {
	out, err := scanChallenges(s.pool.Query(ctx, `SELECT `+challengeColumns+` FROM challenges
		WHERE status = 'pending' AND expires_at > $1 AND (from_player = $2 OR to_player = $2) ORDER BY created_at, id`,
		stamp(at), player))
	return out, s.read(err)
}

// PendingRematch implements lobby.Store.
func (s *Store) PendingRematch(ctx context.Context, game string, at time.Time) (lobby.Challenge, error) {
	c, err := scanChallenge(s.pool.QueryRow(ctx, `SELECT `+challengeColumns+` FROM challenges
		WHERE rematch_of = $1 AND status = 'pending' AND expires_at > $2`, game, stamp(at)))
	return c, s.read(err)
}

// Touch implements lobby.Store.
func (s *Store) Touch(ctx context.Context, player string, at, until time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE players SET seen_at = $1 WHERE id = $2 AND bot`, stamp(at), player); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE seeks SET expires_at = $1 WHERE player_id = $2 AND status = 'open'
			AND time_kind = 'live' AND expires_at > $3 AND expires_at < $1`, stamp(until), player, stamp(at)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE challenges SET expires_at = $1 WHERE from_player = $2 AND status = 'pending'
			AND time_kind = 'live' AND expires_at > $3 AND expires_at < $1`, stamp(until), player, stamp(at))
		return err
	})
}

// Expire implements lobby.Store. SKIP LOCKED: rows another instance is
// expiring, or a pairing holds, are left to it.
func (s *Store) Expire(ctx context.Context, at time.Time, limit int) ([]lobby.Seek, []lobby.Challenge, error) {
	var seeks []lobby.Seek
	var chs []lobby.Challenge
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		seeks, err = scanSeeks(tx.Query(ctx, `UPDATE seeks SET status = 'expired', updated_at = $1
			WHERE id IN (SELECT id FROM seeks WHERE status = 'open' AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2
				FOR UPDATE SKIP LOCKED)
			RETURNING `+seekColumns, stamp(at), limit))
		if err != nil {
			return err
		}
		chs, err = scanChallenges(tx.Query(ctx, `UPDATE challenges SET status = 'expired', updated_at = $1
			WHERE id IN (SELECT id FROM challenges WHERE status = 'pending' AND expires_at <= $1 ORDER BY expires_at, id LIMIT $2
				FOR UPDATE SKIP LOCKED)
			RETURNING `+challengeColumns, stamp(at), limit))
		return err
	})
	slices.SortFunc(seeks, func(a, b lobby.Seek) int { return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.ID, b.ID)) })
	slices.SortFunc(chs, func(a, b lobby.Challenge) int {
		return cmp.Or(a.ExpiresAt.Compare(b.ExpiresAt), cmp.Compare(a.ID, b.ID))
	})
	return seeks, chs, err
}

// AppendEvents implements lobby.Store.
func (s *Store) AppendEvents(ctx context.Context, evs []lobby.Event) ([]lobby.Event, error) {
	streams := make([]string, 0, len(evs))
	for _, e := range evs {
		streams = append(streams, e.Stream)
	}
	slices.Sort(streams)
	streams = slices.Compact(streams)
	out := make([]lobby.Event, len(evs))
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// Not waiting for the WAL's flush: events follow the change they
		// report, which was flushed; a crash of the database may lose the
		// last of them, as a crash of the process between the change and
		// its events may (docs/lobby.md), and a new stream's first frames
		// say how things stand. It saves a request one flush.
		if _, err := tx.Exec(ctx, "SET LOCAL synchronous_commit = off"); err != nil {
			return err
		}
		// In one order, so two appends to the same streams never wait on
		// each other in a circle.
		for _, st := range streams {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, lockStream, st); err != nil {
				return err
			}
		}
		for i, e := range evs {
			data, err := stored.EventData(&e)
			if err != nil {
				return err
			}
			if err := tx.QueryRow(ctx, `INSERT INTO lobby_events (stream, seq, kind, at, data, tournament_id)
				SELECT $1, coalesce(max(seq), 0) + 1, $2, $3, $4, $5 FROM lobby_events WHERE stream = $1 RETURNING seq`,
				e.Stream, string(e.Kind), stamp(e.At), data, textOrNull(e.TournamentID)).Scan(&e.Seq); err != nil {
				return err
			}
			e.Seek, e.Challenge, e.Game = nil, nil, nil
			out[i] = e
		}
		return nil
	})
	return out, err
}

// Events implements lobby.Store.
func (s *Store) Events(ctx context.Context, stream string, after int64, limit int) ([]lobby.Event, error) {
	out, err := s.events(ctx, stream, after, limit)
	return out, s.read(err)
}

func (s *Store) events(ctx context.Context, stream string, after int64, limit int) ([]lobby.Event, error) {
	rows, err := s.pool.Query(ctx, `SELECT seq, kind, at, data, coalesce(tournament_id, '') FROM lobby_events
		WHERE stream = $1 AND seq > $2 ORDER BY seq LIMIT $3`, stream, after, max(limit, 0))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lobby.Event
	for rows.Next() {
		e := lobby.Event{Stream: stream}
		var data string
		if err := rows.Scan(&e.Seq, &e.Kind, &e.At, &data, &e.TournamentID); err != nil {
			return nil, err
		}
		e.At = e.At.UTC()
		if err := stored.SetEventData(&e, data); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// LastEvent implements lobby.Store.
func (s *Store) LastEvent(ctx context.Context, stream string) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM lobby_events WHERE stream = $1`, stream).Scan(&seq)
	return seq, s.read(err)
}

// PruneEvents implements lobby.Store.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM lobby_events WHERE (stream, seq) IN (
			SELECT e.stream, e.seq FROM lobby_events e WHERE e.at < $1
				AND e.seq < (SELECT max(x.seq) FROM lobby_events x WHERE x.stream = e.stream) LIMIT $2)`, stamp(before), limit)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM stream_tickets WHERE expires_at < $1`, stamp(before))
		return err
	})
	return int(n), err
}

// AddTicket implements lobby.Store.
func (s *Store) AddTicket(ctx context.Context, hash []byte, player string, expires time.Time) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO stream_tickets (hash, player_id, expires_at) VALUES ($1, $2, $3)`, hash, player, stamp(expires))
	if err != nil {
		return s.wrote(err)
	}
	return nil
}

// UseTicket implements lobby.Store.
func (s *Store) UseTicket(ctx context.Context, hash []byte, at time.Time) (string, error) {
	var player string
	var expires time.Time
	err := s.pool.QueryRow(ctx, `DELETE FROM stream_tickets WHERE hash = $1 RETURNING player_id, expires_at`, hash).Scan(&player, &expires)
	switch {
	case noRows(err):
		return "", lobby.ErrNotFound
	case err != nil:
		return "", s.wrote(err)
	case !stamp(at).Before(expires):
		return "", lobby.ErrNotFound
	}
	return player, nil
}

// PlayingGames implements lobby.Store.
func (s *Store) PlayingGames(ctx context.Context, player string) ([]games.Game, error) {
	out, err := s.playing(ctx, player)
	return out, s.read(err)
}

func (s *Store) playing(ctx context.Context, player string) ([]games.Game, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+gameColumns+` FROM games
		WHERE status = 'active' AND (south_player = $1 OR north_player = $1) ORDER BY created_at, id`, player)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []games.Game
	for rows.Next() {
		g, err := scanGame(rows)
		if err != nil {
			return nil, fmt.Errorf("games of player %s: %w", player, err)
		}
		out = append(out, g)
	}
	return out, rows.Err()
}
