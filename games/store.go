package games

import (
	"context"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// Store keeps game sessions. Implementations decide nothing about the game:
// they store what the service hands them and report, as ErrNotFound or
// ErrConflict, when a row is missing or a conditional write's condition does
// not hold. Every method is safe for concurrent use, also by several
// processes sharing one database; store/storetest holds each
// implementation to the same cases.
type Store interface {
	// CreateGame stores a new game with the moves already played in it (the
	// AI's opening move when the AI plays first).
	CreateGame(ctx context.Context, g Game, moves []Move) error
	// Game returns the game with that id, or ErrNotFound.
	Game(ctx context.Context, id string) (Game, error)
	// Join gives the open seat of a waiting game to tokenHash, makes the
	// game active and returns it; ErrNotFound for an unknown game,
	// ErrConflict when it is not waiting or has no open seat.
	Join(ctx context.Context, id string, tokenHash []byte, at time.Time) (Game, error)
	// Moves returns up to limit moves of the game from ply from on, in
	// order; ErrNotFound for an unknown game.
	Moves(ctx context.Context, id string, from, limit int) ([]Move, error)
	// Answer returns the answer stored with the accepted request that
	// played pit at ply with tokenHash, or ErrNotFound when there is none.
	Answer(ctx context.Context, id string, ply, pit int, tokenHash []byte) ([]byte, error)
	// ApplyPlay stores p in one transaction if the game is still active at
	// p.Ply, and ErrConflict otherwise (ErrNotFound for an unknown game): of
	// concurrent plays for one ply exactly one is stored.
	ApplyPlay(ctx context.Context, p Play) error
	// Resign finishes an active game with result and returns it;
	// ErrConflict when the game is not active, ErrNotFound when unknown.
	Resign(ctx context.Context, id string, result engine.Result, at time.Time) (Game, error)
}
