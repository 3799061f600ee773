package games

import (
	"context"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// PlayNews is a play as every instance that shares the store hears of it
// (NewsListener): what the play changed in its game. An instance that
// holds the game as it was just before the play brings its copy up to date
// from the news (Service.Heard), so that its next move of the game, which
// the instances answer in turn, is played from memory rather than after a
// read.
type PlayNews struct {
	ID      string
	Version int64 // the game's version after the play
	Ply     int   // the ply the play was made at
	// Pits are the pits the play's moves played, in order: the request's
	// own and the AI's reply, if any.
	Pits                     []byte
	Position                 engine.Position
	Status                   Status
	Result                   engine.Result
	UpdatedAt                time.Time
	Clock                    [2]time.Duration
	Deadline                 time.Time // zero: none
	DrawOffer, TakebackOffer Offer
}

// Pits are the pits of p's moves, in order: what p adds to its game's
// History.
func (p *Play) Pits() []byte {
	pits := make([]byte, len(p.Moves))
	for i, m := range p.Moves {
		pits[i] = byte(m.Pit)
	}
	return pits
}

// News is the news of p once stored: the game after it, as the store
// writes it.
func (p *Play) News() PlayNews {
	g := &p.Game
	return PlayNews{ID: p.GameID, Version: g.Version, Ply: p.Ply, Pits: p.Pits(), Position: g.Position,
		Status: g.Status, Result: g.Result, UpdatedAt: p.At, Clock: g.Clock, Deadline: g.Deadline,
		DrawOffer: g.DrawOffer, TakebackOffer: g.TakebackOffer}
}

// applyTo brings g, the game as it was at the play's ply and the version
// before it, to the game after the play; it says whether g was that game.
func (n *PlayNews) applyTo(g *Game) bool {
	if g.ID != n.ID || g.Version != n.Version-1 || g.Ply != n.Ply || g.Status != Active {
		return false
	}
	g.History = append(append(make([]byte, 0, len(g.History)+len(n.Pits)), g.History...), n.Pits...)
	g.Ply += len(n.Pits)
	g.Version = n.Version
	g.Position, g.Status, g.Result = n.Position, n.Status, n.Result
	g.UpdatedAt, g.Clock, g.Deadline = n.UpdatedAt, n.Clock, n.Deadline
	g.DrawOffer, g.TakebackOffer = n.DrawOffer, n.TakebackOffer
	return true
}

// NewsListener is a store whose announcement of each play (PlayAnnouncer)
// carries the play's news to every instance.
type NewsListener interface {
	// ListenNews is Changes.Listen, each change heard with its news, if
	// any, and whether this instance announced it.
	ListenNews(ctx context.Context, changed func(Heard)) error
}

// Heard is one change as a NewsListener hears it.
type Heard struct {
	ID string // "" once it listens, as for Changes.Listen
	// News is the news of a play stored by ApplyPlay without a match,
	// announced by another instance; nil for any other change.
	News *PlayNews
	// Own: this instance announced the change (its cache has it).
	Own bool
}

// Heard keeps the service's cached copies of games up to date with a change
// announced by any instance: the news of a play brings a copy as it was
// just before the play up to date and makes any older one forgotten; any
// other change by another instance (a join, an offer, a takeback, an end)
// makes the copy forgotten, so that the next move of the game here reads
// it; and a connection that listens anew (the empty id) makes every copy
// forgotten, since what was announced while none listened went unheard. A
// game not cached stays so.
func (s *Service) Heard(h Heard) {
	switch {
	case h.News != nil:
		s.cache.advance(h.News)
	case h.Own:
	case h.ID == "":
		s.cache.clear()
	default:
		s.cache.drop(h.ID)
	}
}
