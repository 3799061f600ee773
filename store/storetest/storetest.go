// Package storetest is the conformance suite of the stores: the cases every
// implementation of games.Store and puzzles.Store must pass, so that the game
// service and the puzzle feed can rely on what those interfaces promise,
// whatever keeps the data. A store's own test hands Run a function that opens
// a fresh, empty store:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Store { return memory.New() })
//	}
//
// The cases use real games, played through the engine, and real puzzles,
// made by the generator; times carry microseconds, the precision stores keep.
package storetest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/idempotency"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/tournaments"
)

// Store is what the suite checks: the stores the services need, in one.
type Store interface {
	games.Store
	puzzles.Store
	puzzles.StockStore
	players.Store
	players.TokenStore
	idempotency.Store
	lobby.Store
	games.ExportStore
	review.Store
	tournaments.Store
}

// racers is how many goroutines race for one ply, one seat or one date.
const racers = 20

// suiteCase is one named case; it gets a fresh store.
type suiteCase struct {
	name string
	test func(t *testing.T, s Store, fx *fixtures)
}

// Run runs every case of the suite as a subtest of t, each on a fresh store
// from open. open may register the store's closing with t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) Store) {
	t.Helper()
	RunShared(t, open, nil)
}

// Again opens another handle on the database that s, a store of the
// suite, keeps: what a second process sharing the database would have.
// It may register the handle's closing with t.Cleanup.
type Again func(t *testing.T, s Store) Store

// RunShared is Run for a store that several processes can share: the
// cases that race for a write (ending a game exactly once) race on two
// handles from again as well as on one.
func RunShared(t *testing.T, open func(t *testing.T) Store, again Again) {
	t.Helper()
	fx := &fixtures{again: again}
	cases := slices.Concat(gameCases, offerCases, clockCases, puzzleCases, playerCases, botCases, stockCases, idempotencyCases, lobbyCases, exportCases, reviewCases, tournamentCases, tokenCases)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := open(t)
			if s == nil {
				t.Fatal("open returned no store")
			}
			c.test(t, s, fx)
		})
	}
}

// t0 is the suite's clock: every time it stores is t0 or a tick after it,
// with microseconds, so a store that drops them fails.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC)

// tick returns the i-th instant after t0, a little over a second apart.
func tick(i int) time.Time { return t0.Add(time.Duration(i) * (time.Second + 1001*time.Microsecond)) }

// hashOf stands for the SHA-256 of a seat token, as the service stores it.
func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// seatToken is the token hash of side's seat in game id.
func seatToken(id string, side engine.Side) []byte { return hashOf(id + "/" + side.String()) }

// fixtures are what a Run's cases share: the generated puzzles, made once
// per Run, which the cases never change, and how to open a second handle.
type fixtures struct {
	// again opens a second handle on a store's database; nil when the
	// store has none (it lives in one process).
	again Again

	once sync.Once
	ps   []gen.Puzzle
	err  error
}

// puzzleDates are the days whose generated puzzles the suite uses.
var puzzleDates = []string{"2026-02-15", "2026-02-16", "2026-02-17"}

// puzzles returns the generated puzzles, one for each of puzzleDates, each
// a fresh copy the caller may change.
func (fx *fixtures) puzzles(t *testing.T) []gen.Puzzle {
	t.Helper()
	fx.once.Do(func() {
		for _, s := range puzzleDates {
			d, err := gen.ParseDate(s)
			if err != nil {
				fx.err = err
				return
			}
			p, err := gen.Daily(t.Context(), nil, d, 1) // version 1: no endgame table
			if err != nil {
				fx.err = fmt.Errorf("generate %s: %w", s, err)
				return
			}
			fx.ps = append(fx.ps, p)
		}
	})
	if fx.err != nil {
		t.Fatal(fx.err)
	}
	out := make([]gen.Puzzle, len(fx.ps))
	for i, p := range fx.ps {
		out[i] = clonePuzzle(p)
	}
	return out
}

// clonePuzzle returns p with its own slices.
func clonePuzzle(p gen.Puzzle) gen.Puzzle {
	p.Themes = slices.Clone(p.Themes)
	p.Solution = slices.Clone(p.Solution)
	return p
}

// movedTo returns a copy of p dated day, with the id of that day: another
// puzzle for the day as far as a store is concerned, since stores decide
// nothing about what they keep.
func movedTo(p gen.Puzzle, day string) gen.Puzzle {
	d, err := gen.ParseDate(day)
	if err != nil {
		panic(err) // the suite's own dates
	}
	p = clonePuzzle(p)
	p.Date, p.ID = d, gen.IDFor(d)
	return p
}

// day parses a date of the suite's tables.
func day(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := gen.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// samePuzzle reports whether two puzzles are the same, dates compared as
// instants.
func samePuzzle(a, b gen.Puzzle) bool {
	if !a.Date.Equal(b.Date) {
		return false
	}
	a.Date, b.Date = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

// checkStored fails t unless got is want with stats.
func checkStored(t *testing.T, what string, got puzzles.Stored, want gen.Puzzle, stats puzzles.Stats) {
	t.Helper()
	if !samePuzzle(got.Puzzle, want) {
		t.Fatalf("%s: puzzle\n%+v\nwant\n%+v", what, got.Puzzle, want)
	}
	if got.Stats != stats {
		t.Fatalf("%s: stats %+v, want %+v", what, got.Stats, stats)
	}
}

// diffGame lists the fields in which got differs from want. Times compare
// as instants; a token compares by value and by presence (a nil token is an
// open seat).
func diffGame(got, want games.Game) []string {
	var d []string
	field := func(name string, same bool, g, w any) {
		if !same {
			d = append(d, fmt.Sprintf("%s %v, want %v", name, g, w))
		}
	}
	field("ID", got.ID == want.ID, got.ID, want.ID)
	field("CreatedAt", got.CreatedAt.Equal(want.CreatedAt), got.CreatedAt, want.CreatedAt)
	field("UpdatedAt", got.UpdatedAt.Equal(want.UpdatedAt), got.UpdatedAt, want.UpdatedAt)
	field("JoinedAt", got.JoinedAt.Equal(want.JoinedAt), got.JoinedAt, want.JoinedAt)
	field("Rules", got.Rules == want.Rules, got.Rules, want.Rules)
	field("Start", got.Start == want.Start, got.Start, want.Start)
	field("Ply", got.Ply == want.Ply, got.Ply, want.Ply)
	field("Position", got.Position == want.Position, got.Position, want.Position)
	field("History", bytes.Equal(got.History, want.History), got.History, want.History)
	field("Status", got.Status == want.Status, got.Status, want.Status)
	field("Result", got.Result == want.Result, got.Result, want.Result)
	field("AI", (got.AI == nil) == (want.AI == nil) && (got.AI == nil || *got.AI == *want.AI), aiText(got.AI), aiText(want.AI))
	for side, tok := range got.Tokens {
		w := want.Tokens[side]
		field(fmt.Sprintf("Tokens[%s]", engine.Side(side)), (tok == nil) == (w == nil) && bytes.Equal(tok, w),
			fmt.Sprintf("%x", tok), fmt.Sprintf("%x", w))
	}
	field("Version", got.Version == want.Version, got.Version, want.Version)
	field("TimeControl", got.TimeControl == want.TimeControl, got.TimeControl, want.TimeControl)
	field("Clock", got.Clock == want.Clock, got.Clock, want.Clock)
	field("Deadline", got.Deadline.Equal(want.Deadline), got.Deadline.Format(time.RFC3339Nano), want.Deadline.Format(time.RFC3339Nano))
	field("Rated", got.Rated == want.Rated, got.Rated, want.Rated)
	field("DrawOffer", got.DrawOffer == want.DrawOffer, got.DrawOffer, want.DrawOffer)
	field("TakebackOffer", got.TakebackOffer == want.TakebackOffer, got.TakebackOffer, want.TakebackOffer)
	for side, seat := range got.Players {
		w := want.Players[side]
		field(fmt.Sprintf("Players[%s]", engine.Side(side)), seat == w, fmt.Sprintf("%+v", seat), fmt.Sprintf("%+v", w))
	}
	return d
}

func aiText(ai *games.AI) string {
	if ai == nil {
		return "none"
	}
	return fmt.Sprintf("%s level %d", ai.Side, ai.Level)
}

// checkGame fails t unless got is want.
func checkGame(t *testing.T, what string, got, want games.Game) {
	t.Helper()
	if d := diffGame(got, want); len(d) > 0 {
		t.Fatalf("%s: game %s: %s", what, want.ID, strings.Join(d, "; "))
	}
}

// checkStoredGame reads game want.ID and fails t unless it is want.
func checkStoredGame(t *testing.T, s Store, what string, want games.Game) {
	t.Helper()
	got, err := s.Game(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("%s: read game %s: %v", what, want.ID, err)
	}
	checkGame(t, what, got, want)
}

// diffRecord lists the fields in which got differs from want. Times
// compare as instants, to the microsecond the suite's times carry.
func diffRecord(got, want games.Record) []string {
	var d []string
	field := func(name string, same bool, g, w any) {
		if !same {
			d = append(d, fmt.Sprintf("%s %v, want %v", name, g, w))
		}
	}
	field("Ply", got.Ply == want.Ply, got.Ply, want.Ply)
	field("Pit", got.Pit == want.Pit, got.Pit, want.Pit)
	field("ByAI", got.ByAI == want.ByAI, got.ByAI, want.ByAI)
	field("At", got.At.Equal(want.At), got.At.Format(time.RFC3339Nano), want.At.Format(time.RFC3339Nano))
	field("Version", got.Version == want.Version, got.Version, want.Version)
	field("DrawOffer", got.DrawOffer == want.DrawOffer, got.DrawOffer, want.DrawOffer)
	return d
}

// checkRecords fails t unless got is want, record by record.
func checkRecords(t *testing.T, what string, got, want []games.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		if d := diffRecord(got[i], want[i]); len(d) > 0 {
			t.Fatalf("%s: record %d: %s", what, i, strings.Join(d, "; "))
		}
	}
}

// checkStoredRecords reads every record of game id and fails t unless they
// are want.
func checkStoredRecords(t *testing.T, s Store, what, id string, want []games.Record) {
	t.Helper()
	got, err := s.Records(t.Context(), id, 0, 1000)
	if err != nil {
		t.Fatalf("%s: records of %s: %v", what, id, err)
	}
	checkRecords(t, what, got, want)
}

// cloneGame returns g with its own slices, to keep as an expectation.
func cloneGame(g games.Game) games.Game {
	g.History = slices.Clone(g.History)
	for i := range g.Tokens {
		g.Tokens[i] = slices.Clone(g.Tokens[i])
	}
	if g.AI != nil {
		ai := *g.AI
		g.AI = &ai
	}
	return g
}

// NewGame stores a game between two people at time at, South seated (the
// token hash of id+"-south"), North waiting, and returns it: the starting
// point the stores' own tests share.
func NewGame(t testing.TB, s games.Store, id string, at time.Time) games.Game {
	t.Helper()
	g := games.Game{ID: id, CreatedAt: at, UpdatedAt: at, Start: engine.Start(), Position: engine.Start(),
		Status: games.Waiting, Tokens: [2][]byte{hashOf(id + "-south"), nil}, Version: 1}
	if err := s.CreateGame(t.Context(), g, nil); err != nil {
		t.Fatal(err)
	}
	return g
}

// JoinedGame is NewGame with North seated (the token hash of id+"-north").
func JoinedGame(t testing.TB, s games.Store, id string, at time.Time) games.Game {
	t.Helper()
	NewGame(t, s, id, at)
	g, err := s.Join(t.Context(), id, hashOf(id+"-north"), at, time.Time{}, games.SeatPlayer{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}
