package games

// Absent opponents, after lichess's rule: in a live game a player who has
// left leaves the opponent a claim of the win (or a draw) once it has been
// gone a while, instead of the opponent waiting for the whole clock.
//
// Ours is derived from the game's stored state and the server's clock,
// not from connections: a side is gone when it is to move in an active
// live game between people, after both sides' first moves, and its turn has lasted
// GoneAfter without a move; the opponent may claim ClaimGrace after that.
// Every instance computes the same from the same row, so no stream holder
// has to write a last-seen time, a restart loses nothing, and a claim
// needs no read besides the game's. A player who is present but thinking
// long is gone too by this rule: the thresholds scale with the clock so
// that they are long for the game's pace, and a side whose clock runs out
// before the claim would open is never gone (its timeout ends the game
// first).

import (
	"context"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
)

// Bounds of GoneAfter, and the grace between gone and the claim.
const (
	MinGoneAfter = 20 * time.Second
	MaxGoneAfter = 60 * time.Second
	ClaimGrace   = 10 * time.Second
)

// GoneAfter is how long the side to move of a live game with tc may take
// over a turn before it is gone: a sixth of the initial time, within
// MinGoneAfter and MaxGoneAfter (30 seconds in a 3+2).
func GoneAfter(tc TimeControl) time.Duration {
	return min(max(tc.Initial/6, MinGoneAfter), MaxGoneAfter)
}

// Gone is an absent side of a game: since when it counts as gone, and
// from when its opponent may claim.
type Gone struct {
	Side    engine.Side
	Since   time.Time
	ClaimAt time.Time
}

// Gone is the side of g that will be gone, if g's turn runs on unanswered,
// with its instants (which may be after now); false when no side of g can
// be gone as it stands: not an active live game between people, a side yet
// to make its first move (such a game is aborted instead), or a clock that
// runs out before the claim would open.
func (g *Game) Gone() (Gone, bool) {
	if g.Status != Active || g.TimeControl.Kind != Live || g.firstMove() || g.AI != nil {
		return Gone{}, false
	}
	since := g.UpdatedAt.Add(GoneAfter(g.TimeControl))
	gone := Gone{Side: g.Position.ToMove, Since: since, ClaimAt: since.Add(ClaimGrace)}
	if !g.Deadline.IsZero() && !gone.ClaimAt.Before(g.Deadline) {
		return Gone{}, false
	}
	return gone, true
}

// Errors of claims and aborts.
var (
	// ErrClaimUnavailable: no claim can be made in this game now: it is
	// not a live game, a side has not moved yet, or the claimer is the
	// side to move.
	ErrClaimUnavailable = fault.New(fault.Conflict, "claim_unavailable", "No claim possible",
		"a claim needs a live game, after both sides' first moves, with the opponent to move")
	// ErrClaimTooEarly: the opponent to move has not been gone long
	// enough.
	ErrClaimTooEarly = fault.New(fault.Conflict, "claim_too_early", "Too early to claim", "the opponent has not been gone long enough")
	// ErrAbortTooLate: both sides have moved; the game can be resigned or
	// drawn, no longer aborted.
	ErrAbortTooLate = fault.New(fault.Conflict, "abort_too_late", "Too late to abort", "both sides have moved: the game can no longer be aborted")
)

// ClaimTooEarlyError is ErrClaimTooEarly with the instant the claim opens.
type ClaimTooEarlyError struct{ ClaimAt time.Time }

func (e *ClaimTooEarlyError) Error() string {
	return fmt.Sprintf("%v: the claim opens at %s", ErrClaimTooEarly, e.ClaimAt.Format(time.RFC3339))
}

// Unwrap makes it an ErrClaimTooEarly.
func (e *ClaimTooEarlyError) Unwrap() error { return ErrClaimTooEarly }

// ClaimVictory ends game id as a win for by's seat, whose opponent is
// gone and has been for ClaimGrace (see Gone): a win by timeout, rated as
// any result. The same claim sent again gets the same game.
func (s *Service) ClaimVictory(ctx context.Context, id string, by Actor) (Game, error) {
	return s.amend(ctx, id, by, func(g *Game, side engine.Side) (Game, error) {
		return s.claim(ctx, g, side, engine.WinnerOf(side))
	})
}

// ClaimDraw ends game id as a draw on the claim of by's seat, whose
// opponent is gone (see ClaimVictory): a draw by timeout.
func (s *Service) ClaimDraw(ctx context.Context, id string, by Actor) (Game, error) {
	return s.amend(ctx, id, by, func(g *Game, side engine.Side) (Game, error) {
		return s.claim(ctx, g, side, engine.Draw)
	})
}

// claim ends g with winner on the claim of side.
func (s *Service) claim(ctx context.Context, g *Game, side engine.Side, winner engine.Winner) (Game, error) {
	result := engine.Result{Reason: engine.ByTimeout, Winner: winner}
	if g.Status == Finished && g.Result == result && g.Position.ToMove == side.Other() {
		return *g, nil // the claim, sent again
	}
	if err := offerable(g); err != nil {
		return *g, err
	}
	gone, ok := g.Gone()
	if !ok || gone.Side == side {
		return *g, fmt.Errorf("%w: game %s", ErrClaimUnavailable, g.ID)
	}
	now := s.clock()
	if now.Before(gone.ClaimAt) {
		return *g, &ClaimTooEarlyError{ClaimAt: gone.ClaimAt}
	}
	clock := g.Clock
	clock[gone.Side] = max(clock[gone.Side]-now.Sub(g.UpdatedAt), 0)
	return s.end(ctx, g, End{ID: g.ID, Version: g.Version, Status: Finished, Result: result, Clock: clock})
}

// Abort ends game id with no result on the word of either seat, while it
// waits for its opponent or a side has not made its first move yet; a
// rated game cannot end otherwise then (abortOnly). ErrAbortTooLate once
// both have moved. Aborting again gets the same game.
func (s *Service) Abort(ctx context.Context, id string, by Actor) (Game, error) {
	return s.amend(ctx, id, by, func(g *Game, _ engine.Side) (Game, error) {
		switch {
		case g.Status == Aborted:
			return *g, nil
		case g.Status == Finished:
			return *g, endedError(g)
		case g.Status == Active && !g.firstMove():
			return *g, fmt.Errorf("%w: game %s is at ply %d", ErrAbortTooLate, g.ID, g.Ply)
		}
		return s.end(ctx, g, End{ID: g.ID, Version: g.Version, Status: Aborted, Clock: g.Clock})
	})
}
