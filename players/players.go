// Package players owns players: their identities and secret tokens, their
// Glicko-2 ratings per category, their histories and the leaderboards. A
// player is what a front end maps one of its users onto: there are no
// passwords or e-mail addresses here, only a token the front end keeps.
//
// Rating changes are decided here (Match.Rate, Solve.Rate) and applied by
// a store in the same write that ends a game or records a first attempt at
// a puzzle, so each result is rated exactly once.
package players

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ayoayo/ayoayo/fault"
)

// Errors of players, each declared with its kind and the code the client
// reads (see package fault).
var (
	// ErrNotFound: no player with that id (or a deleted one).
	ErrNotFound = fault.New(fault.NotFound, "player_not_found", "No such player", "player not found")
	// ErrUnauthorized: no player token, or one no player holds.
	ErrUnauthorized = fault.New(fault.Unauthorized, "player_unauthorized", "Player token missing or unknown", "missing or unknown player token")
	// ErrForbidden: a valid player token, but another player's.
	ErrForbidden = fault.New(fault.Forbidden, "not_your_player", "Not your player", "the player token is another player's")
	// ErrInvalidName: a display name too long, blank, or with characters
	// a name cannot hold.
	ErrInvalidName = fault.New(fault.Invalid, "invalid_player_name", "Invalid player name", "invalid player name")
	// ErrInvalidCursor: a history cursor this server did not give.
	ErrInvalidCursor = fault.New(fault.Malformed, "invalid_cursor", "Invalid cursor", "invalid cursor")
	// ErrConflict: a store found an id already taken. The service makes
	// the ids, so a client never meets it: it has no kind.
	ErrConflict = errors.New("player id taken")
)

// Category is what a rating is for.
type Category string

// The categories: games with a live clock, correspondence games, and
// puzzles. Untimed games are never rated.
const (
	Live           Category = "live"
	Correspondence Category = "correspondence"
	Puzzles        Category = "puzzle"
)

// Categories lists every category, in the order answers show them.
var Categories = []Category{Live, Correspondence, Puzzles}

// Valid reports whether c is one of the categories.
func (c Category) Valid() bool { return c == Live || c == Correspondence || c == Puzzles }

// Name bounds.
const (
	MaxNameRunes = 32
)

// Player is one player.
type Player struct {
	ID        string
	Name      string
	TokenHash []byte // SHA-256 of the player token
	CreatedAt time.Time
	UpdatedAt time.Time
	// Ratings holds a rating per category the player has played in; a
	// missing one is NewRating().
	Ratings map[Category]Rating
	Counts  Counts
	// Bot marks a bot account (see MakeBot): set once, never unset.
	Bot bool
}

// Rating returns the player's rating in c.
func (p *Player) Rating(c Category) Rating {
	if r, ok := p.Ratings[c]; ok {
		return r
	}
	return NewRating()
}

// Counts are what a player has done.
type Counts struct {
	Games, Wins, Losses, Draws int // finished games with a result, rated or not
	Rated                      int // of those, rated ones
	Puzzles, Solved            int // puzzles attempted (first attempts), and solved at the first attempt
}

// CheckName validates a display name: 1 to MaxNameRunes characters of
// valid UTF-8, letters, marks, digits, punctuation, symbols and inner
// spaces only (no control or format characters, no line breaks), not
// blank, no leading or trailing space.
func CheckName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: not valid UTF-8", ErrInvalidName)
	case strings.TrimSpace(name) == "":
		return fmt.Errorf("%w: blank", ErrInvalidName)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("%w: leading or trailing space", ErrInvalidName)
	case utf8.RuneCountInString(name) > MaxNameRunes:
		return fmt.Errorf("%w: %d characters, at most %d", ErrInvalidName, utf8.RuneCountInString(name), MaxNameRunes)
	}
	for _, r := range name {
		if r == ' ' {
			continue
		}
		if !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) {
			return fmt.Errorf("%w: character %U is not allowed", ErrInvalidName, r)
		}
	}
	return nil
}

// NewToken returns a player token (256 random bits, URL-safe, with a
// prefix that tells it from a seat token in a support request) and its
// hash, the only form a store ever sees.
func NewToken() (token string, hash []byte) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	token = tokenPrefix + base64.RawURLEncoding.EncodeToString(b[:])
	return token, TokenHash(token)
}

const tokenPrefix = "pl_"

// TokenHash is the hash a store keeps of token.
func TokenHash(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// newID returns a random, URL-safe player id of 12 characters.
func newID() string {
	var b [9]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// defaultName is the name of a player created without one.
func defaultName(id string) string { return "player-" + id[:6] }
