package web_test

// The browser test's checks of a game's surroundings: the facts line and the
// tab's title in step with the animation, the rings of the last moves, the
// move list and stepping through it, the result panel, rematches, the
// colours' contrast, and time: the clocks, the first-move countdown, a game
// flagged or aborted with nobody calling.

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

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// frame is what window.__frames (see recordCaptions) keeps of each caption.
type frame struct {
	Caption string  `json:"caption"`
	Ply     string  `json:"ply"`
	Title   string  `json:"title"`
	At      float64 `json:"at"`
}

// inStep checks the first move against the AI as recorded: while South's
// move is sown the facts line and the title still say South is to move; the
// AI's reply starts after a pause, with the facts at ply 1 and the title
// saying whose move it is; and at the end it is "Your move" again.
func inStep(t *testing.T, ctx context.Context) {
	t.Helper()
	frames, err := chromedp.Run(ctx, chromedp.Evaluate[[]frame](`window.__frames || []`))
	if err != nil {
		t.Fatal(err)
	}
	var southEnd, northStart float64
	for _, f := range frames {
		switch {
		case strings.HasPrefix(f.Caption, "South sows"):
			if f.Ply != "0" || f.Title != "Your move · Ayoayo" {
				t.Errorf("while South's move is sown the facts say ply %s and the title %q; want 0, \"Your move · Ayoayo\"", f.Ply, f.Title)
			}
		case strings.HasPrefix(f.Caption, "Last move: South"):
			southEnd = f.At
		case strings.HasPrefix(f.Caption, "North sows"):
			if northStart == 0 {
				northStart = f.At
			}
			if f.Ply != "1" || f.Title != "The AI's move · Ayoayo" {
				t.Errorf("while the AI's reply is sown the facts say ply %s and the title %q; want 1, \"The AI's move · Ayoayo\"", f.Ply, f.Title)
			}
		}
	}
	// At fast speed the pause is 200 ms; a little is lost to timers.
	if southEnd == 0 || northStart-southEnd < 150 {
		t.Errorf("the AI's reply started %.0f ms after South's move ended; want a pause of about 200 ms", northStart-southEnd)
	}
	title, err := chromedp.Run(ctx, chromedp.Title())
	if err != nil || title != "Your move · Ayoayo" {
		t.Errorf("after the AI's reply the title is %q (%v), want \"Your move · Ayoayo\"", title, err)
	}
}

// contrastJS defines contrast(a, b): the WCAG contrast ratio of two CSS
// colours as getComputedStyle gives them (rgb or rgba; alpha ignored).
const contrastJS = `
const lum = (c) => {
  const [r, g, b] = c.match(/[\d.]+/g).slice(0, 3).map((v) => {
    const x = Number(v) / 255;
    return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => {
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
};
const cssColor = (value) => {
  const probe = document.createElement('i');
  probe.style.color = value;
  document.body.append(probe);
  const c = getComputedStyle(probe).color;
  probe.remove();
  return c;
};
`

// checkRings checks the rings of both sides' last moves: solid, and at
// least 3:1 against every colour of the board's wood.
func checkRings(t *testing.T, ctx context.Context) {
	t.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {`+contrastJS+`
  const out = [];
  const root = getComputedStyle(document.documentElement);
  const woods = ['--wood', '--wood-dark'].map((v) => cssColor(root.getPropertyValue(v)));
  const rings = { 'last-move': 1, 'prev-move': 1, 'last-capture': 0 };
  for (const [cls, needed] of Object.entries(rings)) {
    const pit = document.querySelector('.pit.' + cls);
    if (!pit) {
      if (needed) out.push('no pit is marked ' + cls);
      continue;
    }
    const ring = getComputedStyle(pit, '::after');
    if (ring.borderTopStyle !== 'solid') out.push(cls + ': a ' + ring.borderTopStyle + ' ring');
    for (const w of woods) {
      const c = contrast(ring.borderTopColor, w);
      if (c < 3) out.push(cls + ': ' + ring.borderTopColor + ' on ' + w + ' is ' + c.toFixed(2) + ':1');
    }
  }
  return out;
})()`))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// checkMoveList checks that the move list is on screen, whole, beside the
// board at a desktop's size, with an entry for every move.
func checkMoveList(t *testing.T, ctx context.Context, size string) {
	t.Helper()
	type box struct {
		Top, Bottom, Left, BoardRight, Height float64
		Entries                               int
	}
	b, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(() => {
  scrollTo(0, 0);
  const r = document.querySelector('.moves').getBoundingClientRect();
  return { top: r.top, bottom: r.bottom, left: r.left, boardRight: document.querySelector('.board').getBoundingClientRect().right,
    height: innerHeight, entries: document.querySelectorAll('.history button[data-ply]').length };
})()`))
	if err != nil {
		t.Fatal(err)
	}
	if b.Top < 0 || b.Bottom > b.Height || b.Left < b.BoardRight {
		t.Errorf("%s: the move list is at %+v: not beside the board and whole on the screen", size, b)
	}
	if b.Entries == 0 {
		t.Errorf("%s: the move list is empty", size)
	}
}

// boardView is what the board shows while stepping through the moves.
type boardView struct {
	Pits     []int  `json:"pits"`
	LastMove int    `json:"lastMove"`
	Viewing  string `json:"viewing"`
	Legal    int    `json:"legal"`
	Current  string `json:"current"` // the ply of the move list's entry marked as shown
	Title    string `json:"title"`
}

const readBoard = `(() => ({
  pits: [...Array(12).keys()].map((i) => Number(document.querySelector('.pit[data-pit="' + i + '"] .count').textContent)),
  lastMove: Number(document.querySelector('.pit.last-move')?.dataset.pit ?? -1),
  viewing: document.querySelector('main > section')?.dataset.viewing || '',
  legal: document.querySelectorAll('.pit.legal').length,
  current: document.querySelector('.history [aria-current="step"]')?.dataset.ply ?? '',
  title: document.title,
}))()`

// waitBoard polls the board until ok says so.
func waitBoard(t *testing.T, ctx context.Context, what string, ok func(boardView) bool) boardView {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, err := chromedp.Run(ctx, chromedp.Evaluate[boardView](readBoard))
		if err != nil {
			t.Fatal(err)
		}
		if ok(b) {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the board shows %+v", what, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stepThrough clicks the first move of the list and steps with the arrow
// keys and the buttons: each step shows the position after that move, with
// its pit ringed and nothing to play, then End returns to the game as it
// stands, playable again.
func stepThrough(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	moves := gameMoves(t, ctx, base, id)
	if len(moves) < 3 {
		t.Fatalf("%d moves: too few to step through", len(moves))
	}
	at := func(k int) func(boardView) bool { // the position after moves[k]
		return func(b boardView) bool {
			return b.Viewing == "past" && slices.Equal(b.Pits, moves[k].Position.Pits) && b.LastMove == moves[k].Pit &&
				b.Legal == 0 && b.Current == fmt.Sprint(k)
		}
	}
	do(t, ctx, "click the first move of the list", chromedp.Click(chromedp.CSS(`.history button[data-ply="0"]`)))
	waitBoard(t, ctx, "after clicking move 1", at(0))
	do(t, ctx, "→", chromedp.KeyEvent(kb.ArrowRight))
	waitBoard(t, ctx, "after → from move 1", at(1))
	do(t, ctx, "→", chromedp.KeyEvent(kb.ArrowRight))
	waitBoard(t, ctx, "after → from move 2", at(2))
	do(t, ctx, "←", chromedp.KeyEvent(kb.ArrowLeft))
	waitBoard(t, ctx, "after ← from move 3", at(1))
	do(t, ctx, "the start", chromedp.Click(chromedp.CSS(`.steps [data-step="start"]`)))
	waitBoard(t, ctx, "at the start", func(b boardView) bool {
		return b.Viewing == "past" && slices.Equal(b.Pits, []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}) && b.LastMove == -1 && b.Current == ""
	})
	do(t, ctx, "End", chromedp.KeyEvent(kb.End))
	var g apiGame
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	playable := g.Status == "active"
	b := waitBoard(t, ctx, "back to the game", func(b boardView) bool {
		return b.Viewing == "live" && slices.Equal(b.Pits, g.Position.Pits) && (b.Legal > 0) == playable
	})
	if b.Current != fmt.Sprint(len(moves)-1) {
		t.Errorf("back at the game the list marks move %q, want the last, %d", b.Current, len(moves)-1)
	}
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return (len(p.Legal) > 0) == playable })
}

// resultPage is the result panel as the page shows it.
type resultPage struct {
	Shown   bool   `json:"shown"`
	Text    string `json:"text"`
	Detail  string `json:"detail"`
	Rematch bool   `json:"rematch"`
	End     string `json:"end"` // the move list's last line when the game did not end by a move
}

const readResult = `(() => {
  const p = document.querySelector('.result-panel');
  return {
    shown: !!p && p.checkVisibility(),
    text: p?.querySelector('.result-text')?.textContent || '',
    detail: p?.querySelector('.result-detail')?.textContent || '',
    rematch: !!p?.querySelector('.rematch')?.checkVisibility(),
    end: document.querySelector('.history li.end')?.textContent || '',
  };
})()`

func waitResult(t *testing.T, ctx context.Context, what string, ok func(resultPage) bool) resultPage {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[resultPage](readResult))
		if err != nil {
			t.Fatal(err)
		}
		if r.Shown && ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the result panel shows %+v", what, r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// score is "mine–theirs" from the game's captured seeds.
func score(g apiGame, mine string) string {
	c := g.Position.Captured
	return fmt.Sprintf("%d–%d", c[mine], c[other(mine)])
}

// resignAndRematch resigns South's game against the AI (unless it is over
// already): the result panel says who lost, by how much and why, and so
// does the move list; Rematch then starts the same game with the seats
// swapped, where the AI, South now, opens.
func resignAndRematch(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	var g apiGame
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	if g.Status == "active" {
		do(t, ctx, "resign, and confirm", chromedp.Click(chromedp.CSS(`.resign`)), chromedp.Click(chromedp.CSS(`.resign`)))
	}
	p := checkEnded(t, ctx, base, id)
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	outcome := map[string]string{"south": "won", "north": "lost"}[g.Result.Winner]
	r := waitResult(t, ctx, "the end of the game", func(r resultPage) bool { return r.Text != "" })
	if g.Result.Reason == "resignation" {
		if want := "You lost " + score(g, "south") + " (resignation)"; r.Text != want {
			t.Errorf("the result panel says %q, want %q", r.Text, want)
		}
		if r.End != "South resigned" {
			t.Errorf("the move list ends with %q, want \"South resigned\"", r.End)
		}
	} else if outcome != "" && !strings.HasPrefix(r.Text, "You "+outcome+" "+score(g, "south")) {
		t.Errorf("the game ended %+v and the panel says %q", *g.Result, r.Text)
	}
	if !r.Rematch {
		t.Fatal("no Rematch for a player")
	}
	if p.Watching {
		t.Error("the player is shown as a spectator")
	}
	reviewed(t, ctx)
	do(t, ctx, "phone size", phone)
	checkLayout(t, ctx, "390 px, the game over")
	do(t, ctx, "desktop size", desktop)
	screenshot(t, ctx, "game-over")

	do(t, ctx, "rematch", chromedp.Click(chromedp.CSS(`.rematch`)))
	var next pageState
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if next, err = readState(ctx); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(next.Hash, "#/game/") && next.Hash != "#/game/"+id || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	rid := gameID(t, next)
	if rid == id {
		t.Fatal("Rematch did not open a new game")
	}
	_, rg := settle(t, ctx, base, rid, func(p pageState, g apiGame) bool { return len(p.Legal) > 0 })
	if rg.AI == nil || rg.AI.Side != "south" || rg.AI.Level != g.AI.Level || !maps(rg.Rules, g.Rules) {
		t.Errorf("the rematch is %+v against AI %+v, rules %v; want the AI (level %d) as South, rules %v", rg.Seats, rg.AI, rg.Rules, g.AI.Level, g.Rules)
	}
	moves := gameMoves(t, ctx, base, rid)
	if len(moves) != 1 || moves[0].Side != "south" {
		t.Errorf("the rematch holds %+v; want the AI's opening move as South", moves)
	}
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`.game-title`)))
	if err != nil || !strings.Contains(title, "You (North)") {
		t.Errorf("the rematch's title is %q (%v), want the player as North", title, err)
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// formPage is the new-game form's fields.
type formPage struct {
	Mode      string `json:"mode"`
	Seat      string `json:"seat"`
	Time      string `json:"time"`
	SameStart bool   `json:"sameStart"` // offered and ticked
}

const readForm = `(() => {
  const f = document.querySelector('#new-game');
  if (!f) return { mode: '', seat: '', time: '', sameStart: false };
  return { mode: f.elements.mode.value, seat: f.elements.seat.value, time: f.elements.time.value,
    sameStart: f.querySelector('.same-start').checkVisibility() && f.elements.sameStart.checked };
})()`

// wonAndRematch follows gameEnd: North (the page, by a shared link) won.
// The panel says so from North's side; "New game with these settings"
// fills the form in (a friend, North, the same start); Rematch creates the
// game with the seats swapped, the same start and rules, and shows its link
// to send, as any new game against a friend does.
func wonAndRematch(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	var g apiGame
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	r := waitResult(t, ctx, "North's win", func(r resultPage) bool { return r.Text != "" })
	if want := "You won " + score(g, "north") + " (a majority of the seeds)"; r.Text != want {
		t.Errorf("the result panel says %q, want %q", r.Text, want)
	}
	if r.End != "" {
		t.Errorf("a game won by a move ends the move list with %q", r.End)
	}

	do(t, ctx, "new game with these settings", chromedp.Click(chromedp.CSS(`.same-settings`)), chromedp.WaitVisible(chromedp.CSS(`#new-game`)))
	f, err := chromedp.Run(ctx, chromedp.Evaluate[formPage](readForm))
	if err != nil {
		t.Fatal(err)
	}
	if f != (formPage{Mode: "friend", Seat: "north", Time: "", SameStart: true}) {
		t.Errorf("the form with the game's settings: %+v", f)
	}

	do(t, ctx, "back to the game", chromedp.Evaluate[chromedp.Void](fmt.Sprintf("location.hash = '#/game/%s'", id)), chromedp.WaitVisible(chromedp.CSS(`.rematch`)))
	do(t, ctx, "rematch", chromedp.Click(chromedp.CSS(`.rematch`)), chromedp.WaitVisible(chromedp.CSS(`#share-link`)))
	link, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS(`#share-link`)))
	if err != nil {
		t.Fatal(err)
	}
	rid, ok := strings.CutPrefix(link, base+"/#/join/")
	if !ok || rid == id {
		t.Fatalf("the rematch's link %q", link)
	}
	var rg apiGame
	if err := getJSON(ctx, base+"/v1/games/"+rid, &rg); err != nil {
		t.Fatal(err)
	}
	if rg.Status != "waiting" || rg.Seats["south"] != "human" || rg.Seats["north"] != "open" || string(rg.Start) != string(g.Start) || !maps(rg.Rules, g.Rules) {
		t.Errorf("the rematch is %s, seats %v, start %s, rules %v; want South taken, North open, start %s, rules %v",
			rg.Status, rg.Seats, rg.Start, rg.Rules, g.Start, g.Rules)
	}
}

// checkContrast checks the links' contrast against the page, in the light
// and the dark colour scheme: at least 4.5:1 (WCAG AA for text).
func checkContrast(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	for _, scheme := range []string{"light", "dark"} {
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
			})
			return err
		}))
		if err != nil {
			t.Fatal(err)
		}
		problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {`+contrastJS+`
  const out = [];
  const scheme = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  if (scheme !== '`+scheme+`') out.push('the page is in the ' + scheme + ' scheme');
  const under = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const bg = getComputedStyle(e).backgroundColor;
      if (!/rgba\(.*, 0\)$/.test(bg) && bg !== 'transparent') return bg;
    }
    return 'rgb(255, 255, 255)';
  };
  const links = [...document.querySelectorAll('a:not(.button):not(.brand):not(.skip-link)')].filter((a) => a.checkVisibility());
  if (!links.length) out.push('no link to check');
  for (const a of links) {
    const c = contrast(getComputedStyle(a).color, under(a));
    if (c < 4.5) out.push(a.textContent + ': ' + c.toFixed(2) + ':1');
  }
  return out;
})()`))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s scheme: %s", scheme, p)
		}
	}
}

// ---- Time ----

// clockPage is what the page shows of the time.
type clockPage struct {
	State   string            `json:"state"`
	Shown   int               `json:"shown"` // clocks on screen
	Running string            `json:"running"`
	Low     []string          `json:"low"`
	Times   map[string]string `json:"times"`
	Ms      map[string]int    `json:"ms"`
	Expiry  string            `json:"expiry"`
	Status  string            `json:"status"`
	Facts   string            `json:"facts"`
	Misfits []string          `json:"misfits"` // clocks off screen or on the board
}

const readClocks = `(() => {
  const clocks = [...document.querySelectorAll('.clock')].filter((c) => c.checkVisibility());
  const by = (f) => Object.fromEntries(clocks.map((c) => [c.dataset.side, f(c)]));
  const ex = document.querySelector('.expiry');
  return {
    state: document.querySelector('main > section')?.dataset.state || '',
    shown: clocks.length,
    running: clocks.find((c) => c.classList.contains('running'))?.dataset.side || '',
    low: clocks.filter((c) => c.classList.contains('low')).map((c) => c.dataset.side),
    times: by((c) => c.querySelector('.clock-time').textContent),
    ms: by((c) => Number(c.dataset.ms)),
    expiry: ex && ex.checkVisibility() ? ex.textContent : '',
    status: document.querySelector('[data-fact="status"]')?.dataset.value || '',
    facts: document.querySelector('.facts')?.textContent || '',
    misfits: clocks.filter((c) => {
      const r = c.getBoundingClientRect();
      const b = document.querySelector('.board').getBoundingClientRect();
      const onBoard = r.left < b.right && b.left < r.right && r.top < b.bottom && b.top < r.bottom;
      return r.left < 0 || r.right > document.documentElement.clientWidth || onBoard;
    }).map((c) => c.dataset.side),
  };
})()`

func waitClocks(t *testing.T, ctx context.Context, what string, ok func(clockPage) bool) clockPage {
	t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		c, err := chromedp.Run(ctx, chromedp.Evaluate[clockPage](readClocks))
		if err != nil {
			t.Fatal(err)
		}
		if ok(c) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, c)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// seat is a seat taken through the API.
type seat struct {
	Game struct {
		ID string `json:"id"`
	} `json:"game"`
	Token string `json:"token"`
}

// playAPI plays pit for the token's seat at ply.
func playAPI(t *testing.T, base, id, token string, pit, ply int) {
	t.Helper()
	b, err := json.Marshal(map[string]int{"pit": pit, "ply": ply})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, base+"/v1/games/"+id+"/moves", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
		answer, _ := io.ReadAll(res.Body)
		t.Fatalf("play pit %d at ply %d: %s: %s", pit, ply, res.Status, answer)
	}
}

// flagged: a game of a two-second clock, North created through the API,
// South (the page) joins by the link. Each side's first move has a window
// of its own; from South's second turn its clock runs, ticks on the page,
// low, and runs out: the server ends the game with nobody calling, and the
// page says South lost on time, in the panel and the move list.
func flagged(t *testing.T, bctx context.Context, base string) {
	var north seat
	req := map[string]any{"seat": "north", "opponent": map[string]any{"type": "human"},
		"timeControl": map[string]any{"kind": "clock", "initialSeconds": 2, "incrementSeconds": 0}}
	if err := postJSON(context.Background(), base+"/v1/games", req, &north); err != nil {
		t.Fatal(err)
	}
	id := north.Game.ID
	ctx := tab(t, bctx, base+"/#/join/"+id)
	do(t, ctx, "desktop size", desktop)
	p, _ := settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return len(p.Legal) > 0 })
	c := waitClocks(t, ctx, "before the first move", func(c clockPage) bool { return c.Shown == 2 && c.Expiry != "" })
	if c.Running != "" || !strings.Contains(c.Expiry, "You have") || !strings.Contains(c.Facts, "2s+0 clock") {
		t.Errorf("before South's first move: %+v; want no clock running, South's first-move countdown and the time control named", c)
	}
	if c.Times["south"] != "0:02.0" || c.Times["north"] != "0:02.0" {
		t.Errorf("the clocks read %v at the start, want 0:02.0 each", c.Times)
	}
	for _, size := range []struct {
		name string
		set  chromedp.Action[chromedp.Void]
	}{{"390 px", phone}, {"1280 px", desktop}} {
		do(t, ctx, size.name, size.set)
		if c := waitClocks(t, ctx, "the clocks at "+size.name, func(c clockPage) bool { return c.Shown == 2 }); len(c.Misfits) > 0 {
			t.Errorf("%s: the clocks of %v are off screen or on the board", size.name, c.Misfits)
		}
	}
	do(t, ctx, "South's first move", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, p.Legal[0]))))
	_, g := settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Ply == 1 })
	moves := gameMoves(t, ctx, base, id)
	// North's first move, through the API: South's clock starts.
	var legal struct {
		Moves []struct {
			Pit   int  `json:"pit"`
			Legal bool `json:"legal"`
		} `json:"moves"`
	}
	pos := map[string]any{"pits": g.Position.Pits, "captured": g.Position.Captured, "toMove": g.Position.ToMove}
	if err := postJSON(context.Background(), base+"/v1/moves", map[string]any{"position": pos}, &legal); err != nil {
		t.Fatal(err)
	}
	pit := -1
	for _, m := range legal.Moves {
		if m.Legal {
			pit = m.Pit
			break
		}
	}
	if len(moves) != 1 || pit < 0 {
		t.Fatalf("after South's move: %d moves, North's pit %d", len(moves), pit)
	}
	playAPI(t, base, id, north.Token, pit, 1)
	// South's clock ticks down, low from the start (under ten seconds)...
	first := waitClocks(t, ctx, "South's clock running", func(c clockPage) bool { return c.Running == "south" && c.Ms["south"] < 2000 })
	second := waitClocks(t, ctx, "South's clock ticking", func(c clockPage) bool {
		return c.Running != "south" || c.Ms["south"] < first.Ms["south"]-150
	})
	if second.Running != "south" || second.Times["south"] == first.Times["south"] || !slices.Contains(second.Low, "south") {
		t.Errorf("South's clock read %q, then %q (%+v): not seen ticking, low", first.Times["south"], second.Times["south"], second)
	}
	// ...and runs out: the server ends the game, nobody calling.
	waitClocks(t, ctx, "the game's end", func(c clockPage) bool { return c.Status == "finished" })
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Status == "finished" })
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	if g.Result == nil || g.Result.Reason != "timeout" || g.Result.Winner != "north" {
		t.Fatalf("the game ended %+v, want North winning on time", g.Result)
	}
	r := waitResult(t, ctx, "the timeout", func(r resultPage) bool { return r.Text != "" })
	if want := "You lost " + score(g, "south") + " (timeout)"; r.Text != want || r.End != "South ran out of time" {
		t.Errorf("the panel says %q and the move list ends %q; want %q, \"South ran out of time\"", r.Text, r.End, want)
	}
	end := waitClocks(t, ctx, "the clocks stopped", func(c clockPage) bool { return c.Running == "" })
	if end.Times["south"] != "0:00.0" {
		t.Errorf("South lost on time and its clock reads %q", end.Times["south"])
	}
	screenshot(t, ctx, "timeout")
	do(t, ctx, "phone size", phone)
	checkLayout(t, ctx, "390 px, a timed game")
	do(t, ctx, "desktop size", desktop)
}

// aborted: a timed game both players joined that nobody starts. South's
// first-move countdown ticks on the page, then the server aborts the game:
// no result, and the page says so.
func aborted(t *testing.T, bctx context.Context, base string) {
	var north seat
	req := map[string]any{"seat": "north", "opponent": map[string]any{"type": "human"},
		"timeControl": map[string]any{"kind": "clock", "initialSeconds": 60, "incrementSeconds": 1}}
	if err := postJSON(context.Background(), base+"/v1/games", req, &north); err != nil {
		t.Fatal(err)
	}
	id := north.Game.ID
	ctx := tab(t, bctx, base+"/#/join/"+id)
	a := waitClocks(t, ctx, "the countdown", func(c clockPage) bool { return strings.Contains(c.Expiry, "You have") })
	b := waitClocks(t, ctx, "the countdown ticking", func(c clockPage) bool { return c.Expiry != a.Expiry })
	if c := waitClocks(t, ctx, "the clocks", func(c clockPage) bool { return c.Shown == 2 }); c.Times["south"] != "1:00" {
		t.Errorf("a 1+1 clock reads %v", c.Times)
	}
	t.Logf("the countdown: %q, then %q", a.Expiry, b.Expiry)
	waitClocks(t, ctx, "the abort", func(c clockPage) bool { return c.Status == "aborted" && c.Expiry == "" })
	r := waitResult(t, ctx, "the abort", func(r resultPage) bool { return r.Text != "" })
	if r.Text != "Game aborted" || !strings.Contains(r.Detail, "South did not make a first move") || r.End != "Game aborted" {
		t.Errorf("an aborted game's panel: %+v", r)
	}
	p, err := readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if p.ToMove != "" || p.Marks != 0 || len(p.Legal) != 0 {
		t.Errorf("an aborted game shows %q to move (%d marks), legal %v", p.ToMove, p.Marks, p.Legal)
	}
}

// timedFromForm creates a game against a friend with the 3+2 preset: the
// server is asked for that clock, and the page names it.
func timedFromForm(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "create a 3+2 game for a friend",
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="friend"]`)),
		chromedp.SetValue(chromedp.CSS(`select[name="time"]`), "3+2"),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#share-link`)),
	)
	p, err := readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := gameID(t, p)
	var g apiGame
	if err := getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
		t.Fatal(err)
	}
	var tc map[string]any
	if err := json.Unmarshal(g.TimeControl, &tc); err != nil || tc["kind"] != "clock" || tc["initialSeconds"] != 180.0 || tc["incrementSeconds"] != 2.0 {
		t.Errorf("the 3+2 preset made the time control %s (%v)", g.TimeControl, err)
	}
	c := waitClocks(t, ctx, "the clocks of a 3+2 game", func(c clockPage) bool { return c.Shown == 2 })
	if c.Times["south"] != "3:00" || c.Running != "" || !strings.Contains(c.Facts, "3+2 clock") {
		t.Errorf("a 3+2 game waiting for a friend shows %+v", c)
	}
}

// timeWords checks the page's words for time controls and clocks, read
// from its own module in the browser: correspondence and long clocks have
// no game in the test that lasts long enough to show them.
func timeWords(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	tests := []struct {
		expr, want string
	}{
		{`m.formatClock(180000, m.TIME_CONTROLS['3+2'])`, "3:00"},
		{`m.formatClock(61001, m.TIME_CONTROLS['3+2'])`, "1:02"},
		{`m.formatClock(9999, m.TIME_CONTROLS['3+2'])`, "0:09.9"},
		{`m.formatClock(-5, m.TIME_CONTROLS['3+2'])`, "0:00.0"},
		{`m.formatClock(3723000, {kind: 'clock', initialSeconds: 10800, incrementSeconds: 0})`, "1:02:03"},
		{`m.formatClock(3 * 86400e3 - 1, m.TIME_CONTROLS['3d'])`, "2 d 23 h"},
		{`m.formatClock(5 * 3600e3 + 10 * 60e3, m.TIME_CONTROLS['1d'])`, "5 h 10 min"},
		{`m.formatClock(59000, m.TIME_CONTROLS['1d'])`, "0:59"},
		{`m.timeControlName(null)`, "untimed"},
		{`m.timeControlName(m.TIME_CONTROLS['5+3'])`, "5+3 clock"},
		{`m.timeControlName({kind: 'clock', initialSeconds: 1, incrementSeconds: 0})`, "1s+0 clock"},
		{`m.timeControlName(m.TIME_CONTROLS['1d'])`, "1 day a move"},
		{`m.timeControlName(m.TIME_CONTROLS['7d'])`, "7 days a move"},
		{`m.timeControlKey({kind: 'correspondence', daysPerMove: 3})`, "3d"},
	}
	for _, tt := range tests {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/assets/game.js').then((m) => `+tt.expr+`)`, chromedp.EvalAwaitPromise))
		if err != nil || got != tt.want {
			t.Errorf("%s = %q (%v), want %q", tt.expr, got, err, tt.want)
		}
	}
}

// setSpeed picks the page's animation speed at its foot, as a person does.
func setSpeed(speed string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const s = document.getElementById('speed');
  s.value = %q;
  s.dispatchEvent(new Event('change', { bubbles: true }));
})()`, speed))
}

// playOnSight has the page's player sow the first pit offered the moment
// the board offers one with the facts line at ply, as a player who never
// hesitates: what the server charges that move is then the page's own
// doing, not the test's polling.
func playOnSight(ply int) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const board = document.querySelector('.board');
  const look = () => {
    const pit = board.querySelector('.pit.legal');
    if (!pit || document.querySelector('[data-fact="ply"]')?.textContent !== '%d') return false;
    pit.click();
    return true;
  };
  const watch = new MutationObserver(() => { if (look()) watch.disconnect(); });
  watch.observe(board, { subtree: true, attributes: true, attributeFilter: ['class'] });
})()`, ply))
}

// timedAI: a 5+3 game against the AI from the form, at normal speed. The
// player's first move relays through five legs and the AI replies at once;
// the page would take seconds to sow both, and the server runs the
// player's clock from the moment it stored the reply. The page shows both
// at once instead, so a player who answers the moment the board lets them
// is charged little for the move, far less than the animations' length.
func timedAI(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "start a 5+3 game against the AI at normal speed",
		desktop,
		setSpeed("normal"),
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="ai"]`)),
		chromedp.SetValue(chromedp.CSS(`select[name="level"]`), "1"),
		chromedp.SetValue(chromedp.CSS(`select[name="seat"]`), "south"),
		chromedp.SetValue(chromedp.CSS(`select[name="time"]`), "5+3"),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.board`)),
	)
	p, err := readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := gameID(t, p)
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return slices.Contains(p.Legal, 0) })
	// Pit 0 from the start: five legs. The second move is played on sight.
	do(t, ctx, "sow pit 0, then the next pit on sight", playOnSight(2), chromedp.Click(chromedp.CSS(`.pit[data-pit="0"]`)))
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Ply >= 4 && len(p.Legal) > 0 })
	moves := gameMoves(t, ctx, base, id)
	if len(moves) < 3 || len(moves[0].Legs) != 5 || !moves[1].ByAI || moves[2].ElapsedMs == nil {
		t.Fatalf("the game's moves: %+v; want South's five legs, the AI's reply, South's timed second move", moves)
	}
	b, err := json.Marshal(moves[:2])
	if err != nil {
		t.Fatal(err)
	}
	// What sowing both moves, and the pause between them, takes at normal speed.
	animation, err := chromedp.Run(ctx, chromedp.Evaluate[float64](
		`import('/assets/board.js').then((m) => `+string(b)+`.reduce((ms, move) => ms + m.pace('normal', move).total, m.replyPause('normal')))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	elapsed := float64(*moves[2].ElapsedMs)
	t.Logf("South's second move was charged %.0f ms; animating the first move and the reply takes %.0f ms at normal speed", elapsed, animation)
	if animation < 2000 {
		t.Fatalf("the animations take %.0f ms: too short to tell", animation)
	}
	if elapsed > animation/2 {
		t.Errorf("South's second move was charged %.0f ms of its clock, played the moment the board allowed it: the page spent it on %.0f ms of animations", elapsed, animation)
	}
	resignedClock(t, ctx, base, id)
}

// resignedClock: South resigns while its clock runs. The clock stops where
// it stood, at the time the server ended the game, instead of jumping back
// to the time South had when its turn began (the game's remainingMs).
func resignedClock(t *testing.T, ctx context.Context, base, id string) {
	t.Helper()
	start := waitClocks(t, ctx, "South's clock running", func(c clockPage) bool { return c.Running == "south" })
	running := waitClocks(t, ctx, "South's clock 1.5 s down", func(c clockPage) bool {
		return c.Running != "south" || c.Ms["south"] < start.Ms["south"]-1500
	})
	do(t, ctx, "resign, and confirm", chromedp.Click(chromedp.CSS(`.resign`)), chromedp.Click(chromedp.CSS(`.resign`)))
	end := waitClocks(t, ctx, "the clocks at the end", func(c clockPage) bool { return c.Status == "finished" && c.Running == "" })
	t.Logf("South's clock: %d ms at its turn's start, %d ms before resigning, %d ms at the end", start.Ms["south"], running.Ms["south"], end.Ms["south"])
	// The clock ticks every 100 ms: it may read that much high before.
	if end.Ms["south"] > running.Ms["south"]+100 {
		t.Errorf("South resigned with its clock at %s (%d ms) and it then read %s (%d ms): it jumped back", running.Times["south"], running.Ms["south"], end.Times["south"], end.Ms["south"])
	}
	if end.Ms["north"] != start.Ms["north"] {
		t.Errorf("the AI's clock read %d ms during the game and %d ms at its end", start.Ms["north"], end.Ms["north"])
	}
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Status == "finished" })
}

// reviewed asks for the engine's review of the game over on the page: the
// result panel then gives each side's accuracy, and every move in the list
// has the engine's class.
func reviewed(t *testing.T, ctx context.Context) {
	t.Helper()
	do(t, ctx, "ask for the review", chromedp.Click(chromedp.CSS(`.review`)))
	type reviewPage struct {
		Summary string
		Moves   int
		Classed int
	}
	var got reviewPage
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[reviewPage](`({
			summary: document.querySelector('.review-summary')?.textContent || '',
			moves: document.querySelectorAll('.history button[data-ply]').length,
			classed: document.querySelectorAll('.history button[data-class]').length,
		})`))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(got.Summary, "Accuracy: ") {
			break
		}
	}
	if !strings.HasPrefix(got.Summary, "Accuracy: South ") || !strings.Contains(got.Summary, "· North ") {
		t.Fatalf("the review summary says %q", got.Summary)
	}
	if got.Moves == 0 || got.Classed != got.Moves {
		t.Errorf("%d of the %d moves in the list have the engine's class", got.Classed, got.Moves)
	}
}
