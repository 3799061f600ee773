package lobby

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// NewChallenge is what a challenger asks for.
type NewChallenge struct {
	To          string // the challenged player's id; "" for an open challenge
	TimeControl games.TimeControl
	Rated       bool
	Seat        SeatChoice // the challenger's; "": random
	Rules       engine.Rules
	Start       *engine.Position // nil: the opening position
	NoBots      bool             // no bot may take it (nor be sent it)
}

// Challenge sends player's challenge.
func (s *Service) Challenge(ctx context.Context, player *players.Player, req NewChallenge) (Challenge, error) {
	if player == nil {
		return Challenge{}, fmt.Errorf("%w: a challenge needs a player (send its Player-Token)", players.ErrUnauthorized)
	}
	if err := checkTerms(req.TimeControl, &req.Seat); err != nil {
		return Challenge{}, err
	}
	if req.To == player.ID {
		return Challenge{}, fmt.Errorf("%w: the challenge names its own challenger", ErrSelfChallenge)
	}
	now := s.clock()
	c := Challenge{ID: newID(), From: player.ID, FromName: player.Name, FromBot: player.Bot, NoBots: req.NoBots, To: req.To, TimeControl: req.TimeControl,
		Rated: req.Rated, Seat: req.Seat, Rules: req.Rules, Start: engine.Start(), Status: ChallengePending,
		CreatedAt: now, UpdatedAt: now, ExpiresAt: s.expiry(req.TimeControl, now, s.o.ChallengeTTL)}
	if req.Start != nil {
		if req.Rated {
			return Challenge{}, fmt.Errorf("%w: a game from a chosen start position is never rated", games.ErrRatedNotAllowed)
		}
		rec, err := engine.NewGame(*req.Start, req.Rules)
		if err != nil {
			return Challenge{}, err
		}
		if rec.Result().Over() {
			return Challenge{}, fmt.Errorf("%w: the start position %s is already finished", engine.ErrInvalidPosition, req.Start)
		}
		c.Start, c.HasStart = *req.Start, true
	}
	if req.To != "" {
		to, err := s.store.Player(ctx, req.To)
		if err != nil {
			return Challenge{}, err
		}
		if to.Bot && req.NoBots {
			return Challenge{}, fmt.Errorf("%w: player %s is a bot", ErrBotsRefused, req.To)
		}
		c.ToName, c.ToBot = to.Name, to.Bot
	}
	if err := s.store.AddChallenge(ctx, c); err != nil {
		return Challenge{}, err
	}
	s.announce(ctx, &c, EventChallenge, now)
	return c, nil
}

// announce tells both sides of c of an event about it.
func (s *Service) announce(ctx context.Context, c *Challenge, kind EventKind, now time.Time) {
	evs := []Event{{Stream: c.From, Kind: kind, ChallengeID: c.ID, Reason: c.Reason, At: now}}
	if c.To != "" {
		evs = append(evs, Event{Stream: c.To, Kind: kind, ChallengeID: c.ID, Reason: c.Reason, At: now})
	}
	s.emit(ctx, evs...)
}

// GetChallenge returns the challenge: its id is its secret, so anyone who
// has it may read it (an open challenge is shared by its link).
func (s *Service) GetChallenge(ctx context.Context, id string) (Challenge, error) {
	c, err := s.store.Challenge(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Challenge{}, fmt.Errorf("challenge %s: %w", id, ErrChallengeNotFound)
	}
	return c.At(s.clock()), err
}

// pending reads challenge id and checks that it is pending.
func (s *Service) pending(ctx context.Context, player *players.Player, id string) (Challenge, error) {
	if player == nil {
		return Challenge{}, fmt.Errorf("%w: send your Player-Token", players.ErrUnauthorized)
	}
	c, err := s.GetChallenge(ctx, id)
	if err != nil {
		return Challenge{}, err
	}
	if c.Status != ChallengePending {
		return Challenge{}, fmt.Errorf("%w: challenge %s is %s", ErrChallengeClosed, id, c.Status)
	}
	return c, nil
}

// closedError says why a conditional write on challenge id found it no
// longer pending.
func (s *Service) closedError(ctx context.Context, id string) error {
	c, err := s.GetChallenge(ctx, id)
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: challenge %s is %s", ErrChallengeClosed, id, c.Status)
}

// Accept accepts a challenge for player (the challenged one, or anyone but
// the challenger for an open one) and starts its game. Of several accepts,
// or an accept racing a cancel, a decline or the expiry, one wins; the
// others get ErrChallengeClosed. As a pairing, it never gives anyone two
// games with a live clock: a clock challenge whose challenger or acceptor
// is playing one is refused (ErrChallengePlaying, the challenge stays
// pending), and its acceptance cancels both players' open clock seeks.
func (s *Service) Accept(ctx context.Context, player *players.Player, id string) (Challenge, error) {
	c, err := s.pending(ctx, player, id)
	if err != nil {
		return Challenge{}, err
	}
	switch {
	case c.From == player.ID:
		return Challenge{}, fmt.Errorf("%w: a challenger cannot accept its own challenge", ErrSelfChallenge)
	case c.To != "" && c.To != player.ID:
		return Challenge{}, fmt.Errorf("%w: challenge %s was sent to another player", ErrNotYourChallenge, id)
	case player.Bot && c.NoBots:
		return Challenge{}, fmt.Errorf("%w: challenge %s refuses bots, and you are one", ErrBotsRefused, id)
	}
	from, err := s.store.Player(ctx, c.From)
	if err != nil {
		return Challenge{}, err
	}
	mine, theirs := sides(c.Seat, SeatRandom, mrand.IntN(2) == 0)
	var ps [2]*players.Player
	ps[mine], ps[theirs] = &from, player
	g, err := s.games.Paired(games.PairedGame{Rules: c.Rules, Start: c.Start, TimeControl: c.TimeControl, Rated: c.Rated, Players: ps})
	if err != nil {
		return Challenge{}, err
	}
	now := s.clock()
	clock := c.TimeControl.Kind == games.Live
	out, cancelled, err := s.store.Accept(ctx, Acceptance{ID: id, By: player.ID, Side: mine, Game: g, CancelClock: clock, At: now})
	switch {
	case errors.Is(err, ErrConflict):
		return Challenge{}, s.closedError(ctx, id)
	case errors.Is(err, ErrPlaying):
		return Challenge{}, s.playingError(ctx, player, &c)
	case err != nil:
		return Challenge{}, err
	}
	s.games.Started(g)
	evs := []Event{{Stream: c.From, Kind: EventGameStart, GameID: g.ID, Side: mine, ChallengeID: id, At: now},
		{Stream: player.ID, Kind: EventGameStart, GameID: g.ID, Side: theirs, ChallengeID: id, At: now}}
	for _, sk := range cancelled {
		evs = append(evs, Event{Stream: LobbyStream, Kind: EventSeekRemoved, SeekID: sk.ID, At: now})
	}
	s.emit(ctx, evs...)
	return out, nil
}

// playingError says who of player (accepting) and c's challenger is
// playing a game with a live clock, which refused the acceptance of c.
func (s *Service) playingError(ctx context.Context, player *players.Player, c *Challenge) error {
	who := "its challenger is"
	if gs, err := s.store.PlayingGames(ctx, player.ID); err == nil {
		for i := range gs {
			if gs[i].TimeControl.Kind == games.Live {
				who = "you are"
				break
			}
		}
	}
	return fmt.Errorf("%w: challenge %s has a clock and %s playing a game with a clock; it stays pending", ErrChallengePlaying, c.ID, who)
}

// Decline declines a challenge sent to player.
func (s *Service) Decline(ctx context.Context, player *players.Player, id string, reason DeclineReason) (Challenge, error) {
	if reason == "" {
		reason = DeclineGeneric
	}
	c, err := s.pending(ctx, player, id)
	if err != nil {
		return Challenge{}, err
	}
	if c.To != player.ID {
		return Challenge{}, fmt.Errorf("%w: only the challenged player may decline challenge %s", ErrNotYourChallenge, id)
	}
	return s.close(ctx, id, ChallengeDeclined, reason, EventChallengeDeclined)
}

// CancelChallenge withdraws player's own challenge.
func (s *Service) CancelChallenge(ctx context.Context, player *players.Player, id string) (Challenge, error) {
	c, err := s.pending(ctx, player, id)
	if err != nil {
		return Challenge{}, err
	}
	if c.From != player.ID {
		return Challenge{}, fmt.Errorf("%w: only its challenger may cancel challenge %s", ErrNotYourChallenge, id)
	}
	return s.close(ctx, id, ChallengeCancelled, "", EventChallengeCanceled)
}

func (s *Service) close(ctx context.Context, id string, status ChallengeStatus, reason DeclineReason, kind EventKind) (Challenge, error) {
	now := s.clock()
	c, err := s.store.CloseChallenge(ctx, id, status, reason, now)
	if errors.Is(err, ErrConflict) {
		return Challenge{}, s.closedError(ctx, id)
	}
	if err != nil {
		return Challenge{}, err
	}
	s.announce(ctx, &c, kind, now)
	return c, nil
}

// Challenges returns the pending challenges player sent and was sent.
func (s *Service) Challenges(ctx context.Context, player *players.Player) (in, out []Challenge, err error) {
	if player == nil {
		return nil, nil, fmt.Errorf("%w: send your Player-Token", players.ErrUnauthorized)
	}
	all, err := s.store.PlayerChallenges(ctx, player.ID, s.clock())
	if err != nil {
		return nil, nil, err
	}
	in, out = []Challenge{}, []Challenge{}
	for _, c := range all {
		if c.From == player.ID {
			out = append(out, c)
		} else {
			in = append(in, c)
		}
	}
	return in, out, nil
}

// Rematch asks, for a player of the finished game gameID, for another game
// with the opponent: the same settings, the seats swapped. It is a
// challenge to the opponent; when the opponent has asked already, it
// accepts theirs, and the game starts at once.
func (s *Service) Rematch(ctx context.Context, player *players.Player, gameID string) (Challenge, error) {
	if player == nil {
		return Challenge{}, fmt.Errorf("%w: send your Player-Token", players.ErrUnauthorized)
	}
	g, err := s.games.Game(ctx, gameID)
	if err != nil {
		return Challenge{}, err
	}
	side := engine.South
	switch player.ID {
	case g.Players[engine.South].ID:
	case g.Players[engine.North].ID:
		side = engine.North
	default:
		return Challenge{}, fmt.Errorf("%w: you did not play game %s", ErrRematch, gameID)
	}
	opp := g.Players[side.Other()].ID
	switch {
	case !g.Status.Over():
		return Challenge{}, fmt.Errorf("%w: game %s is not over", ErrRematch, gameID)
	case opp == "" || opp == player.ID || g.AI != nil:
		return Challenge{}, fmt.Errorf("%w: game %s was not between two players", ErrRematch, gameID)
	}
	// The challenge shows whether each side is a bot, as any challenge
	// does; a bot is one for good, so a read now stands.
	oppBot := false
	if o, err := s.store.Player(ctx, opp); err == nil {
		oppBot = o.Bot
	}
	for range 4 {
		now := s.clock()
		c, err := s.store.PendingRematch(ctx, gameID, now)
		switch {
		case err == nil && c.From == player.ID:
			return c, nil // asked already
		case err == nil:
			return s.Accept(ctx, player, c.ID)
		case !errors.Is(err, ErrNotFound):
			return Challenge{}, err
		}
		seat := SeatSouth
		if side == engine.South {
			seat = SeatNorth
		}
		c = Challenge{ID: newID(), From: player.ID, FromName: player.Name, FromBot: player.Bot, To: opp, ToName: g.Players[side.Other()].Name, ToBot: oppBot,
			TimeControl: g.TimeControl, Rated: g.Rated, Seat: seat, Rules: g.Rules, Start: g.Start,
			HasStart: g.Start != engine.Start(), RematchOf: gameID, Status: ChallengePending,
			CreatedAt: now, UpdatedAt: now, ExpiresAt: s.expiry(g.TimeControl, now, s.o.ChallengeTTL)}
		err = s.store.AddChallenge(ctx, c)
		if errors.Is(err, ErrConflict) {
			continue // the opponent asked at the same moment: accept theirs
		}
		if err != nil {
			return Challenge{}, err
		}
		s.announce(ctx, &c, EventChallenge, now)
		return c, nil
	}
	return Challenge{}, fmt.Errorf("%w: the rematch of game %s kept changing", ErrConflict, gameID)
}
