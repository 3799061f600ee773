package players

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Page sizes of the histories, and the leaderboards' rules.
const (
	DefaultPageSize = 20
	MaxPageSize     = 100
	// LeaderboardSize is how many players a leaderboard shows.
	LeaderboardSize = 100
	// LeaderboardActivity: a player is on a leaderboard only if their
	// rating in its category changed this recently.
	LeaderboardActivity = 30 * 24 * time.Hour
	// maxStreak bounds the days a streak is counted over.
	maxStreak = 3660
)

// Service manages players. Its methods are safe for concurrent use.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the service over st; now nil means time.Now.
func NewService(st Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// Create makes a player named name ("" gives a default name) and returns
// it with its token: the only time the token is ever shown.
func (s *Service) Create(ctx context.Context, name string) (Player, string, error) {
	id := newID()
	if name == "" {
		name = defaultName(id)
	} else if err := CheckName(name); err != nil {
		return Player{}, "", err
	}
	token, hash := NewToken()
	now := s.clock()
	p := Player{ID: id, Name: name, TokenHash: hash, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreatePlayer(ctx, p); err != nil {
		return Player{}, "", err
	}
	return p, token, nil
}

// Authenticate returns the player whose token is token.
func (s *Service) Authenticate(ctx context.Context, token string) (Player, error) {
	if token == "" {
		return Player{}, fmt.Errorf("%w: send it in the Player-Token header", ErrUnauthorized)
	}
	p, err := s.store.PlayerByToken(ctx, TokenHash(token))
	if errors.Is(err, ErrNotFound) {
		return Player{}, fmt.Errorf("%w: no player holds this token", ErrUnauthorized)
	}
	return p, err
}

// owner returns player id when token may act for it with scope need ("":
// its own token only): ErrNotFound for an unknown id, ErrUnauthorized for
// an unknown token, ErrForbidden for another player's, a
// *MissingScopeError or ErrOwnTokenRequired for a scoped token of its own
// that may not.
func (s *Service) owner(ctx context.Context, id, token string, need Scope) (Player, error) {
	p, err := s.Get(ctx, id)
	if err != nil {
		return Player{}, err
	}
	if token == "" {
		return Player{}, fmt.Errorf("%w: send it in the Player-Token header", ErrUnauthorized)
	}
	if subtle.ConstantTimeCompare(p.TokenHash, TokenHash(token)) == 1 {
		return p, nil
	}
	a, err := s.Access(ctx, token)
	if err != nil {
		return Player{}, err
	}
	if a.Player.ID != id {
		return Player{}, fmt.Errorf("%w: it is not player %s's", ErrForbidden, id)
	}
	if _, err := s.Authorize(ctx, token, need); err != nil {
		return Player{}, err
	}
	return p, nil
}

// Get returns the player with that id.
func (s *Service) Get(ctx context.Context, id string) (Player, error) {
	p, err := s.store.Player(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Player{}, fmt.Errorf("%w: no player %q", ErrNotFound, id)
	}
	return p, err
}

// Rename gives player id a new name, with its own token.
func (s *Service) Rename(ctx context.Context, id, token, name string) (Player, error) {
	if err := CheckName(name); err != nil {
		return Player{}, err
	}
	if _, err := s.owner(ctx, id, token, ScopeProfileWrite); err != nil {
		return Player{}, err
	}
	return s.store.RenamePlayer(ctx, id, name, s.clock())
}

// RotateToken replaces player id's token, with the current one, and returns
// the new one: the old one stops working at once.
func (s *Service) RotateToken(ctx context.Context, id, token string) (string, error) {
	p, err := s.owner(ctx, id, token, "")
	if err != nil {
		return "", err
	}
	fresh, hash := NewToken()
	if err := s.store.SetPlayerToken(ctx, id, p.TokenHash, hash, s.clock()); err != nil {
		if errors.Is(err, ErrConflict) {
			return "", fmt.Errorf("%w: the token was rotated by another request", ErrUnauthorized)
		}
		return "", err
	}
	return fresh, nil
}

// Delete deletes player id, with its own token. Its games stay, no longer
// naming it.
func (s *Service) Delete(ctx context.Context, id, token string) error {
	if _, err := s.owner(ctx, id, token, ScopeProfileWrite); err != nil {
		return err
	}
	return s.store.DeletePlayer(ctx, id)
}

// Games returns a page of player id's ended games, and the cursor of the
// next page ("" when this is the last). cursor "" is the first page.
func (s *Service) Games(ctx context.Context, id string, q GamesQuery, cursor string) ([]GameEntry, string, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, "", err
	}
	after, err := parseCursor(cursor)
	if err != nil {
		return nil, "", err
	}
	q.After = GameCursor{EndedAt: after.at, GameID: after.id}
	q.Limit = pageSize(q.Limit)
	entries, err := s.store.PlayerGames(ctx, id, withOneMore(q))
	if err != nil {
		return nil, "", err
	}
	var next string
	if len(entries) > q.Limit {
		entries = entries[:q.Limit]
		last := entries[len(entries)-1]
		next = cursorOf(last.EndedAt, last.GameID)
	}
	return entries, next, nil
}

func withOneMore(q GamesQuery) GamesQuery { q.Limit++; return q }

// Puzzles returns a page of player id's first attempts at puzzles, the
// cursor of the next page, and the player's daily streak.
func (s *Service) Puzzles(ctx context.Context, id, cursor string, limit int) ([]PuzzleEntry, string, int, error) {
	if _, err := s.Get(ctx, id); err != nil {
		return nil, "", 0, err
	}
	after, err := parseCursor(cursor)
	if err != nil {
		return nil, "", 0, err
	}
	limit = pageSize(limit)
	entries, err := s.store.PlayerPuzzles(ctx, id, PuzzleCursor{At: after.at, PuzzleID: after.id}, limit+1)
	if err != nil {
		return nil, "", 0, err
	}
	var next string
	if len(entries) > limit {
		entries = entries[:limit]
		last := entries[len(entries)-1]
		next = cursorOf(last.At, last.PuzzleID)
	}
	streak, err := s.Streak(ctx, id)
	return entries, next, streak, err
}

// Streak is player id's daily streak: how many days in a row, up to today
// or yesterday, the player solved that day's daily puzzle on its own day.
func (s *Service) Streak(ctx context.Context, id string) (int, error) {
	days, err := s.store.DailySolves(ctx, id, maxStreak)
	if err != nil {
		return 0, err
	}
	return streak(days, s.clock()), nil
}

// streak counts days (newest first) in a row ending today or yesterday.
func streak(days []time.Time, now time.Time) int {
	want := now.UTC().Truncate(24 * time.Hour)
	if len(days) > 0 && days[0].UTC().Truncate(24*time.Hour).Before(want) {
		want = want.AddDate(0, 0, -1) // today's is still to solve
	}
	n := 0
	for _, d := range days {
		d = d.UTC().Truncate(24 * time.Hour)
		if d.After(want) {
			continue
		}
		if !d.Equal(want) {
			break
		}
		n++
		want = want.AddDate(0, 0, -1)
	}
	return n
}

// Leaderboard returns the top LeaderboardSize players in c among those
// not provisional and active in the last LeaderboardActivity.
func (s *Service) Leaderboard(ctx context.Context, c Category) ([]Leader, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("%w: no category %q", ErrNotFound, c)
	}
	return s.store.Leaderboard(ctx, c, ProvisionalDeviation, s.clock().Add(-LeaderboardActivity), LeaderboardSize)
}

func pageSize(n int) int {
	if n <= 0 {
		return DefaultPageSize
	}
	return min(n, MaxPageSize)
}

// A cursor is opaque to clients: base64url of "unix-microseconds.id".
type cursor struct {
	at time.Time
	id string
}

func cursorOf(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixMicro(), 10) + "." + id))
}

// parseCursor reads a cursor made by cursorOf; "" is the start.
func parseCursor(s string) (cursor, error) {
	if s == "" {
		return cursor{}, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 200 {
		return cursor{}, fmt.Errorf("%w: %q is not a cursor this server gave", ErrInvalidCursor, s)
	}
	us, id, ok := strings.Cut(string(b), ".")
	n, err := strconv.ParseInt(us, 10, 64)
	if !ok || err != nil || id == "" || n < 0 {
		return cursor{}, fmt.Errorf("%w: %q is not a cursor this server gave", ErrInvalidCursor, s)
	}
	return cursor{at: time.UnixMicro(n).UTC(), id: id}, nil
}
