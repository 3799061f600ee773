package tournaments

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// MaxBulkGames bounds the games of one bulk pairing.
const MaxBulkGames = 500

// NewBulk is an organiser's list of games.
type NewBulk struct {
	TimeControl   games.TimeControl
	Rated         bool
	ClockStartsAt time.Time // zero: at once
	Pairs         []BulkPair
}

// BulkPair is one game asked for, with each player's consent: the token
// the player gave the organiser for it.
type BulkPair struct {
	South, North           string
	SouthToken, NorthToken string
}

// CreateBulk makes every game of req, or none: each player must exist,
// consent with their token, and be in one pair only.
func (s *Service) CreateBulk(ctx context.Context, organiser *players.Player, req NewBulk) (Bulk, error) {
	if organiser == nil {
		return Bulk{}, fmt.Errorf("%w: a bulk pairing needs an organiser (send its Player-Token)", players.ErrUnauthorized)
	}
	now := s.clock()
	switch {
	case len(req.Pairs) == 0 || len(req.Pairs) > MaxBulkGames:
		return Bulk{}, fmt.Errorf("%w: 1 to %d pairs", ErrBulkInvalid, MaxBulkGames)
	case !req.TimeControl.Timed():
		return Bulk{}, fmt.Errorf("%w: the games need a time control", ErrBulkInvalid)
	case !req.ClockStartsAt.IsZero() && req.ClockStartsAt.Before(now.Add(-time.Second)):
		return Bulk{}, fmt.Errorf("%w: clocks set to start at %s, before now", ErrStartInPast, req.ClockStartsAt.Format(time.RFC3339))
	case req.ClockStartsAt.After(now.Add(MaxAhead)):
		return Bulk{}, fmt.Errorf("%w: clocks start at most %d days ahead", ErrBulkInvalid, MaxAhead/(24*time.Hour))
	}
	if err := req.TimeControl.Check(); err != nil {
		return Bulk{}, err
	}
	seen := map[string]int{}
	for i, p := range req.Pairs {
		if p.South == p.North {
			return Bulk{}, fmt.Errorf("%w: pair %d has %s on both sides", ErrBulkInvalid, i, p.South)
		}
		for _, id := range []string{p.South, p.North} {
			if j, ok := seen[id]; ok {
				return Bulk{}, fmt.Errorf("%w: player %s is in pairs %d and %d", ErrBulkInvalid, id, j, i)
			}
			seen[id] = i
		}
	}
	b := Bulk{ID: newID(), CreatedBy: organiser.ID, CreatedAt: now, TimeControl: req.TimeControl, Rated: req.Rated}
	if req.ClockStartsAt.After(now) {
		b.ClockStartsAt = req.ClockStartsAt.UTC().Truncate(time.Microsecond)
	}
	sessions := make([]games.Game, 0, len(req.Pairs))
	for i, pr := range req.Pairs {
		south, err := s.consenting(ctx, i, pr.South, pr.SouthToken)
		if err != nil {
			return Bulk{}, err
		}
		north, err := s.consenting(ctx, i, pr.North, pr.NorthToken)
		if err != nil {
			return Bulk{}, err
		}
		g, err := s.o.Games.Paired(games.PairedGame{Rules: engine.Rules{}, Start: engine.Start(), TimeControl: req.TimeControl,
			Rated: req.Rated, Players: [2]*players.Player{&south, &north}, ClockStartsAt: b.ClockStartsAt})
		if err != nil {
			return Bulk{}, err
		}
		sessions = append(sessions, g)
		b.Games = append(b.Games, BulkGame{GameID: g.ID, South: pr.South, North: pr.North})
	}
	if err := s.store.CreateBulk(ctx, b, sessions); err != nil {
		return Bulk{}, err
	}
	for i := range sessions {
		s.o.Games.Started(sessions[i])
		if s.o.Notify != nil {
			g := &b.Games[i]
			s.o.Notify.TournamentGame(ctx, g.South, b.ID, g.GameID, engine.South, now)
			s.o.Notify.TournamentGame(ctx, g.North, b.ID, g.GameID, engine.North, now)
		}
	}
	return b, nil
}

// consenting reads the player of pair i and checks the token given for it:
// the player's own, or one of theirs with the tournament:write scope.
func (s *Service) consenting(ctx context.Context, i int, id, token string) (players.Player, error) {
	p, err := s.store.Player(ctx, id)
	if errors.Is(err, players.ErrNotFound) {
		return players.Player{}, fmt.Errorf("%w: pair %d: no player %s", ErrBulkPlayer, i, id)
	}
	if err != nil {
		return players.Player{}, err
	}
	refused := fmt.Errorf("%w: pair %d: player %s gave no valid token with the %s scope", ErrBulkPlayer, i, id, players.ScopeTournamentWrite)
	if token == "" {
		return players.Player{}, refused
	}
	if s.o.Authorize == nil {
		if subtle.ConstantTimeCompare(players.TokenHash(token), p.TokenHash) != 1 {
			return players.Player{}, refused
		}
		return p, nil
	}
	by, err := s.o.Authorize(ctx, token, players.ScopeTournamentWrite)
	if f, ok := fault.Of(err); ok && (f.Kind() == fault.Unauthorized || f.Kind() == fault.Forbidden) || err == nil && by.ID != p.ID {
		// Unknown, expired, revoked, without the scope, or another's.
		return players.Player{}, refused
	}
	if err != nil {
		return players.Player{}, err
	}
	return p, nil
}

// Bulk returns a bulk pairing.
func (s *Service) Bulk(ctx context.Context, id string) (Bulk, error) {
	b, err := s.store.Bulk(ctx, id)
	if errors.Is(err, ErrStoreNotFound) {
		return Bulk{}, fmt.Errorf("bulk pairing %s: %w", id, ErrBulkNotFound)
	}
	return b, err
}
