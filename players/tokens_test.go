package players_test

import (
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

// clock is a settable clock for the service.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// tokenFixture is a service over a memory store with one player, and its
// own token.
func tokenFixture(t *testing.T) (*players.Service, *clock, players.Player, string) {
	t.Helper()
	clk := &clock{t: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	svc := players.NewService(memory.New(), clk.now)
	p, token, err := svc.Create(t.Context(), "Adé")
	if err != nil {
		t.Fatal(err)
	}
	return svc, clk, p, token
}

func TestScopedTokenAccess(t *testing.T) {
	svc, clk, p, own := tokenFixture(t)
	ctx := t.Context()
	play, playSecret, err := svc.CreateToken(ctx, own, players.TokenRequest{Description: "my bot",
		Scopes: []players.Scope{players.ScopeLobbyWrite, players.ScopeGamePlay, players.ScopeGamePlay}, ExpiresAt: clk.t.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if want := []players.Scope{players.ScopeGamePlay, players.ScopeLobbyWrite}; !slices.Equal(play.Scopes, want) {
		t.Errorf("scopes %v, want %v (sorted, once each)", play.Scopes, want)
	}
	if !strings.HasPrefix(playSecret, "pat_") || !players.IsScopedToken(playSecret) || players.IsScopedToken(own) {
		t.Errorf("secret %q: want a pat_ scoped token, the player's own not scoped", playSecret)
	}
	revoked, revokedSecret, err := svc.CreateToken(ctx, own, players.TokenRequest{Scopes: []players.Scope{players.ScopeProfileWrite}})
	if err != nil {
		t.Fatal(err)
	}
	list, err := svc.Tokens(ctx, own)
	if err != nil || len(list) != 2 {
		t.Fatalf("Tokens: %v, %v; want 2", list, err)
	}
	// Both made at one instant: the list's order between them is their
	// ids', so the one to revoke is named by its own.
	if err := svc.RevokeToken(ctx, own, revoked.ID); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name  string
		token string
		need  players.Scope
		want  error
	}{
		{"own token, any scope", own, players.ScopeTournamentWrite, nil},
		{"own token, own-only", own, "", nil},
		{"scoped, its scope", playSecret, players.ScopeGamePlay, nil},
		{"scoped, another scope", playSecret, players.ScopePuzzleWrite, players.ErrMissingScope},
		{"scoped, own-only", playSecret, "", players.ErrOwnTokenRequired},
		{"revoked", revokedSecret, players.ScopeProfileWrite, players.ErrTokenRevoked},
		{"unknown scoped", "pat_nobodyholdsthis", players.ScopeGamePlay, players.ErrUnauthorized},
		{"empty", "", players.ScopeGamePlay, players.ErrUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := svc.Authorize(ctx, c.token, c.need)
			if !errors.Is(err, c.want) {
				t.Fatalf("Authorize: %v, want %v", err, c.want)
			}
			if err == nil && got.ID != p.ID {
				t.Errorf("player %s, want %s", got.ID, p.ID)
			}
			if ms, ok := errors.AsType[*players.MissingScopeError](err); ok && ms.Scope != c.need {
				t.Errorf("missing scope %s, want %s", ms.Scope, c.need)
			}
		})
	}

	t.Run("expires at its time", func(t *testing.T) {
		clk.advance(time.Hour - time.Microsecond)
		if _, err := svc.Authorize(ctx, playSecret, players.ScopeGamePlay); err != nil {
			t.Fatalf("a microsecond before expiry: %v", err)
		}
		clk.advance(time.Microsecond)
		if _, err := svc.Authorize(ctx, playSecret, players.ScopeGamePlay); !errors.Is(err, players.ErrTokenExpired) {
			t.Fatalf("at expiry: %v, want ErrTokenExpired", err)
		}
		if list, err := svc.Tokens(ctx, own); err != nil || len(list) != 0 {
			t.Errorf("Tokens after expiry: %v, %v; want none", list, err)
		}
	})
}

func TestScopedTokenRefusals(t *testing.T) {
	svc, clk, _, own := tokenFixture(t)
	ctx := t.Context()
	_, scoped, err := svc.CreateToken(ctx, own, players.TokenRequest{Scopes: players.AllScopes})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		token string
		req   players.TokenRequest
		want  error
	}{
		{"no scope", own, players.TokenRequest{}, players.ErrInvalidScope},
		{"unknown scope", own, players.TokenRequest{Scopes: []players.Scope{"game:watch"}}, players.ErrInvalidScope},
		{"expiry passed", own, players.TokenRequest{Scopes: players.AllScopes, ExpiresAt: clk.t}, players.ErrInvalidTokenRequest},
		{"description too long", own, players.TokenRequest{Scopes: players.AllScopes, Description: strings.Repeat("d", 101)}, players.ErrInvalidTokenRequest},
		{"a scoped token makes none", scoped, players.TokenRequest{Scopes: []players.Scope{players.ScopeGamePlay}}, players.ErrOwnTokenRequired},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := svc.CreateToken(ctx, c.token, c.req); !errors.Is(err, c.want) {
				t.Fatalf("CreateToken: %v, want %v", err, c.want)
			}
		})
	}
	t.Run("a scoped token rotates nothing", func(t *testing.T) {
		a, err := svc.Access(ctx, scoped)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.RotateToken(ctx, a.Player.ID, scoped); !errors.Is(err, players.ErrOwnTokenRequired) {
			t.Fatalf("RotateToken with a scoped token: %v, want ErrOwnTokenRequired", err)
		}
	})
	t.Run("revoke another's or unknown", func(t *testing.T) {
		if err := svc.RevokeToken(ctx, own, "nope"); !errors.Is(err, players.ErrTokenNotFound) {
			t.Fatalf("RevokeToken: %v, want ErrTokenNotFound", err)
		}
	})
	t.Run("revoke by secret", func(t *testing.T) {
		for _, tok := range []string{"pat_unknown", own, scoped, scoped} {
			if err := svc.RevokeSecret(ctx, tok); err != nil {
				t.Fatalf("RevokeSecret: %v", err)
			}
		}
		if _, err := svc.Access(ctx, scoped); !errors.Is(err, players.ErrTokenRevoked) {
			t.Errorf("after RevokeSecret: %v, want ErrTokenRevoked", err)
		}
		if _, err := svc.Access(ctx, own); err != nil {
			t.Errorf("the own token after RevokeSecret of it: %v, want it working", err)
		}
	})
}

// challengeOf is the S256 challenge of verifier.
func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func TestAuthorizationCode(t *testing.T) {
	const (
		client   = "Ayo Deck"
		redirect = "https://deck.example/callback"
		verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-and-some-more"
	)
	request := players.CodeRequest{ClientID: client, RedirectURI: redirect,
		Scopes: []players.Scope{players.ScopeGamePlay}, Challenge: challengeOf(verifier), Method: "S256"}

	t.Run("issue refusals", func(t *testing.T) {
		svc, _, _, own := tokenFixture(t)
		_, scoped, err := svc.CreateToken(t.Context(), own, players.TokenRequest{Scopes: players.AllScopes})
		if err != nil {
			t.Fatal(err)
		}
		change := func(f func(r *players.CodeRequest)) players.CodeRequest { r := request; f(&r); return r }
		for _, c := range []struct {
			name  string
			token string
			req   players.CodeRequest
			want  error
		}{
			{"plain method", own, change(func(r *players.CodeRequest) { r.Method = "plain" }), players.ErrInvalidAuthorization},
			{"short challenge", own, change(func(r *players.CodeRequest) { r.Challenge = "abc" }), players.ErrInvalidAuthorization},
			{"http redirect", own, change(func(r *players.CodeRequest) { r.RedirectURI = "http://deck.example/cb" }), players.ErrInvalidAuthorization},
			{"relative redirect", own, change(func(r *players.CodeRequest) { r.RedirectURI = "/cb" }), players.ErrInvalidAuthorization},
			{"fragment", own, change(func(r *players.CodeRequest) { r.RedirectURI = redirect + "#x" }), players.ErrInvalidAuthorization},
			{"no client", own, change(func(r *players.CodeRequest) { r.ClientID = "" }), players.ErrInvalidAuthorization},
			{"unknown scope", own, change(func(r *players.CodeRequest) { r.Scopes = []players.Scope{"admin"} }), players.ErrInvalidScope},
			{"scoped token approves nothing", scoped, request, players.ErrOwnTokenRequired},
		} {
			t.Run(c.name, func(t *testing.T) {
				if _, _, err := svc.IssueCode(t.Context(), c.token, c.req); !errors.Is(err, c.want) {
					t.Fatalf("IssueCode: %v, want %v", err, c.want)
				}
			})
		}
		if _, _, err := svc.IssueCode(t.Context(), own, change(func(r *players.CodeRequest) { r.RedirectURI = "http://127.0.0.1:8765/cb" })); err != nil {
			t.Errorf("a loopback http redirect: %v", err)
		}
	})

	for _, c := range []struct {
		name                       string
		client, redirect, verifier string
		wait                       time.Duration
		want                       error
	}{
		{name: "wrong verifier", client: client, redirect: redirect, verifier: verifier + "x", want: players.ErrVerifierMismatch},
		{name: "short verifier", client: client, redirect: redirect, verifier: "abc", want: players.ErrVerifierMismatch},
		{name: "other redirect", client: client, redirect: redirect + "/x", verifier: verifier, want: players.ErrRedirectMismatch},
		{name: "other client", client: "Other", redirect: redirect, verifier: verifier, want: players.ErrClientMismatch},
		{name: "expired", client: client, redirect: redirect, verifier: verifier, wait: players.CodeLifetime, want: players.ErrCodeExpired},
		{name: "just in time", client: client, redirect: redirect, verifier: verifier, wait: players.CodeLifetime - time.Microsecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			svc, clk, p, own := tokenFixture(t)
			_, code, err := svc.IssueCode(t.Context(), own, request)
			if err != nil {
				t.Fatal(err)
			}
			clk.advance(c.wait)
			tok, secret, err := svc.Exchange(t.Context(), code, c.client, c.redirect, c.verifier)
			if !errors.Is(err, c.want) {
				t.Fatalf("Exchange: %v, want %v", err, c.want)
			}
			if err != nil {
				return
			}
			if !strings.HasPrefix(secret, "oat_") || tok.ClientID != client || !tok.ExpiresAt.Equal(clk.t.Add(players.AccessLifetime)) {
				t.Errorf("token %+v (%q): want an oat_ token of %s expiring after %v", tok, secret, client, players.AccessLifetime)
			}
			got, err := svc.Authorize(t.Context(), secret, players.ScopeGamePlay)
			if err != nil || got.ID != p.ID {
				t.Fatalf("the access token: %v, %v", got.ID, err)
			}
			if _, err := svc.Authorize(t.Context(), secret, players.ScopeLobbyWrite); !errors.Is(err, players.ErrMissingScope) {
				t.Errorf("a scope not granted: %v, want ErrMissingScope", err)
			}
		})
	}

	t.Run("reused code revokes its token", func(t *testing.T) {
		svc, _, _, own := tokenFixture(t)
		_, code, err := svc.IssueCode(t.Context(), own, request)
		if err != nil {
			t.Fatal(err)
		}
		_, secret, err := svc.Exchange(t.Context(), code, client, redirect, verifier)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.Exchange(t.Context(), code, client, redirect, verifier); !errors.Is(err, players.ErrCodeReused) {
			t.Fatalf("second exchange: %v, want ErrCodeReused", err)
		}
		if _, err := svc.Access(t.Context(), secret); !errors.Is(err, players.ErrTokenRevoked) {
			t.Errorf("the first exchange's token: %v, want ErrTokenRevoked", err)
		}
	})
	t.Run("a failed exchange uses the code up", func(t *testing.T) {
		svc, _, _, own := tokenFixture(t)
		_, code, err := svc.IssueCode(t.Context(), own, request)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.Exchange(t.Context(), code, client, redirect, "wrong-verifier-wrong-verifier-wrong-verifier"); !errors.Is(err, players.ErrVerifierMismatch) {
			t.Fatalf("first exchange: %v, want ErrVerifierMismatch", err)
		}
		if _, _, err := svc.Exchange(t.Context(), code, client, redirect, verifier); !errors.Is(err, players.ErrCodeReused) {
			t.Fatalf("second exchange: %v, want ErrCodeReused", err)
		}
	})
	t.Run("unknown code", func(t *testing.T) {
		svc, _, _, _ := tokenFixture(t)
		for _, code := range []string{"", "ac_nope", "pl_nope"} {
			if _, _, err := svc.Exchange(t.Context(), code, client, redirect, verifier); !errors.Is(err, players.ErrCodeUnknown) {
				t.Errorf("Exchange(%q): %v, want ErrCodeUnknown", code, err)
			}
		}
	})
}

func TestParseScopes(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []players.Scope
		err      error
	}{
		{"one", "game:play", []players.Scope{players.ScopeGamePlay}, nil},
		{"sorted and once", "puzzle:write  game:play puzzle:write", []players.Scope{players.ScopeGamePlay, players.ScopePuzzleWrite}, nil},
		{"empty", " ", nil, players.ErrInvalidScope},
		{"unknown", "game:play admin", nil, players.ErrInvalidScope},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := players.ParseScopes(c.in)
			if !errors.Is(err, c.err) || !slices.Equal(got, c.want) {
				t.Fatalf("ParseScopes(%q) = %v, %v; want %v, %v", c.in, got, err, c.want, c.err)
			}
		})
	}
}
