package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/tournaments"
	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

var tournamentCases = []suiteCase{
	{"TournamentCreateRead", testTournamentCreateRead},
	{"TournamentMissing", testTournamentMissing},
	{"TournamentList", testTournamentList},
	{"TournamentDue", testTournamentDue},
	{"TournamentJoinWithdraw", testTournamentJoinWithdraw},
	{"TournamentJoinFinished", testTournamentJoinFinished},
	{"TournamentPair", testTournamentPair},
	{"TournamentPairConflicts", testTournamentPairConflicts},
	{"TournamentPairRace", testTournamentPairRace},
	{"TournamentResults", testTournamentResults},
	{"TournamentResultRace", testTournamentResultRace},
	{"TournamentBerserk", testTournamentBerserk},
	{"TournamentStartFinish", testTournamentStartFinish},
	{"TournamentBulk", testTournamentBulk},
	{"TournamentBulkConflicts", testTournamentBulkConflicts},
}

// pairRacers is how many instances race to pair one event at once.
const pairRacers = 8

// arenaOf is an upcoming arena starting at tick(at), with every field
// set that an arena has.
func arenaOf(id string, at int) tournaments.Tournament {
	return tournaments.Tournament{ID: id, Kind: tournaments.Arena, Name: "Àríyá " + id, CreatedBy: "org", CreatedAt: tick(0),
		TimeControl: blitz, Rated: true, StartsAt: tick(at), Minutes: 45, Berserk: true,
		Conditions: tournaments.Conditions{MinRatedGames: 3, MinRating: 1200.5, MaxRating: 2100.25, Bots: true},
		Status:     tournaments.Upcoming, Version: 1}
}

// swissOf is an upcoming Swiss event starting at tick(at).
func swissOf(id string, at int) tournaments.Tournament {
	return tournaments.Tournament{ID: id, Kind: tournaments.Swiss, Name: "Swiss " + id, CreatedBy: "org", CreatedAt: tick(0),
		TimeControl: rapid, StartsAt: tick(at), Rounds: 5, RoundGap: 90*time.Second + 1001*time.Microsecond,
		Status: tournaments.Upcoming, Version: 1}
}

func mustCreateTournament(t *testing.T, s Store, ts ...tournaments.Tournament) {
	t.Helper()
	for _, tr := range ts {
		if err := s.CreateTournament(t.Context(), tr); err != nil {
			t.Fatalf("create tournament %s: %v", tr.ID, err)
		}
	}
}

// running creates tr and starts it at tick(1).
func running(t *testing.T, s Store, tr tournaments.Tournament) tournaments.Tournament {
	t.Helper()
	mustCreateTournament(t, s, tr)
	if err := s.Start(t.Context(), tr.ID, tick(1)); err != nil {
		t.Fatalf("start %s: %v", tr.ID, err)
	}
	tr.Status, tr.Version = tournaments.Running, tr.Version+1
	return tr
}

// entrantOf is player's entry, at tick(at).
func entrantOf(player string, at, round int) tournaments.Entrant {
	return tournaments.Entrant{PlayerID: player, Name: "Ọlá " + player, Rating: 1500.5 + float64(at), JoinedAt: tick(at), JoinedRound: round}
}

func mustEnter(t *testing.T, s Store, id string, es ...tournaments.Entrant) {
	t.Helper()
	for _, e := range es {
		if err := s.JoinTournament(t.Context(), id, e); err != nil {
			t.Fatalf("join %s to %s: %v", e.PlayerID, id, err)
		}
	}
}

// normTime is at as every store gives it back: UTC, zero as time.Time{}.
func normTime(at time.Time) time.Time {
	if at.IsZero() {
		return time.Time{}
	}
	return at.UTC()
}

func normTournament(tr tournaments.Tournament) tournaments.Tournament {
	tr.CreatedAt, tr.StartsAt, tr.RoundAt, tr.FinishedAt = normTime(tr.CreatedAt), normTime(tr.StartsAt), normTime(tr.RoundAt), normTime(tr.FinishedAt)
	return tr
}

func checkTournament(t *testing.T, what string, got, want tournaments.Tournament) {
	t.Helper()
	if g, w := normTournament(got), normTournament(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s:\n got %+v\nwant %+v", what, g, w)
	}
}

// readTournament reads id and fails t unless it is want.
func readTournament(t *testing.T, s Store, what string, want tournaments.Tournament) {
	t.Helper()
	got, err := s.Tournament(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("%s: read %s: %v", what, want.ID, err)
	}
	checkTournament(t, what, got, want)
}

func normEvent(ev tournaments.Event) tournaments.Event {
	ev.Tournament = normTournament(ev.Tournament)
	for i := range ev.Entrants {
		ev.Entrants[i].JoinedAt = normTime(ev.Entrants[i].JoinedAt)
	}
	for i := range ev.Games {
		ev.Games[i].CreatedAt, ev.Games[i].EndedAt = normTime(ev.Games[i].CreatedAt), normTime(ev.Games[i].EndedAt)
	}
	// nil and empty are the same: none.
	if len(ev.Entrants) == 0 {
		ev.Entrants = nil
	}
	if len(ev.Games) == 0 {
		ev.Games = nil
	}
	if len(ev.Byes) == 0 {
		ev.Byes = nil
	}
	return ev
}

// readEvent reads want.ID as an event and fails t unless it is want.
func readEvent(t *testing.T, s Store, what string, want tournaments.Event) tournaments.Event {
	t.Helper()
	got, err := s.Event(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("%s: read event %s: %v", what, want.ID, err)
	}
	if g, w := normEvent(got), normEvent(want); !reflect.DeepEqual(g, w) {
		t.Fatalf("%s: event\n got %+v\nwant %+v", what, g, w)
	}
	return got
}

func tournamentIDs(ts []tournaments.Tournament) []string {
	ids := make([]string, len(ts))
	for i := range ts {
		ids[i] = ts[i].ID
	}
	return ids
}

// eventGame is a game of an event, made at tick(at), and its session.
func eventGame(id, south, north string, round, at int) (tournaments.Game, games.Game) {
	return tournaments.Game{GameID: id, Round: round, South: south, North: north, CreatedAt: tick(at)},
		pairedGame(id, south, north, blitz, tick(at))
}

// pairingOf is a pairing of tr at seq with a game for each pair of
// players (ids gameIDs), at tick(at).
func pairingOf(tr string, seq int64, round, at int, gameIDs []string, players ...string) tournaments.Pairing {
	p := tournaments.Pairing{Tournament: tr, PairSeq: seq, Round: round, At: tick(at)}
	for i, id := range gameIDs {
		g, sess := eventGame(id, players[2*i], players[2*i+1], round, at)
		p.Games, p.Sessions = append(p.Games, g), append(p.Sessions, sess)
	}
	return p
}

func testTournamentCreateRead(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a, sw := arenaOf("a", 10), swissOf("sw", 11)
	// Every field a store keeps, set, including a running Swiss event's
	// round and a finished one's end.
	sw.Status, sw.Round, sw.RoundAt, sw.PairSeq, sw.Version, sw.FinishedAt = tournaments.Finished, 3, tick(12), 7, 9, tick(13)
	sw.Rated = true
	mustCreateTournament(t, s, a, sw)
	readTournament(t, s, "arena", a)
	readTournament(t, s, "swiss", sw)
	readEvent(t, s, "arena as an event", tournaments.Event{Tournament: a})
	taken := swissOf("a", 20)
	if err := s.CreateTournament(ctx, taken); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("create with a taken id: %v, want ErrConflict", err)
	}
	readTournament(t, s, "arena after a taken id", a)
}

func testTournamentMissing(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	mustCreateTournament(t, s, arenaOf("a", 1))
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, tournaments.ErrStoreNotFound) {
			t.Errorf("%s: %v, want ErrStoreNotFound", what, err)
		}
	}
	_, err := s.Tournament(ctx, "nope")
	check("Tournament", err)
	_, err = s.Event(ctx, "nope")
	check("Event", err)
	check("JoinTournament", s.JoinTournament(ctx, "nope", entrantOf("ann", 1, 1)))
	check("Withdraw", s.Withdraw(ctx, "nope", "ann"))
	check("RecordResult", s.RecordResult(ctx, "nogame", tournaments.Result{Outcome: pairing.Draw, Plies: 3, EndedAt: tick(2)}))
	_, err = s.GameTournament(ctx, "nogame")
	check("GameTournament", err)
	check("SetBerserk", s.SetBerserk(ctx, "nogame", engine.South))
	check("Start", s.Start(ctx, "nope", tick(2)))
	check("Finish", s.Finish(ctx, "nope", tick(2)))
	_, err = s.Bulk(ctx, "nope")
	check("Bulk", err)
	if err := s.PairTournament(ctx, pairingOf("nope", 0, 0, 2, []string{"g1"}, "ann", "bob")); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("PairTournament: %v, want ErrConflict", err)
	}
	if _, err := s.Game(ctx, "g1"); !errors.Is(err, games.ErrNotFound) {
		t.Errorf("the refused pairing's game: %v, want games.ErrNotFound", err)
	}
	if _, err := s.Player(ctx, "nobody"); !errors.Is(err, players.ErrNotFound) {
		t.Errorf("Player: %v, want players.ErrNotFound", err)
	}
}

func testTournamentList(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	// Upcoming u1..u4 (u2 and u3 start together: by id), running r1 r2,
	// finished f1 f2 f3 (f2 and f3 finish together).
	for _, x := range []struct {
		id string
		at int
	}{{"u3", 20}, {"u1", 10}, {"u4", 30}, {"u2", 20}, {"r2", 6}, {"r1", 5}, {"f1", 1}, {"f2", 2}, {"f3", 3}} {
		mustCreateTournament(t, s, arenaOf(x.id, x.at))
	}
	for _, id := range []string{"r1", "r2", "f1", "f2", "f3"} {
		if err := s.Start(ctx, id, tick(4)); err != nil {
			t.Fatal(err)
		}
	}
	for id, at := range map[string]int{"f1": 40, "f2": 41, "f3": 41} {
		if err := s.Finish(ctx, id, tick(at)); err != nil {
			t.Fatal(err)
		}
	}
	list := func(status tournaments.Status, limit int, after string) []string {
		t.Helper()
		q := tournaments.ListQuery{Status: status, Limit: limit}
		if after != "" {
			a, err := s.Tournament(ctx, after)
			if err != nil {
				t.Fatal(err)
			}
			q.After = &a
		}
		got, err := s.Tournaments(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i].Status != status {
				t.Errorf("listing %s: %s is %s", status, got[i].ID, got[i].Status)
			}
		}
		return tournamentIDs(got)
	}
	checkIDs(t, "upcoming", list(tournaments.Upcoming, 10, ""), "u1", "u2", "u3", "u4")
	checkIDs(t, "upcoming, first page", list(tournaments.Upcoming, 2, ""), "u1", "u2")
	checkIDs(t, "upcoming after u2", list(tournaments.Upcoming, 2, "u2"), "u3", "u4")
	checkIDs(t, "upcoming after u4", list(tournaments.Upcoming, 2, "u4"))
	checkIDs(t, "running", list(tournaments.Running, 10, ""), "r1", "r2")
	checkIDs(t, "running after r1", list(tournaments.Running, 10, "r1"), "r2")
	checkIDs(t, "finished, newest first", list(tournaments.Finished, 10, ""), "f3", "f2", "f1")
	checkIDs(t, "finished, first page", list(tournaments.Finished, 1, ""), "f3")
	checkIDs(t, "finished after f3", list(tournaments.Finished, 1, "f3"), "f2")
	checkIDs(t, "finished after f2", list(tournaments.Finished, 5, "f2"), "f1")
	checkIDs(t, "no limit", list(tournaments.Upcoming, 0, ""))
	f3, _ := s.Tournament(ctx, "f3")
	if !f3.FinishedAt.Equal(tick(41)) || f3.Version != 3 {
		t.Errorf("f3: finished at %v, version %d; want %v, 3", f3.FinishedAt, f3.Version, tick(41))
	}
}

func testTournamentDue(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	for _, x := range []struct {
		id string
		at int
	}{{"later", 50}, {"now", 10}, {"soon", 9}, {"run", 30}, {"done", 1}, {"same", 10}} {
		mustCreateTournament(t, s, arenaOf(x.id, x.at))
	}
	for _, id := range []string{"run", "done"} {
		if err := s.Start(ctx, id, tick(2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Finish(ctx, "done", tick(3)); err != nil {
		t.Fatal(err)
	}
	due := func(at, limit int) []string {
		t.Helper()
		got, err := s.Due(ctx, tick(at), limit)
		if err != nil {
			t.Fatal(err)
		}
		return tournamentIDs(got)
	}
	checkIDs(t, "due at tick 10", due(10, 10), "soon", "now", "same", "run")
	checkIDs(t, "due at tick 10, two", due(10, 2), "soon", "now")
	checkIDs(t, "due at tick 5", due(5, 10), "run")
	checkIDs(t, "due at tick 60", due(60, 10), "soon", "now", "same", "run", "later")
}

func testTournamentJoinWithdraw(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	sw := swissOf("sw", 5)
	mustCreateTournament(t, s, sw)
	// Bob joins first but at a later time: entrants come by JoinedAt,
	// then id (cy and dee join at one time).
	mustEnter(t, s, "sw", entrantOf("bob", 3, 1), entrantOf("ann", 2, 1), entrantOf("dee", 4, 1), entrantOf("cy", 4, 1))
	sw.Version += 4
	want := tournaments.Event{Tournament: sw, Entrants: []tournaments.Entrant{
		entrantOf("ann", 2, 1), entrantOf("bob", 3, 1), entrantOf("cy", 4, 1), entrantOf("dee", 4, 1)}}
	readEvent(t, s, "after four joins", want)
	if err := s.JoinTournament(ctx, "sw", entrantOf("ann", 6, 2)); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("join twice: %v, want ErrConflict", err)
	}
	readEvent(t, s, "after a double join", want)

	if err := s.Withdraw(ctx, "sw", "bob"); err != nil {
		t.Fatalf("withdraw: %v", err)
	}
	want.PairSeq, want.Version = 1, want.Version+1
	want.Entrants[1].Withdrawn = true
	readEvent(t, s, "after a withdrawal", want)
	if err := s.Withdraw(ctx, "sw", "bob"); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("withdraw twice: %v, want ErrConflict", err)
	}
	if err := s.Withdraw(ctx, "sw", "zed"); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("withdraw one not in it: %v, want ErrConflict", err)
	}
	readEvent(t, s, "after refused withdrawals", want)

	// Back again: active, with the new JoinedRound; the first JoinedAt,
	// Name and Rating stay.
	back := entrantOf("bob", 9, 3)
	back.Name, back.Rating = "Bob the second", 1999
	if err := s.JoinTournament(ctx, "sw", back); err != nil {
		t.Fatalf("rejoin: %v", err)
	}
	want.Version++
	want.Entrants[1].Withdrawn, want.Entrants[1].JoinedRound = false, 3
	readEvent(t, s, "after a rejoin", want)
	if err := s.JoinTournament(ctx, "sw", back); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("rejoin twice: %v, want ErrConflict", err)
	}
	readEvent(t, s, "after a second rejoin", want)
}

func testTournamentJoinFinished(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a := running(t, s, arenaOf("a", 1))
	mustEnter(t, s, "a", entrantOf("ann", 2, 1), entrantOf("bob", 2, 1))
	if err := s.Withdraw(ctx, "a", "bob"); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(ctx, "a", tick(5)); err != nil {
		t.Fatal(err)
	}
	a.Status, a.FinishedAt, a.PairSeq, a.Version = tournaments.Finished, tick(5), 1, a.Version+4
	bob := entrantOf("bob", 2, 1)
	bob.Withdrawn = true
	want := tournaments.Event{Tournament: a, Entrants: []tournaments.Entrant{entrantOf("ann", 2, 1), bob}}
	readEvent(t, s, "finished", want)
	if err := s.JoinTournament(ctx, "a", entrantOf("cy", 6, 1)); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("join a finished event: %v, want ErrConflict", err)
	}
	if err := s.JoinTournament(ctx, "a", entrantOf("bob", 6, 1)); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("rejoin a finished event: %v, want ErrConflict", err)
	}
	if err := s.Withdraw(ctx, "a", "ann"); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("withdraw from a finished event: %v, want ErrConflict", err)
	}
	readEvent(t, s, "finished, after refused writes", want)
}

func testTournamentPair(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	sw := running(t, s, swissOf("sw", 1))
	mustEnter(t, s, "sw", entrantOf("ann", 1, 1), entrantOf("bob", 1, 1), entrantOf("cy", 1, 1), entrantOf("dee", 1, 1), entrantOf("eve", 1, 1))
	sw.Version += 5
	entrants := []tournaments.Entrant{entrantOf("ann", 1, 1), entrantOf("bob", 1, 1), entrantOf("cy", 1, 1), entrantOf("dee", 1, 1), entrantOf("eve", 1, 1)}

	// Round 1: two games (listed against their id order, made at one
	// time: the event gives them by id) and eve's bye.
	p := pairingOf("sw", 0, 1, 3, []string{"g2", "g1"}, "ann", "bob", "cy", "dee")
	p.Byes = []string{"eve"}
	if err := s.PairTournament(ctx, p); err != nil {
		t.Fatalf("pair round 1: %v", err)
	}
	sw.PairSeq, sw.Version, sw.Round, sw.RoundAt = 1, sw.Version+1, 1, tick(3)
	want := tournaments.Event{Tournament: sw, Entrants: entrants, Games: []tournaments.Game{p.Games[1], p.Games[0]},
		Byes: []tournaments.Bye{{Round: 1, PlayerID: "eve"}}}
	readEvent(t, s, "after round 1", want)
	readTournament(t, s, "the row after round 1", sw)
	for _, g := range p.Sessions {
		checkStoredGame(t, s, "a paired session", g)
		if id, err := s.GameTournament(ctx, g.ID); err != nil || id != "sw" {
			t.Errorf("game %s's tournament: %q, %v", g.ID, id, err)
		}
	}
	// The sessions are games like any: the games store plays them.
	if got, err := s.Overdue(ctx, tick(3).Add(time.Minute), 10); err != nil || len(got) != 2 {
		t.Errorf("the sessions are overdue a minute on: %d, %v; want 2", len(got), err)
	}

	// Round 2, made later: its games come after round 1's; a bye for ann.
	p2 := pairingOf("sw", 1, 2, 8, []string{"g3", "g4"}, "bob", "eve", "dee", "cy")
	p2.Byes = []string{"ann"}
	if err := s.PairTournament(ctx, p2); err != nil {
		t.Fatalf("pair round 2: %v", err)
	}
	want.PairSeq, want.Version, want.Round, want.RoundAt = 2, want.Version+1, 2, tick(8)
	want.Games = append(want.Games, p2.Games...)
	want.Byes = append(want.Byes, tournaments.Bye{Round: 2, PlayerID: "ann"})
	readEvent(t, s, "after round 2", want)

	// An arena's pairing (no round) leaves Round and RoundAt alone.
	a := running(t, s, arenaOf("a", 1))
	mustEnter(t, s, "a", entrantOf("fay", 1, 1), entrantOf("gus", 1, 1))
	a.Version += 2
	pa := pairingOf("a", 0, 0, 9, []string{"ga"}, "gus", "fay")
	if err := s.PairTournament(ctx, pa); err != nil {
		t.Fatalf("pair the arena: %v", err)
	}
	a.PairSeq, a.Version = 1, a.Version+1
	readEvent(t, s, "the arena after a pairing", tournaments.Event{Tournament: a,
		Entrants: []tournaments.Entrant{entrantOf("fay", 1, 1), entrantOf("gus", 1, 1)}, Games: pa.Games})
	checkStoredGame(t, s, "the arena's session", pa.Sessions[0])
	readEvent(t, s, "the Swiss event after the arena's pairing", want)
}

func testTournamentPairConflicts(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	up := arenaOf("up", 1)
	mustCreateTournament(t, s, up)
	if err := s.PairTournament(ctx, pairingOf("up", 0, 0, 2, []string{"g0"}, "ann", "bob")); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("pair an upcoming event: %v, want ErrConflict", err)
	}
	readTournament(t, s, "upcoming after a refused pairing", up)

	sw := running(t, s, swissOf("sw", 1))
	mustEnter(t, s, "sw", entrantOf("ann", 1, 1), entrantOf("bob", 1, 1), entrantOf("cy", 1, 1))
	if err := s.Withdraw(ctx, "sw", "cy"); err != nil { // PairSeq 1
		t.Fatal(err)
	}
	cy := entrantOf("cy", 1, 1)
	cy.Withdrawn = true
	sw.PairSeq, sw.Version = 1, sw.Version+4
	want := tournaments.Event{Tournament: sw, Entrants: []tournaments.Entrant{entrantOf("ann", 1, 1), entrantOf("bob", 1, 1), cy}}
	stale := pairingOf("sw", 0, 1, 2, []string{"g1"}, "ann", "bob")
	stale.Byes = []string{"cy"}
	if err := s.PairTournament(ctx, stale); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("pair at a stale PairSeq: %v, want ErrConflict", err)
	}
	ahead := pairingOf("sw", 2, 1, 2, []string{"g1"}, "ann", "bob")
	if err := s.PairTournament(ctx, ahead); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("pair at a PairSeq ahead: %v, want ErrConflict", err)
	}
	// A game id taken by a game outside any event: nothing written either.
	NewGame(t, s, "taken", tick(1))
	clash := pairingOf("sw", 1, 1, 2, []string{"g1", "taken"}, "ann", "bob", "cy", "dee")
	if err := s.PairTournament(ctx, clash); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("pair with a taken game id: %v, want ErrConflict", err)
	}
	if _, err := s.Game(ctx, "g1"); !errors.Is(err, games.ErrNotFound) {
		t.Errorf("a refused pairing's game: %v, want games.ErrNotFound", err)
	}
	if _, err := s.GameTournament(ctx, "g1"); !errors.Is(err, tournaments.ErrStoreNotFound) {
		t.Errorf("a refused pairing's game's tournament: %v, want ErrStoreNotFound", err)
	}
	readEvent(t, s, "after refused pairings", want)

	// Finished: no pairing, even at the current PairSeq.
	if err := s.Finish(ctx, "sw", tick(3)); err != nil {
		t.Fatal(err)
	}
	if err := s.PairTournament(ctx, pairingOf("sw", 1, 1, 4, []string{"g1"}, "ann", "bob")); !errors.Is(err, tournaments.ErrConflict) {
		t.Errorf("pair a finished event: %v, want ErrConflict", err)
	}
	if _, err := s.Game(ctx, "g1"); !errors.Is(err, games.ErrNotFound) {
		t.Errorf("the finished event's refused game: %v, want games.ErrNotFound", err)
	}
}

func testTournamentPairRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	hs := handles(t, s, fx)
	a := running(t, s, arenaOf("a", 1))
	var ids []string
	for i := range 2 * pairRacers {
		ids = append(ids, fmt.Sprint("p", i))
		mustEnter(t, s, "a", entrantOf(ids[i], 1, 1))
	}
	// Every racer read the event at PairSeq 0 and pairs all its players
	// in games of its own.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range pairRacers {
		wg.Go(func() {
			gids := make([]string, pairRacers)
			for j := range gids {
				gids[j] = fmt.Sprintf("r%d-g%d", i, j)
			}
			err := hs[i%len(hs)].PairTournament(ctx, pairingOf("a", 0, 0, 2+i, gids, ids...))
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, tournaments.ErrConflict):
				t.Errorf("racer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d pairings at one PairSeq, want 1", wins.Load())
	}
	ev, err := s.Event(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if ev.PairSeq != 1 || ev.Version != a.Version+int64(len(ids))+1 || len(ev.Games) != pairRacers {
		t.Fatalf("after the race: PairSeq %d, version %d, %d games; want 1, %d, %d",
			ev.PairSeq, ev.Version, len(ev.Games), a.Version+int64(len(ids))+1, pairRacers)
	}
	winner := ev.Games[0].GameID[:len(ev.Games[0].GameID)-len("-g0")]
	made := 0
	for i := range pairRacers {
		for j := range pairRacers {
			id := fmt.Sprintf("r%d-g%d", i, j)
			_, err := s.Game(ctx, id)
			switch {
			case err == nil:
				made++
				if fmt.Sprint("r", i) != winner {
					t.Errorf("game %s of a losing racer is stored (the winner is %s)", id, winner)
				}
			case !errors.Is(err, games.ErrNotFound):
				t.Errorf("game %s: %v", id, err)
			}
		}
	}
	if made != pairRacers {
		t.Errorf("%d sessions stored, want %d", made, pairRacers)
	}
}

func testTournamentResults(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a := running(t, s, arenaOf("a", 1))
	mustEnter(t, s, "a", entrantOf("ann", 1, 1), entrantOf("bob", 1, 1), entrantOf("cy", 1, 1), entrantOf("dee", 1, 1))
	p := pairingOf("a", 0, 0, 2, []string{"g1", "g2"}, "ann", "bob", "cy", "dee")
	if err := s.PairTournament(ctx, p); err != nil {
		t.Fatal(err)
	}
	a.PairSeq, a.Version = 1, a.Version+5
	want := tournaments.Event{Tournament: a, Games: slices.Clone(p.Games),
		Entrants: []tournaments.Entrant{entrantOf("ann", 1, 1), entrantOf("bob", 1, 1), entrantOf("cy", 1, 1), entrantOf("dee", 1, 1)}}
	readEvent(t, s, "paired", want)

	r1 := tournaments.Result{Outcome: pairing.NorthWins, Plies: 37, EndedAt: tick(9)}
	if err := s.RecordResult(ctx, "g1", r1); err != nil {
		t.Fatalf("record: %v", err)
	}
	want.Version++
	want.Games[0].Done, want.Games[0].Outcome, want.Games[0].Plies, want.Games[0].EndedAt = true, r1.Outcome, r1.Plies, r1.EndedAt
	readEvent(t, s, "after a result", want)
	again := tournaments.Result{Outcome: pairing.SouthWins, Plies: 40, EndedAt: tick(10)}
	if err := s.RecordResult(ctx, "g1", again); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("record twice: %v, want ErrConflict", err)
	}
	readEvent(t, s, "after a second result (version bumped once)", want)

	// An aborted game: done, counted nowhere.
	r2 := tournaments.Result{Outcome: pairing.Draw, Plies: 1, EndedAt: tick(11), Aborted: true}
	if err := s.RecordResult(ctx, "g2", r2); err != nil {
		t.Fatalf("record an abort: %v", err)
	}
	want.Version++
	want.Games[1].Done, want.Games[1].Outcome, want.Games[1].Plies, want.Games[1].EndedAt, want.Games[1].Aborted = true, r2.Outcome, r2.Plies, r2.EndedAt, true
	readEvent(t, s, "after an abort", want)

	// The results stay when the games go (deleted after their retention).
	for _, id := range []string{"g1", "g2"} {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.End(ctx, games.End{ID: id, Version: g.Version, Status: games.Aborted, At: tick(12)}); err != nil {
			t.Fatalf("end %s: %v", id, err)
		}
	}
	if n, err := s.DeleteEnded(ctx, tick(13), 10); err != nil || n != 2 {
		t.Fatalf("delete the ended games: %d, %v", n, err)
	}
	readEvent(t, s, "after its games are deleted", want)
	if id, err := s.GameTournament(ctx, "g2"); err != nil || id != "a" {
		t.Errorf("a deleted game's tournament: %q, %v", id, err)
	}
}

// Instances that all saw a game end copy its result once: one write
// succeeds, and the event's version goes up once.
func testTournamentResultRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	hs := handles(t, s, fx)
	running(t, s, arenaOf("a", 1))
	mustEnter(t, s, "a", entrantOf("ann", 1, 1), entrantOf("bob", 1, 1))
	if err := s.PairTournament(ctx, pairingOf("a", 0, 0, 2, []string{"g1"}, "ann", "bob")); err != nil {
		t.Fatal(err)
	}
	before, err := s.Tournament(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range pairRacers {
		wg.Go(func() {
			err := hs[i%len(hs)].RecordResult(ctx, "g1", tournaments.Result{Outcome: pairing.SouthWins, Plies: 10 + i, EndedAt: tick(3 + i)})
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, tournaments.ErrConflict):
				t.Errorf("racer %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d results copied, want 1", wins.Load())
	}
	ev, err := s.Event(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	g := ev.Games[0]
	if ev.Version != before.Version+1 || !g.Done || !g.EndedAt.Equal(tick(3+g.Plies-10)) {
		t.Errorf("after the race: version %d (want %d), game %+v", ev.Version, before.Version+1, g)
	}
}

func testTournamentBerserk(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a := running(t, s, arenaOf("a", 1))
	mustEnter(t, s, "a", entrantOf("ann", 1, 1), entrantOf("bob", 1, 1))
	p := pairingOf("a", 0, 0, 2, []string{"g1"}, "ann", "bob")
	if err := s.PairTournament(ctx, p); err != nil {
		t.Fatal(err)
	}
	a.PairSeq, a.Version = 1, a.Version+3
	want := tournaments.Event{Tournament: a, Games: slices.Clone(p.Games),
		Entrants: []tournaments.Entrant{entrantOf("ann", 1, 1), entrantOf("bob", 1, 1)}}
	if err := s.SetBerserk(ctx, "g1", engine.North); err != nil {
		t.Fatalf("berserk north: %v", err)
	}
	want.Version++
	want.Games[0].Berserk[engine.North] = true
	readEvent(t, s, "north berserk", want)
	if err := s.SetBerserk(ctx, "g1", engine.North); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("berserk north twice: %v, want ErrConflict", err)
	}
	readEvent(t, s, "north berserk twice", want)
	if err := s.SetBerserk(ctx, "g1", engine.South); err != nil {
		t.Fatalf("berserk south: %v", err)
	}
	want.Version++
	want.Games[0].Berserk[engine.South] = true
	readEvent(t, s, "both berserk", want)

	// A done game takes no berserk.
	p2 := pairingOf("a", 1, 0, 3, []string{"g2"}, "bob", "ann")
	if err := s.PairTournament(ctx, p2); err != nil {
		t.Fatal(err)
	}
	r := tournaments.Result{Outcome: pairing.SouthWins, Plies: 12, EndedAt: tick(4)}
	if err := s.RecordResult(ctx, "g2", r); err != nil {
		t.Fatal(err)
	}
	want.PairSeq, want.Version = 2, want.Version+2
	g2 := p2.Games[0]
	g2.Done, g2.Outcome, g2.Plies, g2.EndedAt = true, r.Outcome, r.Plies, r.EndedAt
	want.Games = append(want.Games, g2)
	if err := s.SetBerserk(ctx, "g2", engine.South); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("berserk in a done game: %v, want ErrConflict", err)
	}
	readEvent(t, s, "after a refused berserk", want)
}

func testTournamentStartFinish(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a := arenaOf("a", 3)
	mustCreateTournament(t, s, a)
	if err := s.Finish(ctx, "a", tick(4)); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("finish an upcoming event: %v, want ErrConflict", err)
	}
	readTournament(t, s, "after a refused finish", a)
	if err := s.Start(ctx, "a", tick(4)); err != nil {
		t.Fatalf("start: %v", err)
	}
	a.Status, a.Version = tournaments.Running, a.Version+1
	readTournament(t, s, "started", a)
	if err := s.Start(ctx, "a", tick(5)); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("start twice: %v, want ErrConflict", err)
	}
	readTournament(t, s, "after a second start", a)
	if err := s.Finish(ctx, "a", tick(6)); err != nil {
		t.Fatalf("finish: %v", err)
	}
	a.Status, a.FinishedAt, a.Version = tournaments.Finished, tick(6), a.Version+1
	readTournament(t, s, "finished", a)
	if err := s.Finish(ctx, "a", tick(7)); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("finish twice: %v, want ErrConflict", err)
	}
	if err := s.Start(ctx, "a", tick(7)); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("start a finished event: %v, want ErrConflict", err)
	}
	readTournament(t, s, "after refused writes", a)
}

// bulkOf is a bulk pairing of a game for each pair of players, made at
// tick(at), and its sessions.
func bulkOf(id string, at int, gameIDs []string, players ...string) (tournaments.Bulk, []games.Game) {
	b := tournaments.Bulk{ID: id, CreatedBy: "org", CreatedAt: tick(at), TimeControl: blitz, Rated: true}
	var sessions []games.Game
	for i, gid := range gameIDs {
		b.Games = append(b.Games, tournaments.BulkGame{GameID: gid, South: players[2*i], North: players[2*i+1]})
		sessions = append(sessions, pairedGame(gid, players[2*i], players[2*i+1], blitz, tick(at)))
	}
	return b, sessions
}

func checkBulk(t *testing.T, s Store, what string, want tournaments.Bulk) {
	t.Helper()
	got, err := s.Bulk(t.Context(), want.ID)
	if err != nil {
		t.Fatalf("%s: read bulk %s: %v", what, want.ID, err)
	}
	got.CreatedAt, got.ClockStartsAt = normTime(got.CreatedAt), normTime(got.ClockStartsAt)
	want.CreatedAt, want.ClockStartsAt = normTime(want.CreatedAt), normTime(want.ClockStartsAt)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: bulk\n got %+v\nwant %+v", what, got, want)
	}
}

func testTournamentBulk(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	b, sessions := bulkOf("b1", 2, []string{"bg2", "bg1", "bg3"}, "ann", "bob", "cy", "dee", "eve", "fay")
	if err := s.CreateBulk(ctx, b, sessions); err != nil {
		t.Fatalf("create bulk: %v", err)
	}
	checkBulk(t, s, "created (games in the order given)", b)
	for _, g := range sessions {
		checkStoredGame(t, s, "a bulk session", g)
		if _, err := s.GameTournament(ctx, g.ID); !errors.Is(err, tournaments.ErrStoreNotFound) {
			t.Errorf("a bulk game is no event's: %v, want ErrStoreNotFound", err)
		}
	}
	// One whose clocks start later, unrated, in another time control.
	later, ls := bulkOf("b2", 3, []string{"bg4"}, "gus", "hal")
	later.ClockStartsAt, later.Rated, later.TimeControl = tick(30), false, rapid
	ls[0].Rated, ls[0].TimeControl = false, rapid
	if err := s.CreateBulk(ctx, later, ls); err != nil {
		t.Fatalf("create a later bulk: %v", err)
	}
	checkBulk(t, s, "clocks later", later)
	checkStoredGame(t, s, "the later bulk's session", ls[0])
}

func testTournamentBulkConflicts(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	b, sessions := bulkOf("b1", 2, []string{"bg1"}, "ann", "bob")
	if err := s.CreateBulk(ctx, b, sessions); err != nil {
		t.Fatal(err)
	}
	// A taken bulk id, with free game ids: nothing written.
	dup, dupSessions := bulkOf("b1", 3, []string{"bg9"}, "cy", "dee")
	if err := s.CreateBulk(ctx, dup, dupSessions); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("create with a taken bulk id: %v, want ErrConflict", err)
	}
	if _, err := s.Game(ctx, "bg9"); !errors.Is(err, games.ErrNotFound) {
		t.Errorf("the refused bulk's game: %v, want games.ErrNotFound", err)
	}
	checkBulk(t, s, "the first bulk after a taken id", b)
	// A taken game id (the last of three): no bulk row, none of its games.
	NewGame(t, s, "taken", tick(1))
	clash, clashSessions := bulkOf("b2", 3, []string{"bg2", "bg3", "taken"}, "cy", "dee", "eve", "fay", "gus", "hal")
	if err := s.CreateBulk(ctx, clash, clashSessions); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("create with a taken game id: %v, want ErrConflict", err)
	}
	if _, err := s.Bulk(ctx, "b2"); !errors.Is(err, tournaments.ErrStoreNotFound) {
		t.Errorf("the refused bulk: %v, want ErrStoreNotFound", err)
	}
	for _, id := range []string{"bg2", "bg3"} {
		if _, err := s.Game(ctx, id); !errors.Is(err, games.ErrNotFound) {
			t.Errorf("the refused bulk's game %s: %v, want games.ErrNotFound", id, err)
		}
	}
	// A game id of another bulk's.
	again, againSessions := bulkOf("b3", 3, []string{"bg1"}, "cy", "dee")
	if err := s.CreateBulk(ctx, again, againSessions); !errors.Is(err, tournaments.ErrConflict) {
		t.Fatalf("create with another bulk's game id: %v, want ErrConflict", err)
	}
	if _, err := s.Bulk(ctx, "b3"); !errors.Is(err, tournaments.ErrStoreNotFound) {
		t.Errorf("the refused bulk b3: %v, want ErrStoreNotFound", err)
	}
	checkStoredGame(t, s, "the first bulk's game", sessions[0])
}
