package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// The cases of time in game sessions: the time control, clocks and
// deadline a store keeps, the conditional write that ends a game at its
// deadline exactly once, the look for overdue games, and the deletion of
// old ended ones.
var clockCases = []suiteCase{
	{"clocks/round trip", testTimeRoundTrip},
	{"clocks/join and the deadline", testJoinDeadline},
	{"clocks/end", testEnd},
	{"clocks/end race", testEndRace},
	{"clocks/end race across handles", testEndRaceAcrossHandles},
	{"clocks/overdue", testOverdue},
	{"clocks/next deadline", testNextDeadline},
	{"clocks/deadline moved later", testDeadlineMovedLater},
	{"clocks/delete ended", testDeleteEnded},
	{"clocks/two services sweep", testTwoServicesSweep},
}

// The time controls of the cases.
var (
	live           = games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute, Increment: 2 * time.Second}
	correspondence = games.TimeControl{Kind: games.Correspondence, PerMove: 3 * 24 * time.Hour}
)

// clockOf is a clock with microseconds, different for each n, so a store
// that keeps milliseconds, or mixes up the sides, fails.
func clockOf(n int) [2]time.Duration {
	return [2]time.Duration{
		time.Duration(170_000_001+1_000_003*n) * time.Microsecond,
		time.Duration(160_000_007+2_000_011*n) * time.Microsecond,
	}
}

// timedGame is a person game waiting on seat's opponent under tc, with a
// clock and deadline.
func timedGame(id string, seat engine.Side, tc games.TimeControl, deadline time.Time) games.Game {
	g := personGame(id, seat)
	g.TimeControl, g.Clock, g.Deadline = tc, clockOf(len(id)), deadline
	return g
}

// mustJoinBy stores g, a waiting game, and lets the opponent of its one
// seat join at at with deadline, returning the game as it is then.
func mustJoinBy(t *testing.T, s Store, g games.Game, at, deadline time.Time) games.Game {
	t.Helper()
	mustCreate(t, s, g, nil)
	seat := engine.North
	if g.Tokens[engine.South] == nil {
		seat = engine.South
	}
	joined, err := s.Join(t.Context(), g.ID, seatToken(g.ID, seat), at, deadline, games.SeatPlayer{})
	if err != nil {
		t.Fatalf("join %s: %v", g.ID, err)
	}
	want := cloneGame(g)
	want.Tokens[seat] = seatToken(g.ID, seat)
	want.Status, want.JoinedAt, want.UpdatedAt, want.Deadline, want.Version = games.Active, at, at, deadline, g.Version+1
	checkGame(t, "after join", joined, want)
	return want
}

// ended is g after e, as every store leaves it.
func ended(g games.Game, e games.End) games.Game {
	g = cloneGame(g)
	g.Status, g.Result, g.Clock, g.UpdatedAt, g.Deadline = e.Status, e.Result, e.Clock, e.At, time.Time{}
	g.Version++
	return g
}

// timeoutOf is the End of g by timeout of its side to move, at at.
func timeoutOf(g games.Game, at time.Time) games.End {
	clock := g.Clock
	clock[g.Position.ToMove] = 0
	return games.End{ID: g.ID, Version: g.Version, Status: games.Finished,
		Result: engine.TimeoutResult(g.Position.ToMove), Clock: clock, At: at}
}

func testTimeRoundTrip(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := timedGame("round-trip", engine.South, live, tick(100))
	aiFirst, opening := aiGame(t, "round-trip-ai", engine.South, engine.Start(), engine.Rules{})
	aiFirst.TimeControl, aiFirst.Clock, aiFirst.Deadline = correspondence, clockOf(7), tick(90).Add(3*time.Microsecond)
	untimed := personGame("round-trip-untimed", engine.North)
	untimed.Deadline = tick(80) // an untimed game's idle expiry
	// play stores a move of the side to move in g at at, leaving clock and
	// deadline.
	play := func(t *testing.T, at time.Time, clock [2]time.Duration, deadline time.Time) {
		t.Helper()
		p := request(t, g, turnToken(g), at, pick(g.Position, g.Rules, g.Ply), 0)
		p.Game.Clock, p.Game.Deadline = clock, deadline
		g = mustApply(t, s, p)
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"created waiting", func(t *testing.T) {
			mustCreate(t, s, g, nil)
			checkStoredGame(t, s, "read back", g)
		}},
		{"created against the AI, with its opening move", func(t *testing.T) {
			mustCreate(t, s, aiFirst, opening)
			checkStoredGame(t, s, "read back", aiFirst)
			checkStoredRecords(t, s, "read back", aiFirst.ID, opening)
		}},
		{"created untimed with a deadline", func(t *testing.T) {
			mustCreate(t, s, untimed, nil)
			checkStoredGame(t, s, "read back", untimed)
		}},
		{"joined with a new deadline", func(t *testing.T) {
			joined, err := s.Join(ctx, g.ID, seatToken(g.ID, engine.North), tick(1), tick(31), games.SeatPlayer{})
			if err != nil {
				t.Fatal(err)
			}
			g.Tokens[engine.North] = seatToken(g.ID, engine.North)
			g.Status, g.JoinedAt, g.UpdatedAt, g.Deadline, g.Version = games.Active, tick(1), tick(1), tick(31), g.Version+1
			checkGame(t, "join's answer", joined, g)
			checkStoredGame(t, s, "after the join", g)
		}},
		{"a move sets the clock and deadline", func(t *testing.T) { play(t, tick(2), clockOf(2), tick(60)) }},
		{"a move that leaves no deadline", func(t *testing.T) { play(t, tick(3), clockOf(3), time.Time{}) }},
		{"a move that sets one again", func(t *testing.T) { play(t, tick(4), clockOf(4), tick(61).Add(time.Microsecond)) }},
		{"a resignation clears the deadline and keeps the clock", func(t *testing.T) {
			result := engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}
			got, err := s.Resign(ctx, g.ID, result, tick(5), nil)
			if err != nil {
				t.Fatal(err)
			}
			g.Status, g.Result, g.UpdatedAt, g.Deadline, g.Version = games.Finished, result, tick(5), time.Time{}, g.Version+1
			checkGame(t, "resign's answer", got, g)
			checkStoredGame(t, s, "after the resignation", g)
		}},
		{"an end by timeout keeps its clock", func(t *testing.T) {
			e := timeoutOf(aiFirst, tick(6))
			e.Clock[engine.South] = 42 * time.Microsecond
			got, err := s.End(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			want := ended(aiFirst, e)
			checkGame(t, "end's answer", got, want)
			checkStoredGame(t, s, "after the end", want)
			checkStoredRecords(t, s, "after the end", aiFirst.ID, opening)
		}},
	}
	for _, step := range steps {
		t.Run(step.name, step.do)
	}
}

func testJoinDeadline(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	at := tick(5)
	tests := []struct {
		name     string
		deadline time.Time // the waiting game's
		wantErr  error
	}{
		{"no deadline", time.Time{}, nil},
		{"well before the deadline", tick(6), nil},
		{"a microsecond before the deadline", at.Add(time.Microsecond), nil},
		{"at the deadline", at, games.ErrConflict},
		{"past the deadline", tick(4), games.ErrConflict},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := timedGame(fmt.Sprint("join-deadline-", i), engine.South, live, tc.deadline)
			mustCreate(t, s, g, nil)
			token := seatToken(g.ID, engine.North)
			got, err := s.Join(ctx, g.ID, token, at, at.Add(30*time.Second), games.SeatPlayer{})
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("join: %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				checkStoredGame(t, s, "after a refused join", g)
				return
			}
			want := cloneGame(g)
			want.Tokens[engine.North] = token
			want.Status, want.JoinedAt, want.UpdatedAt, want.Deadline, want.Version = games.Active, at, at, at.Add(30*time.Second), 2
			checkGame(t, "join's answer", got, want)
			checkStoredGame(t, s, "after the join", want)
		})
	}
}

func testEnd(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	tests := []struct {
		name string
		// setup stores the game and returns it as the ender read it, and
		// as it is stored when the end comes.
		setup   func(t *testing.T, id string) (read, stored games.Game)
		end     func(g games.Game) games.End
		wantErr error
	}{
		{"abort a waiting game", func(t *testing.T, id string) (games.Game, games.Game) {
			g := timedGame(id, engine.South, live, tick(3))
			mustCreate(t, s, g, nil)
			return g, g
		}, func(g games.Game) games.End {
			return games.End{ID: g.ID, Version: g.Version, Status: games.Aborted, Clock: g.Clock, At: g.Deadline}
		}, nil},
		{"abort a game whose first move never came", func(t *testing.T, id string) (games.Game, games.Game) {
			g := mustJoinBy(t, s, timedGame(id, engine.North, correspondence, tick(3)), tick(1), tick(4))
			return g, g
		}, func(g games.Game) games.End {
			return games.End{ID: g.ID, Version: g.Version, Status: games.Aborted, Clock: g.Clock, At: g.Deadline}
		}, nil},
		{"time out the side to move", func(t *testing.T, id string) (games.Game, games.Game) {
			g := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
			p.Game.Clock, p.Game.Deadline = clockOf(5), tick(7)
			g = mustApply(t, s, p)
			return g, g
		}, func(g games.Game) games.End { return timeoutOf(g, g.Deadline) }, nil},
		{"at a version that never was", func(t *testing.T, id string) (games.Game, games.Game) {
			g := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
			read := g
			read.Version += 5
			return read, g
		}, func(g games.Game) games.End { return timeoutOf(g, g.Deadline) }, games.ErrConflict},
		{"after a move at that version", func(t *testing.T, id string) (games.Game, games.Game) {
			read := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
			p := request(t, read, turnToken(read), tick(2), pick(read.Position, read.Rules, 0), 0)
			p.Game.Clock, p.Game.Deadline = clockOf(6), tick(8)
			return read, mustApply(t, s, p)
		}, func(g games.Game) games.End { return timeoutOf(g, g.Deadline) }, games.ErrConflict},
		{"after a resignation at that version", func(t *testing.T, id string) (games.Game, games.Game) {
			read := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
			resigned, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, tick(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			return read, resigned
		}, func(g games.Game) games.End { return timeoutOf(g, g.Deadline) }, games.ErrConflict},
		{"after another end at that version", func(t *testing.T, id string) (games.Game, games.Game) {
			read := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
			e := timeoutOf(read, read.Deadline)
			first, err := s.End(ctx, e)
			if err != nil {
				t.Fatal(err)
			}
			return read, first
		}, func(g games.Game) games.End {
			return games.End{ID: g.ID, Version: g.Version, Status: games.Aborted, Clock: g.Clock, At: tick(9)}
		}, games.ErrConflict},
		{"unknown", func(t *testing.T, id string) (games.Game, games.Game) {
			g := games.Game{ID: id, Version: 1}
			return g, g
		}, func(g games.Game) games.End {
			return games.End{ID: g.ID, Version: g.Version, Status: games.Aborted, At: tick(9)}
		}, games.ErrNotFound},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			read, before := tc.setup(t, fmt.Sprint("end-", i))
			e := tc.end(read)
			got, err := s.End(ctx, e)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("end: %v, want %v", err, tc.wantErr)
			}
			if errors.Is(err, games.ErrNotFound) {
				return
			}
			want := before
			if err == nil {
				want = ended(before, e)
				checkGame(t, "end's answer", got, want)
			}
			checkStoredGame(t, s, "after the end", want)
		})
	}
}

// raceEnd makes racers goroutines, spread over the handles, end game g at
// its version at once, each with an end of its own (its time and clock),
// and checks that exactly one did and the others got games.ErrConflict.
func raceEnd(t *testing.T, handles []Store, g games.Game) {
	t.Helper()
	ends := make([]games.End, racers)
	for i := range ends {
		ends[i] = timeoutOf(g, g.Deadline.Add(time.Duration(i)*time.Microsecond))
		ends[i].Clock[g.Position.ToMove.Other()] += time.Duration(i) * time.Millisecond
	}
	got := make([]games.Game, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { got[i], errs[i] = handles[i%len(handles)].End(t.Context(), ends[i]) })
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		switch {
		case err == nil && won >= 0:
			t.Fatalf("ends %d and %d both ended the game", won, i)
		case err == nil:
			won = i
		case !errors.Is(err, games.ErrConflict):
			t.Fatalf("end %d: %v, want games.ErrConflict", i, err)
		}
	}
	if won < 0 {
		t.Fatal("no end ended the game")
	}
	want := ended(g, ends[won])
	checkGame(t, "the winner's answer", got[won], want)
	for i, h := range handles {
		checkStoredGame(t, h, fmt.Sprintf("handle %d after the race", i), want)
	}
}

func testEndRace(t *testing.T, s Store, _ *fixtures) {
	g := mustJoinBy(t, s, timedGame("end-race", engine.South, live, tick(3)), tick(1), tick(4))
	raceEnd(t, []Store{s}, g)
}

func testEndRaceAcrossHandles(t *testing.T, s Store, fx *fixtures) {
	if fx.again == nil {
		t.Skip("the store lives in one process: no second handle to race on")
	}
	other := fx.again(t, s)
	g := mustJoinBy(t, s, timedGame("end-race-handles", engine.South, live, tick(3)), tick(1), tick(4))
	checkStoredGame(t, other, "seen through the other handle", g)
	raceEnd(t, []Store{s, other}, g)
}

func testOverdue(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	now := tick(50)
	active := func(id string, deadline time.Time) games.Game {
		g := timedGame(id, engine.South, live, deadline)
		g.Tokens[engine.North] = seatToken(id, engine.North)
		g.Status, g.JoinedAt = games.Active, tick(1)
		return g
	}
	finished := active("finished", tick(5))
	finished.Status, finished.Result = games.Finished, engine.TimeoutResult(engine.South)
	aborted := timedGame("aborted", engine.South, live, tick(6))
	aborted.Status = games.Aborted
	stored := map[string]games.Game{}
	for _, g := range []games.Game{
		active("due-mid", tick(30)),
		timedGame("due-first", engine.North, correspondence, tick(10)), // waiting
		active("due-now", now),
		active("due-a-microsecond-later", now.Add(time.Microsecond)),
		active("due-later", tick(51)),
		active("untimed-no-deadline", time.Time{}),
		finished, // with a deadline a store never clears by itself
		aborted,
	} {
		mustCreate(t, s, g, nil)
		stored[g.ID] = g
	}
	tests := []struct {
		name  string
		now   time.Time
		limit int
		want  []string // the earliest first
	}{
		{"all that are due", now, 100, []string{"due-first", "due-mid", "due-now"}},
		{"exactly as many as are due", now, 3, []string{"due-first", "due-mid", "due-now"}},
		{"the first two", now, 2, []string{"due-first", "due-mid"}},
		{"the first", now, 1, []string{"due-first"}},
		{"no room", now, 0, nil},
		{"a negative limit", now, -1, nil},
		{"a microsecond later", now.Add(time.Microsecond), 100, []string{"due-first", "due-mid", "due-now", "due-a-microsecond-later"}},
		{"before any", tick(9), 100, nil},
		{"at the first", tick(10), 100, []string{"due-first"}},
		{"long after", tick(1000), 100, []string{"due-first", "due-mid", "due-now", "due-a-microsecond-later", "due-later"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Overdue(ctx, tc.now, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, g := range got {
				ids = append(ids, g.ID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("overdue at %s, limit %d: %v, want %v", tc.now.Format(time.RFC3339Nano), tc.limit, ids, tc.want)
			}
			for _, g := range got {
				checkGame(t, "an overdue game", g, stored[g.ID])
			}
		})
	}
}

func testNextDeadline(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	var first games.Game
	steps := []struct {
		name string
		do   func(t *testing.T)
		want time.Time
	}{
		{"an empty store", func(*testing.T) {}, time.Time{}},
		{"a finished game with a deadline", func(t *testing.T) {
			g := timedGame("next-finished", engine.South, live, tick(2))
			g.Status, g.Result = games.Finished, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}
			mustCreate(t, s, g, nil)
		}, time.Time{}},
		{"an aborted game with a deadline", func(t *testing.T) {
			g := timedGame("next-aborted", engine.South, live, tick(2))
			g.Status = games.Aborted
			mustCreate(t, s, g, nil)
		}, time.Time{}},
		{"a waiting game with no deadline", func(t *testing.T) {
			mustCreate(t, s, personGame("next-none", engine.South), nil)
		}, time.Time{}},
		{"a waiting game", func(t *testing.T) {
			mustCreate(t, s, timedGame("next-waiting", engine.South, live, tick(20)), nil)
		}, tick(20)},
		{"an active game due sooner", func(t *testing.T) {
			first = mustJoinBy(t, s, timedGame("next-active", engine.South, live, tick(30)), tick(1), tick(10).Add(time.Microsecond))
		}, tick(10).Add(time.Microsecond)},
		{"a later one", func(t *testing.T) {
			mustCreate(t, s, timedGame("next-later", engine.North, correspondence, tick(40)), nil)
		}, tick(10).Add(time.Microsecond)},
		{"the soonest ended", func(t *testing.T) {
			if _, err := s.End(ctx, timeoutOf(first, first.Deadline)); err != nil {
				t.Fatal(err)
			}
		}, tick(20)},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.do(t)
			got, err := s.NextDeadline(ctx)
			if err != nil || !got.Equal(step.want) {
				t.Fatalf("next deadline %s (%v), want %s", got.Format(time.RFC3339Nano), err, step.want.Format(time.RFC3339Nano))
			}
		})
	}
}

// testDeadlineMovedLater: a move that puts its game's deadline later
// leaves the game not due at the old one. The sweeper may be woken
// before the new deadline (a store may index a time at or before each
// deadline), but never later, and never again at a time a sweep has
// looked at already, so that it does not spin on a game that is not due.
func testDeadlineMovedLater(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := mustJoinBy(t, s, timedGame("moved-later", engine.South, correspondence, tick(3)), tick(1), tick(10))
	p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
	p.Game.Deadline = tick(40)
	g = mustApply(t, s, p)
	overdue := func(at time.Time) []string {
		t.Helper()
		gs, err := s.Overdue(ctx, at, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range gs {
			ids = append(ids, g.ID)
		}
		return ids
	}
	next := func(after time.Time) {
		t.Helper()
		got, err := s.NextDeadline(ctx)
		if err != nil || got.IsZero() || got.After(tick(40)) || !got.After(after) {
			t.Fatalf("next deadline %s (%v), want one after %s and at or before %s", got.Format(time.RFC3339Nano), err,
				after.Format(time.RFC3339Nano), tick(40).Format(time.RFC3339Nano))
		}
	}
	next(tick(2))
	if ids := overdue(tick(20)); len(ids) != 0 {
		t.Fatalf("overdue after the old deadline: %v", ids)
	}
	next(tick(20))
	if ids := overdue(tick(40)); !slices.Equal(ids, []string{g.ID}) {
		t.Fatalf("overdue at the new deadline: %v", ids)
	}
}

func testDeleteEnded(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	before := tick(10)
	// played makes a game between people with two moves, so both seats have
	// an answer, and returns it with its records.
	played := func(t *testing.T, id string) (games.Game, []games.Record) {
		t.Helper()
		g := mustJoinBy(t, s, timedGame(id, engine.South, live, tick(3)), tick(1), tick(4))
		var records []games.Record
		for i := range 2 {
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, i), 0)
			p.Game.Deadline = tick(5)
			g = mustApply(t, s, p)
			records = append(records, p.Moves...)
		}
		return g, records
	}
	resign := func(t *testing.T, g games.Game, at time.Time) games.Game {
		t.Helper()
		g, err := s.Resign(ctx, g.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	end := func(t *testing.T, g games.Game, e games.End) games.Game {
		t.Helper()
		g, err := s.End(ctx, e)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	tests := []struct {
		name     string
		setup    func(t *testing.T, id string) (games.Game, []games.Record)
		deletion bool
	}{
		{"resigned long ago", func(t *testing.T, id string) (games.Game, []games.Record) {
			g, rs := played(t, id)
			return resign(t, g, tick(6)), rs
		}, true},
		{"timed out long ago", func(t *testing.T, id string) (games.Game, []games.Record) {
			g, rs := played(t, id)
			return end(t, g, timeoutOf(g, tick(7))), rs
		}, true},
		{"aborted long ago", func(t *testing.T, id string) (games.Game, []games.Record) {
			g := timedGame(id, engine.South, live, tick(2))
			mustCreate(t, s, g, nil)
			return end(t, g, games.End{ID: id, Version: g.Version, Status: games.Aborted, Clock: g.Clock, At: tick(8)}), nil
		}, true},
		{"ended a microsecond before", func(t *testing.T, id string) (games.Game, []games.Record) {
			g, rs := played(t, id)
			return resign(t, g, before.Add(-time.Microsecond)), rs
		}, true},
		{"ended at the instant", func(t *testing.T, id string) (games.Game, []games.Record) {
			g, rs := played(t, id)
			return resign(t, g, before), rs
		}, false},
		{"ended after", func(t *testing.T, id string) (games.Game, []games.Record) {
			g, rs := played(t, id)
			return resign(t, g, tick(11)), rs
		}, false},
		{"active, untouched for long", func(t *testing.T, id string) (games.Game, []games.Record) {
			return played(t, id)
		}, false},
		{"waiting for long", func(t *testing.T, id string) (games.Game, []games.Record) {
			g := timedGame(id, engine.South, live, tick(2))
			mustCreate(t, s, g, nil)
			return g, nil
		}, false},
	}
	type kept struct {
		game    games.Game
		records []games.Record
		deleted bool
	}
	var all []kept
	for i, tc := range tests {
		g, rs := tc.setup(t, fmt.Sprint("delete-", i))
		all = append(all, kept{g, rs, tc.deletion})
	}
	// The four old ended games go two at a time; the rest stay.
	steps := []struct {
		name  string
		limit int
		want  int
	}{
		{"no room", 0, 0},
		{"a negative limit", -3, 0},
		{"a first batch", 2, 2},
		{"a second batch", 2, 2},
		{"nothing left to delete", 2, 0},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			n, err := s.DeleteEnded(ctx, before, step.limit)
			if err != nil || n != step.want {
				t.Fatalf("deleted %d (%v), want %d", n, err, step.want)
			}
		})
	}
	for i, k := range all {
		t.Run(tests[i].name, func(t *testing.T) {
			if !k.deleted {
				checkStoredGame(t, s, "kept", k.game)
				checkStoredRecords(t, s, "kept", k.game.ID, k.records)
				return
			}
			if _, err := s.Game(ctx, k.game.ID); !errors.Is(err, games.ErrNotFound) {
				t.Fatalf("a deleted game: %v, want games.ErrNotFound", err)
			}
			if rs, err := s.Records(ctx, k.game.ID, 0, 100); !errors.Is(err, games.ErrNotFound) {
				t.Fatalf("records of a deleted game: %+v, %v; want games.ErrNotFound", rs, err)
			}
		})
	}
}

// fakeClock is a clock the test sets.
type fakeClock struct{ nanos atomic.Int64 }

func (c *fakeClock) now() time.Time   { return time.Unix(0, c.nanos.Load()).UTC() }
func (c *fakeClock) set(at time.Time) { c.nanos.Store(at.UnixNano()) }

// firstLegal is an AI that plays the first legal pit.
func firstLegal(_ context.Context, p engine.Position, r engine.Rules, _ []engine.Position, _ int, _ uint64) (int, error) {
	return pick(p, r, 0), nil
}

func testTwoServicesSweep(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	// Two services, as two instances would run them: over two handles on
	// the one database when the store has them, else over the one store.
	other := Store(s)
	if fx.again != nil {
		other = fx.again(t, s)
	}
	clock := &fakeClock{}
	clock.set(t0)
	opts := games.Options{Choose: firstLegal, Now: clock.now}
	// Each instance has a CPU budget of its own, as a process has.
	a, b := games.NewService(s, budget.New(1), opts), games.NewService(other, budget.New(1), opts)
	type game struct {
		id     string
		status games.Status
		result engine.Result
	}
	var want []game
	tests := []struct {
		name   string
		create func(t *testing.T) games.Game
		status games.Status
		result engine.Result
	}{
		{"nobody joined", func(t *testing.T) games.Game {
			seat, err := a.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, TimeControl: live})
			if err != nil {
				t.Fatal(err)
			}
			return seat.Game
		}, games.Aborted, engine.Result{}},
		{"no first move", func(t *testing.T) games.Game {
			seat, err := b.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.North, TimeControl: correspondence})
			if err != nil {
				t.Fatal(err)
			}
			joined, err := a.Join(ctx, seat.Game.ID, nil)
			if err != nil {
				t.Fatal(err)
			}
			return joined.Game
		}, games.Aborted, engine.Result{}},
		{"idle against the AI", func(t *testing.T) games.Game {
			seat, err := a.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.Start().ToMove, AILevel: 1})
			if err != nil {
				t.Fatal(err)
			}
			return seat.Game
		}, games.Finished, engine.TimeoutResult(engine.Start().ToMove)},
	}
	versions := map[string]int64{}
	for _, tc := range tests {
		for range 3 {
			g := tc.create(t)
			if g.Deadline.IsZero() {
				t.Fatalf("%s: game %s has no deadline", tc.name, g.ID)
			}
			versions[g.ID] = g.Version
			want = append(want, game{g.ID, tc.status, tc.result})
		}
	}
	// Past every deadline (the idle expiry is the longest), the two
	// services sweep at once, racers goroutines between them.
	clock.set(t0.Add(games.DefaultIdleExpiry + time.Hour))
	var wg sync.WaitGroup
	errs := make([]error, racers)
	sweepers := [2]*games.Sweeper{games.NewSweeper(a, games.SweepOptions{}), games.NewSweeper(b, games.SweepOptions{})}
	for i := range racers {
		sw := sweepers[i%2]
		wg.Go(func() { _, errs[i] = sw.SweepOnce(ctx) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("sweeping: %v", err)
	}
	for _, w := range want {
		got, err := s.Game(ctx, w.id)
		if err != nil {
			t.Fatal(err)
		}
		// One End per game: each bumps the version, and a second would
		// have had to read the game after the first.
		if got.Status != w.status || got.Result != w.result || got.Version != versions[w.id]+1 || !got.Deadline.IsZero() {
			t.Fatalf("game %s: %s %+v at version %d with deadline %v; want %s %+v at version %d, no deadline",
				w.id, got.Status, got.Result, got.Version, got.Deadline, w.status, w.result, versions[w.id]+1)
		}
	}
	if next, err := s.NextDeadline(ctx); err != nil || !next.IsZero() {
		t.Fatalf("next deadline %v (%v) after the sweep, want none", next, err)
	}
	if n, err := sweepers[1].SweepOnce(ctx); err != nil || n != 0 {
		t.Fatalf("a sweep after: %d overdue (%v), want none", n, err)
	}
}
