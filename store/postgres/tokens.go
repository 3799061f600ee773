package postgres

// Scoped tokens and authorization codes (migration 0022).

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ players.TokenStore = (*Store)(nil)

func scopesOf(s string) []players.Scope {
	var out []players.Scope
	for _, f := range strings.Fields(s) {
		out = append(out, players.Scope(f))
	}
	return out
}

// nullStamp is an optional instant: NULL for the zero time.
func nullStamp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	st := stamp(t)
	return &st
}

const tokenColumns = `id, player_id, hash, description, scopes, client_id, grant_id, created_at, expires_at, revoked_at`

func scanToken(row stored.Scanner) (players.Token, error) {
	var (
		t                players.Token
		scopes           string
		expires, revoked *time.Time
	)
	if err := row.Scan(&t.ID, &t.PlayerID, &t.Hash, &t.Description, &scopes, &t.ClientID, &t.GrantID,
		&t.CreatedAt, &expires, &revoked); err != nil {
		return players.Token{}, err
	}
	t.Scopes, t.CreatedAt, t.ExpiresAt, t.RevokedAt = scopesOf(scopes), t.CreatedAt.UTC(), timeOf(expires), timeOf(revoked)
	return t, nil
}

// insertOwned runs an INSERT ... SELECT that stores a row only for a
// player that exists: no row is ErrNotFound without the player,
// ErrConflict with it.
func (s *Store) insertOwned(ctx context.Context, playerID, what, query string, args ...any) error {
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("create %s: %w", what, s.wrote(err))
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	var one int
	err = s.pool.QueryRow(ctx, `SELECT 1 FROM players WHERE id = $1`, playerID).Scan(&one)
	switch {
	case noRows(err):
		return fmt.Errorf("%s of player %s: %w", what, playerID, players.ErrNotFound)
	case err != nil:
		return s.read(err)
	}
	return fmt.Errorf("%s: %w", what, players.ErrConflict)
}

// CreateToken implements players.TokenStore.
func (s *Store) CreateToken(ctx context.Context, t players.Token) error {
	return s.insertOwned(ctx, t.PlayerID, "token "+t.ID, `INSERT INTO player_tokens (`+tokenColumns+`)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 WHERE EXISTS (SELECT 1 FROM players WHERE id = $2) ON CONFLICT DO NOTHING`,
		t.ID, t.PlayerID, t.Hash, t.Description, players.FormatScopes(t.Scopes), t.ClientID, t.GrantID,
		stamp(t.CreatedAt), nullStamp(t.ExpiresAt), nullStamp(t.RevokedAt))
}

// TokenByHash implements players.TokenStore, through the hash's unique
// index.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (players.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM player_tokens WHERE hash = $1`, hash))
	if noRows(err) {
		return players.Token{}, players.ErrTokenNotFound
	}
	return t, s.read(err)
}

// PlayerTokens implements players.TokenStore.
func (s *Store) PlayerTokens(ctx context.Context, playerID string) ([]players.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM player_tokens
		WHERE player_id = $1 AND revoked_at IS NULL ORDER BY created_at, id`, playerID)
	if err != nil {
		return nil, s.read(err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (players.Token, error) { return scanToken(row) })
	return out, s.read(err)
}

// RevokeToken implements players.TokenStore.
func (s *Store) RevokeToken(ctx context.Context, playerID, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, `UPDATE player_tokens SET revoked_at = $1 WHERE id = $2 AND player_id = $3 AND revoked_at IS NULL`,
		stamp(at), id, playerID)
	if err != nil {
		return s.wrote(err)
	}
	if tag.RowsAffected() == 0 {
		return players.ErrTokenNotFound
	}
	return nil
}

// RevokeGrant implements players.TokenStore.
func (s *Store) RevokeGrant(ctx context.Context, grantID string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE player_tokens SET revoked_at = $1 WHERE grant_id = $2 AND grant_id <> '' AND revoked_at IS NULL`,
		stamp(at), grantID)
	if err != nil {
		return s.wrote(err)
	}
	return nil
}

// CreateCode implements players.TokenStore.
func (s *Store) CreateCode(ctx context.Context, c players.Code) error {
	return s.insertOwned(ctx, c.PlayerID, "code "+c.ID, `INSERT INTO oauth_codes
		(id, hash, player_id, client_id, redirect_uri, scopes, challenge, created_at, expires_at, used_at)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10 WHERE EXISTS (SELECT 1 FROM players WHERE id = $3) ON CONFLICT DO NOTHING`,
		c.ID, c.Hash, c.PlayerID, c.ClientID, c.RedirectURI, players.FormatScopes(c.Scopes), c.Challenge,
		stamp(c.CreatedAt), stamp(c.ExpiresAt), nullStamp(c.UsedAt))
}

const codeColumns = `id, hash, player_id, client_id, redirect_uri, scopes, challenge, created_at, expires_at, used_at`

func scanCode(row stored.Scanner) (players.Code, error) {
	var (
		c      players.Code
		scopes string
		used   *time.Time
	)
	if err := row.Scan(&c.ID, &c.Hash, &c.PlayerID, &c.ClientID, &c.RedirectURI, &scopes, &c.Challenge,
		&c.CreatedAt, &c.ExpiresAt, &used); err != nil {
		return players.Code{}, err
	}
	c.Scopes, c.CreatedAt, c.ExpiresAt, c.UsedAt = scopesOf(scopes), c.CreatedAt.UTC(), c.ExpiresAt.UTC(), timeOf(used)
	return c, nil
}

// UseCode implements players.TokenStore: the update is conditional on
// used_at being NULL, which a racing update re-checks after it waited
// (READ COMMITTED), so exactly one use is the first. The code as it was
// is the updated row with used_at NULL again; another use reads it as it
// is.
func (s *Store) UseCode(ctx context.Context, hash []byte, at time.Time) (players.Code, error) {
	c, err := scanCode(s.pool.QueryRow(ctx, `UPDATE oauth_codes SET used_at = $2 WHERE hash = $1 AND used_at IS NULL
		RETURNING `+codeColumns, hash, stamp(at)))
	if err == nil {
		c.UsedAt = time.Time{}
		return c, nil
	}
	if !noRows(err) {
		return players.Code{}, s.wrote(err)
	}
	c, err = scanCode(s.pool.QueryRow(ctx, `SELECT `+codeColumns+` FROM oauth_codes WHERE hash = $1`, hash))
	if noRows(err) {
		return players.Code{}, players.ErrCodeUnknown
	}
	return c, s.read(err)
}
