package review

import (
	"context"
	"errors"
)

// Done returns game gameID's review when it is done, or nil: one read of
// the store, without looking the game up, for a caller that goes through
// many games (an export) and wants the reviews there are.
func (s *Service) Done(ctx context.Context, gameID string) (*Review, error) {
	st, err := s.store.Review(ctx, gameID)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil || st.State != Done {
		return nil, err
	}
	return st.Review, nil
}
