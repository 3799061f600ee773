package games

// Games that two players agreed on before the game existed: a seek that met
// another, an accepted challenge, a rematch. The lobby package decides who
// plays whom; this file makes the game it agreed on, active from the
// start, with both seats held. Paired only builds the game: the lobby's
// store writes it in the same transaction that marks the seeks matched or
// the challenge accepted, so a game exists exactly when its pairing does
// (no game without a matched seek, no matched seek without its game, even
// if the process dies between the two).

import (
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
)

// PairedGame is a game two players agreed on.
type PairedGame struct {
	ID          string // "": a new id
	Rules       engine.Rules
	Start       engine.Position
	TimeControl TimeControl
	Rated       bool
	// Players are the seats' players, by side; both are required.
	Players [2]*players.Player
	// ClockStartsAt, when after now, is when the game's first-move window
	// opens (a bulk pairing's set start): no move is taken before it.
	ClockStartsAt time.Time
}

// NewGameID returns a fresh game id, for a pairing that names its game
// before it builds it.
func NewGameID() string { return newGameID() }

// Paired returns the active game req describes, ready to be stored; it
// stores nothing (see Started). Each seat gets a random token whose hash
// is kept and which is shown to nobody: paired players act on their seats
// with their Player-Token.
func (s *Service) Paired(req PairedGame) (Game, error) {
	rec, err := engine.NewGame(req.Start, req.Rules)
	if err != nil {
		return Game{}, err
	}
	if rec.Result().Over() {
		return Game{}, fmt.Errorf("%w: the start position %s is already finished", engine.ErrInvalidPosition, req.Start)
	}
	if err := req.TimeControl.Check(); err != nil {
		return Game{}, err
	}
	south, north := req.Players[engine.South], req.Players[engine.North]
	switch {
	case south == nil || north == nil:
		return Game{}, fmt.Errorf("%w: a paired game needs a player in each seat", ErrRatedNotAllowed)
	case req.Rated && !req.TimeControl.Timed():
		return Game{}, fmt.Errorf("%w: an untimed game is never rated; give it a time control", ErrRatedNotAllowed)
	case req.Rated && south.ID == north.ID:
		return Game{}, fmt.Errorf("%w: a player cannot take both seats of a rated game", ErrRatedNotAllowed)
	}
	now := s.clock()
	if req.ID == "" {
		req.ID = newGameID()
	}
	start := now
	if req.ClockStartsAt.After(now) {
		start = req.ClockStartsAt.UTC().Truncate(time.Microsecond)
	}
	g := Game{ID: req.ID, CreatedAt: now, UpdatedAt: start, JoinedAt: start, Rules: req.Rules, Start: req.Start,
		Position: req.Start, Status: Active, Version: 1,
		TimeControl: req.TimeControl, Clock: req.TimeControl.startClock(), Rated: req.Rated}
	for side, p := range req.Players {
		_, hash := newToken()
		g.Tokens[side] = hash
		g.Players[side] = seatPlayer(p, g.Category(), now)
	}
	g.Deadline = g.deadline(s.exp)
	return g, nil
}

// Started tells the service that a game made by Paired was stored, so that
// its sweeper ends it at its first-move deadline without waiting for its
// next look.
func (s *Service) Started(g Game) {
	s.cache.put(&g)
	s.sweep.expect(g.Deadline)
}
