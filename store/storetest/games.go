package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

var gameCases = []suiteCase{
	{"games/create and read back", testCreate},
	{"games/create an existing id", testCreateExisting},
	{"games/unknown id", testUnknownGame},
	{"games/join", testJoin},
	{"games/join race", testJoinRace},
	{"games/apply play", testApplyPlay},
	{"games/apply play with the AI's reply", testAIReply},
	{"games/apply play conflicts", testApplyPlayConflicts},
	{"games/apply play that ends the game otherwise", testApplyPlayEndsOtherwise},
	{"games/records keep their request's version", testRecordVersions},
	{"games/apply play race", testPlayRace},
	{"games/resign", testResign},
	{"games/records paging", testRecordsPaging},
	{"games/no aliasing", testGameAliasing},
}

// personGame is a game between two people that waits for the second one:
// the creator holds seat.
func personGame(id string, seat engine.Side) games.Game {
	g := games.Game{ID: id, CreatedAt: t0, UpdatedAt: t0, Start: engine.Start(), Position: engine.Start(),
		Status: games.Waiting, Version: 1}
	g.Tokens[seat] = seatToken(id, seat)
	return g
}

// aiGame is a game against the AI, which plays side ai from start under
// rules; the person holds the other seat. When the AI is to move first, the
// game comes with the record of the AI's opening move already played, as the
// service creates it.
func aiGame(t *testing.T, id string, ai engine.Side, start engine.Position, rules engine.Rules) (games.Game, []games.Record) {
	t.Helper()
	g := games.Game{ID: id, CreatedAt: t0, UpdatedAt: t0, Rules: rules, Start: start, Position: start,
		Status: games.Active, AI: &games.AI{Side: ai, Level: 3}, Version: 1}
	g.Tokens[ai.Other()] = seatToken(id, ai.Other())
	if start.ToMove != ai {
		return g, nil
	}
	next, records := advance(t, g, t0, pick(g.Position, g.Rules, 1))
	next.Version = 1 // created with its opening move: one write
	records[0].Version = 1
	return next, records
}

// legalPits returns the pits the side to move may play in p.
func legalPits(p engine.Position, r engine.Rules) []int {
	var pits []int
	for m := p.LegalMoves(r); m != 0; {
		pits = append(pits, m.Next())
	}
	return pits
}

// pick returns the k-th legal pit of p, counting round.
func pick(p engine.Position, r engine.Rules, k int) int {
	pits := legalPits(p, r)
	if len(pits) == 0 {
		return -1
	}
	return pits[k%len(pits)]
}

// advance plays pits in g through the engine, replaying its history from the
// start as the service does, and returns the game after them (version
// bumped once, updated at at) and the records of the moves they made, all at
// at and with that version. A move of the AI's side in a game against the
// AI is marked as the AI's.
func advance(t *testing.T, g games.Game, at time.Time, pits ...int) (games.Game, []games.Record) {
	t.Helper()
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		t.Fatalf("game %s: %v", g.ID, err)
	}
	var out engine.Outcome
	for _, pit := range g.History {
		if err := rec.Play(int(pit), &out); err != nil {
			t.Fatalf("game %s does not replay: %v", g.ID, err)
		}
	}
	if rec.Position() != g.Position {
		t.Fatalf("game %s replays to %s, says %s", g.ID, rec.Position(), g.Position)
	}
	var records []games.Record
	for _, pit := range pits {
		ply := rec.Ply()
		if err := rec.Play(pit, &out); err != nil {
			t.Fatalf("game %s, ply %d: %v", g.ID, ply, err)
		}
		records = append(records, games.Record{Ply: ply, Pit: pit,
			ByAI: g.AI != nil && out.Before.ToMove == g.AI.Side, At: at})
	}
	next := cloneGame(g)
	next.Ply = rec.Ply()
	next.Position = rec.Position()
	next.Result = rec.Result()
	next.History = next.History[:0]
	for _, pit := range rec.Moves() {
		next.History = append(next.History, byte(pit))
	}
	if next.Result.Over() {
		next.Status = games.Finished
	}
	next.UpdatedAt = at
	next.Version++
	for i := range records {
		records[i].Version = next.Version
	}
	return next, records
}

// request is the write of one accepted move request in g: the holder of
// the token plays pit and, in a game against the AI that goes on with the
// AI to move, the AI replies with its k-th legal pit. Which seat's token
// sent it is nothing the store keeps: the service knows a seat's moves by
// their plies.
func request(t *testing.T, g games.Game, _ []byte, at time.Time, pit, k int) games.Play {
	t.Helper()
	next, records := advance(t, g, at, pit)
	if g.AI != nil && next.Status == games.Active && next.Position.ToMove == g.AI.Side {
		next, records = advance(t, g, at, pit, pick(next.Position, next.Rules, k))
	}
	return games.Play{GameID: g.ID, Ply: g.Ply, Moves: records, At: at, Game: next}
}

// mustCreate stores g with records.
func mustCreate(t *testing.T, s Store, g games.Game, records []games.Record) {
	t.Helper()
	if err := s.CreateGame(t.Context(), cloneGame(g), slices.Clone(records)); err != nil {
		t.Fatalf("create game %s: %v", g.ID, err)
	}
}

// mustJoin stores a person game waiting on seat's opponent, lets the
// opponent join at tick(1) and returns the game as it is then.
func mustJoin(t *testing.T, s Store, id string, seat engine.Side) games.Game {
	t.Helper()
	g := personGame(id, seat)
	mustCreate(t, s, g, nil)
	joined, err := s.Join(t.Context(), id, seatToken(id, seat.Other()), tick(1), time.Time{}, games.SeatPlayer{})
	if err != nil {
		t.Fatalf("join %s: %v", id, err)
	}
	want := cloneGame(g)
	want.Tokens[seat.Other()] = seatToken(id, seat.Other())
	want.Status, want.JoinedAt, want.UpdatedAt, want.Version = games.Active, tick(1), tick(1), g.Version+1
	checkGame(t, "after join", joined, want)
	return want
}

// mustApply stores p and returns the game it leaves, read back.
func mustApply(t *testing.T, s Store, p games.Play) games.Game {
	t.Helper()
	if err := s.ApplyPlay(t.Context(), p); err != nil {
		t.Fatalf("apply play at ply %d of %s: %v", p.Ply, p.GameID, err)
	}
	checkStoredGame(t, s, "after the play", p.Game)
	return p.Game
}

// turnToken is the token of the seat to move in a game between people.
func turnToken(g games.Game) []byte { return seatToken(g.ID, g.Position.ToMove) }

func testCreate(t *testing.T, s Store, _ *fixtures) {
	// A start in mid-game, North to move, for a game under the other rules.
	rec, err := engine.NewGame(engine.Start(), engine.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var out engine.Outcome
	for rec.Position().ToMove != engine.North || rec.Ply() < 3 {
		if err := rec.Play(pick(rec.Position(), rec.Rules(), rec.Ply()), &out); err != nil {
			t.Fatal(err)
		}
	}
	other := engine.Rules{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}
	midGame := personGame("mid-game", engine.North)
	midGame.Rules, midGame.Start, midGame.Position = other, rec.Position(), rec.Position()
	aiFirst, opening := aiGame(t, "ai-opens", engine.South, engine.Start(), other)
	personFirst, _ := aiGame(t, "person-opens", engine.North, engine.Start(), engine.Rules{})
	// The AI's opening stamped in another zone: a store keeps the instant.
	elsewhere, openingElsewhere := aiGame(t, "ai-opens-elsewhere", engine.South, engine.Start(), engine.Rules{})
	openingElsewhere[0].At = openingElsewhere[0].At.Add(17 * time.Microsecond).In(time.FixedZone("WAT", 3600))
	// A game between people created with six moves already played, each at
	// its own time.
	played := personGame("played", engine.South)
	played.Tokens[engine.North] = seatToken(played.ID, engine.North)
	played.Status, played.JoinedAt = games.Active, tick(1)
	var playedRecords []games.Record
	for i := range 6 {
		var rs []games.Record
		played, rs = advance(t, played, tick(2+i), pick(played.Position, played.Rules, i))
		playedRecords = append(playedRecords, rs...)
	}
	played.Version = 1
	tests := []struct {
		name    string
		game    games.Game
		records []games.Record
	}{
		{"between people, south waiting for north", personGame("south-seated", engine.South), nil},
		{"between people, north waiting for south", personGame("north-seated", engine.North), nil},
		{"other rules from a mid-game start", midGame, nil},
		{"against the AI, the person moves first", personFirst, nil},
		{"against the AI, which opened", aiFirst, opening},
		{"against the AI, which opened in another zone", elsewhere, openingElsewhere},
		{"between people, with moves already played", played, playedRecords},
	}
	if len(opening) != 1 || !opening[0].ByAI || opening[0].Ply != 0 || aiFirst.Ply != 1 {
		t.Fatalf("the AI's game was not created with its opening move: %+v", opening)
	}
	if len(playedRecords) != 6 || played.Ply != 6 || playedRecords[5].Ply != 5 || playedRecords[3].ByAI {
		t.Fatalf("the played game was not created with its six moves: %+v", playedRecords)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustCreate(t, s, tc.game, tc.records)
			checkStoredGame(t, s, "read back", tc.game)
			checkStoredRecords(t, s, "read back", tc.game.ID, tc.records)
		})
	}
}

func testCreateExisting(t *testing.T, s Store, _ *fixtures) {
	first := personGame("twice", engine.South)
	mustCreate(t, s, first, nil)
	second, opening := aiGame(t, "twice", engine.South, engine.Start(), engine.Rules{})
	if err := s.CreateGame(t.Context(), second, opening); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("a second game under an existing id: %v, want games.ErrConflict", err)
	}
	checkStoredGame(t, s, "after the second create", first)
	checkStoredRecords(t, s, "after the second create", first.ID, nil)
}

func testUnknownGame(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	known := mustJoin(t, s, "known", engine.South)
	p := request(t, known, turnToken(known), tick(2), pick(known.Position, known.Rules, 0), 0)
	p.GameID = "unknown"
	p.Game.ID = "unknown"
	resigned := engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}
	tests := []struct {
		name string
		call func() error
	}{
		{"Game", func() error { _, err := s.Game(ctx, "unknown"); return err }},
		{"Join", func() error {
			_, err := s.Join(ctx, "unknown", hashOf("joiner"), tick(2), time.Time{}, games.SeatPlayer{})
			return err
		}},
		{"Records", func() error { _, err := s.Records(ctx, "unknown", 0, 10); return err }},
		{"Records with no room", func() error { _, err := s.Records(ctx, "unknown", 0, 0); return err }},
		{"ApplyPlay", func() error { return s.ApplyPlay(ctx, p) }},
		{"Resign", func() error { _, err := s.Resign(ctx, "unknown", resigned, tick(2), nil); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, games.ErrNotFound) {
				t.Fatalf("%s of an unknown game: %v, want games.ErrNotFound", tc.name, err)
			}
		})
	}
	checkStoredGame(t, s, "the known game", known)
	checkStoredRecords(t, s, "the known game", known.ID, nil)
}

func testJoin(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	tests := []struct {
		name     string
		setup    func(t *testing.T, id string) games.Game // the game as stored before the join
		wantErr  error
		wantSeat engine.Side
	}{
		{"north joins south", func(t *testing.T, id string) games.Game {
			g := personGame(id, engine.South)
			mustCreate(t, s, g, nil)
			return g
		}, nil, engine.North},
		{"south joins north", func(t *testing.T, id string) games.Game {
			g := personGame(id, engine.North)
			mustCreate(t, s, g, nil)
			return g
		}, nil, engine.South},
		{"both seats taken", func(t *testing.T, id string) games.Game {
			return mustJoin(t, s, id, engine.South)
		}, games.ErrConflict, 0},
		{"against the AI", func(t *testing.T, id string) games.Game {
			g, _ := aiGame(t, id, engine.North, engine.Start(), engine.Rules{})
			mustCreate(t, s, g, nil)
			return g
		}, games.ErrConflict, 0},
		{"finished", func(t *testing.T, id string) games.Game {
			mustJoin(t, s, id, engine.South)
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, tick(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, games.ErrConflict, 0},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint("join-", i)
			before := tc.setup(t, id)
			token := hashOf("joiner of " + id)
			got, err := s.Join(ctx, id, token, tick(5), time.Time{}, games.SeatPlayer{})
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("join: %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				checkStoredGame(t, s, "after a refused join", before)
				return
			}
			want := cloneGame(before)
			want.Tokens[tc.wantSeat] = token
			want.Status, want.JoinedAt, want.UpdatedAt, want.Version = games.Active, tick(5), tick(5), before.Version+1
			checkGame(t, "join's answer", got, want)
			checkStoredGame(t, s, "after the join", want)
		})
	}
}

func testJoinRace(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := personGame("seat-race", engine.South)
	mustCreate(t, s, g, nil)
	var wg sync.WaitGroup
	got := make([]games.Game, racers)
	errs := make([]error, racers)
	for i := range racers {
		wg.Go(func() {
			got[i], errs[i] = s.Join(ctx, g.ID, hashOf(fmt.Sprint("joiner ", i)), tick(1), time.Time{}, games.SeatPlayer{})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("joins %d and %d both took the seat", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, games.ErrConflict):
			t.Fatalf("join %d: %v, want games.ErrConflict", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no join took the seat")
	}
	want := cloneGame(g)
	want.Tokens[engine.North] = hashOf(fmt.Sprint("joiner ", winner))
	want.Status, want.JoinedAt, want.UpdatedAt, want.Version = games.Active, tick(1), tick(1), 2
	checkGame(t, "the winner's answer", got[winner], want)
	checkStoredGame(t, s, "after the race", want)
}

func testApplyPlay(t *testing.T, s Store, _ *fixtures) {
	g := mustJoin(t, s, "plays", engine.South)
	var want []games.Record
	// Each play is checked as it lands: position, history, ply, status,
	// time and version come from the play, the rest stays.
	for i := range 4 {
		p := request(t, g, turnToken(g), tick(2+i), pick(g.Position, g.Rules, i), 0)
		g = mustApply(t, s, p)
		want = append(want, p.Moves...)
		if g.Version != int64(3+i) || g.Ply != i+1 || len(g.History) != i+1 || !g.UpdatedAt.Equal(tick(2+i)) {
			t.Fatalf("after play %d: version %d, ply %d, history %v, updated at %v", i, g.Version, g.Ply, g.History, g.UpdatedAt)
		}
		checkStoredRecords(t, s, fmt.Sprint("after play ", i), g.ID, want)
	}
	// Of the game a play carries the store takes the position, the status
	// and the result; the time is the play's, the ply and the history move
	// on by the play's moves, the version by one, and the rest stays as
	// stored. A play whose game says otherwise on every other field but
	// the version (one above the version it was made from: the write's
	// condition) shows which the store took.
	p := request(t, g, turnToken(g), tick(10), pick(g.Position, g.Rules, 1), 0)
	want = append(want, p.Moves...)
	wantGame := cloneGame(p.Game)
	decoy := &p.Game
	decoy.ID = "decoy"
	decoy.CreatedAt, decoy.UpdatedAt, decoy.JoinedAt = tick(50), tick(51), tick(52)
	decoy.Rules = engine.Rules{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}
	decoy.Start = p.Game.Position
	decoy.Ply, decoy.History = 99, []byte{1, 2, 3}
	decoy.AI = &games.AI{Side: engine.North, Level: 9}
	decoy.Tokens = [2][]byte{hashOf("decoy south"), hashOf("decoy north")}
	if err := s.ApplyPlay(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	checkStoredGame(t, s, "after a play carrying a decoy game", wantGame)
	checkStoredRecords(t, s, "after a play carrying a decoy game", g.ID, want)
}

// testApplyPlayEndsOtherwise: a play whose game ends by something else
// than its move (a draw agreed with the move, or the abort that agreement
// is in a rated game a side has not moved in) is stored with the status
// and result it carries, no offer and no deadline.
func testApplyPlayEndsOtherwise(t *testing.T, s Store, _ *fixtures) {
	for _, tc := range []struct {
		name   string
		status games.Status
		result engine.Result
	}{
		{"agreed", games.Finished, engine.Result{Reason: engine.ByAgreement, Winner: engine.Draw}},
		{"aborted", games.Aborted, engine.Result{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mustJoin(t, s, "ends-"+tc.name, engine.South)
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
			p.Game.Status, p.Game.Result, p.Game.Deadline = tc.status, tc.result, time.Time{}
			p.Game.DrawOffer, p.Game.TakebackOffer = games.NoOffer, games.NoOffer
			if got := mustApply(t, s, p); got.Status != tc.status || got.Result != tc.result {
				t.Fatalf("stored %s %+v, want %s %+v", got.Status, got.Result, tc.status, tc.result)
			}
		})
	}
}

func testAIReply(t *testing.T, s Store, _ *fixtures) {
	g, opening := aiGame(t, "reply", engine.South, engine.Start(), engine.Rules{})
	mustCreate(t, s, g, opening)
	person := seatToken(g.ID, engine.North)
	p := request(t, g, person, tick(2), pick(g.Position, g.Rules, 2), 1)
	if len(p.Moves) != 2 || p.Moves[0].ByAI || !p.Moves[1].ByAI || p.Moves[0].Pit == p.Moves[1].Pit {
		t.Fatalf("the request did not make a move and the AI's reply: %+v", p.Moves)
	}
	// Both moves of the request carry the version it left the game at; the
	// opening move, the creation's.
	if p.Moves[0].Version != 2 || p.Moves[1].Version != 2 || opening[0].Version != 1 {
		t.Fatalf("versions of the opening %d, the move %d and the reply %d; want 1, 2, 2", opening[0].Version, p.Moves[0].Version, p.Moves[1].Version)
	}
	g = mustApply(t, s, p)
	if g.Ply != 3 || len(g.History) != 3 || g.Version != 2 {
		t.Fatalf("after a play with the reply: ply %d, history %v, version %d; want 3, 3 pits, 2", g.Ply, g.History, g.Version)
	}
	checkStoredRecords(t, s, "after the reply", g.ID, slices.Concat(opening, p.Moves))
}

func testApplyPlayConflicts(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	tests := []struct {
		name string
		// setup stores a game and returns it with a play that must be
		// refused.
		setup   func(t *testing.T, id string) (games.Game, games.Play)
		wantErr error
	}{
		{"stale ply", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			rival := request(t, g, hashOf("rival"), tick(3), pick(g.Position, g.Rules, 1), 0)
			return mustApply(t, s, request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)), rival
		}, games.ErrConflict},
		{"the same request again", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
			return mustApply(t, s, p), p
		}, games.ErrConflict},
		{"the same seat at a stale ply, another pit", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			again := request(t, g, turnToken(g), tick(3), pick(g.Position, g.Rules, 1), 0)
			return mustApply(t, s, request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)), again
		}, games.ErrConflict},
		{"the other seat at a stale ply", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			g = mustApply(t, s, request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0))
			north := turnToken(g)
			late := request(t, g, north, tick(4), pick(g.Position, g.Rules, 1), 0)
			g = mustApply(t, s, request(t, g, north, tick(3), pick(g.Position, g.Rules, 0), 0))
			return g, late
		}, games.ErrConflict},
		{"a ply ahead", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
			p.Ply++
			return g, p
		}, games.ErrConflict},
		{"waiting for its second player", func(t *testing.T, id string) (games.Game, games.Play) {
			g := personGame(id, engine.South)
			mustCreate(t, s, g, nil)
			return g, request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
		}, games.ErrConflict},
		{"finished by resignation", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			g = mustApply(t, s, request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0))
			p := request(t, g, turnToken(g), tick(4), pick(g.Position, g.Rules, 0), 0)
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, tick(3), nil)
			if err != nil {
				t.Fatal(err)
			}
			return g, p
		}, games.ErrConflict},
		{"unknown game", func(t *testing.T, id string) (games.Game, games.Play) {
			g := mustJoin(t, s, id, engine.South)
			p := request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0)
			p.GameID = id + "-unknown"
			return g, p
		}, games.ErrNotFound},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint("conflict-", i)
			before, p := tc.setup(t, id)
			records, err := s.Records(ctx, id, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ApplyPlay(ctx, p); !errors.Is(err, tc.wantErr) {
				t.Fatalf("apply play: %v, want %v", err, tc.wantErr)
			}
			checkStoredGame(t, s, "after the refused play", before)
			checkStoredRecords(t, s, "after the refused play", id, records)
		})
	}
}

// testRecordVersions: each record keeps the version of the game after the
// request that made it, and the draw offer that stood then, which the
// service's rebuilt answers show, however
// the game goes on after it (moves, a refused play, the end).
func testRecordVersions(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := mustJoin(t, s, "versions", engine.South)
	var want []games.Record
	play := func(t *testing.T, k int) {
		t.Helper()
		p := request(t, g, turnToken(g), tick(2+g.Ply), pick(g.Position, g.Rules, k), 0)
		// The draw offer the request left, as the service hands it: none,
		// South's or North's in turn.
		for i := range p.Moves {
			p.Moves[i].DrawOffer = games.Offer(k % 3)
		}
		g = mustApply(t, s, p)
		if p.Moves[0].Version != g.Version {
			t.Fatalf("the request's record has version %d, the game %d", p.Moves[0].Version, g.Version)
		}
		want = append(want, p.Moves...)
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"south plays", func(t *testing.T) { play(t, 0) }},
		{"north plays", func(t *testing.T) { play(t, 1) }},
		{"south plays again", func(t *testing.T) { play(t, 2) }},
		{"a refused play at a stale ply", func(t *testing.T) {
			ply := g.Ply - 1
			stale := games.Play{GameID: g.ID, Ply: ply,
				Moves: []games.Record{{Ply: ply, Pit: int(g.History[ply]), At: tick(20), Version: 99}},
				At:    tick(20), Game: cloneGame(g)}
			if err := s.ApplyPlay(ctx, stale); !errors.Is(err, games.ErrConflict) {
				t.Fatalf("a play at a stale ply: %v, want games.ErrConflict", err)
			}
		}},
		{"north plays again", func(t *testing.T) { play(t, 3) }},
		// The records outlive the game's end: a retry may come after it.
		{"after the game's end", func(t *testing.T) {
			if _, err := s.Resign(ctx, g.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, tick(30), nil); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			step.do(t)
			checkStoredRecords(t, s, step.name, g.ID, want)
		})
	}
	// Versions went up by one a request, from the join's 2.
	for i, r := range want {
		if r.Version != int64(3+i) {
			t.Fatalf("record %d has version %d, want %d", i, r.Version, 3+i)
		}
	}
}

func testPlayRace(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := mustJoin(t, s, "ply-race", engine.South)
	var records []games.Record
	// The racers race again every round: a lost race changes nothing.
	wins := 0
	for round := 0; round < 6 && g.Status == games.Active; round++ {
		plays := make([]games.Play, racers)
		for i := range plays {
			// Each racer is another client: none is a retry of another.
			plays[i] = request(t, g, hashOf(fmt.Sprint("racer ", i)), tick(2+round), pick(g.Position, g.Rules, i), 0)
		}
		errs := make([]error, racers)
		var wg sync.WaitGroup
		for i := range plays {
			wg.Go(func() { errs[i] = s.ApplyPlay(ctx, plays[i]) })
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("ply %d: racers %d and %d were both stored", g.Ply, won, i)
			case err == nil:
				won = i
			case !errors.Is(err, games.ErrConflict):
				t.Fatalf("ply %d, racer %d: %v, want games.ErrConflict", g.Ply, i, err)
			}
		}
		if won < 0 {
			t.Fatalf("ply %d: no racer was stored", g.Ply)
		}
		checkStoredGame(t, s, fmt.Sprintf("after the race for ply %d", g.Ply), plays[won].Game)
		wins++
		records = append(records, plays[won].Moves...)
		g = plays[won].Game
	}
	if wins < 2 {
		t.Fatalf("%d races run, want several", wins)
	}
	// One record per ply, in order, and the history says the same.
	checkStoredRecords(t, s, "after the races", g.ID, records)
	for i, r := range records {
		if r.Ply != i || g.History[i] != byte(r.Pit) {
			t.Fatalf("record %d is ply %d pit %d, the history says pit %d", i, r.Ply, r.Pit, g.History[i])
		}
	}
}

func testResign(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	tests := []struct {
		name    string
		setup   func(t *testing.T, id string) games.Game
		result  engine.Result
		wantErr error
	}{
		{"active between people", func(t *testing.T, id string) games.Game {
			g := mustJoin(t, s, id, engine.South)
			return mustApply(t, s, request(t, g, turnToken(g), tick(2), pick(g.Position, g.Rules, 0), 0))
		}, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, nil},
		{"active against the AI", func(t *testing.T, id string) games.Game {
			g, opening := aiGame(t, id, engine.South, engine.Start(), engine.Rules{})
			mustCreate(t, s, g, opening)
			return g
		}, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, nil},
		{"already resigned", func(t *testing.T, id string) games.Game {
			mustJoin(t, s, id, engine.South)
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, tick(2), nil)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, games.ErrConflict},
		{"waiting for its second player", func(t *testing.T, id string) games.Game {
			g := personGame(id, engine.South)
			mustCreate(t, s, g, nil)
			return g
		}, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, games.ErrConflict},
		{"unknown", func(t *testing.T, id string) games.Game {
			return games.Game{ID: id}
		}, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, games.ErrNotFound},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := fmt.Sprint("resign-", i)
			before := tc.setup(t, id)
			got, err := s.Resign(ctx, id, tc.result, tick(9), nil)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("resign: %v, want %v", err, tc.wantErr)
			}
			if errors.Is(err, games.ErrNotFound) {
				return
			}
			want := before
			if err == nil {
				want = cloneGame(before)
				want.Status, want.Result, want.UpdatedAt, want.Version = games.Finished, tc.result, tick(9), before.Version+1
				checkGame(t, "resign's answer", got, want)
			}
			checkStoredGame(t, s, "after the resignation", want)
		})
	}
}

func testRecordsPaging(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	// A whole game against the AI, played to its end: the record has the
	// person's moves and the AI's, each request at its own time.
	g, opening := aiGame(t, "paging", engine.North, engine.Start(), engine.Rules{})
	mustCreate(t, s, g, opening)
	person := seatToken(g.ID, engine.South)
	var (
		want []games.Record
		last games.Play
	)
	for i := 0; g.Status == games.Active; i++ {
		if i > 200 {
			t.Fatal("the game does not end")
		}
		// The choices (the k-th legal pit, k growing with the ply) make a
		// game of 40 plies that ends with the side to move stuck.
		last = request(t, g, person, tick(2+i), pick(g.Position, g.Rules, 4*g.Ply+1), 4*(g.Ply+1))
		g = mustApply(t, s, last)
		want = append(want, last.Moves...)
	}
	if !g.Result.Over() || g.Status != games.Finished || g.Ply != len(want) {
		t.Fatalf("the game ended at ply %d with %v (%s), after %d records", g.Ply, g.Result, g.Status, len(want))
	}
	var byAI int
	for _, r := range want {
		if r.ByAI {
			byAI++
		}
	}
	if len(want) < 30 || byAI == 0 || byAI == len(want) {
		t.Fatalf("the record is too plain to test with: %d moves, %d by the AI", len(want), byAI)
	}
	n := len(want)
	tests := []struct {
		name        string
		from, limit int
		first, size int // the records expected: want[first:first+size]
	}{
		{"all", 0, 1000, 0, n},
		{"exactly all", 0, n, 0, n},
		{"first page", 0, 10, 0, 10},
		{"second page", 10, 10, 10, 10},
		{"one record", 17, 1, 17, 1},
		{"tail", n - 5, 10, n - 5, 5},
		{"the last record", n - 1, 10, n - 1, 1},
		{"from the end", n, 10, 0, 0},
		{"far beyond the end", n + 100, 10, 0, 0},
		{"no room", 0, 0, 0, 0},
		{"no room in the middle", 5, 0, 0, 0},
		{"a negative limit", 0, -1, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Records(ctx, g.ID, tc.from, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			checkRecords(t, fmt.Sprintf("from %d limit %d", tc.from, tc.limit), got, want[tc.first:tc.first+tc.size])
		})
	}
	t.Run("page by page", func(t *testing.T) {
		var all []games.Record
		for from := 0; ; {
			page, err := s.Records(ctx, g.ID, from, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			if page[0].Ply != from || len(all)+len(page) > len(want) {
				t.Fatalf("the page from ply %d starts at ply %d, after %d records read", from, page[0].Ply, len(all))
			}
			all = append(all, page...)
			from = page[len(page)-1].Ply + 1
		}
		checkRecords(t, "pages of 7", all, want)
	})
	t.Run("a game with no moves", func(t *testing.T) {
		mustCreate(t, s, personGame("no-moves", engine.South), nil)
		got, err := s.Records(ctx, "no-moves", 0, 10)
		if err != nil || len(got) != 0 {
			t.Fatalf("records of a new game: %+v, %v; want none", got, err)
		}
	})
	t.Run("no play after the end", func(t *testing.T) {
		// No move is legal any more: the last request, sent as if the
		// game were at its current ply, stands for a play that lost a race
		// with the end.
		p := last
		p.Ply = g.Ply
		if err := s.ApplyPlay(ctx, p); !errors.Is(err, games.ErrConflict) {
			t.Fatalf("a play on the finished game: %v, want games.ErrConflict", err)
		}
		checkStoredGame(t, s, "after it", g)
		checkStoredRecords(t, s, "after it", g.ID, want)
	})
}

func testGameAliasing(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	// Game a: between people, joined, one play made. Game b: against the
	// AI, created with its opening move. The inputs are kept to be changed
	// later; the expectations are copies.
	aIn := personGame("alias-a", engine.South)
	if err := s.CreateGame(ctx, aIn, nil); err != nil {
		t.Fatal(err)
	}
	joinToken := seatToken(aIn.ID, engine.North)
	joined, err := s.Join(ctx, aIn.ID, joinToken, tick(1), time.Time{}, games.SeatPlayer{})
	if err != nil {
		t.Fatal(err)
	}
	p := request(t, joined, turnToken(joined), tick(2), pick(joined.Position, joined.Rules, 0), 0)
	wantA, wantRecordsA := cloneGame(p.Game), slices.Clone(p.Moves)
	if err := s.ApplyPlay(ctx, p); err != nil {
		t.Fatal(err)
	}
	bIn, bRecords := aiGame(t, "alias-b", engine.South, engine.Start(), engine.Rules{})
	wantB, wantRecordsB := cloneGame(bIn), slices.Clone(bRecords)
	if err := s.CreateGame(ctx, bIn, bRecords); err != nil {
		t.Fatal(err)
	}
	readA := func(t *testing.T) games.Game {
		t.Helper()
		g, err := s.Game(ctx, aIn.ID)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	readRecords := func(t *testing.T, id string) []games.Record {
		t.Helper()
		rs, err := s.Records(ctx, id, 0, 10)
		if err != nil || len(rs) == 0 {
			t.Fatalf("records of %s: %+v, %v", id, rs, err)
		}
		return rs
	}
	tests := []struct {
		name   string
		mutate func(t *testing.T)
	}{
		{"the game given to CreateGame", func(*testing.T) {
			bIn.History[0] ^= 1
			bIn.Tokens[engine.North][0] ^= 0xff
			bIn.AI.Level++
		}},
		{"the records given to CreateGame", func(*testing.T) {
			bRecords[0].Pit ^= 1
			bRecords[0].ByAI = !bRecords[0].ByAI
			bRecords[0].At = bRecords[0].At.Add(time.Hour)
		}},
		{"the token given to Join", func(*testing.T) { joinToken[0] ^= 0xff }},
		{"the game returned by Join", func(*testing.T) {
			joined.Tokens[engine.South][0] ^= 0xff
			joined.Tokens[engine.North][0] ^= 0xff
		}},
		{"the play given to ApplyPlay", func(*testing.T) {
			p.Moves[0].Pit ^= 1
			p.Moves[0].Version++
			p.Moves[0].At = p.Moves[0].At.Add(time.Hour)
			p.Game.History[0] ^= 1
		}},
		{"the game returned by Game", func(t *testing.T) {
			g := readA(t)
			g.History[0] ^= 1
			g.Tokens[engine.South][0] ^= 0xff
			b, err := s.Game(ctx, bIn.ID)
			if err != nil {
				t.Fatal(err)
			}
			b.AI.Level++
			b.History[0] ^= 1
		}},
		{"the records returned by Records", func(t *testing.T) {
			for _, id := range []string{aIn.ID, bIn.ID} {
				rs := readRecords(t, id)
				rs[0].Pit ^= 1
				rs[0].ByAI = !rs[0].ByAI
				rs[0].At = rs[0].At.Add(time.Hour)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.mutate(t)
			checkStoredGame(t, s, "game a", wantA)
			checkStoredGame(t, s, "game b", wantB)
			checkStoredRecords(t, s, "game a", aIn.ID, wantRecordsA)
			checkStoredRecords(t, s, "game b", bIn.ID, wantRecordsB)
		})
	}
}
