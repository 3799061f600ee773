package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// tournamentTest runs tournamentArena at a laptop's size and at a phone's.
func tournamentTest(t *testing.T, bctx context.Context, base string) {
	t.Run("desktop", func(t *testing.T) { tournamentArena(t, bctx, base, "1280 px", desktop) })
	t.Run("phone", func(t *testing.T) { tournamentArena(t, bctx, base, "390 px", phone) })
}

// standingRow is a line of the standings table as the page shows it.
type standingRow struct {
	Player  string `json:"player"`
	Text    string `json:"text"`
	Me      bool   `json:"me"`
	Playing bool   `json:"playing"`
	Out     bool   `json:"out"`
}

// tournamentPage is what an event's page shows.
type tournamentPage struct {
	State     string        `json:"state"`
	Hash      string        `json:"hash"`
	Name      string        `json:"name"`
	Status    string        `json:"status"`
	Terms     string        `json:"terms"`
	When      string        `json:"when"`
	Join      bool          `json:"join"`
	JoinText  string        `json:"joinText"`
	Withdraw  bool          `json:"withdraw"`
	Entry     string        `json:"entry"`
	MyGame    string        `json:"myGame"`
	Rows      []standingRow `json:"rows"`
	Overflows bool          `json:"overflows"` // the page scrolls sideways
}

const readTournament = `(() => {
  const v = document.querySelector('main > section.tournament');
  const shown = (sel) => !!v?.querySelector(sel)?.checkVisibility();
  return {
    state: v?.dataset.state || '',
    hash: location.hash,
    name: v?.querySelector('.tournament-name')?.textContent || '',
    status: v?.dataset.status || '',
    terms: v?.querySelector('.tournament-terms')?.textContent || '',
    when: v?.querySelector('.tournament-when')?.textContent || '',
    join: shown('.join'),
    joinText: v?.querySelector('.join')?.textContent || '',
    withdraw: shown('.withdraw'),
    entry: v?.querySelector('.entry')?.textContent || '',
    myGame: shown('.my-game') ? v.querySelector('.my-game').getAttribute('href') : '',
    rows: [...(v?.querySelectorAll('.standings tbody tr') || [])].map((tr) => ({
      player: tr.dataset.player, text: tr.innerText, me: tr.classList.contains('me'),
      playing: !!tr.querySelector('.tag.playing'), out: tr.classList.contains('withdrawn'),
    })),
    overflows: document.documentElement.scrollWidth > window.innerWidth,
  };
})()`

// waitTournament polls the event's page until ok says so.
func waitTournament(t *testing.T, ctx context.Context, what string, ok func(tournamentPage) bool) tournamentPage {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[tournamentPage](readTournament))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if p.State == "ready" && ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p tournamentPage) row(id string) *standingRow {
	for i := range p.Rows {
		if p.Rows[i].Player == id {
			return &p.Rows[i]
		}
	}
	return nil
}

// apiStandings is the part of GET /v1/tournaments/{id} the test checks.
type apiStandings struct {
	Tournament struct {
		Status  string `json:"status"`
		Berserk bool   `json:"berserk"`
	} `json:"tournament"`
	Standings []struct {
		Player struct {
			ID string `json:"id"`
		} `json:"player"`
		Withdrawn bool `json:"withdrawn"`
		Playing   bool `json:"playing"`
	} `json:"standings"`
}

// fillField sets a form field's value by its name, as typing would.
func fillField(name, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const e = document.querySelector('[name=%q]');
  e.value = %q;
  e.dispatchEvent(new Event('input', { bubbles: true }));
  e.dispatchEvent(new Event('change', { bubbles: true }));
})()`, name, value))
}

// tournamentArena: Alice creates a 3+2 arena from the form, starting now,
// berserk allowed; Bob finds it among the running ones and opens its page,
// which shows Alice's line live when she joins. Alice goes to the
// leaderboard; Bob joins: the arena pairs them within its next look, and
// each page opens the game by itself as its player's seat (Alice's from
// her player's stream). Alice goes berserk (her clock halves, as the server has
// it), both move, then Bob goes back to the event, sees both lines playing
// and his game linked, and withdraws: the page offers to join again, his
// line is marked withdrawn, and the server has him withdrawn.
func tournamentArena(t *testing.T, bctx context.Context, base, size string, viewport chromedp.Action[chromedp.Void]) {
	alice, ap, bob, bp := twoPlayers(t, bctx, base+"/#/tournaments", base+"/#/tournaments/upcoming")
	do(t, alice, size, viewport)
	do(t, bob, size, viewport)
	name := "Test arena at " + size

	do(t, alice, "Alice creates an arena",
		chromedp.Click(chromedp.CSS(`.tournaments .create summary`)),
		fillField("name", name), choose("time", "3+2"), fillField("minutes", "20"),
		chromedp.Click(chromedp.CSS(`input[name=berserk]`)),
		chromedp.Click(chromedp.CSS(`.create-form button[type=submit]`)))
	p := waitTournament(t, alice, "Alice's new arena", func(p tournamentPage) bool { return p.Name == name })
	id := strings.TrimPrefix(p.Hash, "#/tournament/")
	if p.Status != "running" && p.Status != "upcoming" {
		t.Errorf("the new arena is %q", p.Status)
	}
	for _, want := range []string{"Arena", "3+2 clock", "20 min", "berserk allowed"} {
		if !strings.Contains(p.Terms, want) {
			t.Errorf("the arena's terms read %q, without %q", p.Terms, want)
		}
	}
	if !p.Join || p.Withdraw || len(p.Rows) != 0 {
		t.Errorf("before anyone joined: join %v, withdraw %v, %d lines", p.Join, p.Withdraw, len(p.Rows))
	}

	// Bob's list read the upcoming events before Alice's was made: the tab
	// of running ones reads them again, once the arena has started (the
	// server looks at due events every second).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var st apiStandings
		if err := getJSON(bob, base+"/v1/tournaments/"+id, &st); err != nil {
			t.Fatal(err)
		}
		if st.Tournament.Status == "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the arena is still %s", st.Tournament.Status)
		}
	}
	do(t, bob, "Bob looks at the running tournaments", chromedp.Click(chromedp.CSS(`[role=tab][data-status="running"]`)))
	waitText(t, bob, "Alice's arena in Bob's list", `document.querySelector('.tournament-item[data-tournament="`+id+`"]')?.innerText || ''`,
		func(s string) bool { return strings.Contains(s, name) })
	do(t, bob, "Bob opens it", chromedp.Click(chromedp.CSS(`.tournament-item[data-tournament="`+id+`"] a`)))
	waitTournament(t, bob, "Bob on the arena's page", func(p tournamentPage) bool { return p.Name == name && p.Join })

	do(t, alice, "Alice joins", chromedp.Click(chromedp.CSS(`.tournament .join`)))
	p = waitTournament(t, alice, "Alice in", func(p tournamentPage) bool { return p.Withdraw && p.row(ap.ID) != nil })
	if r := p.row(ap.ID); !r.Me || !strings.Contains(r.Text, "(you)") {
		t.Errorf("Alice's own line is %+v, not marked as hers", *r)
	}
	if !strings.Contains(p.Entry, "You are in") {
		t.Errorf("after joining Alice's page says %q", p.Entry)
	}
	// Bob's page hears of it from the event's stream.
	waitTournament(t, bob, "Alice's line live on Bob's page", func(p tournamentPage) bool { return p.row(ap.ID) != nil })
	// Alice waits elsewhere: her game comes by her player's stream.
	do(t, alice, "Alice looks at the leaderboard", chromedp.Evaluate[chromedp.Void](`location.hash = '#/leaderboard'`),
		chromedp.WaitVisible(chromedp.CSS(`main > section.leaderboard`)))
	do(t, bob, "Bob joins", chromedp.Click(chromedp.CSS(`.tournament .join`)))
	gid, g, sides := sameGame(t, base, alice, ap, bob, bp)
	var games struct {
		Games []struct {
			ID string `json:"id"`
		} `json:"games"`
	}
	if err := getJSON(alice, base+"/v1/tournaments/"+id+"/games", &games); err != nil {
		t.Fatal(err)
	}
	if len(games.Games) != 1 || games.Games[0].ID != gid {
		t.Fatalf("the arena's games are %+v; the pages opened %s", games.Games, gid)
	}
	if !strings.Contains(string(g.TimeControl), `"initialSeconds":180`) {
		t.Errorf("the game's time control is %s; want the arena's 3+2", g.TimeControl)
	}
	aliceSide := "south"
	if sides["north"] == alice {
		aliceSide = "north"
	}

	// Berserk, before Alice's first move: her clock halves.
	waitText(t, alice, "Alice's Berserk button", `String(document.querySelector('.game .berserk')?.checkVisibility() || false)`,
		func(s string) bool { return s == "true" })
	if back := waitText(t, alice, "the way back", `document.querySelector('.to-tournament')?.textContent || ''`,
		func(s string) bool { return strings.HasPrefix(s, "Back to ") }); back != "Back to "+name {
		t.Errorf("the game's link back reads %q", back)
	}
	do(t, alice, "Alice goes berserk", chromedp.Click(chromedp.CSS(`.game .berserk`)))
	waitText(t, alice, "Alice berserk", `document.querySelector('main > section.game')?.dataset.berserk || ''`,
		func(s string) bool { return s == "true" })
	var clock struct {
		Clock struct {
			RemainingMs map[string]int64 `json:"remainingMs"`
		} `json:"clock"`
	}
	if err := getJSON(alice, base+"/v1/games/"+gid, &clock); err != nil {
		t.Fatal(err)
	}
	if got := clock.Clock.RemainingMs[aliceSide]; got != 90000 {
		t.Errorf("after berserk Alice's clock has %d ms; want half of 3 minutes", got)
	}
	if hidden := waitText(t, alice, "Berserk gone", `String(document.querySelector('.game .berserk').hidden)`,
		func(string) bool { return true }); hidden != "true" {
		t.Error("Berserk still offered after going berserk")
	}
	// A move each, within the first-move windows: the game stays in play.
	for ply, side := range []string{"south", "north"} {
		playLobbyMove(t, sides[side], base, gid, side, ply)
	}

	do(t, bob, "Bob goes back to the arena", chromedp.Click(chromedp.CSS(`.to-tournament`)))
	p = waitTournament(t, bob, "both playing", func(p tournamentPage) bool {
		a, b := p.row(ap.ID), p.row(bp.ID)
		return a != nil && b != nil && a.Playing && b.Playing && p.MyGame != ""
	})
	if p.MyGame != "#/game/"+gid {
		t.Errorf("Bob's page links his game as %s; want %s", p.MyGame, gid)
	}
	if p.Overflows {
		t.Errorf("%s: the event's page scrolls sideways", size)
	}
	if size == "1280 px" {
		screenshot(t, bob, "tournament")
	} else {
		screenshotScreen(t, bob, "tournament-phone")
	}

	do(t, bob, "Bob withdraws", chromedp.Click(chromedp.CSS(`.tournament .withdraw`)))
	p = waitTournament(t, bob, "Bob withdrawn", func(p tournamentPage) bool { return p.Join && p.row(bp.ID) != nil && p.row(bp.ID).Out })
	if p.Withdraw || p.JoinText != "Join again" || !strings.Contains(p.Entry, "withdrawn") {
		t.Errorf("after withdrawing: withdraw %v, join %q, says %q", p.Withdraw, p.JoinText, p.Entry)
	}
	var st apiStandings
	if err := getJSON(bob, base+"/v1/tournaments/"+id, &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Standings {
		if want := s.Player.ID == bp.ID; s.Withdrawn != want {
			t.Errorf("the server has %s withdrawn: %v", s.Player.ID, s.Withdrawn)
		}
	}
	// Alice plays on: her page is still on the game.
	if hash := waitText(t, alice, "Alice's page", `location.hash`, func(string) bool { return true }); hash != "#/game/"+gid {
		t.Errorf("Alice's page moved to %s", hash)
	}
}
