package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/players"
)

// The cases of scoped tokens and authorization codes (players.TokenStore).
var tokenCases = []suiteCase{
	{"tokens/create and read", testCreateToken},
	{"tokens/list", testPlayerTokens},
	{"tokens/revoke", testRevokeToken},
	{"tokens/revoke grant", testRevokeGrant},
	{"tokens/go with their player", testTokensOfDeletedPlayer},
	{"tokens/code used once", testUseCode},
	{"tokens/code use race", testUseCodeRace},
}

// newToken is token id of player as the suite stores it.
func newToken(player, id string, at int) players.Token {
	return players.Token{ID: id, PlayerID: player, Hash: hashOf("token " + id), Description: "Bọ́ọ̀tì " + id,
		Scopes: []players.Scope{players.ScopeGamePlay, players.ScopeLobbyWrite}, CreatedAt: tick(at)}
}

func mustCreateToken(t *testing.T, s Store, tok players.Token) {
	t.Helper()
	if err := s.CreateToken(t.Context(), tok); err != nil {
		t.Fatalf("create token %s: %v", tok.ID, err)
	}
}

// sameTokens compares tokens field by field, times by instant.
func sameTokens(t *testing.T, got, want []players.Token) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d tokens, want %d: %+v", len(got), len(want), got)
	}
	for i := range got {
		g, w := got[i], want[i]
		for _, tm := range []struct {
			name string
			g, w time.Time
		}{{"created", g.CreatedAt, w.CreatedAt}, {"expires", g.ExpiresAt, w.ExpiresAt}, {"revoked", g.RevokedAt, w.RevokedAt}} {
			if !tm.g.Equal(tm.w) {
				t.Errorf("token %s: %s at %v, want %v", w.ID, tm.name, tm.g, tm.w)
			}
		}
		g.CreatedAt, g.ExpiresAt, g.RevokedAt = w.CreatedAt, w.ExpiresAt, w.RevokedAt
		if !reflect.DeepEqual(g, w) {
			t.Errorf("token %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func testCreateToken(t *testing.T, s Store, _ *fixtures) {
	mustCreatePlayer(t, s, "ada")
	plain := newToken("ada", "tok-plain", 1)
	oauth := newToken("ada", "tok-oauth", 2)
	oauth.Scopes = []players.Scope{players.ScopeTournamentWrite}
	oauth.ClientID, oauth.GrantID, oauth.ExpiresAt = "https://app.example/", "grant-1", tick(50)
	mustCreateToken(t, s, plain)
	mustCreateToken(t, s, oauth)
	for _, want := range []players.Token{plain, oauth} {
		t.Run(want.ID, func(t *testing.T) {
			got, err := s.TokenByHash(t.Context(), want.Hash)
			if err != nil {
				t.Fatal(err)
			}
			sameTokens(t, []players.Token{got}, []players.Token{want})
		})
	}
	refusals := []struct {
		name string
		tok  players.Token
		want error
	}{
		{"id taken", func() players.Token { c := newToken("ada", "tok-plain", 3); c.Hash = hashOf("other"); return c }(), players.ErrConflict},
		{"hash taken", func() players.Token { c := newToken("ada", "tok-new", 3); c.Hash = plain.Hash; return c }(), players.ErrConflict},
		{"unknown player", newToken("nobody", "tok-x", 3), players.ErrNotFound},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			if err := s.CreateToken(t.Context(), r.tok); !errors.Is(err, r.want) {
				t.Fatalf("CreateToken: %v, want %v", err, r.want)
			}
		})
	}
	if _, err := s.TokenByHash(t.Context(), hashOf("never made")); !errors.Is(err, players.ErrTokenNotFound) {
		t.Errorf("unknown hash: %v, want ErrTokenNotFound", err)
	}
}

func testPlayerTokens(t *testing.T, s Store, _ *fixtures) {
	mustCreatePlayer(t, s, "ada")
	mustCreatePlayer(t, s, "bo")
	b, a, c := newToken("ada", "tok-b", 1), newToken("ada", "tok-a", 1), newToken("ada", "tok-c", 0)
	for _, tok := range []players.Token{b, a, c, newToken("bo", "tok-bo", 0)} {
		mustCreateToken(t, s, tok)
	}
	got, err := s.PlayerTokens(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	sameTokens(t, got, []players.Token{c, a, b}) // by time, then id
	if err := s.RevokeToken(t.Context(), "ada", "tok-a", tick(5)); err != nil {
		t.Fatal(err)
	}
	got, err = s.PlayerTokens(t.Context(), "ada")
	if err != nil {
		t.Fatal(err)
	}
	sameTokens(t, got, []players.Token{c, b})
	if got, err := s.PlayerTokens(t.Context(), "nobody"); err != nil || len(got) != 0 {
		t.Errorf("an unknown player's tokens: %v, %v; want none", got, err)
	}
}

func testRevokeToken(t *testing.T, s Store, _ *fixtures) {
	mustCreatePlayer(t, s, "ada")
	mustCreatePlayer(t, s, "bo")
	tok := newToken("ada", "tok-1", 1)
	mustCreateToken(t, s, tok)
	steps := []struct {
		name          string
		player, id    string
		want          error
		wantRevokedAt time.Time
	}{
		{name: "another player's", player: "bo", id: "tok-1", want: players.ErrTokenNotFound},
		{name: "unknown id", player: "ada", id: "tok-9", want: players.ErrTokenNotFound},
		{name: "its player's", player: "ada", id: "tok-1", wantRevokedAt: tick(7)},
		{name: "again", player: "ada", id: "tok-1", want: players.ErrTokenNotFound, wantRevokedAt: tick(7)},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			err := s.RevokeToken(t.Context(), st.player, st.id, tick(7))
			if !errors.Is(err, st.want) {
				t.Fatalf("RevokeToken: %v, want %v", err, st.want)
			}
			got, err := s.TokenByHash(t.Context(), tok.Hash)
			if err != nil {
				t.Fatal(err)
			}
			if !got.RevokedAt.Equal(st.wantRevokedAt) {
				t.Errorf("revoked at %v, want %v", got.RevokedAt, st.wantRevokedAt)
			}
		})
	}
}

func testRevokeGrant(t *testing.T, s Store, _ *fixtures) {
	mustCreatePlayer(t, s, "ada")
	g1, g2, other := newToken("ada", "tok-1", 1), newToken("ada", "tok-2", 2), newToken("ada", "tok-3", 3)
	g1.GrantID, g2.GrantID, other.GrantID = "grant-1", "grant-1", "grant-2"
	for _, tok := range []players.Token{g1, g2, other, newToken("ada", "tok-4", 4)} {
		mustCreateToken(t, s, tok)
	}
	if err := s.RevokeGrant(t.Context(), "grant-1", tick(9)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeGrant(t.Context(), "grant-none", tick(9)); err != nil {
		t.Errorf("a grant with no tokens: %v", err)
	}
	for _, c := range []struct {
		tok     players.Token
		revoked bool
	}{{g1, true}, {g2, true}, {other, false}} {
		t.Run(c.tok.ID, func(t *testing.T) {
			got, err := s.TokenByHash(t.Context(), c.tok.Hash)
			if err != nil {
				t.Fatal(err)
			}
			if got.RevokedAt.IsZero() == c.revoked {
				t.Errorf("revoked at %v, want revoked %v", got.RevokedAt, c.revoked)
			}
		})
	}
}

func testTokensOfDeletedPlayer(t *testing.T, s Store, _ *fixtures) {
	mustCreatePlayer(t, s, "ada")
	tok := newToken("ada", "tok-1", 1)
	mustCreateToken(t, s, tok)
	c := newCode("ada", "code-1")
	if err := s.CreateCode(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	if err := s.DeletePlayer(t.Context(), "ada"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TokenByHash(t.Context(), tok.Hash); !errors.Is(err, players.ErrTokenNotFound) {
		t.Errorf("a deleted player's token: %v, want ErrTokenNotFound", err)
	}
	if _, err := s.UseCode(t.Context(), c.Hash, tick(3)); !errors.Is(err, players.ErrCodeUnknown) {
		t.Errorf("a deleted player's code: %v, want ErrCodeUnknown", err)
	}
}

func newCode(player, id string) players.Code {
	return players.Code{ID: id, Hash: hashOf("code " + id), PlayerID: player, ClientID: "Ayo Deck",
		RedirectURI: "https://app.example/cb?x=1", Scopes: []players.Scope{players.ScopeGamePlay},
		Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", CreatedAt: tick(1), ExpiresAt: tick(3)}
}

func testUseCode(t *testing.T, s Store, _ *fixtures) {
	mustCreatePlayer(t, s, "ada")
	c := newCode("ada", "code-1")
	if err := s.CreateCode(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		name string
		c    players.Code
		want error
	}{
		{"id taken", func() players.Code { d := newCode("ada", "code-1"); d.Hash = hashOf("x"); return d }(), players.ErrConflict},
		{"unknown player", newCode("nobody", "code-2"), players.ErrNotFound},
	} {
		t.Run(r.name, func(t *testing.T) {
			if err := s.CreateCode(t.Context(), r.c); !errors.Is(err, r.want) {
				t.Fatalf("CreateCode: %v, want %v", err, r.want)
			}
		})
	}
	first, err := s.UseCode(t.Context(), c.Hash, tick(2))
	if err != nil {
		t.Fatal(err)
	}
	if !first.UsedAt.IsZero() || !first.CreatedAt.Equal(c.CreatedAt) || !first.ExpiresAt.Equal(c.ExpiresAt) {
		t.Errorf("first use: %+v, want unused, created %v, expiring %v", first, c.CreatedAt, c.ExpiresAt)
	}
	first.CreatedAt, first.ExpiresAt = c.CreatedAt, c.ExpiresAt
	if !reflect.DeepEqual(first, c) {
		t.Errorf("first use:\n got %+v\nwant %+v", first, c)
	}
	second, err := s.UseCode(t.Context(), c.Hash, tick(4))
	if err != nil {
		t.Fatal(err)
	}
	if !second.UsedAt.Equal(tick(2)) {
		t.Errorf("second use: used at %v, want the first use's %v", second.UsedAt, tick(2))
	}
	if _, err := s.UseCode(t.Context(), hashOf("never"), tick(4)); !errors.Is(err, players.ErrCodeUnknown) {
		t.Errorf("unknown code: %v, want ErrCodeUnknown", err)
	}
}

func testUseCodeRace(t *testing.T, s Store, fx *fixtures) {
	mustCreatePlayer(t, s, "ada")
	c := newCode("ada", "code-1")
	if err := s.CreateCode(t.Context(), c); err != nil {
		t.Fatal(err)
	}
	handles := []Store{s}
	if fx.again != nil {
		handles = append(handles, fx.again(t, s))
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		firsts int
	)
	for i := range racers {
		wg.Go(func() {
			got, err := handles[i%len(handles)].UseCode(t.Context(), c.Hash, tick(2))
			if err != nil {
				t.Error(err)
				return
			}
			if got.UsedAt.IsZero() {
				mu.Lock()
				firsts++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firsts != 1 {
		t.Errorf("%d of %d racers used the code first, want 1", firsts, racers)
	}
}
