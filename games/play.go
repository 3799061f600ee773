package games

// The move path: a move request is read against the game (from the cache
// or the store), refused, answered as a retry, or played with the AI's
// reply and stored in one conditional write.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
)

// PlayResult is what an accepted move request did. The same request sent
// again gets it again, rebuilt from what the store keeps (see rebuild).
type PlayResult struct {
	Move  Move
	Reply *Move // the AI's answer, when it was the AI's turn next
	Game  Game  // the game after both
}

// MoveRequest is a request to play Pit at Ply of game ID for the holder of
// Token, or for the seat of Player (see Actor).
type MoveRequest struct {
	ID       string
	Token    string
	Player   string // the id of the player the api authenticated, when no Token
	Ply, Pit int
	// Client is the address the request came from: the AI's search slots
	// are shared out by it (see Options.AIConcurrency).
	Client string
	// OfferDraw makes a draw offer with the move, in the same write, or
	// accepts the opponent's standing one (see offerWithMove).
	OfferDraw bool
}

// Play plays the request's move and returns what it did. The same request
// sent again (same seat, ply and pit) while it is the seat's latest
// accepted one gets the same result, with replayed set, instead of making a
// second move.
//
// Requests for one game and ply are played one at a time on this instance
// (see flight): a copy of the request being played waits for it and gets
// its result, replayed; any other waits for it, then is answered from the
// game it left.
func (s *Service) Play(ctx context.Context, req MoveRequest) (res PlayResult, replayed bool, err error) {
	hash := actorKey(req.actor())
	key := flightKey{id: req.ID, ply: req.Ply}
	for {
		f, lead := s.flights.join(key, hash, req.Pit)
		if lead {
			return s.lead(ctx, key, f, req)
		}
		select {
		case <-f.done:
		case <-ctx.Done():
			return PlayResult{}, false, ctx.Err()
		}
		if f.stands && f.pit == req.Pit && bytes.Equal(f.hash, hash) {
			if f.res == nil {
				return PlayResult{}, false, f.err
			}
			return *f.res, true, nil
		}
		// Another request, or one that got no answer: this one is played
		// (or refused) on its own, on the game as that one left it.
	}
}

// actor is who sends req.
func (req *MoveRequest) actor() Actor { return Actor{Token: req.Token, Player: req.Player} }

// lead plays req as the flight f, and lands f with the answer whatever
// happens, so that its waiters never wait for nothing.
func (s *Service) lead(ctx context.Context, key flightKey, f *flight, req MoveRequest) (res PlayResult, replayed bool, err error) {
	var out *PlayResult
	defer func() {
		// Neither result nor error (a panic), or an error after the client
		// went away: not an answer a copy of the request should get.
		stands := (out != nil || err != nil) && (err == nil || ctx.Err() == nil)
		s.flights.land(key, f, out, err, stands)
	}()
	out, replayed, err = s.playFrom(ctx, true, req)
	if errors.Is(err, errCachedRefusal) {
		// Refused on the strength of a cached row: the database decides
		// which refusal the request gets (its ply may be stale).
		out, replayed, err = s.playFrom(ctx, false, req)
	}
	for try := 1; errors.Is(err, errChangedUnder); try++ {
		// The game took an offer (on another instance, or here while the
		// move was made) at the same ply: the move is made again on the
		// game as it now is, a few times at most.
		if try == maxChangedTries {
			err = fmt.Errorf("game %s changed %d times while the move was made; read it and send the move again: %w", req.ID, try, &StalePlyError{Sent: req.Ply, Current: req.Ply})
			break
		}
		out, replayed, err = s.playFrom(ctx, false, req)
	}
	if out != nil {
		res = *out
	}
	return res, replayed, notFound(req.ID, err)
}

// errCachedRefusal marks a refusal that was decided from a cached row.
var errCachedRefusal = errors.New("refused from the cache")

// errChangedUnder: a play's write found its game still active at the
// play's ply but at a later version (an offer was written since the game
// was read), so nothing was written.
var errChangedUnder = errors.New("the game changed at the same ply")

// maxChangedTries bounds the times one request's move is made while its
// game keeps changing at the same ply: each change is an offer, which
// takes a request of its own.
const maxChangedTries = 4

// cachedRefusal marks err when the row it was decided from came from the
// cache.
func cachedRefusal(cached bool, err error) error {
	if cached {
		return fmt.Errorf("%w: %w", errCachedRefusal, err)
	}
	return err
}

// refusal says why a request of seat side for pit at ply in g, which is not
// active at that ply, is not played; or, when the very same request was
// the seat's latest accepted one, returns the result it got. The order is
// the contract's: a replay first, then a finished game, a waiting one, a
// stale ply. A ply below zero is never a replay.
func (s *Service) refusal(ctx context.Context, g *Game, side engine.Side, ply, pit int) (*PlayResult, error) {
	if isRetry(g, side, ply, pit) {
		res, err := s.rebuild(ctx, g, ply)
		if res != nil || err != nil {
			return res, err
		}
	}
	switch g.Status {
	case Finished, Aborted:
		return nil, endedError(g)
	case Waiting:
		return nil, ErrNotStarted
	}
	if ply >= 0 && ply != g.Ply {
		return nil, &StalePlyError{Sent: ply, Current: g.Ply}
	}
	return nil, nil
}

// playFrom answers req, reading its game from the cache when useCache says
// so and the cache has it at req's ply, else from the store.
func (s *Service) playFrom(ctx context.Context, useCache bool, req MoveRequest) (*PlayResult, bool, error) {
	now := s.clock()
	g, side, cached, err := s.gameFor(ctx, useCache, req, now)
	if err != nil {
		return nil, false, err
	}
	if g.Status != Active || g.Ply != req.Ply {
		res, err := s.refusal(ctx, &g, side, req.Ply, req.Pit)
		if res != nil || err != nil {
			return res, res != nil, err
		}
	}
	if side != g.Position.ToMove {
		return nil, false, cachedRefusal(cached, fmt.Errorf("%w: %s is to move, this token holds %s", ErrNotYourTurn, g.Position.ToMove, side))
	}
	res, err := s.move(ctx, &g, side, req, now, cached)
	if errors.Is(err, ErrAIBusy) {
		return s.busy(ctx, req, side, err)
	}
	if err != nil {
		return nil, false, err
	}
	return s.commit(ctx, &g, res, req, side)
}

// gameFor reads req's game, from the cache when useCache says so and the
// cache has it active at req's ply, and finds the seat of req's token. A
// game overdue at now is ended at its deadline first, whatever req says,
// and req is answered as the ended game says: req's own flight is no move
// made in time.
func (s *Service) gameFor(ctx context.Context, useCache bool, req MoveRequest, now time.Time) (g Game, side engine.Side, cached bool, err error) {
	if useCache {
		g, cached = s.cache.get(req.ID)
	}
	if !cached || g.Ply != req.Ply || g.Status != Active {
		cached = false
		// A miss, or a request the cached row would refuse: the database
		// has the last word.
		if g, err = s.store.Game(ctx, req.ID); err != nil {
			return g, 0, false, err
		}
	}
	if side, err = seatOf(&g, req.actor()); err != nil {
		return g, 0, false, err // tokens never change: the cache is as good as the database
	}
	if g.overdue(now) {
		s.cache.drop(req.ID)
		g, err = s.read(ctx, req.ID, false)
		return g, side, false, err
	}
	return g, side, cached, nil
}

// move plays req's pit for side on g at now, and the AI's reply when the
// AI is to move next; g becomes the game after both (its deadline and
// version included), ready to store.
func (s *Service) move(ctx context.Context, g *Game, side engine.Side, req MoveRequest, now time.Time, cached bool) (*PlayResult, error) {
	if g.Ply == 0 && now.Before(g.JoinedAt) {
		return nil, fmt.Errorf("%w: game %s starts at %s", ErrClockNotStarted, g.ID, g.JoinedAt.Format(time.RFC3339))
	}
	rec, hist, err := replay(g)
	if err != nil {
		return nil, err
	}
	var out engine.Outcome
	if err := rec.Play(req.Pit, &out); err != nil {
		return nil, cachedRefusal(cached, err)
	}
	res := &PlayResult{Move: moveOf(&out, g.Ply, now, false)}
	res.Move.Elapsed = now.Sub(g.UpdatedAt)
	g.Clock = charge(g.TimeControl, g.Clock, side, g.Ply, false, res.Move.Elapsed)
	hist = append(hist, g.Position)
	theirs := g.DrawOffer == offerOf(side.Other())
	advance(g, rec, res.Move)
	clearOffers(g, side)
	res.Move.Clock, res.Move.HasClock = ClockOf(g)
	if g.AI != nil && !g.Result.Over() && g.Position.ToMove == g.AI.Side {
		reply, err := s.ai.move(ctx, req.Client, g, rec, hist)
		if err != nil {
			return nil, err
		}
		// The AI's thinking is charged to nobody: the person's clock
		// starts again when the reply is made.
		reply.Elapsed = reply.At.Sub(now)
		advance(g, rec, reply)
		reply.Clock, reply.HasClock = ClockOf(g)
		res.Reply = &reply
	}
	if req.OfferDraw {
		offerWithMove(g, side, theirs)
	}
	g.Deadline = g.deadline(s.exp)
	g.Version++
	res.Move.Version = g.Version
	if res.Reply != nil {
		res.Reply.Version = g.Version
	}
	return res, nil
}

// offerWithMove makes side's draw offer in g, which side's move has just
// left (the AI's reply included), or accepts the opponent's offer when it
// stood before the move (theirs): the game ends a draw by agreement, or is
// aborted when a side has yet to move in a rated game (abortOnly), in the
// play's own write. A move that ended the game by the rules keeps its
// result; the AI declines at once.
func offerWithMove(g *Game, side engine.Side, theirs bool) {
	switch {
	case g.Status != Active:
	case theirs && g.abortOnly():
		g.Status, g.Result, g.DrawOffer = Aborted, engine.Result{}, NoOffer
	case theirs:
		g.Status, g.Result, g.DrawOffer = Finished, engine.Result{Reason: engine.ByAgreement, Winner: engine.Draw}, NoOffer
	case g.AI == nil:
		g.DrawOffer = offerOf(side)
	}
}

// commit stores the play res made, which left the game g, and returns res
// with g as its game. Should another request have got there first, req is
// answered as the game it left says: that request may have been this very
// one, sent twice to two instances. Should the game instead have taken an
// offer at the same ply since it was read, nothing is written and the
// error is errChangedUnder: lead makes the move again.
func (s *Service) commit(ctx context.Context, g *Game, res *PlayResult, req MoveRequest, side engine.Side) (*PlayResult, bool, error) {
	err := s.apply(ctx, g, res, req.Ply)
	if errors.Is(err, ErrConflict) {
		s.cache.drop(req.ID)
		cur, err := s.store.Game(ctx, req.ID)
		if err != nil {
			return nil, false, err
		}
		again, err := s.refusal(ctx, &cur, side, req.Ply, req.Pit)
		if again == nil && err == nil {
			if cur.Version == g.Version-1 {
				err = corrupt("game %s: a play at ply %d, version %d conflicted, yet the game is active there", req.ID, req.Ply, cur.Version)
			} else {
				err = errChangedUnder
			}
		}
		return again, again != nil, err
	}
	if err != nil {
		s.cache.drop(req.ID)
		return nil, false, err
	}
	res.Game = *g
	s.cache.put(g)
	s.sweep.expect(g.Deadline)
	s.played(ctx, g)
	return res, false, nil
}

// apply is the store's write of the play res made at ply, which left the
// game g: its records, and the end's match when it ended the game (which
// sets g's seats' ratings). A rating that changed under it is read again.
func (s *Service) apply(ctx context.Context, g *Game, res *PlayResult, ply int) error {
	played := []Move{res.Move}
	if res.Reply != nil {
		played = append(played, *res.Reply)
	}
	recs := records(played, g.Version, g.DrawOffer)
	var err error
	for range maxRatingTries {
		p := Play{GameID: g.ID, Ply: ply, Moves: recs, At: g.UpdatedAt}
		if p.Match, err = s.match(ctx, g, g.Result, g.UpdatedAt); err != nil {
			return err
		}
		p.Game = *g
		// The write re-checks the ply, so the game stored is the one computed here.
		if err = s.store.ApplyPlay(ctx, p); !errors.Is(err, players.ErrRatingsChanged) {
			return err
		}
	}
	return err
}

// busy answers a request whose AI reply found no search slot in time
// (busy is that error). Nothing of it was written; should the game have moved
// on all the same (another instance played the ply), the request is
// answered as the game now says, else with busy and the ply the game is
// still at.
func (s *Service) busy(ctx context.Context, req MoveRequest, side engine.Side, busy error) (*PlayResult, bool, error) {
	g, err := s.store.Game(ctx, req.ID)
	if err != nil {
		return nil, false, err
	}
	if g.Status != Active || g.Ply != req.Ply {
		s.cache.drop(req.ID)
		res, err := s.refusal(ctx, &g, side, req.Ply, req.Pit)
		return res, res != nil, err
	}
	return nil, false, fmt.Errorf("%w; nothing was played, game %s is still at ply %d: send the same request again", busy, req.ID, req.Ply)
}
