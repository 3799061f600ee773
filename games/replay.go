package games

// A store keeps of each move only its record (pit, AI or not, time, the
// version its request left the game at); everything else a move did, and
// the game as it left it, follows from the game's start and rules through
// the engine. The functions here rebuild them.

import (
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// records is what the store keeps of ms, the moves of one request that left
// the game at version with the draw offer draw standing.
func records(ms []Move, version int64, draw Offer) []Record {
	out := make([]Record, len(ms))
	for i, m := range ms {
		out[i] = Record{Ply: m.Ply, Pit: m.Pit, ByAI: m.ByAI, At: m.At, Version: version, DrawOffer: draw}
	}
	return out
}

// moveOf is the record of the move in out, played at ply.
func moveOf(out *engine.Outcome, ply int, at time.Time, byAI bool) Move {
	return Move{Ply: ply, Side: out.Before.ToMove, Pit: out.Pit, ByAI: byAI, Legs: slices.Clone(out.Legs),
		Capture: out.Capture, Position: out.Position, Result: out.Result, At: at}
}

// walk replays recs, the records of g's moves from its first on, through
// the engine from g's start, and hands each to each: the move with
// everything it did, exactly as when it was played (the repetition rule
// included, since the replay starts at the beginning), and the game as it
// left it (ply, position, status, result, clock and time; the rest of it
// is zero). The clock follows from the times alone, since only moves
// change it while a game is active.
func walk(g *Game, recs []Record, each func(m Move, then *Game)) error {
	if len(recs) > len(g.History) {
		return corrupt("game %s: %d records for a history of %d plies", g.ID, len(recs), len(g.History))
	}
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return corrupt("game %s: start: %v", g.ID, err)
	}
	then := Game{Status: Active, TimeControl: g.TimeControl, Clock: g.TimeControl.startClock(), AI: g.AI, UpdatedAt: g.startedAt()}
	var o engine.Outcome
	for ply, r := range recs {
		pit := g.History[ply]
		if err := rec.Play(int(pit), &o); err != nil {
			return corrupt("game %s: stored ply %d does not replay: %v", g.ID, ply, err)
		}
		if r.Ply != ply || r.Pit != int(pit) {
			return corrupt("game %s: record %d (ply %d, pit %d) disagrees with the history's pit %d", g.ID, ply, r.Ply, r.Pit, pit)
		}
		spent := r.At.Sub(then.UpdatedAt)
		then.Clock = charge(g.TimeControl, then.Clock, o.Before.ToMove, ply, r.ByAI, spent)
		then.Ply, then.Position, then.Result, then.UpdatedAt = ply+1, o.Position, o.Result, r.At
		if o.Result.Over() {
			then.Status = Finished
		}
		m := moveOf(&o, ply, r.At, r.ByAI)
		m.Elapsed, m.Version = spent, r.Version
		m.Clock, m.HasClock = ClockOf(&then)
		each(m, &then)
	}
	return nil
}

// replay rebuilds the engine's record of g from its start and history, so the
// repetition rule sees every earlier position. It also returns the positions
// before the current one, which the AI needs to see that rule coming.
func replay(g *Game) (*engine.Game, []engine.Position, error) {
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return nil, nil, corrupt("game %s: start: %v", g.ID, err)
	}
	hist := make([]engine.Position, 0, len(g.History)+2)
	var out engine.Outcome
	for i, pit := range g.History {
		hist = append(hist, rec.Position())
		if err := rec.Play(int(pit), &out); err != nil {
			return nil, nil, corrupt("game %s: stored ply %d does not replay: %v", g.ID, i, err)
		}
	}
	if rec.Position() != g.Position {
		return nil, nil, corrupt("game %s: replay reaches %s, the store says %s", g.ID, rec.Position(), g.Position)
	}
	return rec, hist, nil
}
