package web_test

// The browser test's checks of players and ratings (issue 22): the player
// each browser makes quietly and the Player-Token it sends, a rated game
// from the form with the seats' players and the rating changes at its end,
// the leaderboards, the rating change and streak on the puzzle page, and
// the profile with its ratings, its chart and its rename.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// storedPlayer is what the page keeps of its player in localStorage.
type storedPlayer struct {
	ID    string `json:"id"`
	Token string `json:"token"`
}

const readStoredPlayer = `JSON.parse(localStorage.getItem('ayoayo.player') || 'null') || { id: '', token: '' }`

// waitPlayer waits for the page to have a player of its own, other than
// not (a stale one it replaces).
func waitPlayer(t *testing.T, ctx context.Context, not string) storedPlayer {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[storedPlayer](readStoredPlayer))
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != "" && p.Token != "" && p.Token != not {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("the page keeps no player of its own: %+v", p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recordRequests wraps the page's fetch to keep each request's method,
// path and Player-Token in window.__requests.
const recordRequests = `(() => {
  window.__requests = [];
  if (window.__recording) return;
  window.__recording = true;
  const inner = window.fetch;
  window.fetch = (target, init = {}) => {
    const h = init.headers || {};
    const u = new URL(String(target), location.href);
    window.__requests.push({ method: init.method || 'GET', path: u.pathname, query: u.search, player: h['Player-Token'] || '' });
    return inner(target, init);
  };
})()`

type sentRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query"`
	Player string `json:"player"`
}

func sentRequests(t *testing.T, ctx context.Context) []sentRequest {
	t.Helper()
	r, err := chromedp.Run(ctx, chromedp.Evaluate[[]sentRequest](`window.__requests || []`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// apiPlayer is the part of a Player the test reads.
type apiPlayer struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Ratings map[string]struct {
		Rating      int  `json:"rating"`
		Deviation   int  `json:"deviation"`
		Games       int  `json:"games"`
		Provisional bool `json:"provisional"`
	} `json:"ratings"`
	Counts map[string]int `json:"counts"`
	Streak int            `json:"streak"`
}

func getPlayer(t *testing.T, ctx context.Context, base, id string) apiPlayer {
	t.Helper()
	var p apiPlayer
	if err := getJSON(ctx, base+"/v1/players/"+id, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// seatPlayer is a seat's player in a Game.
type seatPlayer struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Rating      *int   `json:"rating"`
	Provisional bool   `json:"provisional"`
	Change      *int   `json:"change"`
}

// ratedGame is the part of a Game about its players.
type ratedGame struct {
	Status  string                 `json:"status"`
	Rated   bool                   `json:"rated"`
	Players map[string]*seatPlayer `json:"players"`
}

// send sends a request with JSON body (nil: none) and headers, decodes a
// 2xx answer into v (nil: ignored) and returns the status.
func send(ctx context.Context, method, url string, headers map[string]string, body, v any) (int, error) {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode/100 != 2 {
		return res.StatusCode, fmt.Errorf("%s %s: %s: %s", method, url, res.Status, answer)
	}
	if v != nil {
		return res.StatusCode, json.Unmarshal(answer, v)
	}
	return res.StatusCode, nil
}

// signed is a rating change as the page writes it: "+12", "−8", "±0".
func signed(n int) string {
	switch {
	case n > 0:
		return fmt.Sprintf("+%d", n)
	case n < 0:
		return fmt.Sprintf("\u2212%d", -n)
	}
	return "±0"
}

// waitText polls the JavaScript expression expr (a string) until ok says so.
func waitText(t *testing.T, ctx context.Context, what, expr string, ok func(string) bool) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %q", what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// playersTest runs the players' checks in order: each builds on the last
// (Alice's player plays the rated game, leads the leaderboard, tries the
// puzzle and has the profile).
func playersTest(t *testing.T, bctx context.Context, base string) {
	var ap, bp storedPlayer
	t.Run("quiet player", func(t *testing.T) { quietPlayer(t, bctx, base) })
	// Alice's tab lives as long as all of them (a tab closes with the test
	// that opened it).
	alice := tab(t, bctx, base+"/")
	if !t.Run("rated game", func(t *testing.T) { ap, bp = ratedFromForm(t, alice, bctx, base) }) {
		t.Fatal("no rated game: the rest builds on it")
	}
	t.Run("leaderboard", func(t *testing.T) { leaderboard(t, alice, base, ap, bp) })
	t.Run("puzzle rating", func(t *testing.T) { puzzleRating(t, alice, base, ap) })
	t.Run("practice near my rating", func(t *testing.T) { practiceNear(t, alice, ap) })
	t.Run("profile", func(t *testing.T) { profile(t, alice, base, ap, bp) })
}

// quietPlayer: a first visit makes a player with no question asked and
// keeps its token; the requests that can name a player send it; and a token
// the server does not know is replaced by a fresh player, as quietly.
func quietPlayer(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	me := waitPlayer(t, ctx, "")
	if !strings.HasPrefix(me.Token, "pl_") {
		t.Errorf("the page keeps the token %q, not a player token", me.Token)
	}
	p := getPlayer(t, ctx, base, me.ID)
	if p.Name == "" || !p.Ratings["live"].Provisional {
		t.Errorf("the quiet player is %+v: want a default name and provisional ratings", p)
	}
	text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('main').innerText`))
	if err != nil || strings.Contains(strings.ToLower(text), "player-") {
		t.Errorf("the first visit shows the player (%v): %q", err, text)
	}

	// A game against the AI from the form: the creation names the player.
	do(t, ctx, "start a game against the AI",
		chromedp.Evaluate[chromedp.Void](recordRequests),
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="ai"]`)),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.board`)),
	)
	ps, err := readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := gameID(t, ps)
	checkSent(t, ctx, "POST", "/v1/games", me.Token)
	var g ratedGame
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	if g.Players["south"] == nil || g.Players["south"].ID != me.ID || g.Rated {
		t.Errorf("the game's South seat is %+v (rated %v), want the page's player %s, unrated", g.Players["south"], g.Rated, me.ID)
	}
	seat := waitText(t, ctx, "South's player line", `document.querySelector('.seat-player[data-side="south"]')?.innerText || ''`,
		func(s string) bool { return strings.Contains(s, p.Name) })
	if !strings.Contains(seat, "(you)") {
		t.Errorf("the player's own seat reads %q", seat)
	}
	if ai := waitText(t, ctx, "the AI's line", `document.querySelector('.seat-player[data-side="north"]')?.innerText || ''`,
		func(s string) bool { return s != "" }); !strings.Contains(ai, "the AI, level") {
		t.Errorf("the AI's seat reads %q", ai)
	}

	// The token is lost (a database started afresh, say): the next game
	// is refused for it, and the page makes a new player and goes on.
	do(t, ctx, "a stale token",
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem('ayoayo.player', JSON.stringify({ id: 'gone', token: 'pl_stale' }))`),
		chromedp.Evaluate[chromedp.Void](`location.hash = '#/'`),
		chromedp.WaitVisible(chromedp.CSS(`#new-game`)),
		chromedp.Evaluate[chromedp.Void](recordRequests),
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="ai"]`)),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
	)
	fresh := waitPlayer(t, ctx, "pl_stale")
	waitText(t, ctx, "the new game", `location.hash`, func(s string) bool { return strings.HasPrefix(s, "#/game/") && s != "#/game/"+id })
	if fresh.ID == me.ID || fresh.ID == "gone" {
		t.Errorf("after a stale token the page keeps %+v", fresh)
	}
	reqs := sentRequests(t, ctx)
	var tokens []string
	for _, r := range reqs {
		if r.Method == "POST" && r.Path == "/v1/games" {
			tokens = append(tokens, r.Player)
		}
	}
	if len(tokens) != 2 || tokens[0] != "pl_stale" || tokens[1] != fresh.Token {
		t.Errorf("the game was asked for with the tokens %q; want the stale one, then the fresh one", tokens)
	}
	ps, err = readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := getJSON(ctx, base+"/v1/games/"+gameID(t, ps), &g); err != nil {
		t.Fatal(err)
	}
	if g.Players["south"] == nil || g.Players["south"].ID != fresh.ID {
		t.Errorf("the game made after the stale token seats %+v, want the fresh player %s", g.Players["south"], fresh.ID)
	}
}

// checkSent checks that the page sent method path with the player token.
func checkSent(t *testing.T, ctx context.Context, method, path, token string) {
	t.Helper()
	for _, r := range sentRequests(t, ctx) {
		if r.Method == method && r.Path == path {
			if r.Player != token {
				t.Errorf("%s %s went with Player-Token %q, want %q", method, path, r.Player, token)
			}
			return
		}
	}
	t.Errorf("the page never sent %s %s", method, path)
}

// switchState is the new-game form's rated switch.
type switchState struct {
	Shown   bool `json:"shown"`
	Enabled bool `json:"enabled"`
}

const readSwitch = `(() => {
  const r = document.querySelector('#new-game input[name="rated"]');
  return { shown: !!r && r.checkVisibility(), enabled: !!r && !r.disabled };
})()`

// ratedFromForm: the rated switch is offered only for a timed game against
// a friend; Alice creates a rated 3+2 game with it, Bob joins by the link
// (each with the player their browser made), both pages show both players
// with their provisional ratings, Alice resigns, and both pages show what
// the game did to each rating, as the server has it.
func ratedFromForm(t *testing.T, alice, bctx context.Context, base string) (ap, bp storedPlayer) {
	ap = waitPlayer(t, alice, "")
	for _, tt := range []struct {
		mode, time string
		want       switchState
	}{
		{"ai", "3+2", switchState{false, false}},
		{"local", "3+2", switchState{false, false}},
		{"friend", "", switchState{true, false}},
		{"friend", "1d", switchState{true, true}},
		{"friend", "3+2", switchState{true, true}},
	} {
		do(t, alice, "the form: "+tt.mode+" "+tt.time,
			chromedp.Click(chromedp.CSS(fmt.Sprintf(`input[name="mode"][value="%s"]`, tt.mode))),
			chromedp.SetValue(chromedp.CSS(`select[name="time"]`), tt.time),
			chromedp.Evaluate[chromedp.Void](`document.querySelector('#new-game').dispatchEvent(new Event('change'))`))
		got, err := chromedp.Run(alice, chromedp.Evaluate[switchState](readSwitch))
		if err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("the rated switch for %s, time %q: %+v, want %+v", tt.mode, tt.time, got, tt.want)
		}
	}
	do(t, alice, "create a rated 3+2 game for a friend",
		chromedp.Evaluate[chromedp.Void](recordRequests),
		chromedp.Click(chromedp.CSS(`input[name="rated"]`)),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#share-link`)),
	)
	checkSent(t, alice, "POST", "/v1/games", ap.Token)
	link, err := chromedp.Run(alice, chromedp.Value(chromedp.CSS(`#share-link`)))
	if err != nil {
		t.Fatal(err)
	}
	id, ok := strings.CutPrefix(link, base+"/#/join/")
	if !ok {
		t.Fatalf("share link %q", link)
	}
	var g ratedGame
	if err := getJSON(alice, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	if !g.Rated || g.Players["south"] == nil || g.Players["south"].ID != ap.ID {
		t.Fatalf("the game from the form: rated %v, South %+v; want rated, Alice's player %s", g.Rated, g.Players["south"], ap.ID)
	}

	bob := tab(t, bctx, link)
	bp = waitPlayer(t, bob, "")
	if bp.ID == ap.ID {
		t.Fatal("two browsers share a player")
	}
	settle(t, bob, base, id, func(p pageState, g apiGame) bool { return g.Status == "active" })
	settle(t, alice, base, id, func(p pageState, g apiGame) bool { return g.Status == "active" && len(p.Legal) > 0 })
	if err := getJSON(alice, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	if g.Players["north"] == nil || g.Players["north"].ID != bp.ID {
		t.Fatalf("North's seat is %+v, want Bob's player %s", g.Players["north"], bp.ID)
	}
	// Each page names both players with their ratings, "?" while provisional.
	an := getPlayer(t, alice, base, ap.ID).Name
	bn := getPlayer(t, alice, base, bp.ID).Name
	lines := `[...document.querySelectorAll('.seat-player')].filter((e) => e.checkVisibility()).map((e) => e.dataset.side + ': ' + e.innerText).join(' | ')`
	for _, pg := range []struct {
		name string
		ctx  context.Context
	}{{"Alice", alice}, {"Bob", bob}} {
		s := waitText(t, pg.ctx, pg.name+"'s page: the players", lines, func(s string) bool { return strings.Contains(s, an) && strings.Contains(s, bn) })
		if !strings.Contains(s, "1500?") || !strings.Contains(s, "(you)") {
			t.Errorf("%s's page names the players %q; want both provisional 1500s and the page's own marked", pg.name, s)
		}
	}
	facts, err := chromedp.Run(alice, chromedp.Text(chromedp.CSS(`.facts`)))
	if err != nil || !strings.Contains(facts, "rated") {
		t.Errorf("the facts of a rated game read %q (%v)", facts, err)
	}

	do(t, alice, "resign, and confirm", chromedp.Click(chromedp.CSS(`.resign`)), chromedp.Click(chromedp.CSS(`.resign`)))
	settle(t, alice, base, id, func(p pageState, g apiGame) bool { return g.Status == "finished" })
	if err := getJSON(alice, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	south, north := g.Players["south"], g.Players["north"]
	if south.Change == nil || north.Change == nil || *south.Change >= 0 || *north.Change <= 0 {
		t.Fatalf("after Alice's resignation the seats are %+v, %+v: want her rating down, Bob's up", south, north)
	}
	changes := `[...document.querySelectorAll('.rating-changes li')].map((e) => e.innerText).join(' | ')`
	a := waitText(t, alice, "Alice's rating change", changes, func(s string) bool { return strings.Count(s, "|") == 1 })
	want := fmt.Sprintf("Your rating: %d → %d (%s)", *south.Rating, *south.Rating+*south.Change, signed(*south.Change))
	if !strings.Contains(a, want) || !strings.Contains(a, signed(*north.Change)) {
		t.Errorf("Alice's page lists the changes %q; want %q and Bob's %s", a, want, signed(*north.Change))
	}
	b := waitText(t, bob, "Bob's rating change", changes, func(s string) bool { return strings.Count(s, "|") == 1 })
	if want := fmt.Sprintf("Your rating: %d → %d (%s)", *north.Rating, *north.Rating+*north.Change, signed(*north.Change)); !strings.Contains(b, want) {
		t.Errorf("Bob's page lists the changes %q; want %q", b, want)
	}
	s := waitText(t, bob, "Bob's page: the changes by the players", lines, func(s string) bool { return strings.Contains(s, signed(*north.Change)) })
	if !strings.Contains(s, signed(*south.Change)) {
		t.Errorf("Bob's page names the players %q; want both changes", s)
	}
	screenshot(t, bob, "rated-game")
	return ap, bp
}

// establish plays rated games between a and b through the API until both
// have a live rating that is no longer provisional, a winning two of every
// three; it returns the last game's id.
func establish(t *testing.T, base string, a, b storedPlayer) string {
	t.Helper()
	ctx := context.Background()
	tc := map[string]any{"kind": "clock", "initialSeconds": 180, "incrementSeconds": 2}
	last := ""
	for i := 0; i < 80; i++ {
		pa, pb := getPlayer(t, ctx, base, a.ID), getPlayer(t, ctx, base, b.ID)
		if !pa.Ratings["live"].Provisional && !pb.Ratings["live"].Provisional {
			t.Logf("%d rated games: %d and %d", i, pa.Ratings["live"].Rating, pb.Ratings["live"].Rating)
			return last
		}
		var created, joined struct {
			Game struct {
				ID string `json:"id"`
			} `json:"game"`
			Token string `json:"token"`
		}
		body := map[string]any{"seat": "south", "opponent": map[string]any{"type": "human"}, "timeControl": tc, "rated": true}
		if _, err := send(ctx, "POST", base+"/v1/games", map[string]string{"Player-Token": a.Token}, body, &created); err != nil {
			t.Fatal(err)
		}
		id := created.Game.ID
		if _, err := send(ctx, "POST", base+"/v1/games/"+id+"/join", map[string]string{"Player-Token": b.Token}, nil, &joined); err != nil {
			t.Fatal(err)
		}
		loser := joined.Token // North resigns: a wins
		if i%3 == 2 {
			loser = created.Token
		}
		if _, err := send(ctx, "POST", base+"/v1/games/"+id+"/resign", map[string]string{"Authorization": "Bearer " + loser}, nil, nil); err != nil {
			t.Fatal(err)
		}
		last = id
	}
	t.Fatal("80 rated games and a rating still provisional")
	return ""
}

type leaderRow struct {
	Rank   string `json:"rank"`
	ID     string `json:"id"`
	Name   string `json:"name"`
	Rating string `json:"rating"`
	Me     bool   `json:"me"`
}

type leaderPage struct {
	State    string      `json:"state"`
	Selected string      `json:"selected"`
	Hash     string      `json:"hash"`
	Rows     []leaderRow `json:"rows"`
	Empty    string      `json:"empty"`
	Focused  string      `json:"focused"`
}

const readLeaders = `(() => {
  const v = document.querySelector('main > section.leaderboard');
  return {
    state: v?.dataset.state || '',
    selected: v?.querySelector('[role="tab"][aria-selected="true"]')?.dataset.category || '',
    hash: location.hash,
    rows: [...(v?.querySelectorAll('.leaders tbody tr') || [])].map((tr) => ({
      rank: tr.querySelector('.rank').textContent, id: tr.dataset.playerId, name: tr.querySelector('a').textContent,
      rating: tr.querySelector('.rating').textContent, me: tr.classList.contains('me'),
    })),
    empty: v?.querySelector('.empty')?.textContent || '',
    focused: document.activeElement?.dataset?.category || '',
  };
})()`

func waitLeaders(t *testing.T, ctx context.Context, what string, ok func(leaderPage) bool) leaderPage {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l, err := chromedp.Run(ctx, chromedp.Evaluate[leaderPage](readLeaders))
		if err != nil {
			t.Fatal(err)
		}
		if l.State == "ready" && ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the leaderboard shows %+v", what, l)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leaderboard: once Alice and Bob have established live ratings (rated
// games through the API), the live leaderboard lists them as the server
// does, Alice's row marked as hers; the tabs switch category by click and
// by arrow key, and an empty one says so.
func leaderboard(t *testing.T, ctx context.Context, base string, ap, bp storedPlayer) {
	// After one rated game both live ratings are provisional: the board is
	// empty, and the page says why rather than "nobody", with Alice's own.
	mine := getPlayer(t, ctx, base, ap.ID).Ratings["live"]
	if !mine.Provisional || mine.Games != 1 {
		t.Fatalf("after one rated game Alice's live rating is %+v", mine)
	}
	do(t, ctx, "open the leaderboard of provisional players", chromedp.Click(chromedp.CSS(`nav a[data-nav="leaderboard"]`)))
	l := waitLeaders(t, ctx, "the live leaderboard, all provisional", func(l leaderPage) bool { return l.Selected == "live" && l.Empty != "" })
	yours := fmt.Sprintf("Yours, %d? after 1 rated game, is still provisional", mine.Rating)
	if len(l.Rows) != 0 || strings.Contains(l.Empty, "Nobody") || !strings.Contains(l.Empty, "No settled ratings") || !strings.Contains(l.Empty, yours) {
		t.Errorf("the live leaderboard when both players are provisional: %+v; want no rows, \"No settled ratings\" and %q", l, yours)
	}
	screenshot(t, ctx, "leaderboard-provisional")
	do(t, ctx, "back home", chromedp.Click(chromedp.CSS(`nav a[data-nav="play"]`)), chromedp.WaitVisible(chromedp.CSS(`#new-game`)))

	establish(t, base, ap, bp)
	var want struct {
		Players []struct {
			Rank   int    `json:"rank"`
			ID     string `json:"id"`
			Rating int    `json:"rating"`
		} `json:"players"`
	}
	if err := getJSON(ctx, base+"/v1/leaderboards/live", &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Players) != 2 || want.Players[0].ID != ap.ID {
		t.Fatalf("the live leaderboard is %+v; want Alice, then Bob", want.Players)
	}
	do(t, ctx, "open the leaderboard", chromedp.Click(chromedp.CSS(`nav a[data-nav="leaderboard"]`)))
	l = waitLeaders(t, ctx, "the live leaderboard", func(l leaderPage) bool { return l.Selected == "live" && len(l.Rows) > 0 })
	if len(l.Rows) != len(want.Players) {
		t.Fatalf("the page lists %+v; the server %+v", l.Rows, want.Players)
	}
	for i, w := range want.Players {
		r := l.Rows[i]
		if r.Rank != fmt.Sprint(w.Rank) || r.ID != w.ID || r.Rating != fmt.Sprint(w.Rating) || r.Me != (w.ID == ap.ID) {
			t.Errorf("row %d: %+v; the server has %+v (Alice is %s)", i, r, w, ap.ID)
		}
	}
	screenshot(t, ctx, "leaderboard")
	do(t, ctx, "the puzzle tab", chromedp.Click(chromedp.CSS(`[role="tab"][data-category="puzzle"]`)))
	l = waitLeaders(t, ctx, "the puzzle leaderboard", func(l leaderPage) bool { return l.Selected == "puzzle" })
	if len(l.Rows) != 0 || !strings.Contains(l.Empty, "No settled ratings") || !strings.Contains(l.Empty, "Try a puzzle to start yours") || l.Hash != "#/leaderboard/puzzle" {
		t.Errorf("the puzzle leaderboard of a server where nobody has a settled puzzle rating: %+v", l)
	}
	do(t, ctx, "arrow left to the correspondence tab", chromedp.KeyEvent(kb.ArrowLeft))
	l = waitLeaders(t, ctx, "the correspondence leaderboard", func(l leaderPage) bool { return l.Selected == "correspondence" })
	if l.Focused != "correspondence" || l.Hash != "#/leaderboard/correspondence" {
		t.Errorf("after ← from the puzzle tab: %+v; want the correspondence tab focused and in the address", l)
	}
}

// puzzleRating: on the daily puzzle the page shows the player's puzzle
// rating and streak; the first attempt shows the change as the server
// recorded it, and solving today's puzzle makes a streak of one day.
func puzzleRating(t *testing.T, ctx context.Context, base string, me storedPlayer) {
	rating := `(() => { const l = document.querySelector('.puzzle-rating'); return l && l.checkVisibility() ? l.innerText : ''; })()`
	do(t, ctx, "open the daily puzzle", chromedp.Click(chromedp.CSS(`nav a[data-nav="puzzle"]`)))
	p := waitPuzzle(t, ctx, "the puzzle", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	before := waitText(t, ctx, "the rating line", rating, func(s string) bool { return strings.Contains(s, "streak") })
	if !strings.Contains(before, "1500?") || !strings.Contains(before, "daily streak: 0 days") {
		t.Errorf("before any puzzle the line reads %q; want a provisional 1500 and no streak", before)
	}
	solution := solutionMoves(t, ctx, base, p.ID)
	for i, pit := range solution {
		do(t, ctx, fmt.Sprintf("play solution move %d", i), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, pit))))
		p = waitPuzzle(t, ctx, "feedback on the solution", func(p puzzlePage) bool {
			return p.Result != "pending" && (p.Result != "partial" || len(p.Legal) > 0)
		})
		if p.Result == "correct" {
			break
		}
	}
	if p.Result != "correct" {
		t.Fatalf("the solution: feedback %q (%s)", p.Feedback, p.Result)
	}
	var history struct {
		Attempts []struct {
			PuzzleID string `json:"puzzleId"`
			Solved   bool   `json:"solved"`
			Rating   struct {
				After  int `json:"after"`
				Change int `json:"change"`
			} `json:"rating"`
		} `json:"attempts"`
		Streak int `json:"streak"`
	}
	if err := getJSON(ctx, base+"/v1/players/"+me.ID+"/puzzles", &history); err != nil {
		t.Fatal(err)
	}
	if len(history.Attempts) != 1 || history.Attempts[0].PuzzleID != p.ID || history.Streak != 1 {
		t.Fatalf("the player's puzzles after solving today's: %+v", history)
	}
	first := history.Attempts[0]
	change := signed(first.Rating.Change)
	after := waitText(t, ctx, "the rating line after the attempt", rating, func(s string) bool { return strings.Contains(s, "1 day") })
	shown, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.puzzle-rating .rating-change`)))
	if err != nil {
		t.Fatal(err)
	}
	if shown != change || !strings.Contains(after, fmt.Sprint(first.Rating.After)) {
		t.Errorf("after the first attempt the line reads %q (change %q); the server recorded %s to %d", after, shown, change, first.Rating.After)
	}
	// The change is told as a change, beside the rating: alone, "−135"
	// reads as a rating of −135.
	if want := "(" + change + " on this puzzle)"; !strings.Contains(after, want) {
		t.Errorf("after the first attempt the line reads %q; want the change as %q", after, want)
	}
	// A puzzle solved at the first try raises the rating; a multi-move
	// one is rated on its first step.
	if first.Solved && !strings.HasPrefix(shown, "+") {
		t.Errorf("solved at the first try and the change reads %q", shown)
	}
	t.Logf("first attempt at %s (solved %v): %s, now %d", p.ID, first.Solved, change, first.Rating.After)
	screenshot(t, ctx, "puzzle-rating")
	if want := fmt.Sprintf("Your puzzle rating is now %d (%s).", first.Rating.After, change); len(solution) == 1 && !strings.Contains(p.Feedback, want) {
		t.Errorf("the feedback on a first attempt reads %q; want %q", p.Feedback, want)
	}
}

type profilePage struct {
	State     string              `json:"state"`
	Title     string              `json:"title"`
	Own       bool                `json:"own"`
	Rename    bool                `json:"rename"`
	Ratings   map[string][]string `json:"ratings"` // category: rating, games
	Counts    map[string]string   `json:"counts"`
	Lines     map[string]int      `json:"lines"` // category: points drawn
	Polylines int                 `json:"polylines"`
	Labelled  string              `json:"labelled"`
	Games     []string            `json:"games"`   // the last games' links
	Puzzles   []string            `json:"puzzles"` // the last puzzles' links
}

const readProfile = `(() => {
  const v = document.querySelector('main > section.profile');
  const svg = v?.querySelector('svg.rating-chart');
  const ids = (svg?.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean);
  return {
    state: v?.dataset.state || '',
    title: v?.querySelector('h1')?.textContent || '',
    own: v?.dataset.own === 'true',
    rename: !!v?.querySelector('.rename')?.checkVisibility(),
    ratings: Object.fromEntries([...(v?.querySelectorAll('.ratings tbody tr') || [])].map((tr) => [tr.dataset.category, [tr.querySelector('.rating').textContent, tr.querySelector('.games').textContent]])),
    counts: Object.fromEntries([...(v?.querySelectorAll('.counts dd') || [])].map((d) => [d.dataset.count, d.textContent])),
    lines: Object.fromEntries([...(svg?.querySelectorAll('.chart-line') || [])].map((g) => [g.dataset.category, g.querySelectorAll('circle').length])),
    polylines: svg?.querySelectorAll('polyline').length || 0,
    labelled: ids.map((id) => document.getElementById(id)?.textContent || '').join(' '),
    games: [...(v?.querySelectorAll('.last-games li > a:first-child') || [])].map((a) => a.getAttribute('href')),
    puzzles: [...(v?.querySelectorAll('.last-puzzles li > a:first-child') || [])].map((a) => a.getAttribute('href')),
  };
})()`

func waitProfile(t *testing.T, ctx context.Context, what string, ok func(profilePage) bool) profilePage {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[profilePage](readProfile))
		if err != nil {
			t.Fatal(err)
		}
		if p.State == "ready" && ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the profile shows %+v", what, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// profile: Alice's own profile shows her ratings as the server has them
// ("?" only on the provisional ones), her record and streak, a chart with a
// point for each rated game and puzzle (a line for each category), and
// links to her last games and puzzles; she renames herself there. Bob's
// profile, opened from a link, is his, with nothing to rename.
func profile(t *testing.T, ctx context.Context, base string, ap, bp storedPlayer) {
	do(t, ctx, "open the profile", chromedp.Click(chromedp.CSS(`nav a[data-nav="profile"]`)))
	p := waitProfile(t, ctx, "Alice's profile", func(p profilePage) bool { return p.Own && len(p.Ratings) == 3 })
	me := getPlayer(t, ctx, base, ap.ID)
	for _, c := range []string{"live", "correspondence", "puzzle"} {
		r := me.Ratings[c]
		want := fmt.Sprint(r.Rating)
		if r.Provisional {
			want += "?"
		}
		if got := p.Ratings[c]; len(got) != 2 || got[0] != want || got[1] != fmt.Sprint(r.Games) {
			t.Errorf("the %s rating reads %v; the server has %+v", c, got, r)
		}
	}
	if strings.HasSuffix(p.Ratings["live"][0], "?") || !strings.HasSuffix(p.Ratings["puzzle"][0], "?") {
		t.Errorf("ratings %v: want the established live rating plain and the puzzle one provisional", p.Ratings)
	}
	if p.Counts["games"] != fmt.Sprint(me.Counts["games"]) || p.Counts["streak"] != "1 day" {
		t.Errorf("the record reads %v; the server has %v, streak %d", p.Counts, me.Counts, me.Streak)
	}
	// The rated games (all within the chart's pages here) and the puzzle.
	if p.Lines["live"] != me.Ratings["live"].Games || p.Lines["puzzle"] != 1 || p.Polylines != 1 {
		t.Errorf("the chart draws %v points and %d lines; want %d live, 1 puzzle, a line through the live ones", p.Lines, p.Polylines, me.Ratings["live"].Games)
	}
	if !strings.Contains(p.Labelled, "Ratings over time") || !strings.Contains(p.Labelled, fmt.Sprint(me.Ratings["live"].Rating)) {
		t.Errorf("the chart is labelled %q", p.Labelled)
	}
	var games struct {
		Games []struct {
			GameID string `json:"gameId"`
		} `json:"games"`
	}
	if err := getJSON(ctx, base+"/v1/players/"+ap.ID+"/games?limit=10", &games); err != nil {
		t.Fatal(err)
	}
	if len(p.Games) != len(games.Games) || len(p.Games) == 0 || p.Games[0] != "#/game/"+games.Games[0].GameID {
		t.Errorf("the last games link %v; the server's newest are %+v", p.Games, games.Games)
	}
	if len(p.Puzzles) != 1 || !strings.HasPrefix(p.Puzzles[0], "#/puzzle/") {
		t.Errorf("the last puzzles link %v; want today's daily puzzle", p.Puzzles)
	}
	screenshot(t, ctx, "profile")

	do(t, ctx, "rename",
		chromedp.SetValue(chromedp.CSS(`.rename input[name="name"]`), "Alice Àdùké"),
		chromedp.Click(chromedp.CSS(`.rename button[type="submit"]`)))
	waitProfile(t, ctx, "the new name", func(p profilePage) bool { return p.Title == "Alice Àdùké (you)" })
	if n := getPlayer(t, ctx, base, ap.ID).Name; n != "Alice Àdùké" {
		t.Errorf("after the rename the server has the name %q", n)
	}

	do(t, ctx, "open the last game", chromedp.Click(chromedp.CSS(`.last-games li > a:first-child`)))
	waitText(t, ctx, "the game from the profile", `location.hash`, func(s string) bool { return s == "#/game/"+games.Games[0].GameID })
	do(t, ctx, "Bob's profile", chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = '#/player/%s'`, bp.ID)))
	bob := getPlayer(t, ctx, base, bp.ID)
	p = waitProfile(t, ctx, "Bob's profile", func(p profilePage) bool { return p.Title == bob.Name })
	if p.Own || p.Rename || p.Lines["live"] != bob.Ratings["live"].Games {
		t.Errorf("Bob's profile seen by Alice: %+v", p)
	}
}

// ratingWords checks the page's words for ratings and its chart, from its
// own module in the browser, on histories made up for the purpose: the
// chart draws what it is given, whatever the server holds.
func ratingWords(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	words := []struct {
		expr, want string
	}{
		{`m.signed(12)`, "+12"},
		{`m.signed(-8)`, "\u22128"},
		{`m.signed(0)`, "±0"},
		{`m.ratingText({rating: 1500, provisional: true})`, "1500?"},
		{`m.ratingText({rating: 1623, provisional: false})`, "1623"},
		{`m.ratingText({rating: null, provisional: true})`, "—"},
	}
	for _, tt := range words {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/assets/ratings.js').then((m) => `+tt.expr+`)`, chromedp.EvalAwaitPromise))
		if err != nil || got != tt.want {
			t.Errorf("%s = %q (%v), want %q", tt.expr, got, err, tt.want)
		}
	}
	// Newest first, as the API answers: two rated live games and an
	// unrated one, a correspondence game, and two puzzles.
	type chart struct {
		Points    int                  `json:"points"`
		Circles   map[string][]float64 `json:"circles"` // category: each point's y, oldest first
		Polylines []string             `json:"polylines"`
		Desc      string               `json:"desc"`
		Labels    []string             `json:"labels"`
		Empty     string               `json:"empty"`
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[chart](`import('/assets/ratings.js').then((m) => {
  const games = [
    { gameId: 'g3', endedAt: '2026-11-03T10:00:00Z', category: 'live', rated: true, rating: { before: 1520, after: 1490, change: -30 } },
    { gameId: 'g2', endedAt: '2026-11-02T10:00:00Z', category: 'live', rated: false, rating: null },
    { gameId: 'g1', endedAt: '2026-11-01T10:00:00Z', category: 'live', rated: true, rating: { before: 1500, after: 1520, change: 20 } },
    { gameId: 'c1', endedAt: '2026-11-02T12:00:00Z', category: 'correspondence', rated: true, rating: { before: 1500, after: 1600, change: 100 } },
  ];
  const attempts = [
    { puzzleId: 'p2', at: '2026-11-05T08:00:00Z', solved: false, daily: null, rating: { before: 1580, after: 1560, change: -20 } },
    { puzzleId: 'p1', at: '2026-11-04T08:00:00Z', solved: true, daily: '2026-11-04', rating: { before: 1500, after: 1580, change: 80 } },
  ];
  const host = document.createElement('div');
  document.body.append(host);
  const points = m.drawRatingChart(host, m.ratingSeries(games, attempts));
  const svg = host.querySelector('svg');
  const out = {
    points,
    circles: Object.fromEntries([...svg.querySelectorAll('.chart-line')].map((g) => [g.dataset.category, [...g.querySelectorAll('circle')].map((c) => Number(c.getAttribute('cy')))])),
    polylines: [...svg.querySelectorAll('polyline')].map((p) => p.parentNode.dataset.category),
    desc: svg.querySelector('desc').textContent,
    labels: [...svg.querySelectorAll('.chart-grid text')].map((t) => t.textContent),
  };
  m.drawRatingChart(host, m.ratingSeries([], []));
  out.empty = host.textContent;
  host.remove();
  return out;
})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got.Points != 5 || len(got.Circles["live"]) != 2 || len(got.Circles["correspondence"]) != 1 || len(got.Circles["puzzle"]) != 2 {
		t.Fatalf("the chart drew %d points: %v; want 2 live (the unrated game left out), 1 correspondence, 2 puzzles", got.Points, got.Circles)
	}
	// SVG's y grows downwards: a higher rating is drawn higher.
	if live := got.Circles["live"]; live[0] >= live[1] {
		t.Errorf("live 1520 then 1490 drawn at y %v: the first should be higher", live)
	}
	if got.Circles["correspondence"][0] >= got.Circles["puzzle"][0] {
		t.Errorf("correspondence 1600 at y %v, puzzle 1580 at y %v: 1600 should be higher", got.Circles["correspondence"][0], got.Circles["puzzle"][0])
	}
	if strings.Join(got.Polylines, " ") != "live puzzle" {
		t.Errorf("lines through the points of %v; want live and puzzle (one correspondence point is a dot)", got.Polylines)
	}
	for _, want := range []string{"Live: from 1520 to 1490 over 2 results", "Correspondence: 1600 after one result", "Puzzles: from 1580 to 1560", "2026-11-01", "2026-11-05"} {
		if !strings.Contains(got.Desc, want) {
			t.Errorf("the chart's description %q lacks %q", got.Desc, want)
		}
	}
	if len(got.Labels) < 4 || got.Labels[len(got.Labels)-2] != "2026-11-01" || got.Labels[len(got.Labels)-1] != "2026-11-05" {
		t.Errorf("the chart's labels %v; want ratings, then the first and the last day", got.Labels)
	}
	if !strings.Contains(got.Empty, "No rated games or puzzles yet") {
		t.Errorf("with no history the chart says %q", got.Empty)
	}
	chartAxis(t, ctx)
}

// chartAxis checks that the rating chart's axis covers its data: the
// gridlines' labels span every rating drawn, and every point lies between
// the highest and the lowest gridline, a lone point and one far from the
// others included.
func chartAxis(t *testing.T, ctx context.Context) {
	t.Helper()
	type point struct {
		Rating float64 `json:"rating"`
		Y      float64 `json:"y"`
		X      float64 `json:"x"`
	}
	type drawn struct {
		Ticks  []float64 `json:"ticks"` // the gridlines' labels
		Lines  []float64 `json:"lines"` // the gridlines' y
		Points []point   `json:"points"`
		DayX   []float64 `json:"dayX"` // the day labels' x
	}
	tests := []struct {
		name    string
		live    []float64
		puzzle  []float64
		oneTime bool // every result at the same instant
	}{
		{"a lone point", nil, []float64{1365}, true},
		{"a lone puzzle point far below the live line", []float64{1700, 1850, 2100}, []float64{1365}, false},
		{"close together", []float64{1500, 1503, 1499}, nil, false},
		{"a wide range", []float64{650, 2950}, []float64{1500}, false},
		{"on round values", []float64{1400, 1600}, nil, false},
	}
	for _, tt := range tests {
		live, _ := json.Marshal(tt.live)
		puzzle, _ := json.Marshal(tt.puzzle)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[drawn](fmt.Sprintf(`import('/assets/ratings.js').then((m) => {
  const at = (i) => %v ? Date.parse('2026-11-01T10:00:00Z') : Date.parse('2026-11-01T10:00:00Z') + i * 86400e3;
  const series = {
    live: (%s || []).map((r, i) => ({ t: at(i), rating: r, id: 'g' + i })),
    correspondence: [],
    puzzle: (%s || []).map((r, i) => ({ t: at(i) + 3600e3 * (%v ? 0 : 1), rating: r, id: 'p' + i })),
  };
  const host = document.createElement('div');
  document.body.append(host);
  m.drawRatingChart(host, series);
  const svg = host.querySelector('svg');
  const texts = [...svg.querySelectorAll('.chart-grid text')];
  const out = {
    ticks: texts.filter((e) => /^[0-9]+$/.test(e.textContent)).map((e) => Number(e.textContent)),
    lines: [...svg.querySelectorAll('.chart-grid line')].map((l) => Number(l.getAttribute('y1'))),
    points: [...svg.querySelectorAll('.chart-line circle')].map((c) => ({ rating: Number(/ (\d+),/.exec(c.textContent)[1]), y: Number(c.getAttribute('cy')), x: Number(c.getAttribute('cx')) })),
    dayX: texts.filter((e) => /^\d{4}-/.test(e.textContent)).map((e) => Number(e.getAttribute('x'))),
  };
  host.remove();
  return out;
})`, tt.oneTime, live, puzzle, tt.oneTime), chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(got.Ticks) < 2 || len(got.Ticks) != len(got.Lines) || len(got.Points) != len(tt.live)+len(tt.puzzle) {
			t.Errorf("%s: gridlines %v at y %v, points %+v", tt.name, got.Ticks, got.Lines, got.Points)
			continue
		}
		lo, hi := slices.Min(got.Ticks), slices.Max(got.Ticks)
		top, bottom := slices.Min(got.Lines), slices.Max(got.Lines)
		for _, p := range got.Points {
			if p.Rating < lo || p.Rating > hi || p.Y < top || p.Y > bottom {
				t.Errorf("%s: the point %v (y %v) lies outside the axis %v–%v (y %v–%v)", tt.name, p.Rating, p.Y, lo, hi, top, bottom)
			}
		}
		if tt.oneTime && (len(got.DayX) != 1 || got.DayX[0] != got.Points[0].X) {
			t.Errorf("%s: the day is labelled at x %v, the point drawn at x %v: want the day under it", tt.name, got.DayX, got.Points[0].X)
		}
	}
}

// practiceNear: the practice filter's "around my rating" asks for near=me
// with the player's token, and shows the puzzle the server chose.
func practiceNear(t *testing.T, ctx context.Context, me storedPlayer) {
	do(t, ctx, "open More puzzles", chromedp.Click(chromedp.CSS(`[data-nav=practice]`)))
	first := waitPuzzle(t, ctx, "a first practice puzzle", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	do(t, ctx, "choose around my rating", chromedp.Evaluate[chromedp.Void](recordRequests), choose("difficulty", "me"))
	p := waitPuzzle(t, ctx, "a puzzle around the rating", func(p puzzlePage) bool { return p.ID != first.ID && len(p.Legal) > 0 })
	if !strings.HasPrefix(p.ID, practicePrefix) {
		t.Errorf("around the rating the page shows %s, not a practice puzzle", p.ID)
	}
	for _, r := range sentRequests(t, ctx) {
		if r.Path == "/v1/puzzles/practice" {
			if !strings.Contains(r.Query, "near=me") || strings.Contains(r.Query, "difficulty") || r.Player != me.Token {
				t.Errorf("the practice puzzle was asked for with %q and Player-Token %q; want near=me, no difficulty, the player's token", r.Query, r.Player)
			}
			return
		}
	}
	t.Error("no practice puzzle was asked for")
}
