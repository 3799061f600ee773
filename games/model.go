// Package games runs game sessions: two people, or a person against the AI,
// each seat with its own secret token. It owns the session model (game, seat,
// move, status), its errors, the Store it needs, and the service that decides
// who may move, replays the record through the engine, asks the AI for its
// reply and hands the store one write per accepted request. It knows neither
// HTTP nor SQL: the api package translates requests, and a store/...
// package keeps the data.
package games

import (
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
)

// Status is where a game session stands.
type Status string

// The statuses: a game against a person waits for them to join; a game plays
// until its result is known, or is aborted (no result, it counts for
// nobody) when nobody joins it or a side of a timed game never makes its
// first move.
const (
	Waiting  Status = "waiting"
	Active   Status = "active"
	Finished Status = "finished"
	Aborted  Status = "aborted"
)

// Valid reports whether s is one of the statuses above.
func (s Status) Valid() bool { return s == Waiting || s == Active || s == Finished || s == Aborted }

// Over reports whether a game with status s has ended, with a result or
// aborted.
func (s Status) Over() bool { return s == Finished || s == Aborted }

// AI is the seat the computer plays, and how strongly.
type AI struct {
	Side  engine.Side
	Level int
}

// Game is one game session.
type Game struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	JoinedAt  time.Time // zero until the second seat is taken
	Rules     engine.Rules
	Start     engine.Position
	Ply       int             // moves played
	Position  engine.Position // after them
	History   []byte          // the pit of each ply, in order
	Status    Status
	Result    engine.Result
	AI        *AI       // nil when both seats are people
	Tokens    [2][]byte // SHA-256 of each seat's token, by side; nil when empty or the AI's
	Version   int64     // bumped by every change

	TimeControl TimeControl
	// Clock is each side's time left as the current turn began (see
	// charge); zero in an untimed game.
	Clock [2]time.Duration
	// Rated: the game changes its players' ratings in its Category when it
	// ends with a result.
	Rated bool
	// Players are the seats' players, by side.
	Players [2]SeatPlayer

	// Deadline is when the game ends by itself unless the side to move
	// moves (a waiting game: unless someone joins); Ending says how. Zero
	// once the game is over. Stores index it: every instance finds the
	// overdue games with it.
	Deadline time.Time

	// DrawOffer and TakebackOffer are the offers that stand in an active
	// game (see offers.go); a move clears a takeback offer, and a draw
	// offer of the side that did not move.
	DrawOffer, TakebackOffer Offer
}

// SeatPlayer is the player in a seat of a game.
type SeatPlayer struct {
	ID   string // "" for an anonymous seat or the AI
	Name string // the player's name when the seat was taken
	// Rating and Deviation are the player's rating in the game's Category:
	// when the seat was taken, and, once a rated game has ended, the
	// rating the result was applied to. Zero in a game with no Category.
	Rating, Deviation float64
	// Change is what the end of a rated game did to Rating; HasChange
	// says it happened.
	Change    float64
	HasChange bool
}

// Category is the rating category of g's time control: "" for an untimed
// game, which is never rated.
func (g *Game) Category() players.Category {
	switch g.TimeControl.Kind {
	case Live:
		return players.Live
	case Correspondence:
		return players.Correspondence
	}
	return ""
}

// Entry is g, a finished game, as the history of the player in seat side
// lists it.
func (g *Game) Entry(side engine.Side) players.GameEntry {
	seat, other := g.Players[side], g.Players[side.Other()]
	e := players.GameEntry{GameID: g.ID, EndedAt: g.UpdatedAt, Side: int(side), Category: g.Category(), Rated: g.Rated,
		Opponent: other.ID, OpponentName: other.Name, AI: g.AI != nil}
	switch g.Result.Winner {
	case engine.WinnerOf(side):
		e.Result = players.Win
	case engine.WinnerOf(side.Other()):
		e.Result = players.Loss
	default:
		e.Result = players.Draw
	}
	if seat.HasChange {
		e.Rating = players.Change{Before: players.Rating{Value: seat.Rating, Deviation: seat.Deviation},
			After: players.Rating{Value: seat.Rating + seat.Change}}
	}
	return e
}

// Move is one move of a game with everything it did.
type Move struct {
	Ply      int // 0 for the first move of the game
	Side     engine.Side
	Pit      int
	ByAI     bool
	Legs     []engine.Leg
	Capture  engine.Capture
	Position engine.Position // after the move
	Result   engine.Result   // the end this move brought, or NotOver
	At       time.Time
	// Elapsed is the time the move took by the server's clock: from the
	// moment the previous move (or the join, or the creation) was accepted
	// to the moment this one was.
	Elapsed time.Duration
	// Clock is the game's clock after the move; ok false in an untimed game.
	Clock    ClockView
	HasClock bool
	// Version is the game's version after the request that made the move
	// (its Record's); zero when unknown.
	Version int64
}

// Play is one accepted move request as the store writes it: the moves it
// adds (the player's and, in a game against the AI, the reply). Nothing
// of the answer the request got is stored: a retry's is rebuilt from the
// moves' records and the game.
type Play struct {
	GameID string
	Ply    int      // the ply the request was made at: the game's current ply
	Moves  []Record // at least one; Moves[0] is the request's own move
	At     time.Time
	// Game is the game after the moves: the store writes its position,
	// status, result and time, and appends the moves' pits to its history.
	Game Game
	// Match is the end the moves brought, when they finished the game and
	// a seat has a player: the store applies it (see ApplyMatch).
	Match *players.Match
}
