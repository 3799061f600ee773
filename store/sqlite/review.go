package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ review.Store = (*Store)(nil)

const reviewColumns = "game_id, state, done, total, requested_us, finished_us, result"

// scanReview reads a row of reviewColumns.
func scanReview(row interface{ Scan(...any) error }) (review.Stored, error) {
	var (
		st        review.Stored
		state     string
		requested int64
		finished  sql.NullInt64
		result    sql.NullString
	)
	if err := row.Scan(&st.GameID, &state, &st.Done, &st.Total, &requested, &finished, &result); err != nil {
		return review.Stored{}, err
	}
	var err error
	if st.State, err = review.ParseState(state); err != nil {
		return review.Stored{}, stored.Undecodable("review of game "+st.GameID, err)
	}
	st.RequestedAt = time.UnixMicro(requested).UTC()
	if finished.Valid {
		st.FinishedAt = time.UnixMicro(finished.Int64).UTC()
	}
	if result.Valid {
		r, err := stored.DecodeReview([]byte(result.String))
		if err != nil {
			return review.Stored{}, stored.Undecodable("review of game "+st.GameID, err)
		}
		st.Review = &r
	}
	return st, nil
}

// RequestReview implements review.Store.
func (s *Store) RequestReview(ctx context.Context, gameID string, total int, at time.Time) (review.Stored, error) {
	var st review.Stored
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		if _, err := r.exec(ctx, `INSERT INTO reviews (game_id, state, total, requested_us) VALUES (?, 'queued', ?, ?)
			ON CONFLICT (game_id) DO NOTHING`, gameID, total, at.UnixMicro()); err != nil {
			return err
		}
		var err error
		st, err = scanReview(r.queryRow(ctx, "SELECT "+reviewColumns+" FROM reviews WHERE game_id = ?", gameID))
		return err
	})
	if err != nil {
		return review.Stored{}, fmt.Errorf("request review of game %s: %w", gameID, err)
	}
	return st, nil
}

// Review implements review.Store.
func (s *Store) Review(ctx context.Context, gameID string) (review.Stored, error) {
	st, err := scanReview(runner{s: s}.queryRow(ctx, "SELECT "+reviewColumns+" FROM reviews WHERE game_id = ?", gameID))
	if errors.Is(err, sql.ErrNoRows) {
		return review.Stored{}, review.ErrNotFound
	}
	if err != nil {
		return review.Stored{}, fmt.Errorf("review of game %s: %w", gameID, s.read(err))
	}
	return st, nil
}

// ClaimReview implements review.Store: one UPDATE, which SQLite runs under
// its one writer's lock, so of two instances claiming at once each row goes
// to one.
func (s *Store) ClaimReview(ctx context.Context, owner string, now, until time.Time) (review.Stored, bool, error) {
	var (
		st review.Stored
		ok bool
	)
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var err error
		st, err = scanReview(r.queryRow(ctx, `UPDATE reviews SET state = 'running', owner = ?, until_us = ?, done = 0
			WHERE game_id = (SELECT game_id FROM reviews
				WHERE state = 'queued' OR (state = 'running' AND until_us < ?)
				ORDER BY requested_us, game_id LIMIT 1)
			RETURNING `+reviewColumns, owner, until.UnixMicro(), now.UnixMicro()))
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		ok = err == nil
		return err
	})
	if err != nil {
		return review.Stored{}, false, fmt.Errorf("claim a review: %w", err)
	}
	return st, ok, nil
}

// ReviewProgress implements review.Store.
func (s *Store) ReviewProgress(ctx context.Context, gameID, owner string, done int, until time.Time) error {
	return s.heldWrite(ctx, gameID, "progress of", `UPDATE reviews SET done = ?, until_us = ?
		WHERE game_id = ? AND owner = ? AND state = 'running'`, done, until.UnixMicro(), gameID, owner)
}

// FinishReview implements review.Store.
func (s *Store) FinishReview(ctx context.Context, gameID, owner string, rv review.Review, at time.Time) error {
	b, err := stored.EncodeReview(rv)
	if err != nil {
		return err
	}
	return s.heldWrite(ctx, gameID, "finish", `UPDATE reviews SET state = 'done', done = total, finished_us = ?, result = ?, owner = ''
		WHERE game_id = ? AND owner = ? AND state = 'running'`, at.UnixMicro(), string(b), gameID, owner)
}

// DropReview implements review.Store.
func (s *Store) DropReview(ctx context.Context, gameID, owner string) error {
	return s.heldWrite(ctx, gameID, "drop", `DELETE FROM reviews WHERE game_id = ? AND owner = ? AND state = 'running'`, gameID, owner)
}

// heldWrite runs an UPDATE (or DELETE) of a review the owner holds:
// ErrLeaseLost when it changed no row.
func (s *Store) heldWrite(ctx context.Context, gameID, what, query string, args ...any) error {
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, query, args...)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err == nil && n == 0 {
			return review.ErrLeaseLost
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("%s review of game %s: %w", what, gameID, err)
	}
	return nil
}
