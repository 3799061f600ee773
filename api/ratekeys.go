package api

import (
	"crypto/sha256"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/players"
)

// tokenPlayers names the player of a request's Player-Token for the rate
// limits, which run before anything else: a token is read once in a while
// (tokenTTL), not at every move. A token that names no player keys the
// request by its address, as an anonymous one: a stream of made-up tokens
// buys no buckets. What the handler then decides of the token is its own
// read: a token rotated or deleted within tokenTTL still keys its old
// player's bucket for that long, and is refused by the handler.
type tokenPlayers struct {
	players PlayerService
	now     func() time.Time

	mu      sync.Mutex
	byToken map[[sha256.Size]byte]tokenPlayer
}

type tokenPlayer struct {
	id string // "" no player
	at time.Time
}

const (
	tokenTTL = 30 * time.Second
	// maxTokens bounds the tokens remembered; past it they are forgotten
	// at once.
	maxTokens = 100_000
)

func newTokenPlayers(ps PlayerService, now func() time.Time) *tokenPlayers {
	if now == nil {
		now = time.Now
	}
	return &tokenPlayers{players: ps, now: now, byToken: map[[sha256.Size]byte]tokenPlayer{}}
}

// of is the id of the player whose token the request carries (in
// Player-Token, or a scoped one as a bearer token), "" for none.
func (t *tokenPlayers) of(c echo.Context) string {
	token := strings.TrimSpace(c.Request().Header.Get(PlayerTokenHeader))
	if bearer := bearerToken(c.Request().Header.Get(echo.HeaderAuthorization)); token == "" && players.IsScopedToken(bearer) {
		token = bearer // as withCaller takes it: what an OAuth library sends
	}
	if token == "" {
		return ""
	}
	key := sha256.Sum256([]byte(token))
	now := t.now()
	t.mu.Lock()
	e, ok := t.byToken[key]
	t.mu.Unlock()
	if ok && now.Sub(e.at) < tokenTTL {
		return e.id
	}
	// Any token of the player's: its own, or a scoped one (whatever its
	// scopes: what it may do is the handler's check).
	a, err := t.players.Access(c.Request().Context(), token)
	switch {
	case err == nil:
		e = tokenPlayer{id: a.Player.ID, at: now}
	case errors.Is(err, players.ErrUnauthorized), errors.Is(err, players.ErrTokenExpired), errors.Is(err, players.ErrTokenRevoked):
		e = tokenPlayer{at: now}
	default:
		return "" // the store cannot tell: the address's bucket, unremembered
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.byToken) >= maxTokens {
		t.byToken = map[[sha256.Size]byte]tokenPlayer{}
	}
	t.byToken[key] = e
	return e.id
}
