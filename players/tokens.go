package players

// Scoped tokens and the OAuth grants that make them (issue 48). A player's
// own token (pl_...) may do everything a player may; a scoped token (pat_...
// made by the player, oat_... issued to a third-party app through OAuth
// 2.1's authorization code flow with PKCE) may do only what its scopes
// allow, until it expires or is revoked. Only the player's own token makes,
// lists or revokes tokens, approves an app, or rotates itself: a scoped
// token can never widen what it was given.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ayoayo/ayoayo/fault"
)

// Scope is one thing a scoped token may do as its player.
type Scope string

// The scopes. openapi.yaml's oauth2 security scheme describes each, and
// every operation that acts as a player names the one it needs.
const (
	// ScopeGamePlay: create and join games as the player; moves, offers,
	// takebacks, resignations, claims and berserk in the player's games.
	ScopeGamePlay Scope = "game:play"
	// ScopeLobbyWrite: the player's seeks, challenges and rematches, and
	// the player's event stream (its tickets included).
	ScopeLobbyWrite Scope = "lobby:write"
	// ScopePuzzleWrite: attempts at puzzles, and practice puzzles near the
	// player's rating.
	ScopePuzzleWrite Scope = "puzzle:write"
	// ScopeTournamentWrite: create, join and withdraw from tournaments;
	// bulk pairings.
	ScopeTournamentWrite Scope = "tournament:write"
	// ScopeProfileWrite: rename or delete the player (and make it a bot).
	ScopeProfileWrite Scope = "profile:write"
)

// AllScopes lists every scope, in the order answers show them: the
// player's own token has each.
var AllScopes = []Scope{ScopeGamePlay, ScopeLobbyWrite, ScopePuzzleWrite, ScopeTournamentWrite, ScopeProfileWrite}

// Valid reports whether sc is one of AllScopes.
func (sc Scope) Valid() bool { return slices.Contains(AllScopes, sc) }

// Errors of the tokens, declared with their kinds and codes.
var (
	// ErrTokenExpired: a scoped token past its expiry.
	ErrTokenExpired = fault.New(fault.Unauthorized, "token_expired", "Token expired", "the token has expired")
	// ErrTokenRevoked: a scoped token its player (or its app) revoked.
	ErrTokenRevoked = fault.New(fault.Unauthorized, "token_revoked", "Token revoked", "the token has been revoked")
	// ErrMissingScope: a scoped token without the scope the operation
	// needs; a *MissingScopeError names it.
	ErrMissingScope = fault.New(fault.Forbidden, "missing_scope", "Missing scope", "the token lacks the scope this needs")
	// ErrOwnTokenRequired: what only the player's own token may do (make,
	// list or revoke tokens, approve an app, rotate the token), asked with
	// a scoped one.
	ErrOwnTokenRequired = fault.New(fault.Forbidden, "player_token_required", "Player's own token required",
		"only the player's own token (pl_...) may do this")
	// ErrTokenNotFound: no token of the caller's with that id.
	ErrTokenNotFound = fault.New(fault.NotFound, "token_not_found", "No such token", "token not found")
	// ErrInvalidScope: a scope that is none of AllScopes, or none at all.
	ErrInvalidScope = fault.New(fault.Invalid, "invalid_scope", "Invalid scope", "invalid scope")
	// ErrInvalidTokenRequest: a token's description too long, or an
	// expiry that has passed.
	ErrInvalidTokenRequest = fault.New(fault.Invalid, "invalid_token_request", "Invalid token request", "invalid token request")
	// ErrInvalidAuthorization: an app's approval with a client_id,
	// redirect_uri or code challenge this server does not take.
	ErrInvalidAuthorization = fault.New(fault.Invalid, "invalid_authorization", "Invalid authorization request", "invalid authorization request")
)

// The failures of exchanging an authorization code. They answer on
// /oauth/token, in OAuth's words (RFC 6749 5.2) rather than as problems:
// the api package maps each to its error, so they have no kind.
var (
	ErrCodeUnknown      = errors.New("unknown authorization code")
	ErrCodeReused       = errors.New("authorization code already used")
	ErrCodeExpired      = errors.New("authorization code expired")
	ErrVerifierMismatch = errors.New("code_verifier does not match the code_challenge")
	ErrRedirectMismatch = errors.New("redirect_uri is not the one the code was issued for")
	ErrClientMismatch   = errors.New("client_id is not the one the code was issued for")
)

// Lifetimes of what OAuth issues.
const (
	// CodeLifetime is how long an authorization code may be exchanged.
	CodeLifetime = 2 * time.Minute
	// AccessLifetime is how long an OAuth access token works: there are no
	// refresh tokens, an app asks the player again after it.
	AccessLifetime = 30 * 24 * time.Hour
	// MaxDescriptionRunes bounds a token's description.
	MaxDescriptionRunes = 100
	// MaxClientIDRunes bounds an app's client_id.
	MaxClientIDRunes = 100
)

// Token prefixes: a player's own token is tokenPrefix's.
const (
	personalPrefix = "pat_"
	oauthPrefix    = "oat_"
	codePrefix     = "ac_"
)

// IsScopedToken reports whether token has a scoped token's prefix, which
// tells it from a seat's token (43 characters of base64url, no prefix).
func IsScopedToken(token string) bool {
	return strings.HasPrefix(token, personalPrefix) || strings.HasPrefix(token, oauthPrefix)
}

// Token is a scoped token: its secret is shown once, and kept as Hash.
type Token struct {
	ID          string
	PlayerID    string
	Hash        []byte // SHA-256 of the token
	Description string
	Scopes      []Scope
	// ClientID is the OAuth app the token was issued to; "" for a token
	// the player made.
	ClientID string
	// GrantID is the id of the authorization code the token was issued
	// for ("" for the player's own): a code used twice revokes its tokens.
	GrantID   string
	CreatedAt time.Time
	ExpiresAt time.Time // zero: never
	RevokedAt time.Time // zero: not revoked
}

// Expired reports whether t has expired at now.
func (t *Token) Expired(now time.Time) bool { return !t.ExpiresAt.IsZero() && !now.Before(t.ExpiresAt) }

// Code is an authorization code: single-use, short-lived, bound to its
// app, redirect and PKCE challenge; kept as Hash.
type Code struct {
	ID          string
	Hash        []byte
	PlayerID    string
	ClientID    string
	RedirectURI string
	Scopes      []Scope
	Challenge   string // S256: base64url(SHA-256(verifier)), unpadded
	CreatedAt   time.Time
	ExpiresAt   time.Time
	UsedAt      time.Time // zero until exchanged
}

// TokenStore keeps scoped tokens and authorization codes. A Store that
// has these methods too gives the service scoped tokens; the three stores
// do, held to the same cases by store/storetest.
type TokenStore interface {
	// CreateToken stores t; ErrNotFound when its player is unknown,
	// ErrConflict when its id or hash is taken.
	CreateToken(ctx context.Context, t Token) error
	// TokenByHash returns the token whose Hash is hash, revoked or
	// expired ones included; ErrTokenNotFound when there is none.
	TokenByHash(ctx context.Context, hash []byte) (Token, error)
	// PlayerTokens returns the player's tokens that are not revoked, by
	// CreatedAt then ID.
	PlayerTokens(ctx context.Context, playerID string) ([]Token, error)
	// RevokeToken sets RevokedAt of the player's token id if it is not
	// revoked yet; ErrTokenNotFound when the player has no such token or
	// it is revoked already.
	RevokeToken(ctx context.Context, playerID, id string, at time.Time) error
	// RevokeGrant revokes every token not yet revoked whose GrantID is
	// grantID (none is no error).
	RevokeGrant(ctx context.Context, grantID string, at time.Time) error
	// CreateCode stores c; ErrNotFound when its player is unknown,
	// ErrConflict when its id or hash is taken.
	CreateCode(ctx context.Context, c Code) error
	// UseCode sets UsedAt of the code whose Hash is hash, if it is zero,
	// in one conditional write, and returns the code as it was before: a
	// zero UsedAt is the first use. ErrCodeUnknown when there is none.
	UseCode(ctx context.Context, hash []byte, at time.Time) (Code, error)
}

// MissingScopeError is an ErrMissingScope that names the scope.
type MissingScopeError struct{ Scope Scope }

func (e *MissingScopeError) Error() string {
	return fmt.Sprintf("this token lacks the scope %s, which this operation needs", e.Scope)
}

// Unwrap makes it an ErrMissingScope.
func (e *MissingScopeError) Unwrap() error { return ErrMissingScope }

// Access is what a token may do: its player, and, for a scoped token,
// the token (nil for the player's own token, which may do everything).
type Access struct {
	Player Player
	Token  *Token
}

// Own reports whether the access is the player's own token's.
func (a *Access) Own() bool { return a.Token == nil }

// Scopes are the access's scopes: every one for the player's own token.
func (a *Access) Scopes() []Scope {
	if a.Own() {
		return slices.Clone(AllScopes)
	}
	return slices.Clone(a.Token.Scopes)
}

// Allows reports whether the access has scope sc.
func (a *Access) Allows(sc Scope) bool { return a.Own() || slices.Contains(a.Token.Scopes, sc) }

// tokens is the service's token store: nil when its Store keeps none.
func (s *Service) tokens() TokenStore {
	ts, _ := s.store.(TokenStore)
	return ts
}

// Access returns what token may do: the player's own token or a scoped
// one. A scoped token that expired is ErrTokenExpired, a revoked one
// ErrTokenRevoked; any token nobody holds is ErrUnauthorized.
func (s *Service) Access(ctx context.Context, token string) (Access, error) {
	if !IsScopedToken(token) {
		p, err := s.Authenticate(ctx, token)
		return Access{Player: p}, err
	}
	ts := s.tokens()
	if ts == nil {
		return Access{}, fmt.Errorf("%w: this server keeps no scoped tokens", ErrUnauthorized)
	}
	t, err := ts.TokenByHash(ctx, TokenHash(token))
	if errors.Is(err, ErrTokenNotFound) {
		return Access{}, fmt.Errorf("%w: no player holds this token", ErrUnauthorized)
	}
	if err != nil {
		return Access{}, err
	}
	now := s.clock()
	switch {
	case !t.RevokedAt.IsZero():
		return Access{}, fmt.Errorf("%w: token %s was revoked at %s", ErrTokenRevoked, t.ID, t.RevokedAt.Format(time.RFC3339))
	case t.Expired(now):
		return Access{}, fmt.Errorf("%w: token %s expired at %s", ErrTokenExpired, t.ID, t.ExpiresAt.Format(time.RFC3339))
	}
	p, err := s.store.Player(ctx, t.PlayerID)
	if errors.Is(err, ErrNotFound) {
		return Access{}, fmt.Errorf("%w: the token's player was deleted", ErrUnauthorized)
	}
	if err != nil {
		return Access{}, err
	}
	return Access{Player: p, Token: &t}, nil
}

// Authorize returns the player token acts as, if it may act with scope
// need: a *MissingScopeError when it lacks it. need "" is the player's
// own token only (ErrOwnTokenRequired for a scoped one).
func (s *Service) Authorize(ctx context.Context, token string, need Scope) (Player, error) {
	a, err := s.Access(ctx, token)
	if err != nil {
		return Player{}, err
	}
	switch {
	case need == "" && !a.Own():
		return Player{}, fmt.Errorf("%w: token %s is a scoped token", ErrOwnTokenRequired, a.Token.ID)
	case need != "" && !a.Allows(need):
		return Player{}, &MissingScopeError{Scope: need}
	}
	return a.Player, nil
}

// own returns the player whose own token token is.
func (s *Service) own(ctx context.Context, token string) (Player, error) {
	return s.Authorize(ctx, token, "")
}

// TokenRequest is what a player asks a new token for.
type TokenRequest struct {
	Description string
	Scopes      []Scope
	ExpiresAt   time.Time // zero: never
}

// CreateToken makes a scoped token for the player whose own token is
// token, and returns it with its secret: the only time it is shown.
func (s *Service) CreateToken(ctx context.Context, token string, r TokenRequest) (Token, string, error) {
	scopes, err := checkScopes(r.Scopes)
	if err != nil {
		return Token{}, "", err
	}
	now := s.clock()
	switch {
	case !utf8.ValidString(r.Description) || utf8.RuneCountInString(r.Description) > MaxDescriptionRunes:
		return Token{}, "", fmt.Errorf("%w: a description is at most %d characters of UTF-8", ErrInvalidTokenRequest, MaxDescriptionRunes)
	case !r.ExpiresAt.IsZero() && !r.ExpiresAt.After(now):
		return Token{}, "", fmt.Errorf("%w: expiresAt %s has passed", ErrInvalidTokenRequest, r.ExpiresAt.Format(time.RFC3339))
	}
	ts := s.tokens()
	if ts == nil {
		return Token{}, "", fmt.Errorf("%w: this server keeps no scoped tokens", ErrInvalidTokenRequest)
	}
	p, err := s.own(ctx, token)
	if err != nil {
		return Token{}, "", err
	}
	secret, hash := newSecret(personalPrefix)
	t := Token{ID: newID(), PlayerID: p.ID, Hash: hash, Description: r.Description, Scopes: scopes,
		CreatedAt: now, ExpiresAt: r.ExpiresAt.UTC().Truncate(time.Microsecond)}
	if err := ts.CreateToken(ctx, t); err != nil {
		return Token{}, "", err
	}
	return t, secret, nil
}

// Tokens lists the scoped tokens of the player whose own token is token
// that still work (neither revoked nor expired).
func (s *Service) Tokens(ctx context.Context, token string) ([]Token, error) {
	p, err := s.own(ctx, token)
	if err != nil {
		return nil, err
	}
	ts := s.tokens()
	if ts == nil {
		return nil, nil
	}
	all, err := ts.PlayerTokens(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	return slices.DeleteFunc(all, func(t Token) bool { return t.Expired(now) }), nil
}

// RevokeToken revokes the scoped token id of the player whose own token
// is token: it stops working at once.
func (s *Service) RevokeToken(ctx context.Context, token, id string) error {
	p, err := s.own(ctx, token)
	if err != nil {
		return err
	}
	ts := s.tokens()
	if ts == nil {
		return fmt.Errorf("%w: no token %q", ErrTokenNotFound, id)
	}
	if err := ts.RevokeToken(ctx, p.ID, id, s.clock()); err != nil {
		if errors.Is(err, ErrTokenNotFound) {
			return fmt.Errorf("%w: you have no token %q that works", ErrTokenNotFound, id)
		}
		return err
	}
	return nil
}

// RevokeSecret revokes the scoped token whose secret is token (RFC 7009):
// a token nobody holds, one already revoked, or a player's own token is
// left as it is, without an error.
func (s *Service) RevokeSecret(ctx context.Context, token string) error {
	ts := s.tokens()
	if ts == nil || !IsScopedToken(token) {
		return nil
	}
	t, err := ts.TokenByHash(ctx, TokenHash(token))
	if errors.Is(err, ErrTokenNotFound) || err == nil && !t.RevokedAt.IsZero() {
		return nil
	}
	if err != nil {
		return err
	}
	if err := ts.RevokeToken(ctx, t.PlayerID, t.ID, s.clock()); err != nil && !errors.Is(err, ErrTokenNotFound) {
		return err
	}
	return nil
}

// CodeRequest is an app's request for a player's approval (the
// parameters of /oauth/authorize).
type CodeRequest struct {
	ClientID    string
	RedirectURI string
	Scopes      []Scope
	Challenge   string
	Method      string // S256 only
}

// IssueCode records the approval of r by the player whose own token is
// token and returns the authorization code for the app's redirect, with
// its secret.
func (s *Service) IssueCode(ctx context.Context, token string, r CodeRequest) (Code, string, error) {
	if err := CheckClient(r.ClientID, r.RedirectURI); err != nil {
		return Code{}, "", err
	}
	if r.Method != "S256" {
		return Code{}, "", fmt.Errorf("%w: code_challenge_method %q: this server takes S256 only", ErrInvalidAuthorization, r.Method)
	}
	if b, err := base64.RawURLEncoding.DecodeString(r.Challenge); err != nil || len(b) != sha256.Size {
		return Code{}, "", fmt.Errorf("%w: code_challenge is not the unpadded base64url of a SHA-256", ErrInvalidAuthorization)
	}
	scopes, err := checkScopes(r.Scopes)
	if err != nil {
		return Code{}, "", err
	}
	ts := s.tokens()
	if ts == nil {
		return Code{}, "", fmt.Errorf("%w: this server keeps no scoped tokens", ErrInvalidAuthorization)
	}
	p, err := s.own(ctx, token)
	if err != nil {
		return Code{}, "", err
	}
	secret, hash := newSecret(codePrefix)
	now := s.clock()
	c := Code{ID: newID(), Hash: hash, PlayerID: p.ID, ClientID: r.ClientID, RedirectURI: r.RedirectURI,
		Scopes: scopes, Challenge: r.Challenge, CreatedAt: now, ExpiresAt: now.Add(CodeLifetime)}
	if err := ts.CreateCode(ctx, c); err != nil {
		return Code{}, "", err
	}
	return c, secret, nil
}

// Exchange trades an authorization code for an access token (RFC 6749
// 4.1.3 with RFC 7636's verifier). A code works once: used again, it
// revokes the tokens it gave (OAuth 2.1 4.1.2) and is ErrCodeReused.
func (s *Service) Exchange(ctx context.Context, code, clientID, redirectURI, verifier string) (Token, string, error) {
	ts := s.tokens()
	if ts == nil || !strings.HasPrefix(code, codePrefix) {
		return Token{}, "", ErrCodeUnknown
	}
	now := s.clock()
	c, err := ts.UseCode(ctx, TokenHash(code), now)
	if err != nil {
		return Token{}, "", err
	}
	if !c.UsedAt.IsZero() {
		if err := ts.RevokeGrant(ctx, c.ID, now); err != nil {
			return Token{}, "", err
		}
		return Token{}, "", fmt.Errorf("%w at %s: the tokens it gave are revoked", ErrCodeReused, c.UsedAt.Format(time.RFC3339))
	}
	sum := sha256.Sum256([]byte(verifier))
	switch {
	case !now.Before(c.ExpiresAt):
		return Token{}, "", fmt.Errorf("%w at %s", ErrCodeExpired, c.ExpiresAt.Format(time.RFC3339))
	case clientID != c.ClientID:
		return Token{}, "", ErrClientMismatch
	case redirectURI != c.RedirectURI:
		return Token{}, "", ErrRedirectMismatch
	case !validVerifier(verifier) ||
		subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(c.Challenge)) != 1:
		return Token{}, "", ErrVerifierMismatch
	}
	secret, hash := newSecret(oauthPrefix)
	t := Token{ID: newID(), PlayerID: c.PlayerID, Hash: hash, Description: c.ClientID, Scopes: c.Scopes,
		ClientID: c.ClientID, GrantID: c.ID, CreatedAt: now, ExpiresAt: now.Add(AccessLifetime)}
	if err := ts.CreateToken(ctx, t); err != nil {
		if errors.Is(err, ErrNotFound) {
			return Token{}, "", fmt.Errorf("%w: the player was deleted", ErrCodeUnknown)
		}
		return Token{}, "", err
	}
	return t, secret, nil
}

// CheckClient validates an app's client_id and redirect_uri. Apps are not
// registered: a client_id is any name of 1 to MaxClientIDRunes printable
// characters, shown to the player, and the redirect_uri an absolute https
// URL without a fragment (http for a loopback host, for apps under
// development), whose host the approval page shows.
func CheckClient(clientID, redirectURI string) error {
	if n := utf8.RuneCountInString(clientID); n == 0 || n > MaxClientIDRunes || !utf8.ValidString(clientID) ||
		strings.ContainsFunc(clientID, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Errorf("%w: client_id must be 1 to %d printable characters", ErrInvalidAuthorization, MaxClientIDRunes)
	}
	u, err := url.Parse(redirectURI)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%w: redirect_uri must be an absolute URL without a fragment", ErrInvalidAuthorization)
	}
	loopback := u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback) {
		return fmt.Errorf("%w: redirect_uri must be https (http only for localhost)", ErrInvalidAuthorization)
	}
	return nil
}

// ParseScopes reads a space-separated list of scopes (OAuth's scope
// parameter), refusing any unknown one.
func ParseScopes(s string) ([]Scope, error) {
	var out []Scope
	for _, f := range strings.Fields(s) {
		out = append(out, Scope(f))
	}
	return checkScopes(out)
}

// checkScopes returns scopes sorted in AllScopes' order without repeats,
// refusing an unknown one or none.
func checkScopes(scopes []Scope) ([]Scope, error) {
	if len(scopes) == 0 {
		return nil, fmt.Errorf("%w: name at least one scope", ErrInvalidScope)
	}
	for _, sc := range scopes {
		if !sc.Valid() {
			return nil, fmt.Errorf("%w: %q is no scope of this server's", ErrInvalidScope, sc)
		}
	}
	var out []Scope
	for _, sc := range AllScopes {
		if slices.Contains(scopes, sc) {
			out = append(out, sc)
		}
	}
	return out, nil
}

// FormatScopes writes scopes as OAuth's scope parameter does.
func FormatScopes(scopes []Scope) string {
	parts := make([]string, len(scopes))
	for i, sc := range scopes {
		parts[i] = string(sc)
	}
	return strings.Join(parts, " ")
}

// validVerifier reports whether v is a PKCE code_verifier: 43 to 128
// unreserved characters (RFC 7636 4.1).
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	return !strings.ContainsFunc(v, func(r rune) bool {
		return !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r))
	})
}

// newSecret returns a secret of 256 random bits with prefix, and its hash.
func newSecret(prefix string) (string, []byte) {
	var b [32]byte
	_, _ = rand.Read(b[:])
	secret := prefix + base64.RawURLEncoding.EncodeToString(b[:])
	return secret, TokenHash(secret)
}
