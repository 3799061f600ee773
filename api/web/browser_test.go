package web_test

// The end-to-end test of the reference client: the real server on loopback,
// headless Chromium driving the page, and the API asked directly (as the
// server's truth) after every step. Without a browser it skips, unless CI=true,
// where a missing browser is a failure (.ci/install-chromium installs it).

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

var screenshots = flag.Bool("screenshots", false, "write the README's screenshots to screenshots/ while the browser test runs")

// screenshot saves the view (main > section) as screenshots/name.png when
// -screenshots is given, recompressed to keep the repository small.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if !*screenshots {
		return
	}
	raw, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`main > section`)))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("screenshots", name+".png")
	if err := os.MkdirAll("screenshots", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", path, buf.Len())
}

// chromium returns the browser to drive, or skips (fails under CI) when
// there is none.
func chromium(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("AYOAYO_CHROMIUM"), "/usr/bin/chromium"}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			candidates = append(candidates, p)
		}
	}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	msg := "no Chromium found (/usr/bin/chromium or $AYOAYO_CHROMIUM): the browser test needs Debian's chromium package (.ci/install-chromium)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// browser starts one headless Chromium for the test, with a fresh profile.
func browser(t *testing.T, ctx context.Context, exe string) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1000, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancel)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(cancelB)
	// Start the browser now, so a failure to launch is reported as such.
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", exe, err)
	}
	return bctx
}

// tab opens a page in its own browser context: its own storage, as a second
// person on another device would have.
func tab(t *testing.T, parent context.Context, target string) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	watchConsole(t, ctx)
	u, err := neturl.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	// Fast animations keep the test short and still play every leg. The
	// setting is stored from another document of the same origin, so the
	// page then loads afresh and reads it.
	if err := chromedp.Do(ctx,
		chromedp.Navigate(u.Scheme+"://"+u.Host+"/assets/icon.svg"),
		chromedp.Evaluate[chromedp.Void](`localStorage.setItem('ayoayo.speed', JSON.stringify('fast'))`),
		chromedp.Navigate(target),
		chromedp.WaitVisible(chromedp.CSS(`main > section`)),
		// A marker that a reload would erase: moves must arrive without one.
		chromedp.Evaluate[chromedp.Void](`window.__noReload = true`),
	); err != nil {
		t.Fatalf("open %s: %v", target, err)
	}
	return ctx
}

// watchConsole fails the test on any uncaught exception in the page,
// reported when the test ends.
func watchConsole(t *testing.T, ctx context.Context) {
	t.Helper()
	cctx, cancel := context.WithCancel(ctx)
	msgs := chromedp.Console(cctx)
	var mu sync.Mutex
	var thrown []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() {
				mu.Lock()
				thrown = append(thrown, fmt.Sprintf("%s (%s:%d)", m.Text, m.URL, m.Line))
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		for _, e := range thrown {
			t.Errorf("page exception: %s", e)
		}
	})
}

// pageState is what the page shows of a game.
type pageState struct {
	State    string         `json:"state"` // the view's data-state: ready or busy
	Pits     []int          `json:"pits"`
	Captured map[string]int `json:"captured"`
	ToMove   string         `json:"toMove"`
	Ply      int            `json:"ply"`
	Status   string         `json:"status"`
	Turn     string         `json:"turn"`
	Legal    []int          `json:"legal"`
	Hash     string         `json:"hash"`
	Reloaded bool           `json:"reloaded"`
	Labels   []string       `json:"labels"` // each pit's aria-label
}

const readPage = `(() => {
  const view = document.querySelector('main > section');
  const num = (sel) => Number(document.querySelector(sel)?.textContent);
  const fact = (name) => document.querySelector('[data-fact="' + name + '"]');
  return {
    state: view?.dataset.state || '',
    pits: [...Array(12).keys()].map((i) => num('.pit[data-pit="' + i + '"] .count')),
    captured: { south: num('.store[data-side="south"] .count'), north: num('.store[data-side="north"] .count') },
    toMove: document.querySelector('.board')?.dataset.toMove || '',
    ply: Number(fact('ply')?.textContent ?? -1),
    status: fact('status')?.dataset.value || '',
    turn: fact('turn')?.dataset.value || '',
    legal: [...document.querySelectorAll('.pit.legal')].map((b) => Number(b.dataset.pit)),
    hash: location.hash,
    reloaded: window.__noReload !== true,
    labels: [...Array(12).keys()].map((i) => document.querySelector('.pit[data-pit="' + i + '"]')?.getAttribute('aria-label') || ''),
  };
})()`

func readState(ctx context.Context) (pageState, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[pageState](readPage))
}

// apiGame is the part of GET /v1/games/{id} the page must show.
type apiGame struct {
	Position struct {
		Pits     []int          `json:"pits"`
		Captured map[string]int `json:"captured"`
		ToMove   string         `json:"toMove"`
	} `json:"position"`
	Ply    int    `json:"ply"`
	Status string `json:"status"`
}

func getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s: %s", url, res.Status, b)
	}
	return json.Unmarshal(b, v)
}

// mismatch says how the page differs from the game, or "" when it shows
// exactly the game.
func mismatch(p pageState, g apiGame) string {
	var diffs []string
	if !slices.Equal(p.Pits, g.Position.Pits) {
		diffs = append(diffs, fmt.Sprintf("pits %v, game %v", p.Pits, g.Position.Pits))
	}
	if !reflect.DeepEqual(p.Captured, g.Position.Captured) {
		diffs = append(diffs, fmt.Sprintf("captured %v, game %v", p.Captured, g.Position.Captured))
	}
	if p.ToMove != g.Position.ToMove {
		diffs = append(diffs, fmt.Sprintf("board's side to move %q, game %q", p.ToMove, g.Position.ToMove))
	}
	wantTurn := g.Position.ToMove
	if g.Status == "finished" {
		wantTurn = ""
	}
	if p.Turn != wantTurn {
		diffs = append(diffs, fmt.Sprintf("turn shown %q, want %q", p.Turn, wantTurn))
	}
	if p.Ply != g.Ply {
		diffs = append(diffs, fmt.Sprintf("ply %d, game %d", p.Ply, g.Ply))
	}
	if p.Status != g.Status {
		diffs = append(diffs, fmt.Sprintf("status %q, game %q", p.Status, g.Status))
	}
	// Screen readers hear each pit's count from its label.
	for i, label := range p.Labels {
		if i < len(g.Position.Pits) && !strings.Contains(label, fmt.Sprintf(", %d seed", g.Position.Pits[i])) {
			diffs = append(diffs, fmt.Sprintf("pit %d labelled %q, game has %d seeds", i, label, g.Position.Pits[i]))
		}
	}
	return strings.Join(diffs, "; ")
}

// settle waits until the page is idle and shows exactly the game the API
// returns, and returns both. The page catches up on its own (the move's
// answer, or the event stream), so it is given time, not a reload.
func settle(t *testing.T, ctx context.Context, base, id string, want func(pageState, apiGame) bool) (pageState, apiGame) {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	var p pageState
	var g apiGame
	var why string
	for {
		var err error
		if p, err = readState(ctx); err != nil {
			t.Fatalf("read the page: %v", err)
		}
		if err = getJSON(ctx, base+"/v1/games/"+id, &g); err != nil {
			t.Fatalf("read the game: %v", err)
		}
		why = mismatch(p, g)
		if p.Reloaded {
			t.Fatal("the page was reloaded")
		}
		if p.State == "ready" && why == "" && (want == nil || want(p, g)) {
			return p, g
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(150 * time.Millisecond)
	}
	t.Fatalf("the page never showed the game: state %q; %s", p.State, why)
	return p, g
}

func gameID(t *testing.T, p pageState) string {
	t.Helper()
	id, ok := strings.CutPrefix(p.Hash, "#/game/")
	if !ok || id == "" {
		t.Fatalf("page at %q, not a game", p.Hash)
	}
	return id
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestBrowser(t *testing.T) {
	exe := chromium(t)
	base := startServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	bctx := browser(t, ctx, exe)

	t.Run("game against the AI", func(t *testing.T) { playAI(t, bctx, base) })
	t.Run("daily puzzle", func(t *testing.T) { solvePuzzle(t, bctx, base) })
	t.Run("shared link", func(t *testing.T) { playFriend(t, bctx, base) })
}

// playAI starts a game against the AI from the form and plays until it ends
// or for 10 moves, checking the page against the API after each.
func playAI(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "start a game against the AI",
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="ai"]`)),
		chromedp.SetValue(chromedp.CSS(`select[name="level"]`), "1"),
		chromedp.SetValue(chromedp.CSS(`select[name="seat"]`), "south"),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.board`)),
	)
	p, err := readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := gameID(t, p)
	yourTurn := func(p pageState, g apiGame) bool { return g.Status == "finished" || len(p.Legal) > 0 }
	p, g := settle(t, ctx, base, id, yourTurn)
	for move := 0; move < 10 && g.Status == "active"; move++ {
		if p.ToMove != "south" {
			t.Fatalf("move %d: the page offers a move to %s, the AI's side", move, p.ToMove)
		}
		pit := p.Legal[move%len(p.Legal)]
		if move%2 == 0 {
			do(t, ctx, fmt.Sprintf("click pit %d", pit), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, pit))))
		} else {
			// Every other move with the keyboard: digit n sows the nth pit from the left.
			do(t, ctx, fmt.Sprintf("key %d", pit+1), chromedp.KeyEvent(strconv.Itoa(pit+1)))
		}
		before := g.Ply
		p, g = settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Ply > before && yourTurn(p, g) })
		t.Logf("move %d: pit %d, ply %d, %v %v, %s", move, pit, g.Ply, g.Position.Pits, g.Position.Captured, g.Status)
		if move == 2 && g.Status == "active" {
			screenshot(t, ctx, "board")
		}
	}

	// At a phone's width the whole board fits, with no sideways scrolling.
	do(t, ctx, "phone width", chromedp.EmulateViewport(360, 740))
	fits, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
	  const w = document.documentElement.clientWidth;
	  return document.documentElement.scrollWidth <= w &&
	    [...document.querySelectorAll('.pit, .store')].every((e) => { const r = e.getBoundingClientRect(); return r.left >= 0 && r.right <= w && r.width >= 32; });
	})()`))
	if err != nil || !fits {
		t.Errorf("at 360 px wide the board does not fit (pits narrower than 32 px or off screen): %v", err)
	}
}

// apiPuzzle is the part of a puzzle the test needs.
type apiPuzzle struct {
	ID       string `json:"id"`
	Position struct {
		ToMove string `json:"toMove"`
	} `json:"position"`
	Stats struct {
		Attempts int `json:"attempts"`
		Solved   int `json:"solved"`
	} `json:"stats"`
}

// solutionMoves reads GET /v1/puzzles/{id}/solution and returns the
// solver's moves (the steps that are not replies).
func solutionMoves(t *testing.T, ctx context.Context, base, id string) []int {
	t.Helper()
	var sol struct {
		Solution []struct {
			Pit   int  `json:"pit"`
			Reply bool `json:"reply"`
		} `json:"solution"`
	}
	if err := getJSON(ctx, base+"/v1/puzzles/"+id+"/solution", &sol); err != nil {
		t.Fatal(err)
	}
	var pits []int
	for _, m := range sol.Solution {
		if !m.Reply {
			pits = append(pits, m.Pit)
		}
	}
	if len(pits) == 0 {
		t.Fatalf("puzzle %s: a solution with no move of the solver's", id)
	}
	return pits
}

type puzzlePage struct {
	State    string `json:"state"`
	ID       string `json:"id"`
	Result   string `json:"result"`
	Feedback string `json:"feedback"`
	Legal    []int  `json:"legal"`
	Lines    int    `json:"lines"`
}

const readPuzzle = `(() => {
  const view = document.querySelector('main > section');
  const f = document.querySelector('.feedback');
  return {
    state: view?.dataset.state || '',
    id: view?.dataset.puzzleId || '',
    result: f?.dataset.result || '',
    feedback: f?.textContent || '',
    legal: [...document.querySelectorAll('.pit.legal')].map((b) => Number(b.dataset.pit)),
    lines: document.querySelectorAll('.explanation li').length,
  };
})()`

// waitPuzzle polls the puzzle view until ok says so.
func waitPuzzle(t *testing.T, ctx context.Context, what string, ok func(puzzlePage) bool) puzzlePage {
	t.Helper()
	deadline := time.Now().Add(45 * time.Second)
	for {
		p, err := chromedp.Run(ctx, chromedp.Evaluate[puzzlePage](readPuzzle))
		if err != nil {
			t.Fatalf("read the puzzle page: %v", err)
		}
		if p.State == "ready" && ok(p) {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, p)
		}
		time.Sleep(150 * time.Millisecond)
	}
}

// solvePuzzle opens the daily puzzle, tries a wrong move and checks that it
// is refused, then plays the solution and checks that it is accepted.
func solvePuzzle(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/#/puzzle")
	p := waitPuzzle(t, ctx, "the puzzle's legal moves", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	var before apiPuzzle
	if err := getJSON(ctx, base+"/v1/puzzles/"+p.ID, &before); err != nil {
		t.Fatal(err)
	}
	solution := solutionMoves(t, ctx, base, p.ID)

	wrong := -1
	for _, pit := range p.Legal {
		if pit != solution[0] {
			wrong = pit
			break
		}
	}
	if wrong >= 0 {
		do(t, ctx, "try a wrong move", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, wrong))))
		p = waitPuzzle(t, ctx, "feedback on a wrong move", func(p puzzlePage) bool { return p.Result != "pending" })
		if p.Result != "incorrect" || !strings.Contains(p.Feedback, fmt.Sprintf("pit %d", wrong)) {
			t.Fatalf("a wrong move (pit %d): feedback %q (%s)", wrong, p.Feedback, p.Result)
		}
		if p.Lines == 0 {
			t.Error("a wrong move: no move explained")
		}
		do(t, ctx, "try again", chromedp.Click(chromedp.CSS(`.retry`)))
		waitPuzzle(t, ctx, "back to the start", func(p puzzlePage) bool { return p.Result == "pending" && len(p.Legal) > 0 })
	}
	for i, pit := range solution {
		do(t, ctx, fmt.Sprintf("play solution move %d", i), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, pit))))
		p = waitPuzzle(t, ctx, "feedback on the solution", func(p puzzlePage) bool {
			return p.Result != "pending" && (p.Result != "partial" || len(p.Legal) > 0)
		})
		if p.Result == "correct" {
			break
		}
		if p.Result != "partial" || i == len(solution)-1 {
			t.Fatalf("solution move %d (pit %d): feedback %q (%s)", i, pit, p.Feedback, p.Result)
		}
	}
	if p.Result != "correct" || !strings.Contains(p.Feedback, "Correct") {
		t.Fatalf("after the solution: feedback %q (%s)", p.Feedback, p.Result)
	}
	screenshot(t, ctx, "puzzle")

	// The archive lists the days, newest first: today's puzzle leads to this one.
	do(t, ctx, "open the archive", chromedp.Navigate(base+"/#/puzzles"), chromedp.WaitVisible(chromedp.CSS(`.puzzle-list li a`)))
	first, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(`.puzzle-list li a`), "href"))
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the newest day", chromedp.Click(chromedp.CSS(`.puzzle-list li a`)))
	again := waitPuzzle(t, ctx, "the archive's newest puzzle", func(p puzzlePage) bool { return p.ID != "" })
	if again.ID != p.ID {
		t.Errorf("the archive's first entry (%s) opens puzzle %s, not today's %s", first.Value, again.ID, p.ID)
	}
	var after apiPuzzle
	if err := getJSON(ctx, base+"/v1/puzzles/"+p.ID, &after); err != nil {
		t.Fatal(err)
	}
	if after.Stats.Solved <= before.Stats.Solved || after.Stats.Attempts <= before.Stats.Attempts {
		t.Errorf("stats %+v before, %+v after: the attempts were not counted", before.Stats, after.Stats)
	}
}

// playFriend: one person creates a game and shares the link, another opens it
// in a browser of their own; each sees the other's move arrive live.
func playFriend(t *testing.T, bctx context.Context, base string) {
	alice := tab(t, bctx, base+"/")
	do(t, alice, "create a game for a friend",
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="friend"]`)),
		chromedp.SetValue(chromedp.CSS(`select[name="seat"]`), "south"),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#share-link`)),
	)
	link, err := chromedp.Run(alice, chromedp.Value(chromedp.CSS(`#share-link`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(link, base+"/#/join/") {
		t.Fatalf("share link %q", link)
	}
	pa, err := readState(alice)
	if err != nil {
		t.Fatal(err)
	}
	id := gameID(t, pa)
	settle(t, alice, base, id, func(p pageState, g apiGame) bool { return g.Status == "waiting" })

	bob := tab(t, bctx, link)
	ready := func(side string) func(pageState, apiGame) bool {
		return func(p pageState, g apiGame) bool { return g.Position.ToMove == side && len(p.Legal) > 0 }
	}
	waiting := func(p pageState, g apiGame) bool { return len(p.Legal) == 0 }
	settle(t, bob, base, id, waiting)
	// Alice sees Bob arrive: the game becomes active and her pits light up.
	pa, _ = settle(t, alice, base, id, ready("south"))

	// Two moves each way: each appears on the other screen with no reload.
	players := []struct {
		name      string
		me, other context.Context
		side      string
	}{
		{"alice", alice, bob, "south"},
		{"bob", bob, alice, "north"},
		{"alice", alice, bob, "south"},
		{"bob", bob, alice, "north"},
	}
	for i, pl := range players {
		p, g := settle(t, pl.me, base, id, ready(pl.side))
		pit := p.Legal[0]
		do(t, pl.me, fmt.Sprintf("%s sows pit %d", pl.name, pit), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, pit))))
		ply := g.Ply
		moved := func(p pageState, g apiGame) bool { return g.Ply == ply+1 }
		settle(t, pl.me, base, id, moved)
		settle(t, pl.other, base, id, moved)
		t.Logf("move %d: %s sowed pit %d; both pages show ply %d", i, pl.name, pit, ply+1)
		var gg apiGame
		if err := getJSON(pl.me, base+"/v1/games/"+id, &gg); err != nil {
			t.Fatal(err)
		}
		if gg.Status != "active" {
			break
		}
	}
}
