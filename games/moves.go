package games

import (
	"context"

	"github.com/ayoayo/ayoayo/engine"
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
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return nil, corrupt("game %s: start: %v", g.ID, err)
	}
	out := make([]Move, 0, len(recs)-from)
	// then is the game as each move left it, for the clock after it.
	then := Game{Status: Active, TimeControl: g.TimeControl, Clock: g.TimeControl.startClock(), AI: g.AI, UpdatedAt: g.startedAt()}
	var o engine.Outcome
	for ply, r := range recs {
		pit := g.History[ply]
		if err := rec.Play(int(pit), &o); err != nil {
			return nil, corrupt("game %s: stored ply %d does not replay: %v", g.ID, ply, err)
		}
		if r.Ply != ply || r.Pit != int(pit) {
			return nil, corrupt("game %s: record %d (ply %d, pit %d) disagrees with the history's pit %d", g.ID, ply, r.Ply, r.Pit, pit)
		}
		spent := r.At.Sub(then.UpdatedAt)
		then.Clock = charge(g.TimeControl, then.Clock, o.Before.ToMove, ply, r.ByAI, spent)
		then.Ply, then.Position, then.UpdatedAt = ply+1, o.Position, r.At
		if o.Result.Over() {
			then.Status = Finished
		}
		if ply < from {
			continue
		}
		m := moveOf(&o, ply, r.At, r.ByAI)
		m.Elapsed = spent
		m.Clock, m.HasClock = ClockOf(&then)
		out = append(out, m)
	}
	return out, nil
}
