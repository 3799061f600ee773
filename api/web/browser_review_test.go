package web_test

// After the game: the engine review's score graph and its mistakes stepped
// through with the best move drawn, and the opening explorer beside the
// board, whose moves play on the board in an analysis.

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// seeded is a finished game to store: its moves, from the start (-1: the
// first legal pit), and how it ended.
type seeded struct {
	id     string
	moves  []int
	winner engine.Winner
	rating float64 // the two players' average
	rated  bool
	reason engine.EndReason // how it ended; the zero value: resignation
}

// seed stores g as a finished live game (ended by resignation after its
// moves), as if it had been played, and returns it.
func seed(t *testing.T, srv testServer, s seeded) games.Game {
	t.Helper()
	at := time.Now().UTC().Add(-time.Hour)
	p := engine.Start()
	hist := make([]byte, 0, len(s.moves))
	records := make([]games.Record, 0, len(s.moves))
	for i, pit := range s.moves {
		if pit < 0 { // any: the first legal pit
			m := p.LegalMoves(engine.Rules{})
			pit = m.Next()
		}
		if !p.LegalMoves(engine.Rules{}).Has(pit) {
			t.Fatalf("seed %s: move %d, pit %d, is not legal in %s", s.id, i+1, pit, p)
		}
		p, _ = p.Apply(pit, engine.Rules{})
		if p.Status(engine.Rules{}).Over() {
			t.Fatalf("seed %s: move %d ends the game", s.id, i+1)
		}
		hist = append(hist, byte(pit))
		records = append(records, games.Record{Ply: i, Pit: pit, At: at.Add(time.Duration(i+1) * time.Second), Version: int64(i + 2)})
	}
	g := games.Game{ID: s.id, CreatedAt: at, UpdatedAt: at.Add(time.Minute), JoinedAt: at,
		Start: engine.Start(), Ply: len(hist), Position: p, History: hist, Status: games.Finished, Version: int64(len(hist) + 2),
		TimeControl: games.TimeControl{Kind: games.Live, Initial: 5 * time.Minute}, Clock: [2]time.Duration{time.Minute, time.Minute},
		Rated: s.rated, Result: engine.Result{Winner: s.winner, Reason: cmp.Or(s.reason, engine.ByResignation)},
		Players: [2]games.SeatPlayer{{Name: "Ade", Rating: s.rating - 50, Deviation: 60}, {Name: "Bisi", Rating: s.rating + 50, Deviation: 60}}}
	if err := srv.store.CreateGame(context.Background(), g, records); err != nil {
		t.Fatalf("seed %s: %v", s.id, err)
	}
	return g
}

// worstLine plays n moves from the start, each the move that leaves the
// opponent the biggest capture next (the first such pit): a line with
// mistakes for the review to find.
func worstLine(t *testing.T, n int) []int {
	t.Helper()
	r := engine.Rules{}
	p := engine.Start()
	var line []int
	for range n {
		best, bestGift := -1, -1
		for m := p.LegalMoves(r); m != 0; {
			pit := m.Next()
			q, _ := p.Apply(pit, r)
			if q.Status(r).Over() {
				continue
			}
			gift := 0
			for mm := q.LegalMoves(r); mm != 0; {
				after, _ := q.Apply(mm.Next(), r)
				gift = max(gift, after.Margin(q.ToMove)-q.Margin(q.ToMove))
			}
			if gift > bestGift {
				best, bestGift = pit, gift
			}
		}
		if best < 0 {
			t.Fatalf("no move after %v", line)
		}
		line = append(line, best)
		p, _ = p.Apply(best, r)
	}
	return line
}

// reviewWords checks the review's and the explorer's words and numbers.
func reviewWords(t *testing.T, bctx context.Context, base string) {
	ctx := tab(t, bctx, base+"/")
	tests := []struct {
		module, expr, want string
	}{
		{"api", `m.positionNotation({pits: [4,4,4,4,4,4,4,4,4,4,4,4], captured: {south: 0, north: 0}, toMove: 'south'})`, "s-444444-444444-0-0"},
		{"api", `m.positionNotation({pits: [0,10,36,0,0,0,0,0,0,0,0,1], captured: {south: 1, north: 0}, toMove: 'north'})`, "n-0aA000-000001-1-0"},
		{"explorer", `m.signedScore(3)`, "+3"},
		{"explorer", `m.signedScore(-2)`, "\u22122"},
		{"explorer", `m.signedScore(0)`, "0"},
		{"explorer", `JSON.stringify(m.barShares(1, 1, 1))`, `{"south":34,"draws":33,"north":33}`},
		{"explorer", `JSON.stringify(m.barShares(2, 0, 1))`, `{"south":67,"draws":0,"north":33}`},
		{"explorer", `JSON.stringify(m.barShares(0, 0, 0))`, `{"south":0,"draws":0,"north":0}`},
		{"review", `JSON.stringify(m.southScores([{ply: 1, side: 'south', scoreBefore: 2, exactBefore: false, class: 'best'}, {ply: 2, side: 'north', scoreBefore: 3, exactBefore: true, class: 'mistake'}]).map((p) => [p.score, p.exact]))`, `[[2,false],[-3,true]]`},
		{"review", `String(m.stepMistake([3, 7, 9], 3, 'next'))`, "7"},
		{"review", `String(m.stepMistake([3, 7, 9], 1, 'next'))`, "3"},
		{"review", `String(m.stepMistake([3, 7, 9], 3, 'prev'))`, "null"},
		{"review", `String(m.stepMistake([3, 7, 9], 10, 'prev'))`, "9"},
		{"review", `String(m.stepMistake([3, 7, 9], 9, 'next'))`, "null"},
		{"review", `m.plyWords({ply: 5, side: 'north', pit: 8, best: [6, 10], scoreBefore: -1, exactBefore: true, loss: 4, class: 'mistake'})`,
			"Move 5, North: pit 3 played, mistake, 4 seeds lost; best: pit 1 or 5. Score before it: \u22121 for North (proven)."},
	}
	for _, tt := range tests {
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/assets/`+tt.module+`.js').then((m) => `+tt.expr+`)`, chromedp.EvalAwaitPromise))
		if err != nil || got != tt.want {
			t.Errorf("%s: %s = %q (%v), want %q", tt.module, tt.expr, got, err, tt.want)
		}
	}
}

// apiReview is the part of GET /v1/games/{id}/review the page draws.
type apiReview struct {
	State  string `json:"state"`
	Review struct {
		Plies []struct {
			Ply         int    `json:"ply"`
			Side        string `json:"side"`
			Pit         int    `json:"pit"`
			Best        []int  `json:"best"`
			ScoreBefore int    `json:"scoreBefore"`
			ExactBefore bool   `json:"exactBefore"`
			Class       string `json:"class"`
		} `json:"plies"`
	} `json:"review"`
}

// reviewPage is what the page shows of a review.
type reviewPage struct {
	Summary string              `json:"summary"`
	Dots    []map[string]string `json:"dots"`   // each dot's data-ply, data-score, data-exact, data-class
	Best    []int               `json:"best"`   // pits drawn as the best move
	Played  []int               `json:"played"` // the pit drawn as the one played (when not a best one)
	Hints   map[string]string   `json:"hints"`  // each pit's hint tag, by pit
	Pits    []int               `json:"pits"`
	Words   string              `json:"words"` // the line under the graph
	Prev    bool                `json:"prev"`  // "Previous mistake" is enabled
	Next    bool                `json:"next"`
	Viewing string              `json:"viewing"`
	Current string              `json:"current"` // the graph's current ply
}

const readReview = `(() => {
  const q = (s) => document.querySelector(s);
  const pits = (s) => [...document.querySelectorAll(s)].map((b) => Number(b.dataset.pit));
  return {
    summary: q('.review-summary')?.textContent || '',
    dots: [...document.querySelectorAll('.graph-dot')].map((d) => ({ ...d.dataset })),
    best: pits('.pit.hint-best'),
    played: pits('.pit.hint-played'),
    hints: Object.fromEntries([...document.querySelectorAll('.pit[data-hint]')].map((b) => [b.dataset.pit, b.dataset.hint])),
    pits: [...Array(12).keys()].map((i) => Number(q('.pit[data-pit="' + i + '"] .count')?.textContent)),
    words: q('.review-move')?.textContent || '',
    prev: !q('.prev-mistake')?.disabled,
    next: !q('.next-mistake')?.disabled,
    viewing: q('main > section')?.dataset.viewing || '',
    current: q('.graph-current') ? '1' : '',
  };
})()`

func waitReview(t *testing.T, ctx context.Context, what string, ok func(reviewPage) bool) reviewPage {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[reviewPage](readReview))
		if err != nil {
			t.Fatal(err)
		}
		if ok(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the page shows %+v", what, r)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// reviewGraph opens a finished game full of bad moves, asks for its review,
// and checks the score graph (a dot a ply, at the score before it from
// South's side, filled when proven), then steps to each mistake by button
// and key: the board shows the position before it with the best move and
// the move played drawn on their pits.
func reviewGraph(t *testing.T, bctx context.Context, srv testServer) {
	base := srv.url
	line := worstLine(t, 16)
	seed(t, srv, seeded{id: "reviewworst01", moves: line, winner: engine.NorthWins, rating: 1500, rated: false})
	ctx := tab(t, bctx, base+"/#/game/reviewworst01")
	do(t, ctx, "desktop size", desktop)
	do(t, ctx, "ask for the review", chromedp.Click(chromedp.CSS(`.review`)))
	page := waitReview(t, ctx, "the review", func(r reviewPage) bool { return strings.HasPrefix(r.Summary, "Accuracy: ") && len(r.Dots) > 0 })
	var rv apiReview
	if err := getJSON(ctx, base+"/v1/games/reviewworst01/review", &rv); err != nil {
		t.Fatal(err)
	}
	plies := rv.Review.Plies
	if rv.State != "done" || len(plies) != len(line) {
		t.Fatalf("the review is %q with %d plies, want done with %d", rv.State, len(plies), len(line))
	}
	if len(page.Dots) != len(plies) {
		t.Fatalf("the graph has %d dots, want one a ply: %d", len(page.Dots), len(plies))
	}
	var mistakes []int
	for i, r := range plies {
		want := r.ScoreBefore
		if r.Side == "north" {
			want = -want
		}
		d := page.Dots[i]
		if d["ply"] != fmt.Sprint(r.Ply) || d["score"] != fmt.Sprint(want) || d["exact"] != fmt.Sprint(r.ExactBefore) || d["class"] != r.Class {
			t.Errorf("dot %d is %v, want ply %d, score %d for South, exact %v, class %s", i, d, r.Ply, want, r.ExactBefore, r.Class)
		}
		if r.Class == "mistake" || r.Class == "blunder" {
			mistakes = append(mistakes, r.Ply)
		}
	}
	if len(mistakes) < 2 {
		t.Fatalf("the review of the worst line found %d mistakes or blunders (%v): too few to step through", len(mistakes), mistakes)
	}
	if !page.Next || !page.Prev {
		t.Errorf("at the game's end: next mistake enabled %v, previous %v; want both (the first, the last)", page.Next, page.Prev)
	}
	moves := gameMoves(t, ctx, base, "reviewworst01")
	// The position before ply k is the start's, or the one after move k-1.
	before := func(k int) []int {
		if k == 1 {
			return []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}
		}
		return moves[k-2].Position.Pits
	}
	at := func(k int) func(reviewPage) bool {
		r := plies[k-1]
		return func(p reviewPage) bool {
			if !slices.Equal(p.Pits, before(k)) || !slices.Equal(p.Best, r.Best) || !strings.HasPrefix(p.Words, fmt.Sprintf("Move %d, ", k)) || p.Viewing != "past" {
				return false
			}
			// The move played is drawn as such, on its own pit (a mistake is never a best move).
			return slices.Equal(p.Played, []int{r.Pit}) && p.Hints[fmt.Sprint(r.Pit)] == "played" && p.Current != ""
		}
	}
	// From the game's end "Next mistake" goes to the first.
	do(t, ctx, "next mistake", chromedp.Click(chromedp.CSS(`.next-mistake`)))
	p := waitReview(t, ctx, "the first mistake", at(mistakes[0]))
	if !strings.Contains(p.Words, plies[mistakes[0]-1].Class) {
		t.Errorf("the line under the graph says %q, without the class %s", p.Words, plies[mistakes[0]-1].Class)
	}
	do(t, ctx, "key n", chromedp.KeyEvent("n"))
	waitReview(t, ctx, "the second mistake", at(mistakes[1]))
	do(t, ctx, "key p", chromedp.KeyEvent("p"))
	waitReview(t, ctx, "back to the first mistake", at(mistakes[0]))
	do(t, ctx, "phone size", phone)
	checkLayout(t, ctx, "390 px, a mistake with its best move")
	do(t, ctx, "desktop size", desktop)
	screenshot(t, ctx, "review")
	// A dot of the graph shows its move's verdict too.
	k := mistakes[len(mistakes)-1]
	do(t, ctx, "click the last mistake's dot", chromedp.Click(chromedp.CSS(fmt.Sprintf(`.graph-dot[data-ply="%d"]`, k))))
	waitReview(t, ctx, "the last mistake, from the graph", at(k))
}

// explorerRow is one move of the explorer as the page lists it.
type explorerRow struct {
	Pit    int    `json:"pit"`
	Facts  string `json:"facts"`
	South  int    `json:"south"`
	Draws  int    `json:"draws"`
	North  int    `json:"north"`
	Recent int    `json:"recent"`
	Score  string `json:"score"` // data-score, "" without one
}

type explorerPage struct {
	Hidden   bool          `json:"hidden"`
	State    string        `json:"state"`
	Position string        `json:"position"`
	Status   string        `json:"status"`
	Moves    []explorerRow `json:"moves"`
	Legal    []int         `json:"legal"`
	Viewing  string        `json:"viewing"`
	Pits     []int         `json:"pits"`
	Caption  string        `json:"caption"`
}

const readExplorer = `(() => {
  const q = (s) => document.querySelector(s);
  const x = q('.explorer');
  const n = (li, s) => Number(li.querySelector(s)?.dataset.count ?? -1);
  return {
    hidden: !x || x.hidden,
    state: x?.dataset.state || '',
    position: x?.dataset.position || '',
    status: q('.explorer-status')?.textContent || '',
    moves: [...document.querySelectorAll('.explorer-moves li')].map((li) => ({
      pit: Number(li.dataset.pit),
      facts: li.querySelector('.explorer-facts')?.textContent || '',
      south: n(li, '.seg-south'), draws: n(li, '.seg-draws'), north: n(li, '.seg-north'),
      recent: li.querySelectorAll('.explorer-recent a').length,
      score: li.querySelector('.explorer-facts')?.dataset.score ?? '',
    })),
    legal: [...document.querySelectorAll('.pit.legal')].map((b) => Number(b.dataset.pit)),
    viewing: q('main > section')?.dataset.viewing || '',
    pits: [...Array(12).keys()].map((i) => Number(q('.pit[data-pit="' + i + '"] .count')?.textContent)),
    caption: q('.board-caption')?.textContent || '',
  };
})()`

func waitExplorer(t *testing.T, ctx context.Context, what string, ok func(explorerPage) bool) explorerPage {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		e, err := chromedp.Run(ctx, chromedp.Evaluate[explorerPage](readExplorer))
		if err != nil {
			t.Fatal(err)
		}
		if e.State == "ready" && ok(e) {
			return e
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: the explorer shows %+v", what, e)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// explorerPanel seeds finished rated games, has the explorer index them,
// and checks the panel beside a finished game: the moves from the start
// with their results, games and average rating, the filter by rating, and
// a move's button playing it on the board in an analysis, the explorer
// following to the position after it.
func explorerPanel(t *testing.T, bctx context.Context, srv testServer) {
	base := srv.url
	// From the start: pit 2 in three games (South, South, North; rated
	// 2400 on average), then pit 8 in two of them; pit 4 in one draw
	// rated 2700. An unrated game with pit 0 is not indexed. The other
	// sub-tests' rated games (about 1500) are indexed too: the range of
	// ratings leaves them out.
	g := seed(t, srv, seeded{id: "explore00001", moves: []int{2, 8, -1, -1}, winner: engine.SouthWins, rating: 2400, rated: true})
	seed(t, srv, seeded{id: "explore00002", moves: []int{2, 8, -1, -1, -1}, winner: engine.SouthWins, rating: 2400, rated: true})
	seed(t, srv, seeded{id: "explore00003", moves: []int{2, 9, -1, -1}, winner: engine.NorthWins, rating: 2400, rated: true})
	seed(t, srv, seeded{id: "explore00004", moves: []int{4, -1, -1, -1}, winner: engine.Draw, rating: 2700, rated: true})
	seed(t, srv, seeded{id: "explore00005", moves: []int{0, -1, -1, -1}, winner: engine.SouthWins, rating: 2400, rated: false})
	if n, err := srv.explorer.CatchUp(context.Background()); err != nil || n < 4 {
		t.Fatalf("the explorer indexed %d games (%v), want the 4 rated ones", n, err)
	}
	ctx := tab(t, bctx, base+"/#/game/"+g.ID)
	do(t, ctx, "desktop size", desktop)
	do(t, ctx, "ratings from 2300", setField("min", "2300")...)
	// The game's end first (game 2 went on from there).
	waitExplorer(t, ctx, "the game's last position", func(e explorerPage) bool {
		return !e.Hidden && e.Position == g.Position.String() && len(e.Moves) == 1 && e.Moves[0].South == 1
	})
	do(t, ctx, "the start", chromedp.Click(chromedp.CSS(`.steps [data-step="start"]`)))
	start := waitExplorer(t, ctx, "the start", func(e explorerPage) bool { return e.Position == "s-444444-444444-0-0" && len(e.Moves) == 2 })
	want := []explorerRow{
		{Pit: 2, Facts: "3 games · avg 2400", South: 2, Draws: 0, North: 1, Recent: 3},
		{Pit: 4, Facts: "1 game · avg 2700", South: 0, Draws: 1, North: 0, Recent: 1},
	}
	for i, w := range want {
		m := start.Moves[i]
		if m.Pit != w.Pit || !strings.HasPrefix(m.Facts, w.Facts) || m.South != w.South || m.Draws != w.Draws || m.North != w.North || m.Recent != w.Recent {
			t.Errorf("explorer move %d is %+v, want %+v", i, m, w)
		}
		if m.Score == "" || !strings.Contains(m.Facts, "engine ") {
			t.Errorf("explorer move %d (%q) has no engine score", i, m.Facts)
		}
	}
	if !strings.HasPrefix(start.Status, "4 rated games (live, rated 2300–9999)") {
		t.Errorf("the explorer's status says %q", start.Status)
	}
	// Rated 2600 and up: only the draw.
	do(t, ctx, "ratings from 2600", setField("min", "2600")...)
	waitExplorer(t, ctx, "rated 2600 and up", func(e explorerPage) bool {
		return len(e.Moves) == 1 && e.Moves[0].Pit == 4 && strings.Contains(e.Status, "rated 2600–9999")
	})
	do(t, ctx, "correspondence", choose("category", "correspondence"))
	waitExplorer(t, ctx, "correspondence games", func(e explorerPage) bool {
		return len(e.Moves) == 0 && strings.HasPrefix(e.Status, "No rated game (correspondence")
	})
	do(t, ctx, "live games from 2300 again", append(setField("min", "2300"), choose("category", "live"))...)
	waitExplorer(t, ctx, "live games from 2300", func(e explorerPage) bool { return len(e.Moves) == 2 })

	// Pit 2 from the explorer: played on the board, an analysis; the
	// explorer follows with what was played after it.
	after, _ := engine.Start().Apply(2, engine.Rules{})
	do(t, ctx, "play pit 2 from the explorer", chromedp.Click(chromedp.CSS(`.explorer-moves button[data-pit="2"]`)))
	e := waitExplorer(t, ctx, "after pit 2", func(e explorerPage) bool { return e.Position == after.String() && e.Viewing == "analysis" })
	var pits []int
	for _, n := range after.Pits {
		pits = append(pits, int(n))
	}
	if !slices.Equal(e.Pits, pits) {
		t.Errorf("after pit 2 the board shows %v, want %v", e.Pits, pits)
	}
	if len(e.Moves) != 2 || e.Moves[0].Pit != 8 || e.Moves[0].South != 2 || e.Moves[1].Pit != 9 || e.Moves[1].North != 1 {
		t.Errorf("after pit 2 the explorer lists %+v, want pit 8 (2 South wins) and pit 9 (1 North win)", e.Moves)
	}
	if len(e.Legal) == 0 || !strings.Contains(e.Caption, "Analysis from the start: South 3") {
		t.Errorf("the analysis board: legal %v, caption %q", e.Legal, e.Caption)
	}
	do(t, ctx, "phone size", phone)
	checkLayout(t, ctx, "390 px, the explorer in an analysis")
	do(t, ctx, "desktop size", desktop)
	screenshot(t, ctx, "explorer")
	// A pit of the analysis board plays too; ← takes it back.
	do(t, ctx, "play pit 8 on the board", chromedp.Click(chromedp.CSS(`.pit[data-pit="8"]`)))
	twice, _ := after.Apply(8, engine.Rules{})
	waitExplorer(t, ctx, "after pits 2 and 8", func(e explorerPage) bool { return e.Position == twice.String() })
	do(t, ctx, "←", chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur()`), chromedp.KeyEvent(kb.ArrowLeft))
	waitExplorer(t, ctx, "pit 8 taken back", func(e explorerPage) bool { return e.Position == after.String() && e.Viewing == "analysis" })
	do(t, ctx, "back to the game", chromedp.Click(chromedp.CSS(`.steps [data-step="live"]`)))
	waitExplorer(t, ctx, "the game again", func(e explorerPage) bool { return e.Viewing == "live" && e.Position == g.Position.String() })
}

// setField types value into the explorer filter's field name, as a person
// does, and leaves it (which fires its change).
func setField(name, value string) []chromedp.Action[chromedp.Void] {
	sel := fmt.Sprintf(`.explorer-filter [name=%q]`, name)
	return []chromedp.Action[chromedp.Void]{
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = ''`, sel)),
		chromedp.SendKeys(chromedp.CSS(sel), value),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).blur()`, sel)),
	}
}
