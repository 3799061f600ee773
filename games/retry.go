package games

// A move request sent again after its answer was lost gets the answer it
// got the first time. No answer is stored: it is rebuilt from the records
// of the moves the request made (their pits, times and the game's version
// after them) and the game's row, which hold all it said.

import (
	"context"
	"slices"

	"github.com/ayoayo/ayoayo/engine"
)

// sideAt is the side that played ply in g: sides strictly alternate (a
// side with no move ends the game).
func sideAt(g *Game, ply int) engine.Side {
	if ply%2 == 0 {
		return g.Start.ToMove
	}
	return g.Start.ToMove.Other()
}

// isRetry reports whether a request of seat side for pit at ply is the
// seat's latest accepted one in g, sent again: only that one can be, since
// the seat's every later request was refused or made a later move. The
// AI's seat has no token, so its moves are never a seat's request.
func isRetry(g *Game, side engine.Side, ply, pit int) bool {
	if ply < 0 || ply >= g.Ply || ply >= len(g.History) || sideAt(g, ply) != side {
		return false
	}
	// The seat's latest move is the game's last, or the one before it when
	// the other side has moved since.
	return ply >= g.Ply-2 && int(g.History[ply]) == pit
}

// rebuild is the answer of the request that played ply in g (the game as
// it is now): its move, the AI's reply when the AI moved next in the same
// request, and the game as the two left it; nil when there is none to give.
func (s *Service) rebuild(ctx context.Context, g *Game, ply int) (*PlayResult, error) {
	recs, err := s.store.Records(ctx, g.ID, 0, ply+2)
	if err != nil {
		return nil, err
	}
	// A move stored since g was read is no part of this request.
	recs = recs[:min(len(recs), len(g.History))]
	if len(recs) <= ply || recs[ply].ByAI {
		return nil, corrupt("game %s: no record of the seat's latest move at ply %d to answer its retry with", g.ID, ply)
	}
	if recs[ply].Version == 0 {
		// Stored before versions were, with no answer kept either (every
		// seat's latest move had one, which migration 0009 read its
		// version from): as before, no answer to give, and the request is
		// refused as any other.
		return nil, nil
	}
	end := ply + 1
	if end < len(recs) && recs[end].ByAI {
		end++ // the AI's reply, made in the same request
	}
	var res PlayResult
	var after Game
	err = walk(g, recs[:end], func(m Move, then *Game) {
		switch {
		case m.Ply == ply:
			res.Move = m
		case m.Ply > ply:
			res.Reply = &m
		}
		after = *then
	})
	if err != nil {
		return nil, err
	}
	res.Game = s.asLeft(g, &after, &recs[ply])
	return &res, nil
}

// asLeft is g as a request left it: then is the game after the request's
// moves as walk rebuilt it, rec the record of the request's (seat's) move,
// with the version and the draw offer the request left. What no move
// changes (id, rules, start, seats, time control, creation and join) is
// g's.
//
// The seats' players are g's too, with one exception: the end of a rated
// game sets each seat's rating to the one the result was applied to, with
// the change, so the retry of a request that left the game still running
// shows that rating without the change (the change came later). That is
// the rating the seat had when the request was made unless the player's
// rating moved between the seat's taking and the game's end (another rated
// game of theirs ended meanwhile, or the deviation grew over an idle
// rating period): then the retry says the rating at the end. The offers
// are the request's, from rec: a retry answers what the first answer said,
// whatever was offered or answered since (no takeback offer outlives a
// move; the draw offer is the mover's own, if it stood). Nothing else in
// a retried answer can differ from the first.
func (s *Service) asLeft(g, then *Game, rec *Record) Game {
	out := *g
	out.Ply, out.Position, out.Status, out.Result = then.Ply, then.Position, then.Status, then.Result
	if rec.Version == g.Version && g.Status.Over() && !then.Status.Over() {
		// The request's own write ended the game otherwise than by a move
		// (a draw agreed with the move, see offerWithMove): nothing was
		// written since.
		out.Status, out.Result = g.Status, g.Result
	}
	out.Clock, out.UpdatedAt, out.Version = then.Clock, then.UpdatedAt, rec.Version
	out.DrawOffer, out.TakebackOffer = rec.DrawOffer, NoOffer
	out.History = slices.Clip(g.History[:then.Ply])
	out.Deadline = out.deadline(s.exp)
	if !out.Result.Over() {
		for i := range out.Players {
			out.Players[i].Change, out.Players[i].HasChange = 0, false
		}
	}
	return out
}
