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

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

var screenshots = flag.Bool("screenshots", false, "write docs/browser-client.md's screenshots to screenshots/ while the browser test runs")

// screenshot saves the view (main > section) as screenshots/name.png when
// -screenshots is given, recompressed to keep the repository small.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	saveScreenshot(t, ctx, name, chromedp.Screenshot(chromedp.CSS(`main > section`)))
}

// screenshotScreen saves what the screen shows, as a phone shows it.
func screenshotScreen(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	saveScreenshot(t, ctx, name, chromedp.CaptureScreenshot())
}

func saveScreenshot(t *testing.T, ctx context.Context, name string, shot chromedp.Action[[]byte]) {
	t.Helper()
	if !*screenshots {
		return
	}
	raw, err := chromedp.Run(ctx, shot)
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
	ctx = watchConsole(t, ctx)
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

// pageLog is what a tab's pages wrote to the console and the requests they
// sent, from the moment the tab opened: see consoleLog and requestsSent.
type pageLog struct {
	mu       sync.Mutex
	console  []chromedp.ConsoleMessage
	requests []string // "METHOD /path"
}

type pageLogKey struct{}

// watchConsole fails the test on any uncaught exception in the page,
// reported when the test ends, and keeps every console message and request
// of the tab in the context it returns.
func watchConsole(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	log := &pageLog{}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			path := e.Request.URL
			if u, err := neturl.Parse(e.Request.URL); err == nil {
				path = u.Path
			}
			log.mu.Lock()
			log.requests = append(log.requests, e.Request.Method+" "+path)
			log.mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	msgs := chromedp.Console(cctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range msgs {
			if err != nil {
				return
			}
			log.mu.Lock()
			log.console = append(log.console, m)
			log.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		for _, m := range log.console {
			if m.IsException() {
				t.Errorf("page exception: %s (%s:%d)", m.Text, m.URL, m.Line)
			}
		}
	})
	return context.WithValue(ctx, pageLogKey{}, log)
}

// consoleLog returns what the tab's pages wrote to the console so far.
func consoleLog(ctx context.Context) []chromedp.ConsoleMessage {
	log := ctx.Value(pageLogKey{}).(*pageLog)
	log.mu.Lock()
	defer log.mu.Unlock()
	return slices.Clone(log.console)
}

// requestsSent returns the requests the tab's pages sent so far, each as
// "METHOD /path".
func requestsSent(ctx context.Context) []string {
	log := ctx.Value(pageLogKey{}).(*pageLog)
	log.mu.Lock()
	defer log.mu.Unlock()
	return slices.Clone(log.requests)
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
	Labels   []string       `json:"labels"`   // each pit's aria-label
	LastMove int            `json:"lastMove"` // the pit ringed as the last move, or -1
	Marks    int            `json:"marks"`    // stores and rows marked "to move"
	Winner   string         `json:"winner"`   // the store marked as the winner's
	Line     string         `json:"line"`     // the status line
	Caption  string         `json:"caption"`  // the line under the board
	History  int            `json:"history"`  // entries in the move list
	Watching bool           `json:"watching"` // the spectator badge is shown
	Text     string         `json:"text"`     // everything the view shows, as text
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
    lastMove: Number(document.querySelector('.pit.last-move')?.dataset.pit ?? -1),
    marks: document.querySelectorAll('.store.to-move, .pits.to-move').length,
    winner: document.querySelector('.store.winner')?.dataset.side || '',
    line: document.querySelector('.status')?.textContent || '',
    caption: document.querySelector('.board-caption')?.textContent || '',
    history: document.querySelectorAll('.history button[data-ply]').length,
    watching: document.querySelector('.seat-badge')?.checkVisibility() || false,
    text: view?.innerText || '',
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
	Ply      int    `json:"ply"`
	Status   string `json:"status"`
	LastMove *struct {
		Pit int `json:"pit"`
	} `json:"lastMove"`
	Result *struct {
		Winner string `json:"winner"`
		Reason string `json:"reason"`
	} `json:"result"`
	AI *struct {
		Side  string `json:"side"`
		Level int    `json:"level"`
	} `json:"ai"`
	Seats map[string]string `json:"seats"`
	Start json.RawMessage   `json:"start"`
	Rules map[string]string `json:"rules"`
	// Null when untimed.
	TimeControl json.RawMessage `json:"timeControl"`
}

// apiMove is the part of a GameMove the page animates.
type apiMove struct {
	Side string `json:"side"`
	Pit  int    `json:"pit"`
	ByAI bool   `json:"byAi"`
	Legs []struct {
		From int   `json:"from"`
		Sown []int `json:"sown"`
	} `json:"legs"`
	Position struct {
		Pits []int `json:"pits"`
	} `json:"position"`
	// What the server charged the mover's clock (null when untimed).
	ElapsedMs *int64 `json:"elapsedMs"`
}

// gameMoves reads the game's history: GET /v1/games/{id}/moves.
func gameMoves(t *testing.T, ctx context.Context, base, id string) []apiMove {
	t.Helper()
	var page struct {
		Moves []apiMove `json:"moves"`
	}
	if err := getJSON(ctx, base+"/v1/games/"+id+"/moves?limit=1000", &page); err != nil {
		t.Fatal(err)
	}
	return page.Moves
}

// postJSON sends body and decodes the answer into v; any status but 200 and
// 201 is an error.
func postJSON(ctx context.Context, url string, body, v any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusCreated {
		return fmt.Errorf("POST %s: %s: %s", url, res.Status, answer)
	}
	return json.Unmarshal(answer, v)
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
	// A game over (finished, or aborted) has no one to move: no badge, no ring.
	wantTurn, wantMarks := g.Position.ToMove, 2
	if g.Status == "finished" || g.Status == "aborted" {
		wantTurn, wantMarks = "", 0
	}
	if p.ToMove != wantTurn {
		diffs = append(diffs, fmt.Sprintf("board's side to move %q, want %q", p.ToMove, wantTurn))
	}
	if p.Marks != wantMarks {
		diffs = append(diffs, fmt.Sprintf("%d stores and rows marked to move, want %d", p.Marks, wantMarks))
	}
	wantLast := -1
	if g.LastMove != nil {
		wantLast = g.LastMove.Pit
	}
	if p.LastMove != wantLast {
		diffs = append(diffs, fmt.Sprintf("pit %d ringed as the last move, game's last move is pit %d", p.LastMove, wantLast))
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

// do runs steps in the page, failing the test if they do not complete
// within 30 seconds (a click on a button that never appears, say).
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func TestBrowser(t *testing.T) {
	// An end-to-end test (a real browser against a real server, tens of
	// seconds): plain go test ./... leaves it out, as it does those of
	// cmd/ayoayo, and .ci/run runs it in a step of its own.
	if os.Getenv("AYOAYO_E2E") != "1" {
		t.Skip("the browser test, an end-to-end test: run it with AYOAYO_E2E=1 go test -run '^TestBrowser$' ./api/web/ (.ci/run runs it in a step)")
	}
	exe := chromium(t)
	srv := startServer(t)
	base := srv.url
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute) // within CI's -timeout 10m
	defer cancel()
	bctx := browser(t, ctx, exe)

	t.Run("game against the AI", func(t *testing.T) { playAI(t, bctx, base) })
	t.Run("the AI opens", func(t *testing.T) { aiOpens(t, bctx, base) })
	t.Run("game end", func(t *testing.T) { gameEnd(t, bctx, base) })
	t.Run("not found", func(t *testing.T) { notFound(t, bctx, base) })
	t.Run("daily puzzle", func(t *testing.T) { solvePuzzle(t, bctx, base) })
	t.Run("more puzzles", func(t *testing.T) { practice(t, bctx, base) })
	t.Run("shared link", func(t *testing.T) { playFriend(t, bctx, base) })
	t.Run("colour contrast", func(t *testing.T) { checkContrast(t, bctx, base) })
	t.Run("time in words", func(t *testing.T) { timeWords(t, bctx, base) })
	t.Run("time presets", func(t *testing.T) { timedFromForm(t, bctx, base) })
	t.Run("timed game against the AI", func(t *testing.T) { timedAI(t, bctx, base) })
	t.Run("flagged", func(t *testing.T) { flagged(t, bctx, base) })
	t.Run("aborted", func(t *testing.T) { aborted(t, bctx, base) })
	t.Run("rating words", func(t *testing.T) { ratingWords(t, bctx, base) })
	t.Run("players", func(t *testing.T) { playersTest(t, bctx, base) })
	t.Run("lobby", func(t *testing.T) { lobbyGame(t, bctx, base) })
	t.Run("challenge", func(t *testing.T) { challengeGame(t, bctx, base) })
	t.Run("tournament", func(t *testing.T) { tournamentTest(t, bctx, base) })
	t.Run("review words", func(t *testing.T) { reviewWords(t, bctx, base) })
	t.Run("review", func(t *testing.T) { reviewGraph(t, bctx, srv) })
	t.Run("explorer", func(t *testing.T) { explorerPanel(t, bctx, srv) })
	t.Run("oauth", func(t *testing.T) { oauthPage(t, bctx, base) })
	t.Run("defects", func(t *testing.T) { defects(t, bctx, srv) })
}

// The sizes the page is tried at: a laptop's window and a phone's screen.
var (
	desktop = chromedp.EmulateViewport(1280, 800)
	phone   = chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2))
)

// recordCaptions keeps every text the line under the board shows, in order,
// in window.__captions: a move's animation writes its progress there (the
// leg, the seeds in hand), far too fast to poll at the test's speed. Each
// text is taken from the mutation that wrote it, so none is missed.
// Each text is also kept in window.__frames with the ply the facts line
// showed, the tab's title and the time, to check that they keep in step.
const recordCaptions = `(() => {
  window.__captions = [];
  window.__frames = [];
  new MutationObserver((records) => {
    for (const r of records) {
      if (!r.target.classList?.contains('board-caption')) continue;
      for (const n of r.addedNodes) {
        window.__captions.push(n.textContent);
        window.__frames.push({ caption: n.textContent, ply: document.querySelector('[data-fact="ply"]')?.textContent || '', title: document.title, at: performance.now() });
      }
    }
  }).observe(document.body, { subtree: true, childList: true });
})()`

func captions(t *testing.T, ctx context.Context) []string {
	t.Helper()
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__captions || []`))
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

func seeds(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", n)
}

// checkSowing checks that the page animated m, as recorded in texts: every
// leg in turn, each counted ("leg 2 of 5") when there are several, starting
// with the seeds just taken in hand and sown down to none.
func checkSowing(t *testing.T, texts []string, m apiMove) {
	t.Helper()
	who := fmt.Sprintf("%s sows pit %d", title(m.Side), label(m.Pit))
	at := 0
	find := func(want string) {
		t.Helper()
		for i := at; i < len(texts); i++ {
			if texts[i] == want {
				at = i + 1
				return
			}
		}
		t.Fatalf("the caption never said %q after %d texts; it said %q", want, at, texts)
	}
	for k, leg := range m.Legs {
		prefix := who
		if len(m.Legs) > 1 {
			prefix += fmt.Sprintf(" · leg %d of %d", k+1, len(m.Legs))
		}
		find(prefix + " · " + seeds(len(leg.Sown)) + " in hand")
		find(prefix + " · 0 seeds in hand")
	}
}

// layoutProblems lists what is wrong with the board's layout at the current
// size: anything off screen, a count covering a seed, seeds outside their pit,
// pit numbers too small, faded or lying on a pit or a count.
const layoutProblems = `(() => {
  const out = [];
  const w = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > w) out.push('the page scrolls sideways');
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const pits = [...document.querySelectorAll('.pit')];
  for (const e of [...pits, ...document.querySelectorAll('.store')]) {
    const r = e.getBoundingClientRect();
    if (r.left < 0 || r.right > w || r.width < 32) out.push((e.dataset.pit ?? e.dataset.side) + ' is ' + Math.round(r.width) + ' px wide from x=' + Math.round(r.left));
  }
  for (const pit of pits) {
    const n = pit.dataset.pit;
    const box = pit.getBoundingClientRect();
    const count = pit.querySelector('.count').getBoundingClientRect();
    const cx = box.left + box.width / 2, cy = box.top + box.height / 2;
    for (const dot of pit.querySelectorAll('.seeds i')) {
      const d = dot.getBoundingClientRect();
      if (hit(d, count)) { out.push('pit ' + n + ': its count covers a seed'); break; }
      if (Math.hypot(d.left + d.width / 2 - cx, d.top + d.height / 2 - cy) + d.width / 2 > box.width / 2) { out.push('pit ' + n + ': a seed lies outside the pit'); break; }
    }
    const no = pit.querySelector('.pit-no');
    const style = getComputedStyle(no);
    if (no.textContent !== String(n % 6 + 1)) out.push('pit ' + n + ' is numbered ' + no.textContent + ', not as the keys sow it');
    if (parseFloat(style.fontSize) < 12) out.push('pit ' + n + ': its number is ' + style.fontSize);
    if (Number(style.opacity) < 1) out.push('pit ' + n + ': its number is faded to ' + style.opacity);
    const r = no.getBoundingClientRect();
    for (const other of pits) {
      if (hit(r, other.getBoundingClientRect())) out.push('pit ' + n + ': its number lies on pit ' + other.dataset.pit);
      if (hit(r, other.querySelector('.count').getBoundingClientRect())) out.push('pit ' + n + ': its number lies on the count of pit ' + other.dataset.pit);
    }
  }
  return out;
})()`

func checkLayout(t *testing.T, ctx context.Context, size string) {
	t.Helper()
	problems, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](layoutProblems))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("%s: %s", size, p)
	}
}

// playAI starts a game against the AI from the form and plays until it ends
// or for 10 moves, checking the page against the API after each. The first
// move, pit 0 from the start, relays through five legs: the caption counts
// them off.
func playAI(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "start a game against the AI",
		desktop,
		chromedp.Evaluate[chromedp.Void](recordCaptions),
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
	if p.LastMove != -1 || p.Caption != "" {
		t.Errorf("before the first move: pit %d ringed as the last move, caption %q", p.LastMove, p.Caption)
	}
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
		if move == 0 {
			moves := gameMoves(t, ctx, base, id)
			if len(moves[0].Legs) != 5 {
				t.Fatalf("pit 0 from the start relays through %d legs, the rules say 5", len(moves[0].Legs))
			}
			texts := captions(t, ctx)
			checkSowing(t, texts, moves[0])
			checkSowing(t, texts, moves[1])
			if want := fmt.Sprintf("Last move: North sowed pit %d", label(moves[1].Pit)); !strings.HasPrefix(p.Caption, want) {
				t.Errorf("after the AI's reply the caption says %q, want %q…", p.Caption, want)
			}
			paced(t, ctx, moves[0], moves[1])
			inStep(t, ctx)
		}
		if move == 2 && g.Status == "active" {
			screenshot(t, ctx, "board")
			do(t, ctx, "phone size", phone)
			screenshotScreen(t, ctx, "board-phone")
			do(t, ctx, "desktop size", desktop)
		}
	}
	checkLayout(t, ctx, "1280 px")
	checkMoveList(t, ctx, "1280 px")
	checkRings(t, ctx)
	stepThrough(t, ctx, base, id)

	// At a phone's size the whole board fits, with no sideways scrolling,
	// and the move list steps as well.
	do(t, ctx, "phone size", phone)
	checkLayout(t, ctx, "390 px")
	stepThrough(t, ctx, base, id)
	do(t, ctx, "desktop size", desktop)

	resignAndRematch(t, ctx, base, id)
}

// paced checks that a relay of five legs and the AI's reply take a few
// seconds at normal speed, not the 12.8 they once did.
func paced(t *testing.T, ctx context.Context, moves ...apiMove) {
	t.Helper()
	b, err := json.Marshal(moves)
	if err != nil {
		t.Fatal(err)
	}
	total, err := chromedp.Run(ctx, chromedp.Evaluate[float64](
		`import('/assets/board.js').then((m) => `+string(b)+`.reduce((ms, move) => ms + m.pace('normal', move).total, 0))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("at normal speed the first move and the AI's reply take %.1f s", total/1000)
	if total > 6000 {
		t.Errorf("at normal speed the first move and the AI's reply take %.1f s; want at most 6", total/1000)
	}
}

// aiOpens starts a game as North: the AI has played South's first move
// before the page sees the game, and the page plays it on the board like any
// other move instead of showing the board after it.
func aiOpens(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "start as North against the AI",
		chromedp.Evaluate[chromedp.Void](recordCaptions),
		chromedp.Click(chromedp.CSS(`input[name="mode"][value="ai"]`)),
		chromedp.SetValue(chromedp.CSS(`select[name="level"]`), "1"),
		chromedp.SetValue(chromedp.CSS(`select[name="seat"]`), "north"),
		chromedp.Click(chromedp.CSS(`#new-game button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.board`)),
	)
	p, err := readState(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := gameID(t, p)
	p, _ = settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return len(p.Legal) > 0 })
	moves := gameMoves(t, ctx, base, id)
	if len(moves) != 1 || !moves[0].ByAI || moves[0].Side != "south" {
		t.Fatalf("the game as created as North holds %d moves (%+v), want the AI's opening move", len(moves), moves)
	}
	checkSowing(t, captions(t, ctx), moves[0])
	if p.History != 1 {
		t.Errorf("the move list has %d entries, want the AI's opening move", p.History)
	}
}

// gameEnd plays the last move of a game set up through the API: North (the
// page, by the shared link) captures to 26 of 48 seeds and wins. The page
// then reads the result from the winner's side and shows no one to move.
// The set-up also crowds a pit with 18 seeds, to check the layout.
func gameEnd(t *testing.T, bctx context.Context, base string) {
	start := map[string]any{
		"pits":     []int{18, 0, 0, 0, 3, 0, 1, 0, 1, 0, 0, 0},
		"captured": map[string]int{"south": 3, "north": 22},
		"toMove":   "north",
	}
	var created struct {
		Game struct {
			ID string `json:"id"`
		} `json:"game"`
	}
	req := map[string]any{"seat": "south", "opponent": map[string]string{"type": "human"}, "start": start}
	if err := postJSON(context.Background(), base+"/v1/games", req, &created); err != nil {
		t.Fatal(err)
	}
	id := created.Game.ID
	ctx := tab(t, bctx, base+"/#/join/"+id)
	do(t, ctx, "desktop size", desktop)
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return slices.Contains(p.Legal, 6) })
	checkLayout(t, ctx, "1280 px, 18 seeds in pit 0")
	do(t, ctx, "phone size", phone)
	checkLayout(t, ctx, "390 px, 18 seeds in pit 0")
	do(t, ctx, "desktop size", desktop)

	// North's first pit from the left is pit 6: one seed, into empty pit 7,
	// captures pit 4's three seeds and itself.
	do(t, ctx, "key 1", chromedp.KeyEvent("1"))
	settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Status == "finished" })
	p := checkEnded(t, ctx, base, id)
	if !strings.Contains(p.Line, "North wins 26–3") {
		t.Errorf("the result reads %q, want North's 26 first", p.Line)
	}
	wonAndRematch(t, ctx, base, id)
}

// checkEnded checks a finished game's page: the result line from the
// winner's side, the winner's store marked, and "to move" nowhere.
func checkEnded(t *testing.T, ctx context.Context, base, id string) pageState {
	t.Helper()
	p, g := settle(t, ctx, base, id, func(p pageState, g apiGame) bool { return g.Status == "finished" })
	if g.Result == nil {
		t.Fatal("a finished game without a result")
	}
	c := g.Position.Captured
	winner := g.Result.Winner
	var want string
	switch {
	case winner == "draw":
		want = fmt.Sprintf("Draw %d–%d", c["south"], c["north"])
	case c[winner] >= c[other(winner)]:
		want = fmt.Sprintf("%s wins %d–%d", title(winner), c[winner], c[other(winner)])
	default: // a resignation: both sides named
		want = fmt.Sprintf("%s wins by resignation: %s %d – %s %d", title(winner), title(winner), c[winner], title(other(winner)), c[other(winner)])
	}
	if !strings.Contains(p.Line, want) {
		t.Errorf("the game is over (%+v, %v) and the status says %q; want %q", *g.Result, c, p.Line, want)
	}
	if strings.Contains(strings.ToLower(p.Text), "to move") {
		t.Errorf("the game is over and the page still says \"to move\": %q", p.Text)
	}
	if winner != "draw" && p.Winner != winner {
		t.Errorf("the store marked as the winner's is %q, want %q", p.Winner, winner)
	}
	return p
}

func other(side string) string {
	if side == "south" {
		return "north"
	}
	return "south"
}

func title(side string) string { return strings.ToUpper(side[:1]) + side[1:] }

// label is the number the page gives a pit: 1-6 from its owner's left, the
// key that sows it.
func label(pit int) int { return pit%6 + 1 }

// missingPage is what the page shows in place of a game or a puzzle it
// cannot show.
type missingPage struct {
	Kind  string   `json:"kind"` // data-missing: game, puzzle, unreachable, error
	Title string   `json:"title"`
	Text  string   `json:"text"`
	Links []string `json:"links"` // where the page offers to go
	Board bool     `json:"board"`
	Solve bool     `json:"solve"` // "Show the solution" is offered
}

const readMissing = `(() => {
  const view = document.querySelector('main > section.missing');
  return {
    kind: view?.dataset.missing || '',
    title: view?.querySelector('h1')?.textContent || '',
    text: view?.innerText || '',
    links: [...(view?.querySelectorAll('a[href]') || [])].map((a) => a.getAttribute('href')),
    board: !!document.querySelector('.board'),
    solve: [...document.querySelectorAll('.give-up')].some((b) => b.checkVisibility()),
  };
})()`

// notFound opens addresses with nothing behind them: each gets a page that
// says so in words, with no board, and offers a way on that works.
func notFound(t *testing.T, bctx context.Context, base string) {
	future := time.Now().UTC().AddDate(1, 0, 0).Format(time.DateOnly)
	tests := []struct {
		hash, kind, title string
		links             []string
	}{
		{"#/game/no-such-game", "game", "No such game", []string{"#/", "#/puzzle"}},
		{"#/join/no-such-game", "game", "No such game", []string{"#/", "#/puzzle"}},
		{"#/puzzle/" + future, "puzzle", "No puzzle for " + future + " yet", []string{"#/puzzle", "#/puzzles"}},
		{"#/puzzle/2001-01-01", "puzzle", "No puzzle for 2001-01-01", []string{"#/puzzle", "#/puzzles"}},
		{"#/puzzle/tomorrow", "puzzle", "Not a day", []string{"#/puzzle", "#/puzzles"}},
	}
	ctx := tab(t, bctx, base+"/")
	for _, tt := range tests {
		// By way of the home page, so that no page is taken for the next one's.
		do(t, ctx, "open "+tt.hash,
			chromedp.Evaluate[chromedp.Void](`location.hash = '#/'`),
			chromedp.WaitVisible(chromedp.CSS(`#new-game`)),
			chromedp.Evaluate[chromedp.Void](fmt.Sprintf("location.hash = %q", tt.hash)))
		var m missingPage
		deadline := time.Now().Add(20 * time.Second)
		for {
			var err error
			if m, err = chromedp.Run(ctx, chromedp.Evaluate[missingPage](readMissing)); err != nil {
				t.Fatal(err)
			}
			if m.Title == tt.title || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if m.Kind != tt.kind || m.Title != tt.title {
			t.Errorf("%s: a page titled %q (%s), want %q (%s)", tt.hash, m.Title, m.Kind, tt.title, tt.kind)
			continue
		}
		for _, l := range tt.links {
			if !slices.Contains(m.Links, l) {
				t.Errorf("%s: no way on to %s, only %v", tt.hash, l, m.Links)
			}
		}
		if m.Board || m.Solve || strings.Contains(m.Text, "Ply") {
			t.Errorf("%s: the page still shows a board (%v), a solution to show (%v) or a ply: %q", tt.hash, m.Board, m.Solve, m.Text)
		}
	}
	// The way on works: today's puzzle, from the last page.
	do(t, ctx, "follow the link to today's puzzle", chromedp.Click(chromedp.CSS(`.missing a[href="#/puzzle"]`)))
	waitPuzzle(t, ctx, "today's puzzle", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
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
	Meta     string `json:"meta"`
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
    meta: document.querySelector('.puzzle-meta')?.textContent || '',
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
	// A fresh server: no one has tried it, and the page says so in words.
	if before.Stats.Solved != 0 || !strings.Contains(p.Meta, "not solved yet") || strings.Contains(p.Meta, "0 times") {
		t.Errorf("stats %+v read %q; want \"not solved yet\"", before.Stats, p.Meta)
	}
	// The key move's legs and the themes would give the answer away.
	if strings.Contains(p.Meta, "legs") {
		t.Errorf("before it is solved the puzzle's line reads %q: a hint", p.Meta)
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
		// The pit is named as the board numbers it (1-6 from its owner's
		// left), not by the API's 0-11.
		if want := fmt.Sprintf("Not the answer: pit %d ", label(wrong)); p.Result != "incorrect" || !strings.HasPrefix(p.Feedback, want) {
			t.Fatalf("a wrong move (the API's pit %d): feedback %q (%s), want %q…", wrong, p.Feedback, p.Result, want)
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
	if !strings.Contains(p.Meta, "solved once in") || !strings.Contains(p.Meta, "key move relays through") {
		t.Errorf("after the first solution the puzzle's line reads %q; want \"solved once in …\" and the key move's legs", p.Meta)
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
// in a browser of their own; each sees the other's move arrive live. A third
// opens the link too, once both seats are taken: they watch, and the page
// keeps saying so while the moves arrive.
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
	if pa.Watching {
		t.Error("Alice holds a seat and is shown as a spectator")
	}

	carol := tab(t, bctx, link)
	pc, _ := settle(t, carol, base, id, waiting)
	if !pc.Watching {
		t.Errorf("a third person opening the link is not shown as a spectator: %q", pc.Text)
	}
	// The page saw the seats taken before asking for one: no join was
	// sent, so none was refused (409) in the console.
	joinPath := "POST /v1/games/" + id + "/join"
	if sent := requestsSent(carol); slices.Contains(sent, joinPath) || !slices.Contains(sent, "GET /v1/games/"+id) {
		t.Errorf("a spectator's page sent %q; want the game read and no join", sent)
	}
	for _, m := range consoleLog(carol) {
		if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning {
			t.Errorf("a spectator's console: %s (%s)", m, m.URL)
		}
	}
	if !strings.Contains(pc.Text, "Both seats were already taken") {
		t.Errorf("a spectator's page does not say why they watch: %q", pc.Text)
	}

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
		if pc, _ := settle(t, carol, base, id, moved); !pc.Watching {
			t.Errorf("move %d: the spectator's badge is gone: %q", i, pc.Text)
		}
		t.Logf("move %d: %s sowed pit %d; all three pages show ply %d", i, pl.name, pit, ply+1)
		var gg apiGame
		if err := getJSON(pl.me, base+"/v1/games/"+id, &gg); err != nil {
			t.Fatal(err)
		}
		if gg.Status != "active" {
			break
		}
	}
}

// practiceSeq reads a practice id's filter part and sequence number.
func practiceSeq(t *testing.T, id string) (string, int) {
	t.Helper()
	i := strings.LastIndexByte(id, '-')
	seq, err := strconv.Atoi(id[i+1:])
	if i < 0 || err != nil || !strings.HasPrefix(id, "x") {
		t.Fatalf("%q is not a practice id", id)
	}
	return id[:i+1], seq
}

// choose picks an option of a select, as a person does: the page hears of
// the change.
func choose(name, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
  const s = document.querySelector('select[name=%q]');
  s.value = %q;
  s.dispatchEvent(new Event('change', { bubbles: true }));
})()`, name, value))
}

// practice: "More puzzles" shows a practice puzzle at once; a difficulty
// chosen brings one of it; "Another puzzle" the next of its sequence, never
// the same; it is solved like the daily one, uncounted; its address shows it
// again; an address that names none says so.
func practice(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "open More puzzles", chromedp.Click(chromedp.CSS(`[data-nav=practice]`)))
	p := waitPuzzle(t, ctx, "a first practice puzzle", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	if prefix, _ := practiceSeq(t, p.ID); prefix != practicePrefix+"d0-gany-tany-" || strings.Contains(p.Meta, "solved") {
		t.Fatalf("first practice puzzle %s, meta %q", p.ID, p.Meta)
	}
	do(t, ctx, "choose difficulty 2", choose("difficulty", "2"))
	p = waitPuzzle(t, ctx, "a puzzle of difficulty 2", func(p puzzlePage) bool {
		return strings.HasPrefix(p.ID, practicePrefix+"d2-gany-tany-") && len(p.Legal) > 0
	})
	if !strings.Contains(p.Meta, "★★☆☆☆") {
		t.Errorf("difficulty 2 reads %q", p.Meta)
	}
	first := p.ID
	_, seq := practiceSeq(t, first)
	do(t, ctx, "ask for another", chromedp.Click(chromedp.CSS(`.another`)))
	p = waitPuzzle(t, ctx, "another puzzle", func(p puzzlePage) bool { return p.ID != first && len(p.Legal) > 0 })
	if prefix, next := practiceSeq(t, p.ID); prefix != practicePrefix+"d2-gany-tany-" || next <= seq {
		t.Fatalf("another after %s: %s", first, p.ID)
	}
	if loc, err := chromedp.Run(ctx, chromedp.Location()); err != nil || !strings.HasSuffix(loc, "#/practice/"+p.ID) {
		t.Fatalf("the address %q (%v) does not follow the puzzle %s", loc, err, p.ID)
	}

	for i, pit := range solutionMoves(t, ctx, base, p.ID) {
		do(t, ctx, fmt.Sprintf("play solution move %d", i), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, pit))))
		p = waitPuzzle(t, ctx, "feedback on the solution", func(p puzzlePage) bool {
			return p.Result != "pending" && (p.Result != "partial" || len(p.Legal) > 0)
		})
		if p.Result == "correct" {
			break
		}
	}
	if p.Result != "correct" || strings.Contains(p.Meta, "solved") {
		t.Fatalf("after the solution: %q (%s), meta %q", p.Feedback, p.Result, p.Meta)
	}
	screenshot(t, ctx, "practice")

	solved := p.ID
	do(t, ctx, "open the puzzle's address afresh", chromedp.Navigate(base+"/#/practice/"+solved), chromedp.Reload())
	p = waitPuzzle(t, ctx, "the same puzzle again", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	difficulty, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('select[name=difficulty]').value`))
	if err != nil || p.ID != solved || difficulty != "2" {
		t.Fatalf("the address of %s shows %s, difficulty %q (%v)", solved, p.ID, difficulty, err)
	}

	do(t, ctx, "an address that names no practice puzzle", chromedp.Navigate(base+"/#/practice/x1-d1-gdefend-tany-3"),
		chromedp.WaitVisible(chromedp.CSS(`[data-missing]`)))
	title, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`[data-missing] h1`)))
	if err != nil || title != "No such practice puzzle" {
		t.Fatalf("a practice address with no puzzle: %q (%v)", title, err)
	}
}
