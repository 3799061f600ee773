package web_test

// The defects a new user found in the reference client, each checked where
// it was seen: at a phone's size for a phone's. (The profile's challenge
// after a decline is checked in challengeGame, which has the two players.)

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func defects(t *testing.T, bctx context.Context, srv testServer) {
	t.Run("practice retry words", func(t *testing.T) { practiceRetryWords(t, bctx, srv.url) })
	t.Run("practice filters", func(t *testing.T) { practiceFilters(t, bctx, srv.url) })
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
