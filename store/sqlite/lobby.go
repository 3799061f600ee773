package sqlite

// The lobby's rows (lobby.Store). Every write goes through the committer,
// one at a time, so a pairing's or an acceptance's conditions and changes,
// and the game it stores, are one step that no other write interleaves.

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ lobby.Store = (*Store)(nil)

func micros(t time.Time) int64 { return t.UnixMicro() }

func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

const seekColumns = `id, player_id, status, rated, created_at, updated_at, expires_at, game_id, side, terms`

func scanSeek(row stored.Scanner) (lobby.Seek, error) {
	var sk lobby.Seek
	var created, updated, expires int64
	var game, side sql.NullString
	var terms string
	err := row.Scan(&sk.ID, &sk.PlayerID, &sk.Status, &sk.Rated, &created, &updated, &expires, &game, &side, &terms)
	if errors.Is(err, sql.ErrNoRows) {
		return sk, lobby.ErrNotFound
	}
	if err != nil {
		return sk, err
	}
	sk.CreatedAt, sk.UpdatedAt, sk.ExpiresAt, sk.GameID = fromMicros(created), fromMicros(updated), fromMicros(expires), game.String
	if side.Valid {
		if sk.Side, err = engine.ParseSide(side.String); err != nil {
			return sk, stored.Undecodable("seek "+sk.ID, err)
		}
	}
	return sk, stored.SetSeekTerms(&sk, terms)
}

func scanSeeks(rows *sql.Rows, err error) ([]lobby.Seek, error) {
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

// rangeArgs are a range's columns: NULLs for none.
func rangeArgs(r lobby.Range) (any, any) {
	if !r.Set {
		return nil, nil
	}
	return r.Min, r.Max
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
	return s.write(ctx, func(ctx context.Context, r runner) error {
		var open, same int
		err := r.queryRow(ctx, `SELECT count(*), coalesce(sum(time_control = ?), 0) FROM seeks
			WHERE player_id = ? AND status = 'open' AND expires_at > ?`, key, sk.PlayerID, micros(sk.CreatedAt)).Scan(&open, &same)
		if err != nil {
			return err
		}
		if open >= maxOpen || same > 0 {
			return lobby.ErrTooManySeeks
		}
		if sk.Clock() {
			if err := notPlaying(ctx, r, sk.PlayerID, sk.PlayerID); err != nil {
				return err
			}
		}
		_, err = r.exec(ctx, `INSERT INTO seeks (id, player_id, status, time_kind, time_control, rated, rating, range_min, range_max,
			created_at, updated_at, expires_at, terms) VALUES (?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sk.ID, sk.PlayerID, kind, key, sk.Rated, sk.Rating.Value, lo, hi,
			micros(sk.CreatedAt), micros(sk.UpdatedAt), micros(sk.ExpiresAt), terms)
		return err
	})
}

// Seek implements lobby.Store.
func (s *Store) Seek(ctx context.Context, id string) (lobby.Seek, error) {
	sk, err := scanSeek(runner{s: s}.queryRow(ctx, "SELECT "+seekColumns+" FROM seeks WHERE id = ?", id))
	return sk, s.read(err)
}

// Candidates implements lobby.Store.
func (s *Store) Candidates(ctx context.Context, q lobby.CandidateQuery) ([]lobby.Seek, error) {
	lo, hi := rangeArgs(q.Range)
	out, err := scanSeeks(runner{s: s}.query(ctx, `SELECT `+seekColumns+` FROM seeks
		WHERE status = 'open' AND time_control = ?1 AND rated = ?2 AND expires_at > ?3 AND player_id <> ?4
			AND (?5 IS NULL OR rating BETWEEN ?5 AND ?6) AND (range_min IS NULL OR (range_min <= ?7 AND range_max >= ?7))
		ORDER BY created_at, id LIMIT ?8`,
		stored.TimeControlKey(q.TimeControl), q.Rated, micros(q.At), q.Player, lo, hi, q.Rating, max(q.Limit, 0)))
	return out, s.read(err)
}

// Pair implements lobby.Store.
func (s *Store) Pair(ctx context.Context, p lobby.Pairing) ([]lobby.Seek, error) {
	var cancelled []lobby.Seek
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		cancelled = nil
		if p.CancelClock {
			if err := notPlaying(ctx, r, p.Game.Players[0].ID, p.Game.Players[1].ID); err != nil {
				return err
			}
		}
		var owners []string
		for _, x := range []struct {
			id   string
			side engine.Side
		}{{p.Seek, p.SeekSide}, {p.Other, p.OtherSide}} {
			var owner string
			err := r.queryRow(ctx, `UPDATE seeks SET status = 'matched', game_id = ?, side = ?, updated_at = ?
				WHERE id = ? AND status = 'open' AND expires_at > ? RETURNING player_id`,
				p.Game.ID, x.side.String(), micros(p.At), x.id, micros(p.At)).Scan(&owner)
			if errors.Is(err, sql.ErrNoRows) {
				return lobby.ErrConflict
			}
			if err != nil {
				return err
			}
			owners = append(owners, owner)
		}
		if p.CancelClock {
			var err error
			if cancelled, err = cancelClock(ctx, r, p.At, owners[0], owners[1]); err != nil {
				return err
			}
		}
		err := insertGame(ctx, r, &p.Game, nil)
		if errors.Is(err, games.ErrConflict) {
			return lobby.ErrConflict
		}
		return err
	})
	slices.SortFunc(cancelled, func(a, b lobby.Seek) int { return cmp.Compare(a.ID, b.ID) })
	return cancelled, err
}

// cancelClock cancels the open seeks with a live clock of players a and b
// as of at and returns them.
func cancelClock(ctx context.Context, r runner, at time.Time, a, b string) ([]lobby.Seek, error) {
	return scanSeeks(r.query(ctx, `UPDATE seeks SET status = 'cancelled', updated_at = ?
		WHERE player_id IN (?, ?) AND status = 'open' AND time_kind = 'live' RETURNING `+seekColumns, micros(at), a, b))
}

// notPlaying is lobby.ErrPlaying when a or b has an active game with a
// live clock.
func notPlaying(ctx context.Context, r runner, a, b string) error {
	var playing bool
	err := r.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM games WHERE status = 'active' AND time_kind = 'live'
		AND (south_player IN (?1, ?2) OR north_player IN (?1, ?2)))`, a, b).Scan(&playing)
	if err == nil && playing {
		return lobby.ErrPlaying
	}
	return err
}

// found tells ErrNotFound from ErrConflict after a conditional write on
// table's row id changed nothing.
func found(ctx context.Context, r runner, table, id string) error {
	var one int
	err := r.queryRow(ctx, "SELECT 1 FROM "+table+" WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return lobby.ErrNotFound
	}
	if err != nil {
		return err
	}
	return lobby.ErrConflict
}

// CancelSeek implements lobby.Store.
func (s *Store) CancelSeek(ctx context.Context, id string, at time.Time) (lobby.Seek, error) {
	var sk lobby.Seek
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		sk, err = scanSeek(r.queryRow(ctx, `UPDATE seeks SET status = 'cancelled', updated_at = ?
			WHERE id = ? AND status = 'open' AND expires_at > ? RETURNING `+seekColumns, micros(at), id, micros(at)))
		if errors.Is(err, lobby.ErrNotFound) {
			return found(ctx, r, "seeks", id)
		}
		return err
	})
	return sk, err
}

// OpenSeeks implements lobby.Store.
func (s *Store) OpenSeeks(ctx context.Context, q lobby.LobbyQuery) ([]lobby.Seek, error) {
	query := `SELECT ` + seekColumns + ` FROM seeks WHERE status = 'open' AND expires_at > ?`
	args := []any{micros(q.At)}
	if q.Kind != games.Untimed {
		kind, _ := stored.TimeKindWord(q.Kind)
		query, args = query+` AND time_kind = ?`, append(args, kind)
	}
	if q.Rated != nil {
		query, args = query+` AND rated = ?`, append(args, *q.Rated)
	}
	out, err := scanSeeks(runner{s: s}.query(ctx, query+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, max(q.Limit, 0))...))
	return out, s.read(err)
}

// PlayerSeeks implements lobby.Store.
func (s *Store) PlayerSeeks(ctx context.Context, player string, at time.Time) ([]lobby.Seek, error) {
	out, err := scanSeeks(runner{s: s}.query(ctx, `SELECT `+seekColumns+` FROM seeks
		WHERE player_id = ? AND status = 'open' AND expires_at > ? ORDER BY created_at, id`, player, micros(at)))
	return out, s.read(err)
}

const challengeColumns = `id, from_player, to_player, status, rated, rematch_of, reason, created_at, updated_at, expires_at,
	game_id, side, accepted_by, terms`

func scanChallenge(row stored.Scanner) (lobby.Challenge, error) {
	var c lobby.Challenge
	var to, rematch, reason, game, side, by sql.NullString
	var created, updated, expires int64
	var terms string
	err := row.Scan(&c.ID, &c.From, &to, &c.Status, &c.Rated, &rematch, &reason, &created, &updated, &expires, &game, &side, &by, &terms)
	if errors.Is(err, sql.ErrNoRows) {
		return c, lobby.ErrNotFound
	}
	if err != nil {
		return c, err
	}
	c.To, c.RematchOf, c.Reason, c.GameID, c.AcceptedBy = to.String, rematch.String, lobby.DeclineReason(reason.String), game.String, by.String
	c.CreatedAt, c.UpdatedAt, c.ExpiresAt = fromMicros(created), fromMicros(updated), fromMicros(expires)
	if side.Valid {
		if c.Side, err = engine.ParseSide(side.String); err != nil {
			return c, stored.Undecodable("challenge "+c.ID, err)
		}
	}
	return c, stored.SetChallengeTerms(&c, terms)
}

func scanChallenges(rows *sql.Rows, err error) ([]lobby.Challenge, error) {
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

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// AddChallenge implements lobby.Store.
func (s *Store) AddChallenge(ctx context.Context, c lobby.Challenge) error {
	terms, err := stored.ChallengeTerms(&c)
	if err != nil {
		return err
	}
	kind, _ := stored.TimeKindWord(c.TimeControl.Kind)
	return s.write(ctx, func(ctx context.Context, r runner) error {
		if c.RematchOf != "" {
			// A pending rematch past its expiry, not yet swept, makes way.
			if _, err := r.exec(ctx, `UPDATE challenges SET status = 'expired', updated_at = ?
				WHERE rematch_of = ? AND status = 'pending' AND expires_at <= ?`, micros(c.CreatedAt), c.RematchOf, micros(c.CreatedAt)); err != nil {
				return err
			}
		}
		res, err := r.exec(ctx, `INSERT INTO challenges (id, from_player, to_player, status, time_kind, rated, rematch_of,
			created_at, updated_at, expires_at, terms) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`,
			c.ID, c.From, nullString(c.To), kind, c.Rated, nullString(c.RematchOf),
			micros(c.CreatedAt), micros(c.UpdatedAt), micros(c.ExpiresAt), terms)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmp.Or(err, lobby.ErrConflict)
		}
		return nil
	})
}

// Challenge implements lobby.Store.
func (s *Store) Challenge(ctx context.Context, id string) (lobby.Challenge, error) {
	c, err := scanChallenge(runner{s: s}.queryRow(ctx, "SELECT "+challengeColumns+" FROM challenges WHERE id = ?", id))
	return c, s.read(err)
}

// Accept implements lobby.Store.
func (s *Store) Accept(ctx context.Context, a lobby.Acceptance) (lobby.Challenge, []lobby.Seek, error) {
	var c lobby.Challenge
	var cancelled []lobby.Seek
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		cancelled = nil
		a0, a1 := a.Game.Players[0].ID, a.Game.Players[1].ID
		var err error
		c, err = scanChallenge(r.queryRow(ctx, `UPDATE challenges SET status = 'accepted', accepted_by = ?, game_id = ?, side = ?, updated_at = ?
			WHERE id = ? AND status = 'pending' AND expires_at > ? RETURNING `+challengeColumns,
			a.By, a.Game.ID, a.Side.String(), micros(a.At), a.ID, micros(a.At)))
		if errors.Is(err, lobby.ErrNotFound) {
			return found(ctx, r, "challenges", a.ID)
		}
		if err != nil {
			return err
		}
		if a.CancelClock {
			// After the challenge's own condition: of two accepts, the
			// second hears that the challenge is taken.
			if err := notPlaying(ctx, r, a0, a1); err != nil {
				return err
			}
			if cancelled, err = cancelClock(ctx, r, a.At, a0, a1); err != nil {
				return err
			}
		}
		err = insertGame(ctx, r, &a.Game, nil)
		if errors.Is(err, games.ErrConflict) {
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
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		c, err = scanChallenge(r.queryRow(ctx, `UPDATE challenges SET status = ?, reason = ?, updated_at = ?
			WHERE id = ? AND status = 'pending' AND expires_at > ? RETURNING `+challengeColumns,
			string(status), nullString(string(reason)), micros(at), id, micros(at)))
		if errors.Is(err, lobby.ErrNotFound) {
			return found(ctx, r, "challenges", id)
		}
		return err
	})
	return c, err
}

// PlayerChallenges implements lobby.Store.
func (s *Store) PlayerChallenges(ctx context.Context, player string, at time.Time) ([]lobby.Challenge, error) {
	out, err := scanChallenges(runner{s: s}.query(ctx, `SELECT `+challengeColumns+` FROM challenges
		WHERE status = 'pending' AND expires_at > ? AND (from_player = ? OR to_player = ?) ORDER BY created_at, id`,
		micros(at), player, player))
	return out, s.read(err)
}

// PendingRematch implements lobby.Store.
func (s *Store) PendingRematch(ctx context.Context, game string, at time.Time) (lobby.Challenge, error) {
	c, err := scanChallenge(runner{s: s}.queryRow(ctx, `SELECT `+challengeColumns+` FROM challenges
		WHERE rematch_of = ? AND status = 'pending' AND expires_at > ?`, game, micros(at)))
	return c, s.read(err)
}

// Touch implements lobby.Store.
func (s *Store) Touch(ctx context.Context, player string, at, until time.Time) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		if _, err := r.exec(ctx, `UPDATE players SET seen_at = ? WHERE id = ? AND bot = 1`, micros(at), player); err != nil {
			return err
		}
		if _, err := r.exec(ctx, `UPDATE seeks SET expires_at = ? WHERE player_id = ? AND status = 'open'
			AND time_kind = 'live' AND expires_at > ? AND expires_at < ?`, micros(until), player, micros(at), micros(until)); err != nil {
			return err
		}
		_, err := r.exec(ctx, `UPDATE challenges SET expires_at = ? WHERE from_player = ? AND status = 'pending'
			AND time_kind = 'live' AND expires_at > ? AND expires_at < ?`, micros(until), player, micros(at), micros(until))
		return err
	})
}

// Expire implements lobby.Store.
func (s *Store) Expire(ctx context.Context, at time.Time, limit int) ([]lobby.Seek, []lobby.Challenge, error) {
	var seeks []lobby.Seek
	var chs []lobby.Challenge
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		seeks, err = scanSeeks(r.query(ctx, `UPDATE seeks SET status = 'expired', updated_at = ?1
			WHERE id IN (SELECT id FROM seeks WHERE status = 'open' AND expires_at <= ?1 ORDER BY expires_at, id LIMIT ?2)
			RETURNING `+seekColumns, micros(at), limit))
		if err != nil {
			return err
		}
		chs, err = scanChallenges(r.query(ctx, `UPDATE challenges SET status = 'expired', updated_at = ?1
			WHERE id IN (SELECT id FROM challenges WHERE status = 'pending' AND expires_at <= ?1 ORDER BY expires_at, id LIMIT ?2)
			RETURNING `+challengeColumns, micros(at), limit))
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
	out := make([]lobby.Event, len(evs))
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		for i, e := range evs {
			data, err := stored.EventData(&e)
			if err != nil {
				return err
			}
			if err := r.queryRow(ctx, `INSERT INTO lobby_events (stream, seq, kind, at, data, tournament_id)
				SELECT ?1, coalesce(max(seq), 0) + 1, ?2, ?3, ?4, ?5 FROM lobby_events WHERE stream = ?1 RETURNING seq`,
				e.Stream, string(e.Kind), micros(e.At), data, nullString(e.TournamentID)).Scan(&e.Seq); err != nil {
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
	rows, err := runner{s: s}.query(ctx, `SELECT seq, kind, at, data, tournament_id FROM lobby_events
		WHERE stream = ? AND seq > ? ORDER BY seq LIMIT ?`, stream, after, max(limit, 0))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []lobby.Event
	for rows.Next() {
		e := lobby.Event{Stream: stream}
		var at int64
		var data string
		var tournament sql.NullString
		if err := rows.Scan(&e.Seq, &e.Kind, &at, &data, &tournament); err != nil {
			return nil, err
		}
		e.At, e.TournamentID = fromMicros(at), tournament.String
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
	err := runner{s: s}.queryRow(ctx, `SELECT coalesce(max(seq), 0) FROM lobby_events WHERE stream = ?`, stream).Scan(&seq)
	return seq, s.read(err)
}

// PruneEvents implements lobby.Store.
func (s *Store) PruneEvents(ctx context.Context, before time.Time, limit int) (int, error) {
	var n int64
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, `DELETE FROM lobby_events WHERE (stream, seq) IN (
			SELECT e.stream, e.seq FROM lobby_events e WHERE e.at < ?
				AND e.seq < (SELECT max(x.seq) FROM lobby_events x WHERE x.stream = e.stream) LIMIT ?)`, micros(before), limit)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		_, err = r.exec(ctx, `DELETE FROM stream_tickets WHERE expires_at < ?`, micros(before))
		return err
	})
	return int(n), err
}

// AddTicket implements lobby.Store.
func (s *Store) AddTicket(ctx context.Context, hash []byte, player string, expires time.Time) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		_, err := r.exec(ctx, `INSERT INTO stream_tickets (hash, player_id, expires_at) VALUES (?, ?, ?)`, hash, player, micros(expires))
		return err
	})
}

// UseTicket implements lobby.Store.
func (s *Store) UseTicket(ctx context.Context, hash []byte, at time.Time) (string, error) {
	var player string
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var expires int64
		err := r.queryRow(ctx, `DELETE FROM stream_tickets WHERE hash = ? RETURNING player_id, expires_at`, hash).Scan(&player, &expires)
		if errors.Is(err, sql.ErrNoRows) || (err == nil && micros(at) >= expires) {
			return lobby.ErrNotFound
		}
		return err
	})
	return player, err
}

// PlayingGames implements lobby.Store.
func (s *Store) PlayingGames(ctx context.Context, player string) ([]games.Game, error) {
	out, err := s.playing(ctx, player)
	return out, s.read(err)
}

func (s *Store) playing(ctx context.Context, player string) ([]games.Game, error) {
	rows, err := runner{s: s}.query(ctx, `SELECT `+gameColumns+` FROM games
		WHERE status = 'active' AND (south_player = ?1 OR north_player = ?1) ORDER BY created_at, id`, player)
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
