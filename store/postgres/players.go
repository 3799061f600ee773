package postgres

// Players and ratings: not written yet. Every method answers errTodo until
// the players tables land.

import (
	"context"
	"errors"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
)

var errTodo = errors.New("players are not stored yet")

// CreatePlayer implements players.Store.
func (s *Store) CreatePlayer(ctx context.Context, p players.Player) error { return errTodo }

// Player implements players.Store.
func (s *Store) Player(ctx context.Context, id string) (players.Player, error) {
	return players.Player{}, players.ErrNotFound
}

// PlayerByToken implements players.Store.
func (s *Store) PlayerByToken(ctx context.Context, hash []byte) (players.Player, error) {
	return players.Player{}, players.ErrNotFound
}

// RenamePlayer implements players.Store.
func (s *Store) RenamePlayer(ctx context.Context, id, name string, at time.Time) (players.Player, error) {
	return players.Player{}, errTodo
}

// SetPlayerToken implements players.Store.
func (s *Store) SetPlayerToken(ctx context.Context, id string, old, hash []byte, at time.Time) error {
	return errTodo
}

// DeletePlayer implements players.Store.
func (s *Store) DeletePlayer(ctx context.Context, id string) error { return errTodo }

// PlayerGames implements players.Store.
func (s *Store) PlayerGames(ctx context.Context, id string, q players.GamesQuery) ([]players.GameEntry, error) {
	return nil, errTodo
}

// PlayerPuzzles implements players.Store.
func (s *Store) PlayerPuzzles(ctx context.Context, id string, after players.PuzzleCursor, limit int) ([]players.PuzzleEntry, error) {
	return nil, errTodo
}

// DailySolves implements players.Store.
func (s *Store) DailySolves(ctx context.Context, id string, limit int) ([]time.Time, error) {
	return nil, errTodo
}

// Leaderboard implements players.Store.
func (s *Store) Leaderboard(ctx context.Context, c players.Category, maxDeviation float64, since time.Time, limit int) ([]players.Leader, error) {
	return nil, errTodo
}

// PuzzleRating implements puzzles.Store.
func (s *Store) PuzzleRating(ctx context.Context, key string) (players.Rating, bool, error) {
	return players.Rating{}, false, nil
}

// Attempted implements puzzles.Store.
func (s *Store) Attempted(ctx context.Context, player, id string) (bool, error) { return false, nil }

// RecordSolve implements puzzles.Store.
func (s *Store) RecordSolve(ctx context.Context, sv players.Solve, count bool) (puzzles.Stats, bool, error) {
	return puzzles.Stats{}, false, errTodo
}
