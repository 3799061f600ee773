// Package explorertest is the conformance suite of the explorer's index:
// the cases every implementation of explorer.Store passes, so that the
// explorer can rely on what the interface promises whatever keeps the
// data. A store's test hands Run a function that opens a fresh, empty
// store, and (for a store several processes share) one that opens a
// second handle on the same data.
package explorertest

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review/explorer"
)

// Store is what the suite checks: the index, and the games it indexes.
type Store interface {
	games.Store
	explorer.Store
}

// Again opens another handle on the data s keeps, as another process
// would; nil for a store of one process.
type Again func(t *testing.T, s Store) Store

// racers is how many goroutines race to index one game.
const racers = 8

// Run runs every case on a fresh store from open.
func Run(t *testing.T, open func(t *testing.T) Store, again Again) {
	t.Helper()
	cases := []struct {
		name string
		test func(t *testing.T, s Store, again Again)
	}{
		{"a finished rated game is indexed once", testIndexOnce},
		{"only finished rated games wait to be indexed", testUnindexedOnly},
		{"rows add up games by result, rating and band", testRowsAddUp},
		{"recent keeps the last games, the last first", testRecent},
		{"a game with no lines is marked all the same", testNoLines},
		{"an unknown game is not indexed", testUnknown},
		{"racing indexers index a game once", testRace},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.test(t, open(t), again) })
	}
}

var base = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// finished stores a game of twelve plies of a fixed line, of status,
// rated or not, in category c, whose seats' ratings average rating,
// ended (or changed) at base plus `at` seconds.
func finished(t *testing.T, s Store, id string, c players.Category, rating float64, winner engine.Winner, at int, status games.Status, rated bool) games.Game {
	t.Helper()
	tc := games.TimeControl{Kind: games.Live, Initial: 5 * time.Minute}
	if c == players.Correspondence {
		tc = games.TimeControl{Kind: games.Correspondence, PerMove: 24 * time.Hour}
	}
	p := engine.Start()
	var hist []byte
	for i := range 12 {
		var pits []int
		for m := p.LegalMoves(engine.Rules{}); m != 0; {
			pits = append(pits, m.Next())
		}
		pit := pits[(i*5+3)%len(pits)]
		hist = append(hist, byte(pit))
		p, _ = p.Apply(pit, engine.Rules{})
	}
	g := games.Game{ID: id, CreatedAt: base, UpdatedAt: base.Add(time.Duration(at) * time.Second), JoinedAt: base,
		Start: engine.Start(), Ply: len(hist), Position: p, History: hist, Status: status, Version: 5,
		TimeControl: tc, Clock: [2]time.Duration{time.Minute, time.Minute}, Rated: rated,
		Players: [2]games.SeatPlayer{{ID: "", Name: "a", Rating: rating - 50, Deviation: 60},
			{ID: "", Name: "b", Rating: rating + 50, Deviation: 60}}}
	switch status {
	case games.Finished:
		g.Result = engine.Result{Winner: winner, Reason: engine.ByResignation}
	case games.Active:
		g.Deadline = base.Add(time.Hour)
	}
	if err := s.CreateGame(t.Context(), g, nil); err != nil {
		t.Fatalf("create %s: %v", id, err)
	}
	return g
}

func unindexed(t *testing.T, s Store) []string {
	t.Helper()
	gs, err := s.UnindexedGames(t.Context(), 100)
	if err != nil {
		t.Fatalf("unindexed games: %v", err)
	}
	var ids []string
	for _, g := range gs {
		ids = append(ids, g.ID)
	}
	return ids
}

func index(t *testing.T, s explorer.Store, g games.Game) bool {
	t.Helper()
	ok, err := s.IndexGame(t.Context(), explorer.EntryOf(g))
	if err != nil {
		t.Fatalf("index %s: %v", g.ID, err)
	}
	return ok
}

func rows(t *testing.T, s Store, p engine.Position, c players.Category, lo, hi int) []explorer.Row {
	t.Helper()
	rs, err := s.ExplorerRows(t.Context(), explorer.KeyOf(p), c, lo, hi)
	if err != nil {
		t.Fatalf("explorer rows: %v", err)
	}
	slices.SortFunc(rs, func(a, b explorer.Row) int { return a.Band*100 + a.Move - b.Band*100 - b.Move })
	return rs
}

func testIndexOnce(t *testing.T, s Store, _ Again) {
	g := finished(t, s, "once", players.Live, 1500, engine.SouthWins, 1, games.Finished, true)
	if ids := unindexed(t, s); !slices.Equal(ids, []string{"once"}) {
		t.Fatalf("unindexed %v, want [once]", ids)
	}
	if !index(t, s, g) {
		t.Fatal("the first IndexGame did not index the game")
	}
	if index(t, s, g) {
		t.Fatal("the second IndexGame indexed the game again")
	}
	if ids := unindexed(t, s); len(ids) != 0 {
		t.Fatalf("unindexed %v after indexing, want none", ids)
	}
	got := rows(t, s, engine.Start(), players.Live, 0, explorer.MaxBand)
	want := []explorer.Row{{Move: int(g.History[0]), Band: 15, South: 1, RatingSum: 1500, LastAt: g.UpdatedAt, Recent: []string{"once"}}}
	checkRows(t, got, want)
	// The game's twelfth position is indexed too; the one after it is not.
	p := engine.Start()
	for _, pit := range g.History[:11] {
		p, _ = p.Apply(int(pit), engine.Rules{})
	}
	if rs := rows(t, s, p, players.Live, 0, explorer.MaxBand); len(rs) != 1 || rs[0].Move != int(g.History[11]) {
		t.Errorf("rows of the position before ply 11: %+v, want one of pit %d", rs, g.History[11])
	}
	if rs := rows(t, s, g.Position, players.Live, 0, explorer.MaxBand); len(rs) != 0 {
		t.Errorf("rows of the last position: %+v, want none", rs)
	}
	if rs := rows(t, s, engine.Start(), players.Correspondence, 0, explorer.MaxBand); len(rs) != 0 {
		t.Errorf("correspondence rows: %+v, want none", rs)
	}
}

func testUnindexedOnly(t *testing.T, s Store, _ Again) {
	finished(t, s, "unrated", players.Live, 1500, engine.SouthWins, 1, games.Finished, false)
	finished(t, s, "active", players.Live, 1500, 0, 2, games.Active, true)
	finished(t, s, "late", players.Live, 1500, engine.Draw, 9, games.Finished, true)
	finished(t, s, "early", players.Correspondence, 1500, engine.NorthWins, 3, games.Finished, true)
	if ids := unindexed(t, s); !slices.Equal(ids, []string{"early", "late"}) {
		t.Fatalf("unindexed %v, want [early late]: the finished rated games, the earliest ended first", ids)
	}
	gs, err := s.UnindexedGames(t.Context(), 1)
	if err != nil || len(gs) != 1 || gs[0].ID != "early" || !slices.Equal(gs[0].History, gs[0].History[:12]) {
		t.Fatalf("UnindexedGames(1) = %v, %v; want the early game", gs, err)
	}
}

func testRowsAddUp(t *testing.T, s Store, _ Again) {
	type game struct {
		id     string
		c      players.Category
		rating float64
		w      engine.Winner
	}
	for i, g := range []game{
		{"a", players.Live, 1510, engine.SouthWins}, {"b", players.Live, 1590, engine.Draw},
		{"c", players.Live, 1550, engine.NorthWins}, {"d", players.Live, 2210, engine.SouthWins},
		{"e", players.Correspondence, 1500, engine.NorthWins},
	} {
		index(t, s, finished(t, s, g.id, g.c, g.rating, g.w, 10+i, games.Finished, true))
	}
	pit := 3
	at := func(i int) time.Time { return base.Add(time.Duration(10+i) * time.Second) }
	checkRows(t, rows(t, s, engine.Start(), players.Live, 0, explorer.MaxBand), []explorer.Row{
		{Move: pit, Band: 15, South: 1, Draws: 1, North: 1, RatingSum: 1510 + 1590 + 1550, LastAt: at(2), Recent: []string{"c", "b", "a"}},
		{Move: pit, Band: 22, South: 1, RatingSum: 2210, LastAt: at(3), Recent: []string{"d"}},
	})
	checkRows(t, rows(t, s, engine.Start(), players.Live, 16, 22), []explorer.Row{
		{Move: pit, Band: 22, South: 1, RatingSum: 2210, LastAt: at(3), Recent: []string{"d"}},
	})
	checkRows(t, rows(t, s, engine.Start(), players.Correspondence, 0, explorer.MaxBand), []explorer.Row{
		{Move: pit, Band: 15, North: 1, RatingSum: 1500, LastAt: at(4), Recent: []string{"e"}},
	})
}

func testRecent(t *testing.T, s Store, _ Again) {
	// Indexed out of the order they ended: LastAt is the latest end, the
	// recent ones the latest indexed.
	for i, at := range []int{5, 7, 6, 8, 1} {
		index(t, s, finished(t, s, fmt.Sprint("g", i), players.Live, 1500, engine.SouthWins, at, games.Finished, true))
	}
	got := rows(t, s, engine.Start(), players.Live, 0, explorer.MaxBand)
	if len(got) != 1 || got[0].South != 5 || !got[0].LastAt.Equal(base.Add(8*time.Second)) ||
		!slices.Equal(got[0].Recent, []string{"g4", "g3", "g2"}) {
		t.Fatalf("rows %+v, want 5 South wins, LastAt at 8 s, recent [g4 g3 g2]", got)
	}
}

func testNoLines(t *testing.T, s Store, _ Again) {
	g := finished(t, s, "plain", players.Live, 1500, engine.SouthWins, 1, games.Finished, true)
	ok, err := s.IndexGame(t.Context(), explorer.Entry{GameID: g.ID})
	if err != nil || !ok {
		t.Fatalf("IndexGame with no lines = %v, %v; want true", ok, err)
	}
	if ids := unindexed(t, s); len(ids) != 0 {
		t.Fatalf("unindexed %v, want none", ids)
	}
	if rs := rows(t, s, engine.Start(), players.Live, 0, explorer.MaxBand); len(rs) != 0 {
		t.Fatalf("rows %+v, want none", rs)
	}
}

func testUnknown(t *testing.T, s Store, _ Again) {
	e := explorer.Entry{GameID: "nobody", Category: players.Live, Band: 15, Winner: engine.SouthWins, Rating: 1500,
		EndedAt: base, Lines: []explorer.Line{{Position: explorer.KeyOf(engine.Start()), Move: 3}}}
	ok, err := s.IndexGame(t.Context(), e)
	if err != nil || ok {
		t.Fatalf("IndexGame of an unknown game = %v, %v; want false", ok, err)
	}
	if rs := rows(t, s, engine.Start(), players.Live, 0, explorer.MaxBand); len(rs) != 0 {
		t.Fatalf("rows %+v, want none", rs)
	}
}

func testRace(t *testing.T, s Store, again Again) {
	handles := []explorer.Store{s}
	if again != nil {
		handles = append(handles, again(t, s))
	}
	g := finished(t, s, "raced", players.Live, 1500, engine.Draw, 1, games.Finished, true)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() {
			ok, err := handles[i%len(handles)].IndexGame(t.Context(), explorer.EntryOf(g))
			if err != nil {
				t.Errorf("racer %d: %v", i, err)
			}
			if ok {
				wins.Add(1)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d racers indexed the game, want 1", wins.Load())
	}
	if got := rows(t, s, engine.Start(), players.Live, 0, explorer.MaxBand); len(got) != 1 || got[0].Draws != 1 {
		t.Fatalf("rows %+v, want the game once", got)
	}
}

func checkRows(t *testing.T, got, want []explorer.Row) {
	t.Helper()
	eq := len(got) == len(want)
	for i := 0; eq && i < len(got); i++ {
		g, w := got[i], want[i]
		eq = g.Move == w.Move && g.Band == w.Band && g.South == w.South && g.Draws == w.Draws && g.North == w.North &&
			g.RatingSum == w.RatingSum && g.LastAt.Equal(w.LastAt) && slices.Equal(g.Recent, w.Recent)
	}
	if !eq {
		t.Fatalf("rows\n got %+v\nwant %+v", got, want)
	}
}
