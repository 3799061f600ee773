package memory

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/review"
)

var _ review.Store = (*Store)(nil)

// reviewRow is a stored review with its claim.
type reviewRow struct {
	st    review.Stored
	owner string
	until time.Time
}

// copyStored returns st with its own review.
func copyStored(st review.Stored) review.Stored {
	if st.Review != nil {
		r := *st.Review
		r.Plies = slices.Clone(r.Plies)
		for i := range r.Plies {
			r.Plies[i].Best = slices.Clone(r.Plies[i].Best)
		}
		st.Review = &r
	}
	return st
}

// RequestReview stores a queued review unless the game has one.
func (s *Store) RequestReview(_ context.Context, gameID string, total int, at time.Time) (review.Stored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reviews == nil {
		s.reviews = map[string]*reviewRow{}
	}
	if row, ok := s.reviews[gameID]; ok {
		return copyStored(row.st), nil
	}
	row := &reviewRow{st: review.Stored{GameID: gameID, State: review.Queued, Total: total, RequestedAt: at}}
	s.reviews[gameID] = row
	return copyStored(row.st), nil
}

// Review returns the game's review.
func (s *Store) Review(_ context.Context, gameID string) (review.Stored, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	row, ok := s.reviews[gameID]
	if !ok {
		return review.Stored{}, review.ErrNotFound
	}
	return copyStored(row.st), nil
}

// ClaimReview takes the first review requested that is queued or whose
// lease ended.
func (s *Store) ClaimReview(_ context.Context, owner string, now, until time.Time) (review.Stored, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first *reviewRow
	for _, row := range s.reviews {
		free := row.st.State == review.Queued || (row.st.State == review.Running && row.until.Before(now))
		if !free {
			continue
		}
		if first == nil || cmp.Or(row.st.RequestedAt.Compare(first.st.RequestedAt), cmp.Compare(row.st.GameID, first.st.GameID)) < 0 {
			first = row
		}
	}
	if first == nil {
		return review.Stored{}, false, nil
	}
	first.st.State, first.st.Done = review.Running, 0
	first.owner, first.until = owner, until
	return copyStored(first.st), true, nil
}

// held returns the row of a review owner holds, or nil. s.mu is held.
func (s *Store) held(gameID, owner string) *reviewRow {
	row, ok := s.reviews[gameID]
	if !ok || row.st.State != review.Running || row.owner != owner {
		return nil
	}
	return row
}

// ReviewProgress records the plies done and extends the lease.
func (s *Store) ReviewProgress(_ context.Context, gameID, owner string, done int, until time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	row := s.held(gameID, owner)
	if row == nil {
		return review.ErrLeaseLost
	}
	row.st.Done, row.until = done, until
	return nil
}

// FinishReview stores the done review.
func (s *Store) FinishReview(_ context.Context, gameID, owner string, r review.Review, at time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	row := s.held(gameID, owner)
	if row == nil {
		return review.ErrLeaseLost
	}
	row.st.State, row.st.Done, row.st.FinishedAt = review.Done, row.st.Total, at
	row.st.Review = &r
	row.st = copyStored(row.st)
	row.owner = ""
	return nil
}

// DropReview deletes a review owner holds.
func (s *Store) DropReview(_ context.Context, gameID, owner string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held(gameID, owner) == nil {
		return review.ErrLeaseLost
	}
	delete(s.reviews, gameID)
	return nil
}
