package games

// Offers in a game: a draw offer, which the opponent accepts by offering a
// draw too, and a takeback offer, by which a side asks to undo its last
// move (and the reply after it). An offer lives in the game's row, written
// with the game's version check like every change, until the opponent
// answers it or moves: a move clears any takeback offer and the draw offer
// of the side that did not move.
//
// A takeback deletes the undone moves' records in the same write that
// moves the game's ply, history, position and clock back, so a retried
// move request at a ply that was taken back finds no record to rebuild its
// answer from: at a ply past the game's it is a stale ply, at the game's
// own ply it is a new move.
//
// The clock of a takeback: the game goes back to what it was when the
// proposer's undone turn began, and that turn is still running from then.
// So the proposer pays for the undo (its clock ran through its undone move,
// the opponent's reply and the wait for the answer), and the opponent gets
// back the time it spent on an undone reply. Nobody can buy time with a
// takeback, and the clock after it is the one the moves' records give, as
// for every other move (walk).

import (
	"context"
	"errors"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/players"
)

// Offer is the side whose offer stands, or NoOffer.
type Offer uint8

// The offers.
const (
	NoOffer Offer = iota
	OfferBySouth
	OfferByNorth
)

// offerOf is side's offer.
func offerOf(side engine.Side) Offer { return OfferBySouth + Offer(side) }

// By is the side that made o, and false for NoOffer.
func (o Offer) By() (engine.Side, bool) {
	if o == NoOffer {
		return 0, false
	}
	return engine.Side(o - OfferBySouth), true
}

// String is the word stores keep and the API shows: "south", "north", or
// "" for none.
func (o Offer) String() string {
	if side, ok := o.By(); ok {
		return side.String()
	}
	return ""
}

// ParseOffer reads String's word.
func ParseOffer(s string) (Offer, error) {
	if s == "" {
		return NoOffer, nil
	}
	side, err := engine.ParseSide(s)
	if err != nil {
		return NoOffer, fmt.Errorf("offer %q: %w", s, err)
	}
	return offerOf(side), nil
}

// Errors of offers.
var (
	// ErrNoOffer: a refusal (or a withdrawal) of an offer that does not
	// stand.
	ErrNoOffer = fault.New(fault.Conflict, "no_offer", "No offer", "no such offer stands")
	// ErrTakebackRated: takebacks are for unrated games only.
	ErrTakebackRated = fault.New(fault.Forbidden, "takeback_rated", "No takebacks in rated games", "a rated game has no takebacks")
	// ErrNothingToTakeBack: the proposer has made no move yet.
	ErrNothingToTakeBack = fault.New(fault.Conflict, "nothing_to_take_back", "Nothing to take back", "this seat has made no move to take back")
)

// Actor is who acts for a seat: the seat's token, or a player the api
// authenticated (its Player-Token), which acts for the seats that are its
// own in the game.
type Actor struct {
	Token  string
	Player string // the player's id; "" for none
}

// maxAmendTries bounds the tries of an offer or a takeback whose write
// found the game changed (a move, another offer): each reads the game
// again and decides afresh.
const maxAmendTries = 4

// Draw offers a draw for by's seat (offer true), which accepts the
// opponent's standing offer, or refuses the opponent's offer or withdraws
// its own (offer false). A draw by agreement ends the game, rated as a
// draw; a rated game in which a side has not moved yet is aborted instead.
// The AI declines every draw offer at once: the answer shows none.
func (s *Service) Draw(ctx context.Context, id string, by Actor, offer bool) (Game, error) {
	return s.amend(ctx, id, by, func(g *Game, side engine.Side) (Game, error) {
		return s.draw(ctx, g, side, offer)
	})
}

// Takeback proposes (offer true) to undo the last move of by's seat and
// the reply after it, which accepts the opponent's standing proposal
// instead when there is one; offer false refuses the opponent's proposal
// or withdraws its own. The AI accepts every proposal at once. Unrated
// games only.
func (s *Service) Takeback(ctx context.Context, id string, by Actor, offer bool) (Game, error) {
	return s.amend(ctx, id, by, func(g *Game, side engine.Side) (Game, error) {
		if g.Rated {
			return *g, fmt.Errorf("%w: game %s is rated", ErrTakebackRated, g.ID)
		}
		return s.takeback(ctx, g, side, offer)
	})
}

// amend reads game id, finds by's seat, and decides with do, again on a
// fresh read when do's write found the game changed.
func (s *Service) amend(ctx context.Context, id string, by Actor, do func(g *Game, side engine.Side) (Game, error)) (Game, error) {
	var err error
	for range maxAmendTries {
		var g Game
		if g, err = s.current(ctx, id); err != nil {
			return g, err
		}
		side, err := seatOf(&g, by)
		if err != nil {
			return g, err
		}
		res, err := do(&g, side)
		if !errors.Is(err, ErrConflict) {
			if err == nil {
				s.cache.put(&res)
				s.sweep.expect(res.Deadline)
				s.changed(ctx, &res)
			}
			return res, notFound(id, err)
		}
	}
	return Game{}, fmt.Errorf("game %s kept changing: %w", id, fault.ErrUnavailable)
}

// offerable is why no offer can be made or answered in g now, or nil.
func offerable(g *Game) error {
	switch g.Status {
	case Finished, Aborted:
		return endedError(g)
	case Waiting:
		return ErrNotStarted
	}
	return nil
}

// draw decides side's draw offer (or refusal) in g.
func (s *Service) draw(ctx context.Context, g *Game, side engine.Side, offer bool) (Game, error) {
	if offer && g.Status == Finished && g.Result.Reason == engine.ByAgreement {
		return *g, nil // the agreement, sent again
	}
	if err := offerable(g); err != nil {
		return *g, err
	}
	mine, theirs := offerOf(side), offerOf(side.Other())
	next := *g
	switch {
	case offer && g.DrawOffer == theirs:
		return s.agree(ctx, g)
	case offer && (g.DrawOffer == mine || g.AI != nil):
		return *g, nil // standing already, or declined by the AI at once
	case offer:
		next.DrawOffer = mine
	case g.DrawOffer == NoOffer:
		return *g, fmt.Errorf("%w: no draw offer stands in game %s", ErrNoOffer, g.ID)
	default:
		next.DrawOffer = NoOffer
	}
	return s.store.Amend(ctx, Amend{ID: g.ID, Version: g.Version, Game: next})
}

// agree ends g by agreement: a draw, or an abort when g is rated and a
// side has not moved yet (see abortOnly).
func (s *Service) agree(ctx context.Context, g *Game) (Game, error) {
	e := End{ID: g.ID, Version: g.Version, Status: Finished, Result: engine.Result{Reason: engine.ByAgreement, Winner: engine.Draw},
		Clock: g.Clock}
	if g.abortOnly() {
		e.Status, e.Result = Aborted, engine.Result{}
	}
	return s.end(ctx, g, e)
}

// end writes e, which ends g, with the match of its result; a rating that
// changed under it is read again.
func (s *Service) end(ctx context.Context, g *Game, e End) (Game, error) {
	var err error
	var res Game
	for range maxRatingTries {
		e.At = s.clock()
		if e.Match, err = s.match(ctx, g, e.Result, e.At); err != nil {
			return *g, err
		}
		if res, err = s.store.End(ctx, e); !errors.Is(err, players.ErrRatingsChanged) {
			break
		}
	}
	return res, err
}

// abortOnly reports whether g is a rated game in which a side has not made
// its first move: it can only be aborted (no result, no rating moves), so
// that two accounts cannot trade rating without playing.
func (g *Game) abortOnly() bool { return g.Rated && g.firstMove() }

// takeback decides side's takeback proposal (or refusal) in g.
func (s *Service) takeback(ctx context.Context, g *Game, side engine.Side, offer bool) (Game, error) {
	if err := offerable(g); err != nil {
		return *g, err
	}
	mine, theirs := offerOf(side), offerOf(side.Other())
	next := *g
	switch {
	case offer && g.TakebackOffer == theirs:
		return s.takeBack(ctx, g, side.Other())
	case offer && g.TakebackOffer == mine:
		return *g, nil
	case offer && lastMoveOf(g, side) < 0:
		return *g, fmt.Errorf("%w: game %s", ErrNothingToTakeBack, g.ID)
	case offer && g.AI != nil:
		return s.takeBack(ctx, g, side)
	case offer:
		next.TakebackOffer = mine
	case g.TakebackOffer == NoOffer:
		return *g, fmt.Errorf("%w: no takeback proposal stands in game %s", ErrNoOffer, g.ID)
	default:
		next.TakebackOffer = NoOffer
	}
	return s.store.Amend(ctx, Amend{ID: g.ID, Version: g.Version, Game: next})
}

// lastMoveOf is the ply of side's last move in g, or -1 when it has made
// none. Sides alternate, so it is the last ply or the one before.
func lastMoveOf(g *Game, side engine.Side) int {
	for ply := g.Ply - 1; ply >= 0 && ply >= g.Ply-2; ply-- {
		if sideAt(g, ply) == side {
			return ply
		}
	}
	return -1
}

// takeBack undoes proposer's last move in g and every move after it: the
// game becomes what it was as that move's turn began, rebuilt from the
// records before it (walk), clock included (see the file's comment).
func (s *Service) takeBack(ctx context.Context, g *Game, proposer engine.Side) (Game, error) {
	to := lastMoveOf(g, proposer)
	if to < 0 {
		return *g, fmt.Errorf("%w: game %s", ErrNothingToTakeBack, g.ID)
	}
	then := Game{Status: Active, TimeControl: g.TimeControl, Clock: g.TimeControl.startClock(), AI: g.AI,
		UpdatedAt: g.startedAt(), Position: g.Start}
	if to > 0 {
		recs, err := s.store.Records(ctx, g.ID, 0, to)
		if err != nil {
			return *g, err
		}
		if len(recs) != to {
			return *g, corrupt("game %s: %d records before ply %d", g.ID, len(recs), to)
		}
		if err := walk(g, recs, func(_ Move, after *Game) { then = *after }); err != nil {
			return *g, err
		}
	}
	// No offer stands after a takeback.
	next := s.asLeft(g, &then, &Record{Version: g.Version + 1})
	return s.store.Amend(ctx, Amend{ID: g.ID, Version: g.Version, Game: next})
}

// clearOffers clears the offers a move by side in g answers: any takeback
// proposal, and the opponent's draw offer (side's own still stands).
func clearOffers(g *Game, side engine.Side) {
	g.TakebackOffer = NoOffer
	if g.DrawOffer == offerOf(side.Other()) {
		g.DrawOffer = NoOffer
	}
}
