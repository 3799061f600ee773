package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"golang.org/x/oauth2"

	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/web"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/players"
)

// ownTokenOnly are the operations that take a player's own token and no
// scoped one: a scoped token could otherwise widen what it was given.
var ownTokenOnly = []string{"RotatePlayerToken", "CreateToken", "ListTokens", "RevokeToken", "ApproveAuthorization", "BecomeBot"}

// Every operation that takes a player names its scope, one of the
// players package's, or is one of ownTokenOnly; the oauth2 scheme
// describes exactly the scopes there are, and its URLs are the server's.
func TestScopeDeclarations(t *testing.T) {
	spec := loadSpecFile(t)
	scheme := spec.Components.SecuritySchemes[oauth2Scheme].Value
	flow := scheme.Flows.AuthorizationCode
	if flow.AuthorizationURL != oauthAuthorizePath || flow.TokenURL != oauthTokenPath {
		t.Errorf("the oauth2 flow's URLs %s, %s; want %s, %s", flow.AuthorizationURL, flow.TokenURL, oauthAuthorizePath, oauthTokenPath)
	}
	if !slices.Contains(web.Routes, oauthAuthorizePath) {
		t.Errorf("the browser client serves no page at %s", oauthAuthorizePath)
	}
	var declared []string
	for _, sc := range slices.Sorted(maps.Keys(flow.Scopes)) {
		declared = append(declared, sc)
	}
	var want []string
	for _, sc := range players.AllScopes {
		want = append(want, string(sc))
	}
	slices.Sort(want)
	if !slices.Equal(declared, want) {
		t.Errorf("the oauth2 scheme's scopes %v, want players.AllScopes %v", declared, want)
	}
	// Each oauth2 requirement names one scope: needs reads one.
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security == nil {
				continue
			}
			for _, req := range *op.Security {
				if scopes, ok := req[oauth2Scheme]; ok && len(scopes) != 1 {
					t.Errorf("%s %s: an oauth2 requirement of %d scopes, want one", method, path, len(scopes))
				}
			}
		}
	}
	for name, n := range needs(spec) {
		t.Run(name, func(t *testing.T) {
			switch {
			case n.scope != "" && !n.scope.Valid():
				t.Errorf("scope %q is no scope of the players package's", n.scope)
			case n.player && n.scope == "" && !slices.Contains(ownTokenOnly, name):
				t.Errorf("takes a player token but names no oauth2 scope")
			case n.scope != "" && slices.Contains(ownTokenOnly, name):
				t.Errorf("names scope %s but only the player's own token may call it", n.scope)
			}
		})
	}
}

// scopeCase is a request of an operation made from the document's
// examples: its parameters' and its body's.
type scopeCase struct {
	name, method, path string
	body               []byte
	scope              players.Scope
}

// scopeCases are the operations that take a player, each as a request
// built from its examples.
func scopeCases(t *testing.T, spec *openapi3.T) []scopeCase {
	t.Helper()
	ns := needs(spec)
	var out []scopeCase
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			n := ns[op.OperationID]
			if !n.player {
				continue
			}
			c := scopeCase{name: op.OperationID, method: method, scope: n.scope}
			q := url.Values{}
			for _, p := range op.Parameters {
				v := p.Value.Example
				if v == nil && p.Value.Schema != nil {
					v = p.Value.Schema.Value.Example
				}
				switch {
				case p.Value.In == openapi3.ParameterInPath:
					if v == nil {
						t.Fatalf("%s: no example of path parameter %s", op.OperationID, p.Value.Name)
					}
					path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", url.PathEscape(toString(v)))
				case p.Value.In == openapi3.ParameterInQuery && p.Value.Required:
					q.Set(p.Value.Name, toString(v))
				}
			}
			c.path = path
			if len(q) > 0 {
				c.path += "?" + q.Encode()
			}
			if rb := op.RequestBody; rb != nil {
				if m := rb.Value.Content.Get("application/json"); m != nil && (m.Example != nil || len(m.Examples) > 0) {
					ex := m.Example
					if ex == nil {
						ex = m.Examples[slices.Sorted(maps.Keys(m.Examples))[0]].Value.Value
					}
					b, err := json.Marshal(ex)
					if err != nil {
						t.Fatal(err)
					}
					c.body = b
				}
			}
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b scopeCase) int { return strings.Compare(a.name, b.name) })
	return out
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// scopedToken makes a scoped token of the player whose own token is own.
func (gs *gamesServer) scopedToken(own string, scopes ...players.Scope) string {
	gs.t.Helper()
	body := map[string]any{"scopes": scopes, "description": "test"}
	a := gs.must(http.MethodPost, "/v1/tokens", "", body, asPlayer(own))
	gs.expect(a, http.StatusCreated, "")
	var c oapi.CreatedToken
	a.decode(gs.t, &c)
	return c.Secret
}

// sendRaw sends one request with header and answers its status and, for
// a problem, its code and scope member; an event stream is closed once
// its headers are in. Every other answer is checked against the document.
func (gs *gamesServer) sendRaw(t *testing.T, method, path string, body []byte, header http.Header) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, gs.ts.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header.Clone()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := gs.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, "", ""
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	a := answer{status: resp.StatusCode, header: resp.Header, body: data}
	if err := gs.conforms(req, a); err != nil {
		t.Error(err)
	}
	var p struct{ Code, Scope string }
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
		a.decode(t, &p)
	}
	return resp.StatusCode, p.Code, p.Scope
}

// Every operation that declares a scope, over openapi.yaml: a scoped
// token without it gets 403 missing_scope naming it, and one with only
// it does not, whether it is sent as Player-Token or as a bearer token;
// the operations only the player's own token may call refuse any scoped
// one with 403 player_token_required.
func TestScopeTable(t *testing.T) {
	ts := newTournamentServer(t, gamestest.NewClock())
	_, own := ts.newPlayer("Scopes")
	cases := scopeCases(t, loadSpecFile(t))
	tokens := map[players.Scope]struct{ with, without string }{}
	for _, sc := range players.AllScopes {
		others := slices.DeleteFunc(slices.Clone(players.AllScopes), func(o players.Scope) bool { return o == sc })
		tokens[sc] = struct{ with, without string }{ts.scopedToken(own, sc), ts.scopedToken(own, others...)}
	}
	every := ts.scopedToken(own, players.AllScopes...)
	sends := map[string]func(token string) http.Header{
		"Player-Token": func(token string) http.Header { return http.Header{PlayerTokenHeader: {token}} },
		"Bearer":       func(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} },
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.name] = true
		for how, header := range sends {
			t.Run(c.name+"/"+how, func(t *testing.T) {
				if c.scope == "" {
					status, code, _ := ts.sendRaw(t, c.method, c.path, c.body, header(every))
					if status != http.StatusForbidden || code != "player_token_required" {
						t.Fatalf("a scoped token with every scope: %d %s, want 403 player_token_required", status, code)
					}
					return
				}
				status, code, scope := ts.sendRaw(t, c.method, c.path, c.body, header(tokens[c.scope].without))
				if status != http.StatusForbidden || code != "missing_scope" || scope != string(c.scope) {
					t.Fatalf("without %s: %d %s (scope %q), want 403 missing_scope naming it", c.scope, status, code, scope)
				}
				if status, code, _ := ts.sendRaw(t, c.method, c.path, c.body, header(tokens[c.scope].with)); code == "missing_scope" ||
					code == "player_token_required" || status == http.StatusUnauthorized {
					t.Fatalf("with %s: %d %s, want it let through", c.scope, status, code)
				}
			})
		}
	}
	for _, name := range []string{"CreateTournament", "JoinTournament", "WithdrawFromTournament", "CreateBulkPairing", "BerserkGame",
		"PlayGameMove", "CreateSeek", "SubmitPuzzleAttempt", "RenamePlayer", "CreateToken"} {
		if !covered[name] {
			t.Errorf("%s is not in the table", name)
		}
	}
}

// A player makes, lists, tests and revokes scoped tokens; an expired or
// revoked one is its own 401; what only the own token may do refuses it.
func TestTokensOverHTTP(t *testing.T) {
	clock := gamestest.NewClock()
	ts := newTournamentServer(t, clock)
	me, own := ts.newPlayer("Tokens")
	expiring := map[string]any{"scopes": []string{"game:play"}, "description": "an hour", "expiresAt": clock.Now().Add(time.Hour)}
	a := ts.must(http.MethodPost, "/v1/tokens", "", expiring, asPlayer(own))
	ts.expect(a, http.StatusCreated, "")
	var short oapi.CreatedToken
	a.decode(t, &short)
	clock.Advance(time.Second) // the list is by time
	if !strings.HasPrefix(short.Secret, "pat_") || short.Token.Kind != oapi.TokenKindPersonal || short.Token.ExpiresAt == nil {
		t.Fatalf("created %+v", short)
	}
	long := ts.scopedToken(own, players.ScopeLobbyWrite, players.ScopeProfileWrite)

	a = ts.must(http.MethodGet, "/v1/tokens", "", nil, asPlayer(own))
	ts.expect(a, http.StatusOK, "")
	var list oapi.TokenList
	a.decode(t, &list)
	if len(list.Tokens) != 2 || list.Tokens[0].Id != short.Token.Id {
		t.Fatalf("list %+v, want the two tokens, oldest first", list)
	}

	test := func(t *testing.T, token string) oapi.TokenTest {
		t.Helper()
		a := ts.must(http.MethodPost, "/v1/tokens/test", "", map[string]string{"token": token}, nil)
		ts.expect(a, http.StatusOK, "")
		var tt oapi.TokenTest
		a.decode(t, &tt)
		return tt
	}
	t.Run("test", func(t *testing.T) {
		for _, c := range []struct {
			name, token string
			kind        oapi.TokenTestKind
			scopes      int
		}{{"own", own, oapi.TokenTestKindPlayer, len(players.AllScopes)}, {"scoped", long, oapi.TokenTestKindPersonal, 2}} {
			t.Run(c.name, func(t *testing.T) {
				tt := test(t, c.token)
				if !tt.Active || *tt.PlayerId != me.Id || *tt.Kind != c.kind || len(*tt.Scopes) != c.scopes {
					t.Fatalf("test: %+v", tt)
				}
			})
		}
		if tt := test(t, "pat_nobody"); tt.Active || *tt.Reason != oapi.TokenTestReasonUnknown {
			t.Errorf("an unknown token: %+v", tt)
		}
	})

	t.Run("own token only", func(t *testing.T) {
		for _, c := range []struct{ method, path string }{
			{http.MethodGet, "/v1/tokens"},
			{http.MethodPost, "/v1/players/" + me.Id + "/token"},
			{http.MethodDelete, "/v1/tokens/" + short.Token.Id},
		} {
			a := ts.must(c.method, c.path, "", nil, asPlayer(long))
			ts.expect(a, http.StatusForbidden, "player_token_required")
		}
	})
	t.Run("scoped rename", func(t *testing.T) {
		a := ts.must(http.MethodPatch, "/v1/players/"+me.Id, "", map[string]string{"name": "Renamed"}, asPlayer(long))
		ts.expect(a, http.StatusOK, "")
	})
	t.Run("expired", func(t *testing.T) {
		clock.Advance(time.Hour)
		a := ts.must(http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "ai", "level": 1}}, asPlayer(short.Secret))
		ts.expect(a, http.StatusUnauthorized, "token_expired")
		if tt := test(t, short.Secret); tt.Active || *tt.Reason != oapi.TokenTestReasonExpired {
			t.Errorf("test of an expired token: %+v", tt)
		}
	})
	t.Run("revoked", func(t *testing.T) {
		var id string
		a := ts.must(http.MethodGet, "/v1/tokens", "", nil, asPlayer(own))
		a.decode(t, &list)
		if len(list.Tokens) != 1 {
			t.Fatalf("list after expiry %+v, want the long one", list)
		}
		id = list.Tokens[0].Id
		ts.expect(ts.must(http.MethodDelete, "/v1/tokens/"+id, "", nil, asPlayer(own)), http.StatusNoContent, "")
		ts.expect(ts.must(http.MethodDelete, "/v1/tokens/"+id, "", nil, asPlayer(own)), http.StatusNotFound, "token_not_found")
		ts.expect(ts.must(http.MethodGet, "/v1/challenges", "", nil, asPlayer(long)), http.StatusUnauthorized, "token_revoked")
		if tt := test(t, long); tt.Active || *tt.Reason != oapi.TokenTestReasonRevoked {
			t.Errorf("test of a revoked token: %+v", tt)
		}
	})
	t.Run("refused requests", func(t *testing.T) {
		for _, c := range []struct {
			name string
			body map[string]any
			code string
		}{
			{"expiry passed", map[string]any{"scopes": []string{"game:play"}, "expiresAt": clock.Now().Add(-time.Second)}, "invalid_token_request"},
			{"unknown scope", map[string]any{"scopes": []string{"game:watch"}}, "invalid_request"},
			{"no scope", map[string]any{"scopes": []string{}}, "invalid_request"},
		} {
			t.Run(c.name, func(t *testing.T) {
				a := ts.must(http.MethodPost, "/v1/tokens", "", c.body, asPlayer(own))
				code, _ := a.problem(t)
				if a.status/100 != 4 || code != c.code {
					t.Fatalf("%d %s, want %s", a.status, code, c.code)
				}
			})
		}
	})
}

// oauthApp is a third-party front end as golang.org/x/oauth2 drives it.
type oauthApp struct {
	conf     oauth2.Config
	verifier string
}

func newOAuthApp(ts *gamesServer, scopes ...players.Scope) *oauthApp {
	conf := oauth2.Config{ClientID: "Ayo Deck", RedirectURL: "https://deck.example/callback",
		Endpoint: oauth2.Endpoint{AuthURL: ts.ts.URL + oauthAuthorizePath, TokenURL: ts.ts.URL + oauthTokenPath, AuthStyle: oauth2.AuthStyleInParams}}
	for _, sc := range scopes {
		conf.Scopes = append(conf.Scopes, string(sc))
	}
	return &oauthApp{conf: conf, verifier: oauth2.GenerateVerifier()}
}

// approve is what the authorization page does for the signed-in player:
// it reads the app's URL and approves what it asks; the answer's redirect
// carries the code and the state back.
func (app *oauthApp) approve(t *testing.T, ts *gamesServer, own string) string {
	t.Helper()
	u, err := url.Parse(app.conf.AuthCodeURL("st4te", oauth2.S256ChallengeOption(app.verifier)))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if u.Path != oauthAuthorizePath || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" {
		t.Fatalf("the library's authorization URL %s", u)
	}
	body := map[string]any{"clientId": q.Get("client_id"), "redirectUri": q.Get("redirect_uri"), "scopes": strings.Fields(q.Get("scope")),
		"state": q.Get("state"), "codeChallenge": q.Get("code_challenge"), "codeChallengeMethod": q.Get("code_challenge_method")}
	a := ts.must(http.MethodPost, "/v1/oauth/authorizations", "", body, asPlayer(own))
	ts.expect(a, http.StatusCreated, "")
	var az oapi.Authorization
	a.decode(t, &az)
	back, err := url.Parse(az.RedirectUri)
	if err != nil {
		t.Fatal(err)
	}
	if back.Host != "deck.example" || back.Query().Get("state") != "st4te" || back.Query().Get("code") != az.Code {
		t.Fatalf("redirect %s, want the app's with the code and the state", back)
	}
	return az.Code
}

// oauthProblem is an exchange's failure as the library reports it: OAuth's
// error and this API's code.
func oauthProblem(t *testing.T, err error) (status int, word, code string) {
	t.Helper()
	re, ok := errors.AsType[*oauth2.RetrieveError](err)
	if !ok {
		t.Fatalf("error %v is no *oauth2.RetrieveError", err)
	}
	var body struct{ Code string }
	if err := json.Unmarshal(re.Body, &body); err != nil {
		t.Fatal(err)
	}
	return re.Response.StatusCode, re.ErrorCode, body.Code
}

// The authorization code flow with PKCE, as golang.org/x/oauth2 drives it:
// the app gets a token with only the scopes the player approved, without
// seeing the player's token, and uses it as a bearer token; the failures
// are each OAuth's error with a code of their own.
func TestOAuthWithLibrary(t *testing.T) {
	clock := gamestest.NewClock()
	ts := newTournamentServer(t, clock)
	me, own := ts.newPlayer("Owner")
	ctx := context.WithValue(t.Context(), oauth2.HTTPClient, ts.client)

	t.Run("flow", func(t *testing.T) {
		app := newOAuthApp(ts.gamesServer, players.ScopeGamePlay)
		code := app.approve(t, ts.gamesServer, own)
		tok, err := app.conf.Exchange(ctx, code, oauth2.VerifierOption(app.verifier))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(tok.AccessToken, "oat_") || tok.TokenType != "Bearer" || tok.Extra("scope") != "game:play" ||
			!tok.Expiry.After(time.Now().Add(29*24*time.Hour)) {
			t.Fatalf("token %+v (scope %v)", tok, tok.Extra("scope"))
		}
		client := app.conf.Client(ctx, tok)
		post := func(path, body string) (int, string) {
			resp, err := client.Post(ts.ts.URL+path, "application/json", strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var p struct{ Code string }
			_ = json.NewDecoder(resp.Body).Decode(&p)
			return resp.StatusCode, p.Code
		}
		if status, code := post("/v1/games", `{"opponent":{"type":"ai","level":1}}`); status != http.StatusCreated {
			t.Errorf("a game with the app's token: %d %s", status, code)
		}
		resp, err := client.Get(ts.ts.URL + "/v1/challenges")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("the challenges (lobby:write, not granted): %d, want 403", resp.StatusCode)
		}
		a := ts.must(http.MethodPost, "/v1/tokens/test", "", map[string]string{"token": tok.AccessToken}, nil)
		var tt oapi.TokenTest
		a.decode(t, &tt)
		if !tt.Active || *tt.Kind != oapi.TokenTestKindOauth || *tt.ClientId != "Ayo Deck" || *tt.PlayerId != me.Id {
			t.Errorf("test of the app's token: %+v", tt)
		}

		// RFC 7009: revoked, then unknown, both 200.
		for _, token := range []string{tok.AccessToken, tok.AccessToken, "oat_nobody"} {
			resp, err := ts.client.PostForm(ts.ts.URL+oauthRevokePath, url.Values{"token": {token}})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("revoke: %d", resp.StatusCode)
			}
		}
		if status, code := post("/v1/games", `{"opponent":{"type":"ai","level":1}}`); status != http.StatusUnauthorized || code != "token_revoked" {
			t.Errorf("after revocation: %d %s, want 401 token_revoked", status, code)
		}
	})

	t.Run("reused code revokes its token", func(t *testing.T) {
		app := newOAuthApp(ts.gamesServer, players.ScopeGamePlay)
		code := app.approve(t, ts.gamesServer, own)
		tok, err := app.conf.Exchange(ctx, code, oauth2.VerifierOption(app.verifier))
		if err != nil {
			t.Fatal(err)
		}
		_, err = app.conf.Exchange(ctx, code, oauth2.VerifierOption(app.verifier))
		if status, word, c := oauthProblem(t, err); status != http.StatusBadRequest || word != "invalid_grant" || c != "code_reused" {
			t.Fatalf("second exchange: %d %s %s, want 400 invalid_grant code_reused", status, word, c)
		}
		a := ts.must(http.MethodPost, "/v1/tokens/test", "", map[string]string{"token": tok.AccessToken}, nil)
		var tt oapi.TokenTest
		a.decode(t, &tt)
		if tt.Active || *tt.Reason != oapi.TokenTestReasonRevoked {
			t.Errorf("the first exchange's token after the reuse: %+v, want revoked", tt)
		}
	})

	for _, c := range []struct {
		name   string
		change func(app *oauthApp)
		wait   time.Duration
		code   string
	}{
		{name: "wrong verifier", change: func(app *oauthApp) { app.verifier = oauth2.GenerateVerifier() }, code: "pkce_mismatch"},
		{name: "other redirect_uri", change: func(app *oauthApp) { app.conf.RedirectURL += "/other" }, code: "redirect_uri_mismatch"},
		{name: "other client", change: func(app *oauthApp) { app.conf.ClientID = "Someone Else" }, code: "client_mismatch"},
		{name: "expired code", wait: players.CodeLifetime, code: "code_expired"},
	} {
		t.Run(c.name, func(t *testing.T) {
			app := newOAuthApp(ts.gamesServer, players.ScopeGamePlay)
			code := app.approve(t, ts.gamesServer, own)
			if c.change != nil {
				c.change(app)
			}
			clock.Advance(c.wait)
			_, err := app.conf.Exchange(ctx, code, oauth2.VerifierOption(app.verifier))
			if status, word, got := oauthProblem(t, err); status != http.StatusBadRequest || word != "invalid_grant" || got != c.code {
				t.Fatalf("exchange: %d %s %s, want 400 invalid_grant %s", status, word, got, c.code)
			}
		})
	}

	t.Run("malformed token requests", func(t *testing.T) {
		for _, c := range []struct {
			name        string
			contentType string
			body        string
			word, code  string
		}{
			{"json", "application/json", `{"grant_type":"authorization_code"}`, "invalid_request", "unsupported_media_type"},
			{"refresh", "application/x-www-form-urlencoded", "grant_type=refresh_token&refresh_token=x", "unsupported_grant_type", "unsupported_grant_type"},
			{"no verifier", "application/x-www-form-urlencoded", "grant_type=authorization_code&code=ac_x&client_id=a&redirect_uri=https://a.example/",
				"invalid_request", "missing_parameter"},
			{"repeated", "application/x-www-form-urlencoded", "grant_type=authorization_code&code=a&code=b", "invalid_request", "repeated_parameter"},
			{"unknown code", "application/x-www-form-urlencoded",
				"grant_type=authorization_code&code=ac_x&client_id=a&redirect_uri=https://a.example/&code_verifier=" + oauth2.GenerateVerifier(),
				"invalid_grant", "code_unknown"},
		} {
			t.Run(c.name, func(t *testing.T) {
				resp, err := ts.client.Post(ts.ts.URL+oauthTokenPath, c.contentType, strings.NewReader(c.body))
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				var e struct{ Error, Code string }
				if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
					t.Fatal(err)
				}
				if resp.StatusCode != http.StatusBadRequest || e.Error != c.word || e.Code != c.code || resp.Header.Get("Cache-Control") != "no-store" {
					t.Fatalf("%d %+v (Cache-Control %q), want 400 %s %s, no-store", resp.StatusCode, e, resp.Header.Get("Cache-Control"), c.word, c.code)
				}
			})
		}
	})

	t.Run("approval refusals", func(t *testing.T) {
		scoped := ts.scopedToken(own, players.AllScopes...)
		good := map[string]any{"clientId": "App", "redirectUri": "https://app.example/cb", "scopes": []string{"game:play"},
			"codeChallenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "codeChallengeMethod": "S256"}
		with := func(k string, v any) map[string]any { m := maps.Clone(good); m[k] = v; return m }
		for _, c := range []struct {
			name   string
			token  string
			body   map[string]any
			status int
			code   string
		}{
			{"plain http", own, with("redirectUri", "http://app.example/cb"), http.StatusUnprocessableEntity, "invalid_authorization"},
			{"plain method", own, with("codeChallengeMethod", "plain"), http.StatusBadRequest, "invalid_request"},
			{"scoped token", scoped, good, http.StatusForbidden, "player_token_required"},
			{"no token", "", good, http.StatusUnauthorized, "player_unauthorized"},
		} {
			t.Run(c.name, func(t *testing.T) {
				a := ts.must(http.MethodPost, "/v1/oauth/authorizations", "", c.body, asPlayer(c.token))
				ts.expect(a, c.status, c.code)
			})
		}
	})
}

// The metadata document (RFC 8414) names the endpoints x/oauth2 is given.
func TestOAuthMetadata(t *testing.T) {
	ts := newTournamentServer(t, gamestest.NewClock())
	resp, err := ts.client.Get(ts.ts.URL + oauthMetadataPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct {
		Issuer                        string   `json:"issuer"`
		AuthorizationEndpoint         string   `json:"authorization_endpoint"`
		TokenEndpoint                 string   `json:"token_endpoint"`
		RevocationEndpoint            string   `json:"revocation_endpoint"`
		Scopes                        []string `json:"scopes_supported"`
		CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported"`
		AuthMethods                   []string `json:"token_endpoint_auth_methods_supported"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	base := ts.ts.URL
	if m.Issuer != base || m.AuthorizationEndpoint != base+oauthAuthorizePath || m.TokenEndpoint != base+oauthTokenPath ||
		m.RevocationEndpoint != base+oauthRevokePath || !slices.Equal(m.CodeChallengeMethodsSupported, []string{"S256"}) ||
		!slices.Equal(m.AuthMethods, []string{"none"}) || len(m.Scopes) != len(players.AllScopes) {
		t.Fatalf("metadata %+v", m)
	}
}
