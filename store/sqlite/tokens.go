package sqlite

// Scoped tokens and authorization codes (migration 0018), written through
// the group committer like every other write.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/players"
)

var _ players.TokenStore = (*Store)(nil)

// scopesText is scopes as the tables keep them.
func scopesText(scopes []players.Scope) string { return players.FormatScopes(scopes) }

func scopesOf(s string) []players.Scope {
	var out []players.Scope
	for _, f := range strings.Fields(s) {
		out = append(out, players.Scope(f))
	}
	return out
}

const tokenSelect = `SELECT id, player_id, hash, description, scopes, client_id, grant_id, created_at, expires_at, revoked_at
	FROM player_tokens `

func scanToken(sc interface{ Scan(...any) error }) (players.Token, error) {
	var (
		t                players.Token
		scopes           string
		created          int64
		expires, revoked sql.NullInt64
	)
	if err := sc.Scan(&t.ID, &t.PlayerID, &t.Hash, &t.Description, &scopes, &t.ClientID, &t.GrantID,
		&created, &expires, &revoked); err != nil {
		return players.Token{}, err
	}
	t.Scopes, t.CreatedAt, t.ExpiresAt, t.RevokedAt = scopesOf(scopes), timeOfUs(created), timeOfNullUs(expires), timeOfNullUs(revoked)
	return t, nil
}

// insertOwned runs an INSERT ... SELECT that stores a row only for a
// player that exists: no row is ErrNotFound without the player,
// ErrConflict with it.
func insertOwned(ctx context.Context, r runner, playerID, what, query string, args ...any) error {
	res, err := r.exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("create %s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var one int
	err = r.queryRow(ctx, `SELECT 1 FROM players WHERE id = ?`, playerID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%s of player %s: %w", what, playerID, players.ErrNotFound)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("%s: %w", what, players.ErrConflict)
}

// CreateToken implements players.TokenStore.
func (s *Store) CreateToken(ctx context.Context, t players.Token) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		return insertOwned(ctx, r, t.PlayerID, "token "+t.ID, `INSERT INTO player_tokens
			(id, player_id, hash, description, scopes, client_id, grant_id, created_at, expires_at, revoked_at)
			SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM players WHERE id = ?) ON CONFLICT DO NOTHING`,
			t.ID, t.PlayerID, t.Hash, t.Description, scopesText(t.Scopes), t.ClientID, t.GrantID,
			usOf(t.CreatedAt), nullableUs(t.ExpiresAt), nullableUs(t.RevokedAt), t.PlayerID)
	})
}

// TokenByHash implements players.TokenStore, through the hash's unique
// index.
func (s *Store) TokenByHash(ctx context.Context, hash []byte) (players.Token, error) {
	t, err := scanToken(runner{s: s}.queryRow(ctx, tokenSelect+`WHERE hash = ?`, hash))
	if errors.Is(err, sql.ErrNoRows) {
		return players.Token{}, players.ErrTokenNotFound
	}
	return t, s.read(err)
}

// PlayerTokens implements players.TokenStore.
func (s *Store) PlayerTokens(ctx context.Context, playerID string) ([]players.Token, error) {
	rows, err := runner{s: s}.query(ctx, tokenSelect+`WHERE player_id = ? AND revoked_at IS NULL ORDER BY created_at, id`, playerID)
	if err != nil {
		return nil, s.read(err)
	}
	defer rows.Close()
	var out []players.Token
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, s.read(err)
		}
		out = append(out, t)
	}
	return out, s.read(rows.Err())
}

// RevokeToken implements players.TokenStore.
func (s *Store) RevokeToken(ctx context.Context, playerID, id string, at time.Time) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		return r.execFound(ctx, players.ErrTokenNotFound,
			`UPDATE player_tokens SET revoked_at = ? WHERE id = ? AND player_id = ? AND revoked_at IS NULL`, usOf(at), id, playerID)
	})
}

// RevokeGrant implements players.TokenStore.
func (s *Store) RevokeGrant(ctx context.Context, grantID string, at time.Time) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		_, err := r.exec(ctx, `UPDATE player_tokens SET revoked_at = ? WHERE grant_id = ? AND grant_id <> '' AND revoked_at IS NULL`,
			usOf(at), grantID)
		return err
	})
}

// CreateCode implements players.TokenStore.
func (s *Store) CreateCode(ctx context.Context, c players.Code) error {
	return s.write(ctx, func(ctx context.Context, r runner) error {
		return insertOwned(ctx, r, c.PlayerID, "code "+c.ID, `INSERT INTO oauth_codes
			(id, hash, player_id, client_id, redirect_uri, scopes, challenge, created_at, expires_at, used_at)
			SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM players WHERE id = ?) ON CONFLICT DO NOTHING`,
			c.ID, c.Hash, c.PlayerID, c.ClientID, c.RedirectURI, scopesText(c.Scopes), c.Challenge,
			usOf(c.CreatedAt), usOf(c.ExpiresAt), nullableUs(c.UsedAt), c.PlayerID)
	})
}

// UseCode implements players.TokenStore: the read and the update are in
// one write transaction, which SQLite runs alone.
func (s *Store) UseCode(ctx context.Context, hash []byte, at time.Time) (players.Code, error) {
	var c players.Code
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var (
			scopes           string
			created, expires int64
			used             sql.NullInt64
		)
		err := r.queryRow(ctx, `SELECT id, hash, player_id, client_id, redirect_uri, scopes, challenge, created_at, expires_at, used_at
			FROM oauth_codes WHERE hash = ?`, hash).Scan(&c.ID, &c.Hash, &c.PlayerID, &c.ClientID, &c.RedirectURI, &scopes,
			&c.Challenge, &created, &expires, &used)
		if errors.Is(err, sql.ErrNoRows) {
			return players.ErrCodeUnknown
		}
		if err != nil {
			return err
		}
		c.Scopes, c.CreatedAt, c.ExpiresAt, c.UsedAt = scopesOf(scopes), timeOfUs(created), timeOfUs(expires), timeOfNullUs(used)
		if used.Valid {
			return nil
		}
		_, err = r.exec(ctx, `UPDATE oauth_codes SET used_at = ? WHERE id = ? AND used_at IS NULL`, usOf(at), c.ID)
		return err
	})
	if err != nil {
		return players.Code{}, err
	}
	return c, nil
}
