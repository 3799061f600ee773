package games

import (
	"context"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
)

// Record is what a store keeps of one move. The rest of the move (its legs,
// capture, the position after it and the end it brought) follows from the
// game's start, rules and history through the engine, so the service
// rebuilds it rather than have every store keep it: a stored move costs a
// few dozen bytes instead of hundreds.
//
// With the game's row, the records are also all a retried move request's
// answer is rebuilt from (see rebuild): no answer is ever stored.
type Record struct {
	Ply  int // 0 for the first move of the game
	Pit  int
	ByAI bool
	At   time.Time
	// Version is the game's version after the request that made the move
	// (both moves of a request the AI replied in have it), which the
	// request's answer shows and later writes of other kinds (not moves)
	// make impossible to count back to. Zero for a move stored before
	// versions were kept that was no seat's latest, which nobody can
	// retry.
	Version int64
	// DrawOffer is the draw offer that stood in the game as the request
	// that made the move left it (the mover's own, made before it moved,
	// or none: a move clears every other offer), so that the request's
	// retry answers with the offers of its first answer, not those that
	// stand by then. NoOffer for a move stored before it was kept.
	DrawOffer Offer
}

// Store keeps game sessions. Implementations decide nothing about the game:
// they store what the service hands them and report, as ErrNotFound or
// ErrConflict, when a row is missing or a conditional write's condition does
// not hold. Every method is safe for concurrent use, also by several
// processes sharing one database; store/storetest holds each
// implementation to the same cases.
//
// ApplyMatch: what a store does with a Match in the write that ends a
// game, in the same transaction:
//   - each seat's player that still exists has its Counts moved on
//     (players.Match.Count);
//   - when the match is Rated, and every such player's rating in its
//     Category still counts Before's Games (0 when it has no rating
//     there), that rating becomes After, and the game's seat gets Rating
//     and Deviation from Before and Change After - Before (HasChange);
//     otherwise the whole write fails with players.ErrRatingsChanged.
//
// A rated game thus moves each rating exactly once: its end is one write
// conditional on the game's state, and a rating two games end at once is
// read again for the second.
type Store interface {
	// CreateGame stores a new game with the moves already played in it (the
	// AI's opening move when the AI plays first); ErrConflict when a game
	// with that id exists.
	CreateGame(ctx context.Context, g Game, moves []Record) error
	// Game returns the game with that id, or ErrNotFound.
	Game(ctx context.Context, id string) (Game, error)
	// Join gives the open seat of a waiting game to tokenHash, makes the
	// game active (JoinedAt and UpdatedAt at, Deadline deadline, Version up
	// by one) and returns it; ErrNotFound for an unknown game, ErrConflict
	// when it is not waiting, has no open seat, or its Deadline is not after
	// at.
	// The seat also gets player (the zero SeatPlayer for an anonymous one).
	Join(ctx context.Context, id string, tokenHash []byte, at, deadline time.Time, player SeatPlayer) (Game, error)
	// Records returns up to limit records of the game's moves from ply from
	// on, in order; ErrNotFound for an unknown game. A limit below one
	// returns none.
	Records(ctx context.Context, id string, from, limit int) ([]Record, error)
	// ApplyPlay stores p in one transaction if the game is still active at
	// p.Ply and at the version p was made from (p.Game.Version - 1), and
	// ErrConflict otherwise (ErrNotFound for an unknown game): of
	// concurrent plays for one ply exactly one is stored, and none undoes
	// an offer written since its game was read. It writes p.Game's
	// position, status, result, clock, deadline, offers and UpdatedAt, adds
	// p.Moves to the records (with their Version) and their pits to the
	// history, moves the ply on by len(p.Moves) and bumps the version.
	// A p.Match is applied in the same transaction (ApplyMatch); when it
	// reports players.ErrRatingsChanged nothing is written.
	ApplyPlay(ctx context.Context, p Play) error
	// Resign finishes an active game with result at time at (Version up by
	// one, Deadline zero, no offers), applies match when it is not nil (ApplyMatch),
	// and returns the game; ErrConflict when the game is not active,
	// ErrNotFound when unknown, players.ErrRatingsChanged as ApplyMatch
	// says (nothing written).
	Resign(ctx context.Context, id string, result engine.Result, at time.Time, match *players.Match) (Game, error)
	// Player returns the player with that id, with its ratings, or
	// players.ErrNotFound: the service reads the ratings a Match starts
	// from with it.
	Player(ctx context.Context, id string) (players.Player, error)
	// Amend writes an offer, its withdrawal or refusal, or a takeback (see
	// Amend) and returns the game after it.
	Amend(ctx context.Context, a Amend) (Game, error)
	Deadlines
}

// Amend is the write of an offer or a takeback: the game with ID, if it
// is still active at Version, gets Game's Ply, Position, Clock, UpdatedAt,
// Deadline, DrawOffer and TakebackOffer, Version up by one; when Game.Ply
// is below the stored ply (a takeback), the records from Game.Ply on are
// deleted and the history cut to Game.Ply, in the same transaction.
// ErrConflict when the game is no longer active at Version, ErrNotFound
// when unknown.
type Amend struct {
	ID      string
	Version int64
	Game    Game
}

// End is the write that ends a game at its deadline (or by agreement, or
// an abort): the game with ID, if it is still at Version, gets Status
// (Finished with Result, or Aborted), Clock, UpdatedAt At, a zero
// Deadline, no offers and Version up by one.
type End struct {
	ID      string
	Version int64
	Status  Status
	Result  engine.Result
	Clock   [2]time.Duration
	At      time.Time
	// Match is the end's result for the players, when the game finished
	// with one and a seat has a player (ApplyMatch).
	Match *players.Match
}

// Deadlines are the store methods with which every instance ends overdue
// games and deletes old ones.
type Deadlines interface {
	// End applies e in one conditional write and returns the game after
	// it: ErrConflict when the game is no longer at e.Version (a move, a
	// join, a resignation or another instance's End came first), so a game
	// ends exactly once however many instances try. ErrNotFound when
	// unknown.
	End(ctx context.Context, e End) (Game, error)
	// Overdue returns up to limit waiting or active games whose Deadline is
	// at or before now, the earliest first.
	Overdue(ctx context.Context, now time.Time, limit int) ([]Game, error)
	// NextDeadline returns the earliest Deadline of any waiting or active
	// game, or the zero time when none has one. A store may answer a time
	// before it (an index of lower bounds, which a move that puts its
	// deadline later leaves as it was), as long as a game that Overdue
	// found not due at a time no longer makes the answer that time or
	// sooner: the sweeper then wakes early at most once per such game, and
	// never spins.
	NextDeadline(ctx context.Context) (time.Time, error)
	// DeleteEnded deletes up to limit finished or aborted games last
	// changed before before, with their moves, in one short
	// write, and returns how many it deleted.
	DeleteEnded(ctx context.Context, before time.Time, limit int) (int, error)
}
