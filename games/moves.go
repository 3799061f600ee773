package games

import (
	"context"
)

// recordReader reads the records of a game's moves: the session service's
// Store and the Hub's FollowStore both can.
type recordReader interface {
	Records(ctx context.Context, id string, from, limit int) ([]Record, error)
}

// storedMoves rebuilds up to limit moves of g from ply from on: the store keeps
// only which pit each was and when, and replaying g's history through the
// engine gives the rest, exactly as it was when played (the repetition rule
// included, since the replay starts at the beginning). The times of the
// moves before from are read too: each move's time and the clock after it
// follow from all of them.
func storedMoves(ctx context.Context, st recordReader, g *Game, from, limit int) ([]Move, error) {
	from = max(from, 0)
	if from >= len(g.History) || limit < 1 {
		return nil, nil
	}
	n := min(limit, len(g.History)-from)
	recs, err := st.Records(ctx, g.ID, 0, from+n)
	if err != nil {
		return nil, err
	}
	if len(recs) < from {
		return nil, corrupt("game %s: %d records for a history of %d plies", g.ID, len(recs), len(g.History))
	}
	out := make([]Move, 0, len(recs)-from)
	err = walk(g, recs, func(m Move, _ *Game) {
		if m.Ply >= from {
			out = append(out, m)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
