package games

import (
	"context"
	"errors"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
)

// ErrBerserk: berserk asked of a game or a side that cannot take it: not an
// active live game, or a side that has moved already.
var ErrBerserk = fault.New(fault.Conflict, "berserk_not_possible", "Berserk not possible", "berserk is not possible")

// Berserk halves the clock of side in game id, before that side's first
// move: an arena's trade of time for a point (the tournaments package
// decides who may). The write is conditional on the game as read, so of
// two requests at once one halves the clock; the caller keeps the mark
// that stops a second.
func (s *Service) Berserk(ctx context.Context, id string, side engine.Side) (Game, error) {
	for range maxAmendTries {
		g, err := s.current(ctx, id)
		if err != nil {
			return g, notFound(id, err)
		}
		switch {
		case g.Status != Active:
			return g, fmt.Errorf("%w: game %s is %s", ErrBerserk, id, g.Status)
		case g.TimeControl.Kind != Live:
			return g, fmt.Errorf("%w: game %s has no live clock", ErrBerserk, id)
		case g.Ply > int(side):
			return g, fmt.Errorf("%w: %s has moved in game %s", ErrBerserk, side, id)
		}
		next := g
		next.Clock[side] /= 2
		next.Version++
		next.Deadline = next.deadline(s.exp)
		res, err := s.store.Amend(ctx, Amend{ID: g.ID, Version: g.Version, Game: next})
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return res, notFound(id, err)
		}
		s.cache.put(&res)
		s.sweep.expect(res.Deadline)
		s.changed(ctx, &res)
		return res, nil
	}
	return Game{}, fmt.Errorf("game %s kept changing: %w", id, fault.ErrUnavailable)
}
