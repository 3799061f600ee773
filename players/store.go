package players

import (
	"context"
	"time"
)

// Store keeps players. Implementations decide nothing: store/storetest
// holds each of them to the same cases.
type Store interface {
	BotStore
	// CreatePlayer stores p with no ratings and zero counts; ErrConflict
	// when its id is taken.
	CreatePlayer(ctx context.Context, p Player) error
	// Player returns the player with that id, with its ratings and counts;
	// ErrNotFound when there is none.
	Player(ctx context.Context, id string) (Player, error)
	// PlayerByToken returns the player whose TokenHash is hash, or
	// ErrNotFound.
	PlayerByToken(ctx context.Context, hash []byte) (Player, error)
	// RenamePlayer sets the player's Name and UpdatedAt and returns it;
	// ErrNotFound when unknown.
	RenamePlayer(ctx context.Context, id, name string, at time.Time) (Player, error)
	// SetPlayerToken replaces the player's TokenHash if it is still old
	// (so of two rotations with one token, one wins) and sets UpdatedAt;
	// ErrNotFound when unknown, ErrConflict when the hash is no longer
	// old.
	SetPlayerToken(ctx context.Context, id string, old, hash []byte, at time.Time) error
	// DeletePlayer deletes the player, its ratings and its puzzle history.
	// Its games stay, with their seats no longer naming it. ErrNotFound
	// when unknown.
	DeletePlayer(ctx context.Context, id string) error

	// PlayerGames returns up to q.Limit of the player's games that have
	// ended with a result, newest first (by end, then id), after q.After
	// when it is not zero, of q.Category and q.Result when set.
	PlayerGames(ctx context.Context, id string, q GamesQuery) ([]GameEntry, error)
	// PlayerPuzzles returns up to limit of the player's first attempts,
	// newest first (by time, then puzzle id), after the entry after when it
	// is not zero.
	PlayerPuzzles(ctx context.Context, id string, after PuzzleCursor, limit int) ([]PuzzleEntry, error)
	// DailySolves returns the UTC days, newest first and at most limit of
	// them, on which the player solved that day's daily puzzle.
	DailySolves(ctx context.Context, id string, limit int) ([]time.Time, error)
	// Leaderboard returns up to limit players by their rating in c,
	// highest first (ties by id), among those whose deviation is at most
	// maxDeviation and whose rating in c was updated at or after since.
	Leaderboard(ctx context.Context, c Category, maxDeviation float64, since time.Time, limit int) ([]Leader, error)
}

// Result is how a game ended for one player.
type Result string

// A player's results.
const (
	Win  Result = "win"
	Loss Result = "loss"
	Draw Result = "draw"
)

// GamesQuery selects a page of a player's games.
type GamesQuery struct {
	After    GameCursor
	Limit    int
	Category Category // "" any; "untimed" is not a category: filter by rated games' categories only
	Result   Result   // "" any
}

// GameCursor is where a page of games ends: the last entry's end and id.
type GameCursor struct {
	EndedAt time.Time
	GameID  string
}

// IsZero reports whether c is the start.
func (c GameCursor) IsZero() bool { return c.GameID == "" }

// GameEntry is one game in a player's history.
type GameEntry struct {
	GameID   string
	EndedAt  time.Time
	Side     int      // 0 South, 1 North
	Category Category // the game's rating category; "" for an untimed game
	Rated    bool
	Result   Result
	// Opponent is the other seat's player id; "" for an anonymous seat or
	// the AI (AI true).
	Opponent     string
	OpponentName string
	AI           bool
	// Rating is the player's rating change, when Rated.
	Rating Change
}

// PuzzleCursor is where a page of attempts ends.
type PuzzleCursor struct {
	At       time.Time
	PuzzleID string
}

// IsZero reports whether c is the start.
func (c PuzzleCursor) IsZero() bool { return c.PuzzleID == "" }

// PuzzleEntry is a player's first attempt at one puzzle.
type PuzzleEntry struct {
	PuzzleID string
	At       time.Time
	Solved   bool
	Daily    time.Time // the daily puzzle's day; zero for practice
	Rating   Change    // the player's puzzle rating
}

// Leader is one line of a leaderboard.
type Leader struct {
	PlayerID string
	Name     string
	Rating   Rating
}
