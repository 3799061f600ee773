package players

import (
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// Match is the end of a game with a result, as a store applies it in the
// write that ends the game: the counts of each seat's player, and, when the
// game is rated, both players' ratings in its category. An aborted game has
// no Match.
type Match struct {
	// Players are the seats' players by side, South first; "" for a seat
	// with no player (anonymous, or the AI).
	Players [2]string
	// Score is South's: 1 a win, 0.5 a draw, 0 a loss.
	Score float64
	// Category is the rating the game changes; "" for an unrated game.
	Category Category
	// Before are the seats' ratings in Category as the service read them,
	// After what the game makes of them (NewMatch). The store writes After
	// only if each player's rating still counts Before's Games (a rating
	// with no row counts 0), and otherwise changes nothing and reports
	// ErrRatingsChanged, so that a rating two games end at once is
	// updated by both. A seat whose player no longer exists is skipped.
	Before, After [2]Rating
	At            time.Time
}

// ErrRatingsChanged: a rating changed between its read and the write that
// was to update it; nothing was written, and the service reads it again.
// Past the service's retries (a storm of results for one player) the
// client may send the same request again a second later.
var ErrRatingsChanged = fault.NewRetry(fault.Busy, time.Second, "ratings_busy", "Ratings busy", "a rating changed before the write")

// NewMatch is a finished game between the seats' players (South first,
// "" for no player) in which South scored score, rated in category c ("":
// unrated) from the ratings before; the ratings after are Glicko-2's.
func NewMatch(ids [2]string, score float64, c Category, before [2]Rating, at time.Time) Match {
	m := Match{Players: ids, Score: score, At: at}
	if c != "" && ids[0] != "" && ids[1] != "" {
		m.Category, m.Before = c, before
		m.After[0], m.After[1] = Rate(before[0], before[1], score, at)
	}
	return m
}

// Rated reports whether m changes ratings.
func (m Match) Rated() bool { return m.Category != "" }

// Count returns c with the game counted for the seat side (0 South, 1
// North).
func (m Match) Count(c Counts, side int) Counts {
	c.Games++
	if m.Rated() {
		c.Rated++
	}
	score := m.Score
	if side == 1 {
		score = 1 - score
	}
	switch score {
	case 1:
		c.Wins++
	case 0:
		c.Losses++
	default:
		c.Draws++
	}
	return c
}

// Change is what a rated result did to one rating.
type Change struct {
	Before, After Rating
}

// Delta is the change in value.
func (c Change) Delta() float64 { return c.After.Value - c.Before.Value }

// Solve is an attempt by a player at a puzzle, as a store applies it in the
// write that records the attempt. Only a player's first attempt at a puzzle
// counts: it updates the player's puzzle rating and the puzzle's (a solve is
// a win for the player). A later attempt changes no rating; one that
// solves a daily puzzle on its own day still counts for the streak.
type Solve struct {
	Player   string
	PuzzleID string
	// Key names the puzzle's rating: a daily puzzle's id, or a practice
	// puzzle's generator bucket.
	Key    string
	Solved bool
	// Daily is the daily puzzle's day; zero for a practice puzzle.
	Daily time.Time
	At    time.Time
	// Player's puzzle rating and the puzzle's before the attempt, as the
	// service read them (the puzzle's: its calibration when Key has no
	// rating yet), and after it (NewSolve). As with a Match, the store
	// writes After only if both ratings still count Before's Games, and
	// reports ErrRatingsChanged otherwise; and only on the player's first
	// attempt at PuzzleID.
	Before, After [2]Rating
}

// NewSolve is player's attempt at puzzle id, whose rating is keyed by key,
// with the ratings before it: [0] the player's puzzle rating, [1] the
// puzzle's. daily is the daily puzzle's day, zero for practice.
func NewSolve(player, id, key string, solved bool, daily time.Time, before [2]Rating, at time.Time) Solve {
	s := Solve{Player: player, PuzzleID: id, Key: key, Solved: solved, Daily: daily, At: at, Before: before}
	score := 0.0
	if solved {
		score = 1
	}
	s.After[0], s.After[1] = Rate(before[0], before[1], score, at)
	return s
}

// OnDay reports whether the attempt solves a daily puzzle on that
// puzzle's own UTC day: the days that make a streak.
func (s Solve) OnDay() bool {
	return s.Solved && !s.Daily.IsZero() && s.At.UTC().Truncate(24*time.Hour).Equal(s.Daily.UTC().Truncate(24*time.Hour))
}
