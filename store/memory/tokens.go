package memory

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/players"
)

// tokenRows are the scoped tokens and authorization codes; the zero value
// is empty. They are kept under the store's lock.
type tokenRows struct {
	tokens []players.Token
	codes  []players.Code
}

var _ players.TokenStore = (*Store)(nil)

func copyToken(t players.Token) players.Token {
	t.Hash, t.Scopes = bytes.Clone(t.Hash), slices.Clone(t.Scopes)
	return t
}

func copyCode(c players.Code) players.Code {
	c.Hash, c.Scopes = bytes.Clone(c.Hash), slices.Clone(c.Scopes)
	return c
}

// dropPlayer deletes a deleted player's tokens and codes; the caller
// holds the write lock.
func (r *tokenRows) dropPlayer(id string) {
	r.tokens = slices.DeleteFunc(r.tokens, func(t players.Token) bool { return t.PlayerID == id })
	r.codes = slices.DeleteFunc(r.codes, func(c players.Code) bool { return c.PlayerID == id })
}

// CreateToken implements players.TokenStore.
func (s *Store) CreateToken(ctx context.Context, t players.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.players[t.PlayerID]; !ok {
		return players.ErrNotFound
	}
	if slices.ContainsFunc(s.toks.tokens, func(o players.Token) bool { return o.ID == t.ID || bytes.Equal(o.Hash, t.Hash) }) {
		return players.ErrConflict
	}
	s.toks.tokens = append(s.toks.tokens, copyToken(t))
	return nil
}

// TokenByHash implements players.TokenStore.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (players.Token, error) {
	if err := ctx.Err(); err != nil {
		return players.Token{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, t := range s.toks.tokens {
		if bytes.Equal(t.Hash, hash) {
			return copyToken(t), nil
		}
	}
	return players.Token{}, players.ErrTokenNotFound
}

// PlayerTokens implements players.TokenStore.
func (s *Store) PlayerTokens(ctx context.Context, playerID string) ([]players.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var out []players.Token
	for _, t := range s.toks.tokens {
		if t.PlayerID == playerID && t.RevokedAt.IsZero() {
			out = append(out, copyToken(t))
		}
	}
	slices.SortFunc(out, func(a, b players.Token) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// RevokeToken implements players.TokenStore.
func (s *Store) RevokeToken(ctx context.Context, playerID, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.toks.tokens {
		t := &s.toks.tokens[i]
		if t.ID == id && t.PlayerID == playerID && t.RevokedAt.IsZero() {
			t.RevokedAt = at
			return nil
		}
	}
	return players.ErrTokenNotFound
}

// RevokeGrant implements players.TokenStore.
func (s *Store) RevokeGrant(ctx context.Context, grantID string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.toks.tokens {
		t := &s.toks.tokens[i]
		if grantID != "" && t.GrantID == grantID && t.RevokedAt.IsZero() {
			t.RevokedAt = at
		}
	}
	return nil
}

// CreateCode implements players.TokenStore.
func (s *Store) CreateCode(ctx context.Context, c players.Code) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.players[c.PlayerID]; !ok {
		return players.ErrNotFound
	}
	if slices.ContainsFunc(s.toks.codes, func(o players.Code) bool { return o.ID == c.ID || bytes.Equal(o.Hash, c.Hash) }) {
		return players.ErrConflict
	}
	s.toks.codes = append(s.toks.codes, copyCode(c))
	return nil
}

// UseCode implements players.TokenStore.
func (s *Store) UseCode(ctx context.Context, hash []byte, at time.Time) (players.Code, error) {
	if err := ctx.Err(); err != nil {
		return players.Code{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range s.toks.codes {
		c := &s.toks.codes[i]
		if bytes.Equal(c.Hash, hash) {
			before := copyCode(*c)
			if c.UsedAt.IsZero() {
				c.UsedAt = at
			}
			return before, nil
		}
	}
	return players.Code{}, players.ErrCodeUnknown
}
