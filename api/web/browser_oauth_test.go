package web_test

// The browser test's checks of OAuth's authorization page (issue 48): an
// app, driven by golang.org/x/oauth2, sends the browser to
// /oauth/authorize; the page shows the app, where the answer goes and the
// scopes, and the player this browser keeps denies (the app hears
// access_denied) or approves (the app gets a code it trades for a token
// of that player, with those scopes).

import (
	"context"
	"encoding/json"
	"net/http"
	neturl "net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"
)

// waitRedirect waits for the tab to be back at the app's redirect with a
// query that has key, and answers that query.
func waitRedirect(t *testing.T, ctx context.Context, key string) neturl.Values {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		loc, err := chromedp.Run(ctx, chromedp.Location())
		if err != nil {
			t.Fatal(err)
		}
		if u, err := neturl.Parse(loc); err == nil && u.Query().Has(key) {
			return u.Query()
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page is at %s, not back at the app with %s", loc, key)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func oauthPage(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	me := waitPlayer(t, ctx, "")
	u, err := neturl.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	// The app's redirect is the server's own page: a loopback http URL,
	// which the server takes for apps under development.
	conf := oauth2.Config{ClientID: "Browser Test App", RedirectURL: base + "/", Scopes: []string{"game:play", "puzzle:write"},
		Endpoint: oauth2.Endpoint{AuthURL: base + "/oauth/authorize", TokenURL: base + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}}
	verifier := oauth2.GenerateVerifier()
	open := func(t *testing.T, state string) {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.Navigate(conf.AuthCodeURL(state, oauth2.S256ChallengeOption(verifier))),
			chromedp.WaitVisible(chromedp.CSS(`#approve`)),
		); err != nil {
			t.Fatal(err)
		}
		client, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#client`)))
		if err != nil {
			t.Fatal(err)
		}
		host, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#host`)))
		if err != nil {
			t.Fatal(err)
		}
		scopes, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#scopes li').length`))
		if err != nil {
			t.Fatal(err)
		}
		if client != conf.ClientID || host != u.Host || scopes != 2 {
			t.Fatalf("the page shows client %q, host %q and %d scopes; want %q, %q, 2", client, host, scopes, conf.ClientID, u.Host)
		}
	}

	t.Run("deny", func(t *testing.T) {
		open(t, "st-deny")
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#deny`))); err != nil {
			t.Fatal(err)
		}
		q := waitRedirect(t, ctx, "error")
		if q.Get("error") != "access_denied" || q.Get("state") != "st-deny" || q.Has("code") {
			t.Fatalf("back at the app with %v, want error=access_denied and the state", q)
		}
	})

	t.Run("approve", func(t *testing.T) {
		open(t, "st-approve")
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#approve`))); err != nil {
			t.Fatal(err)
		}
		q := waitRedirect(t, ctx, "code")
		if q.Get("state") != "st-approve" {
			t.Fatalf("back at the app with %v, want the state", q)
		}
		tok, err := conf.Exchange(t.Context(), q.Get("code"), oauth2.VerifierOption(verifier))
		if err != nil {
			t.Fatal(err)
		}
		if tok.Extra("scope") != "game:play puzzle:write" {
			t.Errorf("the token's scope %v", tok.Extra("scope"))
		}
		resp, err := http.Post(base+"/v1/tokens/test", "application/json", strings.NewReader(`{"token":"`+tok.AccessToken+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var tt struct {
			Active   bool
			PlayerID string `json:"playerId"`
			Kind     string
		}
		if err := json.NewDecoder(resp.Body).Decode(&tt); err != nil {
			t.Fatal(err)
		}
		if !tt.Active || tt.PlayerID != me.ID || tt.Kind != "oauth" {
			t.Fatalf("the app's token is %+v, want an oauth token of the page's player %s", tt, me.ID)
		}
	})
}
