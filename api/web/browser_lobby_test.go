package web_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// lobbyGame: two players, each in a browser of their own, meet in the
// lobby. Alice posts a 3+2 seek from a preset; Bob sees it listed live
// (her name, her provisional rating, the time) and takes it with quick
// pairing. Both pages open the same timed game, each as its player's seat,
// with no seat token: the moves go with each player's Player-Token. Each
// moves once, then Alice offers a draw, Bob sees the offer and accepts it,
// and both pages show the draw by agreement the server has.
func lobbyGame(t *testing.T, bctx context.Context, base string) {
	alice, ap, bob, bp := twoPlayers(t, bctx, base+"/#/lobby", base+"/#/lobby")
	aliceName := getPlayer(t, alice, base, ap.ID).Name

	do(t, alice, "Alice seeks a 3+2 game", chromedp.Click(chromedp.CSS(`.presets button[data-preset="3+2"]`)))
	waitText(t, alice, "Alice's own seek", `document.querySelector('tr[data-mine="true"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, "3+2 clock") && strings.Contains(s, "Cancel") })
	// Bob's page read the lobby before Alice posted: her seek comes by the lobby's stream.
	row := waitText(t, bob, "Alice's seek in Bob's lobby", `document.querySelector('.seeks tbody tr')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, aliceName) })
	for _, want := range []string{"3+2 clock", "1500?", "casual", "Play"} {
		if !strings.Contains(row, want) {
			t.Errorf("Bob's lobby lists Alice's seek as %q, without %q", row, want)
		}
	}

	do(t, bob, "Bob pairs quickly", chromedp.Evaluate[chromedp.Void](recordRequests), chromedp.Click(chromedp.CSS(`button.quick`)))
	id, g, sides := sameGame(t, base, alice, ap, bob, bp)
	if !strings.Contains(string(g.TimeControl), `"initialSeconds":180`) || g.Rated {
		t.Errorf("the game's time control is %s, rated %v; want the seek's 3+2, casual", g.TimeControl, g.Rated)
	}

	// One move each, within the first-move window.
	for ply, side := range []string{"south", "north"} {
		playLobbyMove(t, sides[side], base, id, side, ply)
		moved := func(p pageState, g apiGame) bool { return g.Ply == ply+1 }
		settle(t, alice, base, id, moved)
		settle(t, bob, base, id, moved)
	}
	var sentMove bool
	for _, r := range sentRequests(t, bob) {
		if r.Method == "POST" && r.Path == "/v1/games/"+id+"/moves" {
			sentMove = true
			if r.Player != bp.Token {
				t.Errorf("Bob's move went with Player-Token %q, not his player's", r.Player)
			}
		}
	}
	if !sentMove {
		t.Error("no move request of Bob's page was seen")
	}

	do(t, alice, "Alice offers a draw", chromedp.Click(chromedp.CSS(`button.offer-draw`)))
	waitText(t, bob, "Bob sees the draw offer", `document.querySelector('.offer[data-offer="draw"][data-by="opponent"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, "offers a draw") })
	waitText(t, alice, "Alice sees her own offer", `document.querySelector('.offer[data-offer="draw"][data-by="me"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, "You offered a draw") })
	do(t, bob, "Bob accepts", chromedp.Click(chromedp.CSS(`.offer[data-offer="draw"] button[data-answer="yes"]`)))

	over := func(p pageState, g apiGame) bool { return g.Status == "finished" }
	for name, ctx := range map[string]context.Context{"Alice": alice, "Bob": bob} {
		_, g := settle(t, ctx, base, id, over)
		if g.Result == nil || g.Result.Winner != "draw" || g.Result.Reason != "agreement" {
			t.Fatalf("the game ended %+v; want a draw by agreement", g.Result)
		}
		text := waitText(t, ctx, name+"'s result", `document.querySelector('.result-panel:not([hidden]) .result-text')?.textContent || ''`,
			func(s string) bool { return s != "" })
		if !strings.HasPrefix(text, "Draw") || !strings.Contains(text, "agreed by both players") {
			t.Errorf("%s's page shows the result %q; want a draw agreed by both players", name, text)
		}
		t.Logf("%s's page: %q", name, text)
	}
}

// playLobbyMove has the page of side's player sow a pit offered, at ply.
// The game's event stream starts with the "game" event, the whole game, which may
// redraw the board just as the first pit is clicked: a click the redraw
// swallowed is made again, until the server has the move.
func playLobbyMove(t *testing.T, ctx context.Context, base, id, side string, ply int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		p, _ := settle(t, ctx, base, id, func(p pageState, g apiGame) bool {
			return g.Ply > ply || (g.Position.ToMove == side && len(p.Legal) > 0)
		})
		if p.Ply > ply {
			return
		}
		do(t, ctx, fmt.Sprintf("%s sows", side), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, p.Legal[0]))))
		for wait := time.Now().Add(2 * time.Second); time.Now().Before(wait); time.Sleep(100 * time.Millisecond) {
			var g apiGame
			if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
				t.Fatal(err)
			}
			if g.Ply > ply {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's page does not play its move at ply %d", side, ply)
		}
	}
}

// challengeGame: Alice challenges Bob from his profile while Bob is
// elsewhere in the app (the puzzle archive). The challenge shows in Bob's
// banner with its terms; he declines it as too fast, and Alice's page says
// so, with his reason, in her banner and on his profile. She challenges him again at 10+5; he accepts from
// the banner, and both pages open the same game, each as its player's seat:
// South's page offers its moves and plays one.
func challengeGame(t *testing.T, bctx context.Context, base string) {
	alice, ap, bob, bp := twoPlayers(t, bctx, base+"/#/", base+"/#/puzzles")
	aliceName := getPlayer(t, alice, base, ap.ID).Name

	do(t, alice, "Alice opens Bob's profile",
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = '#/player/%s'`, bp.ID)),
		chromedp.WaitVisible(chromedp.CSS(`.profile .challenge button[type="submit"]`)))
	if own := waitText(t, alice, "whose profile", `document.querySelector('.profile')?.dataset.own || ''`, func(s string) bool { return s != "" }); own != "false" {
		t.Fatalf("Bob's profile reads as Alice's own (%s)", own)
	}
	do(t, alice, "Alice challenges Bob at 3+2", choose("time", "3+2"), chromedp.Click(chromedp.CSS(`.profile .challenge button[type="submit"]`)))
	waitText(t, alice, "Alice's challenge waits", `document.querySelector('#challenges li[data-dir="out"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, "Waiting for") && strings.Contains(s, "3+2 clock") })
	in := waitText(t, bob, "the challenge in Bob's banner", `document.querySelector('#challenges:not([hidden]) li[data-dir="in"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, aliceName) })
	for _, want := range []string{"challenges you", "3+2 clock", "casual", "Accept", "Decline"} {
		if !strings.Contains(in, want) {
			t.Errorf("Bob's banner shows %q, without %q", in, want)
		}
	}
	if hash := waitText(t, bob, "Bob's page", `location.hash`, func(string) bool { return true }); hash != "#/puzzles" {
		t.Errorf("the challenge moved Bob's page to %s", hash)
	}

	do(t, bob, "Bob declines: too fast", choose("reason", "tooFast"), chromedp.Click(chromedp.CSS(`#challenges button[data-action="decline"]`)))
	note := waitText(t, alice, "the decline in Alice's banner", `document.querySelector('#challenges li[data-dir="note"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, "declined") })
	if !strings.Contains(note, "Too fast") {
		t.Errorf("Alice's banner says %q, without Bob's reason (too fast)", note)
	}
	// The profile she sent it from says so too: no longer "Challenge sent".
	status := waitText(t, alice, "the decline on Bob's profile", `document.querySelector('.profile .challenge-status')?.textContent || ''`,
		func(s string) bool { return !strings.HasPrefix(s, "Challenge sent") })
	if !strings.Contains(status, "declined") || !strings.Contains(status, "Too fast") {
		t.Errorf("after the decline Bob's profile says %q; want the decline and its reason", status)
	}
	waitText(t, bob, "Bob's banner empties", `String(document.getElementById('challenges').hidden)`, func(s string) bool { return s == "true" })

	do(t, alice, "Alice dismisses the note and challenges Bob at 10+5",
		chromedp.Click(chromedp.CSS(`#challenges button[data-action="dismiss"]`)),
		choose("time", "10+5"), chromedp.Click(chromedp.CSS(`.profile .challenge button[type="submit"]`)))
	waitText(t, bob, "the second challenge in Bob's banner", `document.querySelector('#challenges li[data-dir="in"]')?.textContent || ''`,
		func(s string) bool { return strings.Contains(s, "10+5 clock") })
	do(t, bob, "Bob accepts", chromedp.Click(chromedp.CSS(`#challenges button[data-action="accept"]`)))

	id, g, sides := sameGame(t, base, alice, ap, bob, bp)
	if !strings.Contains(string(g.TimeControl), `"initialSeconds":600`) || g.Status != "active" {
		t.Errorf("the game is %s with the time control %s; want active, the challenge's 10+5", g.Status, g.TimeControl)
	}
	playLobbyMove(t, sides["south"], base, id, "south", 0)
	moved := func(p pageState, g apiGame) bool { return g.Ply == 1 }
	settle(t, alice, base, id, moved)
	settle(t, bob, base, id, moved)
	for name, ctx := range map[string]context.Context{"Alice": alice, "Bob": bob} {
		if hidden := waitText(t, ctx, name+"'s banner", `String(document.getElementById('challenges').hidden)`, func(string) bool { return true }); hidden != "true" {
			t.Errorf("%s's banner still shows after the game opened", name)
		}
	}
}

// lobbyGameState is the part of a game between two players the lobby's
// tests read.
type lobbyGameState struct {
	apiGame
	Rated   bool `json:"rated"`
	Players map[string]struct {
		ID string `json:"id"`
	} `json:"players"`
}

// sameGame waits for Bob's page and Alice's to open the same game, and
// returns its id, the game and the page of each side's player: Alice's (ap)
// and Bob's (bp), who must be its two players.
func sameGame(t *testing.T, base string, alice context.Context, ap storedPlayer, bob context.Context, bp storedPlayer) (string, lobbyGameState, map[string]context.Context) {
	t.Helper()
	onGame := func(s string) bool { return strings.HasPrefix(s, "#/game/") }
	bobAt := waitText(t, bob, "Bob's page opens the game", `location.hash`, onGame)
	aliceAt := waitText(t, alice, "Alice's page opens the game", `location.hash`, onGame)
	if aliceAt != bobAt {
		t.Fatalf("Alice is at %s, Bob at %s: not the same game", aliceAt, bobAt)
	}
	id := strings.TrimPrefix(bobAt, "#/game/")
	var g lobbyGameState
	if err := getJSON(alice, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	sides := map[string]context.Context{}
	for side, p := range g.Players {
		switch p.ID {
		case ap.ID:
			sides[side] = alice
		case bp.ID:
			sides[side] = bob
		}
	}
	if sides["south"] == nil || sides["north"] == nil {
		t.Fatalf("the game's players are %+v; want Alice (%s) and Bob (%s)", g.Players, ap.ID, bp.ID)
	}
	return id, g, sides
}

// twoPlayers opens Alice's page at aliceURL and Bob's at bobURL, each in a
// browser context of its own, and returns them with the player each page
// made. What each page asked and logged is logged if the test fails: it
// tells why a meeting failed.
func twoPlayers(t *testing.T, bctx context.Context, aliceURL, bobURL string) (context.Context, storedPlayer, context.Context, storedPlayer) {
	t.Helper()
	alice := tab(t, bctx, aliceURL)
	ap := waitPlayer(t, alice, "")
	bob := tab(t, bctx, bobURL)
	bp := waitPlayer(t, bob, "")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("Alice's page: console %v, requests %v", consoleLog(alice), requestsSent(alice))
			t.Logf("Bob's page: console %v, requests %v", consoleLog(bob), requestsSent(bob))
		}
	})
	return alice, ap, bob, bp
}
