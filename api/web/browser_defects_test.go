package web_test

// The defects a new user found in the reference client, each checked where
// it was seen: at a phone's size for a phone's. (The profile's challenge
// after a decline is checked in challengeGame, which has the two players.)

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ayoayo/ayoayo/engine"
)

func defects(t *testing.T, bctx context.Context, srv testServer) {
	t.Run("practice retry words", func(t *testing.T) { practiceRetryWords(t, bctx, srv.url) })
	t.Run("practice filters", func(t *testing.T) { practiceFilters(t, bctx, srv.url) })
	t.Run("review on a phone", func(t *testing.T) { reviewOnPhone(t, bctx, srv) })
	t.Run("draw as North", func(t *testing.T) { drawAsNorth(t, bctx, srv) })
}

// wrongPit is a legal pit of the puzzle shown that is not its solution's first move.
func wrongPit(t *testing.T, ctx context.Context, base string, p puzzlePage) int {
	t.Helper()
	solution := solutionMoves(t, ctx, base, p.ID)
	for _, pit := range p.Legal {
		if pit != solution[0] {
			return pit
		}
	}
	t.Fatalf("puzzle %s: no legal pit but the solution's (%v)", p.ID, p.Legal)
	return -1
}

func retryText(t *testing.T, ctx context.Context) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const b = document.querySelector('.retry'); return b.hidden ? '(hidden)' : b.textContent; })()`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// practiceRetryWords: a practice puzzle solved offers "Play it again"; played
// again and failed, the button says "Try again", as the words above it do.
func practiceRetryWords(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/#/practice")
	p := waitPuzzle(t, ctx, "a practice puzzle", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	wrong := wrongPit(t, ctx, base, p)
	for i, pit := range solutionMoves(t, ctx, base, p.ID) {
		do(t, ctx, fmt.Sprintf("play solution move %d", i), chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, pit))))
		p = waitPuzzle(t, ctx, "feedback on the solution", func(p puzzlePage) bool {
			return p.Result != "pending" && (p.Result != "partial" || len(p.Legal) > 0)
		})
		if p.Result == "correct" {
			break
		}
	}
	if got := retryText(t, ctx); p.Result != "correct" || got != "Play it again" {
		t.Fatalf("after the solution (%s) the button reads %q, want \"Play it again\"", p.Result, got)
	}
	do(t, ctx, "play it again", chromedp.Click(chromedp.CSS(`.retry`)))
	waitPuzzle(t, ctx, "the puzzle afresh", func(p puzzlePage) bool { return p.Result == "pending" && len(p.Legal) > 0 })
	do(t, ctx, "a wrong move", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, wrong))))
	p = waitPuzzle(t, ctx, "feedback on the wrong move", func(p puzzlePage) bool { return p.Result != "pending" })
	if got := retryText(t, ctx); p.Result != "incorrect" || !strings.Contains(p.Feedback, "Try again") || got != "Try again" {
		t.Errorf("a wrong move after a solve: feedback %q (%s), the button %q; want both to say \"Try again\"", p.Feedback, p.Result, got)
	}
}

func practiceLoads(ctx context.Context) int {
	n := 0
	for _, r := range requestsSent(ctx) {
		if r == "GET /v1/puzzles/practice" {
			n++
		}
	}
	return n
}

// practiceFilters: two filters changed one after the other load one
// puzzle; a puzzle the player has started stays when the filter changes,
// with a note, until "Another puzzle" brings one of the new filter.
func practiceFilters(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/#/practice")
	waitPuzzle(t, ctx, "a first practice puzzle", func(p puzzlePage) bool { return p.ID != "" && len(p.Legal) > 0 })
	loads := practiceLoads(ctx)
	do(t, ctx, "difficulty 2, then the goal biggest capture", choose("difficulty", "2"), choose("goal", "max_capture"))
	p := waitPuzzle(t, ctx, "a puzzle of both filters", func(p puzzlePage) bool {
		return strings.HasPrefix(p.ID, practicePrefix+"d2-gmax_capture-") && len(p.Legal) > 0
	})
	time.Sleep(time.Second) // a load the second change would make later
	if n := practiceLoads(ctx) - loads; n != 1 {
		t.Errorf("two filter changes made %d practice loads, want 1", n)
	}

	do(t, ctx, "a wrong move: the puzzle is started", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.pit[data-pit="%d"]`, wrongPit(t, ctx, base, p)))))
	waitPuzzle(t, ctx, "feedback on the wrong move", func(p puzzlePage) bool { return p.Result == "incorrect" })
	loads = practiceLoads(ctx)
	do(t, ctx, "difficulty 3", choose("difficulty", "3"))
	time.Sleep(time.Second)
	kept := waitPuzzle(t, ctx, "the started puzzle", func(puzzlePage) bool { return true })
	note, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const n = document.querySelector('.filter-note'); return n.hidden ? '' : n.textContent; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if kept.ID != p.ID || practiceLoads(ctx) != loads || !strings.Contains(note, "Another puzzle") {
		t.Fatalf("the filter changed on a started puzzle: %s shows (was %s), %d loads, note %q; want it kept, no load, a note",
			kept.ID, p.ID, practiceLoads(ctx)-loads, note)
	}
	do(t, ctx, "ask for another", chromedp.Click(chromedp.CSS(`.another`)))
	waitPuzzle(t, ctx, "a puzzle of the new filter", func(p puzzlePage) bool {
		return strings.HasPrefix(p.ID, practicePrefix+"d3-gmax_capture-") && len(p.Legal) > 0
	})
}

// reviewCounts is the part of a review the summary words: each side's counts.
type reviewCounts struct {
	Review struct {
		South sideCounts `json:"south"`
		North sideCounts `json:"north"`
	} `json:"review"`
}

type sideCounts struct {
	Counts struct {
		Inaccuracy int `json:"inaccuracy"`
		Mistake    int `json:"mistake"`
		Blunder    int `json:"blunder"`
	} `json:"counts"`
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// boardInView is whether the game's board is wholly on the screen.
const boardInView = `(() => { const r = document.querySelector('.board-host .board').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`

// reviewOnPhone: a reviewed game on a phone. The summary's counts are
// words ("1 inaccuracy"); stepping to a mistake from below the board
// brings the board into sight; the graph's dots are big enough to see and
// tap, and one tapped shows its move; ← steps back from a pit reached with
// the keyboard, and ↓ moves to the next pit.
func reviewOnPhone(t *testing.T, bctx context.Context, srv testServer) {
	base := srv.url
	seed(t, srv, seeded{id: "defectsreview1", moves: worstLine(t, 16), winner: engine.NorthWins, rating: 1500})
	ctx := tab(t, bctx, base+"/#/game/defectsreview1")
	do(t, ctx, "phone size", phone)
	do(t, ctx, "ask for the review", chromedp.Click(chromedp.CSS(`.review`)))
	page := waitReview(t, ctx, "the review", func(r reviewPage) bool { return strings.HasPrefix(r.Summary, "Accuracy: ") && len(r.Dots) > 0 })

	var rc reviewCounts
	if err := getJSON(ctx, base+"/v1/games/defectsreview1/review", &rc); err != nil {
		t.Fatal(err)
	}
	for side, s := range map[string]sideCounts{"south": rc.Review.South, "north": rc.Review.North} {
		c := s.Counts
		t.Logf("%s: %+v", side, c)
		want := fmt.Sprintf("(%s, %s, %s)", plural(c.Inaccuracy, "inaccuracy", "inaccuracies"), plural(c.Mistake, "mistake", "mistakes"), plural(c.Blunder, "blunder", "blunders"))
		if !strings.Contains(page.Summary, title(side)+" ") || !strings.Contains(page.Summary, want) {
			t.Errorf("the summary %q does not count %s's as %s", page.Summary, side, want)
		}
	}
	if bad := regexp.MustCompile(`\b1 (inaccuracies|mistakes|blunders)\b`).FindString(page.Summary); bad != "" {
		t.Errorf("the summary says %q: %q", page.Summary, bad)
	}

	var mistakes []int
	for _, d := range page.Dots {
		if d["class"] == "mistake" || d["class"] == "blunder" {
			var k int
			fmt.Sscan(d["ply"], &k)
			mistakes = append(mistakes, k)
		}
	}
	if len(mistakes) < 2 || mistakes[len(mistakes)-1] < 2 {
		t.Fatalf("the review found the mistakes %v: too few", mistakes)
	}
	words := func(k int) func(reviewPage) bool {
		return func(r reviewPage) bool {
			return strings.HasPrefix(r.Words, fmt.Sprintf("Move %d, ", k)) && r.Viewing == "past"
		}
	}

	// From below the board (the buttons are under the graph), the next
	// mistake brings the board into sight.
	inView, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.scrollTo(0, document.documentElement.scrollHeight), `+boardInView))
	if err != nil || inView {
		t.Fatalf("scrolled to the page's foot, the board is still in sight (%v): the check would prove nothing", err)
	}
	do(t, ctx, "next mistake", chromedp.Evaluate[chromedp.Void](`document.querySelector('.next-mistake').click()`))
	waitReview(t, ctx, "the first mistake", words(mistakes[0]))
	waitText(t, ctx, "the board in sight", `String(`+boardInView+`)`, func(s string) bool { return s == "true" })

	// The dots: at least 8 px across on the phone, and each one tappable.
	size, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.min(...[...document.querySelectorAll('.graph-dot')].map((d) => d.getBoundingClientRect().width))`))
	if err != nil || size < 8 {
		t.Errorf("the graph's smallest dot is %.1f px across on a phone (%v), want 8 at least", size, err)
	}
	k := mistakes[len(mistakes)-1]
	do(t, ctx, "tap the last mistake's dot", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.graph-dot[data-ply="%d"]`, k))))
	waitReview(t, ctx, "the last mistake, from its dot", words(k))

	// A pit reached with the keyboard: ← still steps back, ↓ moves along the row.
	focusPit := chromedp.Evaluate[chromedp.Void](`document.querySelector('.pit[data-pit="2"]').focus()`)
	do(t, ctx, "a key, then a pit focused", chromedp.KeyEvent(kb.Escape), focusPit)
	visible, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.matches('.pit:focus-visible')`))
	if err != nil || !visible {
		t.Fatalf("the pit does not have the keyboard's focus (%v): the check would prove nothing", err)
	}
	do(t, ctx, "← on the pit", chromedp.KeyEvent(kb.ArrowLeft))
	waitReview(t, ctx, "a move back, from the pit", words(k-1))
	do(t, ctx, "↓ on the pit", focusPit, chromedp.KeyEvent(kb.ArrowDown))
	if pit, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.matches('.pit') ? document.activeElement.dataset.pit : ''`)); err != nil || pit == "" || pit == "2" {
		t.Errorf("↓ on pit 2 leaves the focus on %q (%v), want the next pit", pit, err)
	}
	do(t, ctx, "desktop size", desktop)
}

// drawAsNorth: a draw with unequal stores, seen by North's player: the
// result panel gives the score in the status line's order, South's first.
func drawAsNorth(t *testing.T, bctx context.Context, srv testServer) {
	base := srv.url
	var line []int
	var south, north int
	for n := 16; n >= 4; n-- {
		line = worstLine(t, n)
		p := engine.Start()
		for _, pit := range line {
			p, _ = p.Apply(pit, engine.Rules{})
		}
		if p.Captured[0] != p.Captured[1] {
			south, north = int(p.Captured[engine.South]), int(p.Captured[engine.North])
			break
		}
		line = nil
	}
	if line == nil {
		t.Fatal("no worst line ends with unequal stores")
	}
	seed(t, srv, seeded{id: "defectsdraw01", moves: line, winner: engine.Draw, reason: engine.ByAgreement, rating: 1500})
	ctx := tab(t, bctx, base+"/")
	do(t, ctx, "North's seat in this browser",
		chromedp.Evaluate[chromedp.Void](`import('/assets/store.js').then((m) => m.saveSeat('defectsdraw01', 'north', 'defects-north', 'friend'))`, chromedp.EvalAwaitPromise),
		chromedp.Navigate(base+"/#/game/defectsdraw01"), chromedp.Reload())
	want := fmt.Sprintf("Draw %d–%d", south, north)
	text := waitText(t, ctx, "North's result", `document.querySelector('.result-panel:not([hidden]) .result-text')?.textContent || ''`, func(s string) bool { return s != "" })
	status := waitText(t, ctx, "the status line", `document.querySelector('.status')?.textContent || ''`, func(s string) bool { return strings.HasPrefix(s, "Game over") })
	if !strings.HasPrefix(text, want) || !strings.Contains(status, want) {
		t.Errorf("as North: the status %q, the result %q; want both to say %q", status, text, want)
	}
}
