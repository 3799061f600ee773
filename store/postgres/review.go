package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ review.Store = (*Store)(nil)

const reviewColumns = "game_id, state, done, total, requested_at, finished_at, result"

// scanReview reads a row of reviewColumns.
func scanReview(row pgx.Row) (review.Stored, error) {
	var (
		st        review.Stored
		state     string
		requested time.Time
		finished  *time.Time
		result    *string
	)
	if err := row.Scan(&st.GameID, &state, &st.Done, &st.Total, &requested, &finished, &result); err != nil {
		return review.Stored{}, err
	}
	var err error
	if st.State, err = review.ParseState(state); err != nil {
		return review.Stored{}, stored.Undecodable("review of game "+st.GameID, err)
	}
	st.RequestedAt = requested.UTC()
	if finished != nil {
		st.FinishedAt = finished.UTC()
	}
	if result != nil {
		r, err := stored.DecodeReview([]byte(*result))
		if err != nil {
			return review.Stored{}, stored.Undecodable("review of game "+st.GameID, err)
		}
		st.Review = &r
	}
	return st, nil
}

// RequestReview implements review.Store: an insert that keeps the row there
// is, then the row.
func (s *Store) RequestReview(ctx context.Context, gameID string, total int, at time.Time) (review.Stored, error) {
	if _, err := s.pool.Exec(ctx, `INSERT INTO reviews (game_id, state, total, requested_at) VALUES ($1, 'queued', $2, $3)
		ON CONFLICT (game_id) DO NOTHING`, gameID, total, stamp(at)); err != nil {
		return review.Stored{}, fmt.Errorf("request review of game %s: %w", gameID, s.wrote(err))
	}
	return s.Review(ctx, gameID)
}

// Review implements review.Store.
func (s *Store) Review(ctx context.Context, gameID string) (review.Stored, error) {
	st, err := scanReview(s.pool.QueryRow(ctx, "SELECT "+reviewColumns+" FROM reviews WHERE game_id = $1", gameID))
	if noRows(err) {
		return review.Stored{}, review.ErrNotFound
	}
	if err != nil {
		return review.Stored{}, fmt.Errorf("review of game %s: %w", gameID, s.read(err))
	}
	return st, nil
}

// ClaimReview implements review.Store: the row to claim is locked with
// SKIP LOCKED, so instances claiming at once take different rows, and the
// update is conditional on it.
func (s *Store) ClaimReview(ctx context.Context, owner string, now, until time.Time) (review.Stored, bool, error) {
	st, err := scanReview(s.pool.QueryRow(ctx, `UPDATE reviews SET state = 'running', owner = $1, until = $2, done = 0
		WHERE game_id = (SELECT game_id FROM reviews
			WHERE state = 'queued' OR (state = 'running' AND until < $3)
			ORDER BY requested_at, game_id LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING `+reviewColumns, owner, stamp(until), stamp(now)))
	if noRows(err) {
		return review.Stored{}, false, nil
	}
	if err != nil {
		return review.Stored{}, false, fmt.Errorf("claim a review: %w", s.wrote(err))
	}
	return st, true, nil
}

// ReviewProgress implements review.Store.
func (s *Store) ReviewProgress(ctx context.Context, gameID, owner string, done int, until time.Time) error {
	return s.heldWrite(ctx, gameID, "progress of", `UPDATE reviews SET done = $1, until = $2
		WHERE game_id = $3 AND owner = $4 AND state = 'running'`, done, stamp(until), gameID, owner)
}

// FinishReview implements review.Store.
func (s *Store) FinishReview(ctx context.Context, gameID, owner string, rv review.Review, at time.Time) error {
	b, err := stored.EncodeReview(rv)
	if err != nil {
		return err
	}
	return s.heldWrite(ctx, gameID, "finish", `UPDATE reviews SET state = 'done', done = total, finished_at = $1, result = $2, owner = ''
		WHERE game_id = $3 AND owner = $4 AND state = 'running'`, stamp(at), string(b), gameID, owner)
}

// DropReview implements review.Store.
func (s *Store) DropReview(ctx context.Context, gameID, owner string) error {
	return s.heldWrite(ctx, gameID, "drop", `DELETE FROM reviews WHERE game_id = $1 AND owner = $2 AND state = 'running'`, gameID, owner)
}

// heldWrite runs an UPDATE (or DELETE) of a review the owner holds:
// ErrLeaseLost when it changed no row.
func (s *Store) heldWrite(ctx context.Context, gameID, what, query string, args ...any) error {
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s review of game %s: %w", what, gameID, s.wrote(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%s review of game %s: %w", what, gameID, review.ErrLeaseLost)
	}
	return nil
}
