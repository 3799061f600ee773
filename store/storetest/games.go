package storetest

import (
	"bytes"
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
	{"games/answer of an accepted request", testAnswer},
	{"games/apply play race", testPlayRace},
	{"games/resign", testResign},
	{"games/moves paging", testMovesPaging},
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
// game comes with the AI's opening move already played, as the service
// creates it.
func aiGame(t *testing.T, id string, ai engine.Side, start engine.Position, rules engine.Rules) (games.Game, []games.Move) {
	t.Helper()
	g := games.Game{ID: id, CreatedAt: t0, UpdatedAt: t0, Rules: rules, Start: start, Position: start,
		Status: games.Active, AI: &games.AI{Side: ai, Level: 3}, Version: 1}
	g.Tokens[ai.Other()] = seatToken(id, ai.Other())
	if start.ToMove != ai {
		return g, nil
	}
	next, moves := advance(t, g, t0, pick(g.Position, g.Rules, 1))
	next.Version = 1 // created with its opening move: one write
	return next, moves
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

// advance plays pits in g through the engine, replaying its record from the
// start as the service does, and returns the game after them (version
// bumped once, updated at at) and the moves they made, all at at. A move of
// the AI's side in a game against the AI is marked as the AI's.
func advance(t *testing.T, g games.Game, at time.Time, pits ...int) (games.Game, []games.Move) {
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
	var moves []games.Move
	for _, pit := range pits {
		ply := rec.Ply()
		if err := rec.Play(pit, &out); err != nil {
			t.Fatalf("game %s, ply %d: %v", g.ID, ply, err)
		}
		moves = append(moves, games.Move{Ply: ply, Side: out.Before.ToMove, Pit: pit,
			ByAI: g.AI != nil && out.Before.ToMove == g.AI.Side, Legs: slices.Clone(out.Legs),
			Capture: out.Capture, Position: out.Position, Result: out.Result, At: at})
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
	return next, moves
}

// answerOf is the answer body the suite stores for a request: different for
// every request, with bytes beyond ASCII and a trailing newline.
func answerOf(id string, ply, pit int, token []byte) []byte {
	return fmt.Appendf(nil, "{\"game\":%q,\"ply\":%d,\"pit\":%d,\"by\":\"%.6x\",\"note\":\"Ayò Ọlọ́pọ́n\"}\n", id, ply, pit, token)
}

// request is the write of one accepted move request in g: the holder of
// token plays pit and, in a game against the AI that goes on with the AI to
// move, the AI replies with its k-th legal pit.
func request(t *testing.T, g games.Game, token []byte, at time.Time, pit, k int) games.Play {
	t.Helper()
	next, moves := advance(t, g, at, pit)
	if g.AI != nil && next.Status == games.Active && next.Position.ToMove == g.AI.Side {
		next, moves = advance(t, g, at, pit, pick(next.Position, next.Rules, k))
	}
	return games.Play{GameID: g.ID, Ply: g.Ply, TokenHash: slices.Clone(token), Moves: moves,
		Answer: answerOf(g.ID, g.Ply, pit, token), At: at, Game: next}
}

// mustCreate stores g with moves.
func mustCreate(t *testing.T, s Store, g games.Game, moves []games.Move) {
	t.Helper()
	if err := s.CreateGame(t.Context(), cloneGame(g), cloneMoves(moves)); err != nil {
		t.Fatalf("create game %s: %v", g.ID, err)
	}
}

// mustJoin stores a person game waiting on seat's opponent, lets the
// opponent join at tick(1) and returns the game as it is then.
func mustJoin(t *testing.T, s Store, id string, seat engine.Side) games.Game {
	t.Helper()
	g := personGame(id, seat)
	mustCreate(t, s, g, nil)
	joined, err := s.Join(t.Context(), id, seatToken(id, seat.Other()), tick(1))
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
	tests := []struct {
		name  string
		game  games.Game
		moves []games.Move
	}{
		{"between people, south waiting for north", personGame("south-seated", engine.South), nil},
		{"between people, north waiting for south", personGame("north-seated", engine.North), nil},
		{"other rules from a mid-game start", midGame, nil},
		{"against the AI, the person moves first", personFirst, nil},
		{"against the AI, which opened", aiFirst, opening},
	}
	if len(opening) != 1 || !opening[0].ByAI || aiFirst.Ply != 1 {
		t.Fatalf("the AI's game was not created with its opening move: %+v", opening)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mustCreate(t, s, tc.game, tc.moves)
			checkStoredGame(t, s, "read back", tc.game)
			checkStoredMoves(t, s, "read back", tc.game.ID, tc.moves)
		})
	}
}

func testCreateExisting(t *testing.T, s Store, _ *fixtures) {
	first := personGame("twice", engine.South)
	mustCreate(t, s, first, nil)
	second, opening := aiGame(t, "twice", engine.South, engine.Start(), engine.Rules{})
	if err := s.CreateGame(t.Context(), second, opening); err == nil {
		t.Fatal("a second game was created under an existing id")
	}
	checkStoredGame(t, s, "after the second create", first)
	checkStoredMoves(t, s, "after the second create", first.ID, nil)
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
		{"Join", func() error { _, err := s.Join(ctx, "unknown", hashOf("joiner"), tick(2)); return err }},
		{"Moves", func() error { _, err := s.Moves(ctx, "unknown", 0, 10); return err }},
		{"Answer", func() error { _, err := s.Answer(ctx, "unknown", 0, p.Moves[0].Pit, p.TokenHash); return err }},
		{"ApplyPlay", func() error { return s.ApplyPlay(ctx, p) }},
		{"Resign", func() error { _, err := s.Resign(ctx, "unknown", resigned, tick(2)); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, games.ErrNotFound) {
				t.Fatalf("%s of an unknown game: %v, want games.ErrNotFound", tc.name, err)
			}
		})
	}
	checkStoredGame(t, s, "the known game", known)
	checkStoredMoves(t, s, "the known game", known.ID, nil)
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
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, tick(2))
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
			got, err := s.Join(ctx, id, token, tick(5))
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
		wg.Go(func() { got[i], errs[i] = s.Join(ctx, g.ID, hashOf(fmt.Sprint("joiner ", i)), tick(1)) })
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
	var want []games.Move
	// Each play is checked as it lands: position, history, ply, status,
	// time and version come from the play, the rest stays.
	for i := range 4 {
		p := request(t, g, turnToken(g), tick(2+i), pick(g.Position, g.Rules, i), 0)
		g = mustApply(t, s, p)
		want = append(want, p.Moves...)
		if g.Version != int64(3+i) || g.Ply != i+1 || len(g.History) != i+1 {
			t.Fatalf("after play %d: version %d, ply %d, history %v", i, g.Version, g.Ply, g.History)
		}
		checkStoredMoves(t, s, fmt.Sprint("after play ", i), g.ID, want)
	}
}

func testAIReply(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g, opening := aiGame(t, "reply", engine.South, engine.Start(), engine.Rules{})
	mustCreate(t, s, g, opening)
	person := seatToken(g.ID, engine.North)
	p := request(t, g, person, tick(2), pick(g.Position, g.Rules, 2), 1)
	if len(p.Moves) != 2 || p.Moves[0].ByAI || !p.Moves[1].ByAI {
		t.Fatalf("the request did not make a move and the AI's reply: %+v", p.Moves)
	}
	g = mustApply(t, s, p)
	if g.Ply != 3 || len(g.History) != 3 || g.Version != 2 {
		t.Fatalf("after a play with the reply: ply %d, history %v, version %d; want 3, 3 pits, 2", g.Ply, g.History, g.Version)
	}
	checkStoredMoves(t, s, "after the reply", g.ID, slices.Concat(opening, p.Moves))
	tests := []struct {
		name  string
		ply   int
		pit   int
		token []byte
		want  []byte // nil: ErrNotFound
	}{
		{"the person's move", 1, p.Moves[0].Pit, person, p.Answer},
		{"the AI's reply", 2, p.Moves[1].Pit, nil, nil},
		{"the AI's reply with the person's token", 2, p.Moves[1].Pit, person, nil},
		{"the AI's opening", 0, opening[0].Pit, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Answer(ctx, g.ID, tc.ply, tc.pit, tc.token)
			checkAnswer(t, got, err, tc.want)
		})
	}
}

// checkAnswer fails t unless Answer's got and err are want, or ErrNotFound
// when want is nil.
func checkAnswer(t *testing.T, got []byte, err error, want []byte) {
	t.Helper()
	switch {
	case want == nil && !errors.Is(err, games.ErrNotFound):
		t.Fatalf("answer %q, %v; want games.ErrNotFound", got, err)
	case want != nil && err != nil:
		t.Fatalf("answer: %v, want %q", err, want)
	case want != nil && !bytes.Equal(got, want):
		t.Fatalf("answer %q, want %q", got, want)
	}
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
			p := request(t, g, turnToken(g), tick(3), pick(g.Position, g.Rules, 0), 0)
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, tick(2))
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
			moves, err := s.Moves(ctx, id, 0, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ApplyPlay(ctx, p); !errors.Is(err, tc.wantErr) {
				t.Fatalf("apply play: %v, want %v", err, tc.wantErr)
			}
			checkStoredGame(t, s, "after the refused play", before)
			checkStoredMoves(t, s, "after the refused play", id, moves)
		})
	}
}

func testAnswer(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := mustJoin(t, s, "answers", engine.South)
	south, north := seatToken(g.ID, engine.South), seatToken(g.ID, engine.North)
	first := request(t, g, south, tick(2), pick(g.Position, g.Rules, 0), 0)
	g = mustApply(t, s, first)
	second := request(t, g, north, tick(3), pick(g.Position, g.Rules, 0), 0)
	g = mustApply(t, s, second)
	pit := first.Moves[0].Pit
	otherPit := pick(first.Game.Position, first.Game.Rules, 1) // legal at ply 1, not the one played
	if otherPit == second.Moves[0].Pit {
		t.Fatalf("ply 1 has one legal move only: no other pit to ask about")
	}
	tests := []struct {
		name  string
		ply   int
		pit   int
		token []byte
		want  []byte // nil: ErrNotFound
	}{
		{"the first request", 0, pit, south, first.Answer},
		{"the second request", 1, second.Moves[0].Pit, north, second.Answer},
		{"another pit", 0, (pit + 1) % engine.RowPits, south, nil},
		{"another token", 0, pit, north, nil},
		{"no token", 0, pit, nil, nil},
		{"another ply", 1, pit, south, nil},
		{"another pit at the second ply", 1, otherPit, north, nil},
		{"a ply not played yet", 2, pit, south, nil},
		{"a negative ply", -1, pit, south, nil},
	}
	check := func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				got, err := s.Answer(ctx, g.ID, tc.ply, tc.pit, tc.token)
				checkAnswer(t, got, err, tc.want)
			})
		}
	}
	t.Run("active", check)
	// The answers outlive the game: a retry may come after the end.
	if _, err := s.Resign(ctx, g.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, tick(4)); err != nil {
		t.Fatal(err)
	}
	t.Run("finished", check)
}

func testPlayRace(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := mustJoin(t, s, "ply-race", engine.South)
	var want []games.Move
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
		for i, p := range plays {
			got, err := s.Answer(ctx, g.ID, p.Ply, p.Moves[0].Pit, p.TokenHash)
			if i == won {
				checkAnswer(t, got, err, p.Answer)
			} else {
				checkAnswer(t, got, err, nil)
			}
		}
		want = append(want, plays[won].Moves...)
		g = plays[won].Game
	}
	// One move per ply, in order, and the history says the same.
	checkStoredMoves(t, s, "after the races", g.ID, want)
	for i, m := range want {
		if m.Ply != i || g.History[i] != byte(m.Pit) {
			t.Fatalf("move %d is ply %d pit %d, the history says pit %d", i, m.Ply, m.Pit, g.History[i])
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
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, tick(2))
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
			got, err := s.Resign(ctx, id, tc.result, tick(9))
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

func testMovesPaging(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	// A whole game against the AI, played to its end: the record has the
	// person's moves and the AI's, relays, captures and the result.
	g, opening := aiGame(t, "paging", engine.North, engine.Start(), engine.Rules{})
	mustCreate(t, s, g, opening)
	person := seatToken(g.ID, engine.South)
	var (
		want []games.Move
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
	end := want[len(want)-1].Result
	if g.Result != end || !end.Over() {
		t.Fatalf("the game ended with %v, its last move says %v", g.Result, end)
	}
	var captures, relays, byAI int
	for _, m := range want {
		if !m.Capture.None() {
			captures++
		}
		if len(m.Legs) > 1 {
			relays++
		}
		if m.ByAI {
			byAI++
		}
	}
	if len(want) < 30 || captures == 0 || relays == 0 || byAI == 0 || byAI == len(want) {
		t.Fatalf("the record is too plain to test with: %d moves, %d captures, %d relays, %d by the AI",
			len(want), captures, relays, byAI)
	}
	n := len(want)
	tests := []struct {
		name        string
		from, limit int
		first, size int // the moves expected: want[first:first+size]
	}{
		{"all", 0, 1000, 0, n},
		{"exactly all", 0, n, 0, n},
		{"first page", 0, 10, 0, 10},
		{"second page", 10, 10, 10, 10},
		{"one move", 17, 1, 17, 1},
		{"tail", n - 5, 10, n - 5, 5},
		{"the last move", n - 1, 10, n - 1, 1},
		{"past the end", n, 10, 0, 0},
		{"far past the end", n + 100, 10, 0, 0},
		{"no room", 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Moves(ctx, g.ID, tc.from, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			checkMoves(t, fmt.Sprintf("from %d limit %d", tc.from, tc.limit), got, want[tc.first:tc.first+tc.size])
		})
	}
	t.Run("page by page", func(t *testing.T) {
		var all []games.Move
		for from := 0; ; {
			page, err := s.Moves(ctx, g.ID, from, 7)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			if page[0].Ply != from || len(all)+len(page) > len(want) {
				t.Fatalf("the page from ply %d starts at ply %d, after %d moves read", from, page[0].Ply, len(all))
			}
			all = append(all, page...)
			from = page[len(page)-1].Ply + 1
		}
		checkMoves(t, "pages of 7", all, want)
	})
	t.Run("a game with no moves", func(t *testing.T) {
		mustCreate(t, s, personGame("no-moves", engine.South), nil)
		got, err := s.Moves(ctx, "no-moves", 0, 10)
		if err != nil || len(got) != 0 {
			t.Fatalf("moves of a new game: %+v, %v; want none", got, err)
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
	joined, err := s.Join(ctx, aIn.ID, joinToken, tick(1))
	if err != nil {
		t.Fatal(err)
	}
	p := request(t, joined, turnToken(joined), tick(2), pick(joined.Position, joined.Rules, 0), 0)
	wantA, wantMovesA, wantAnswer := cloneGame(p.Game), cloneMoves(p.Moves), slices.Clone(p.Answer)
	if err := s.ApplyPlay(ctx, p); err != nil {
		t.Fatal(err)
	}
	bIn, bMoves := aiGame(t, "alias-b", engine.South, engine.Start(), engine.Rules{})
	wantB, wantMovesB := cloneGame(bIn), cloneMoves(bMoves)
	if err := s.CreateGame(ctx, bIn, bMoves); err != nil {
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
	readMovesB := func(t *testing.T) []games.Move {
		t.Helper()
		ms, err := s.Moves(ctx, bIn.ID, 0, 10)
		if err != nil || len(ms) == 0 {
			t.Fatalf("moves of %s: %+v, %v", bIn.ID, ms, err)
		}
		return ms
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
		{"the moves given to CreateGame", func(*testing.T) { bMoves[0].Legs[0].Seeds++ }},
		{"the token given to Join", func(*testing.T) { joinToken[0] ^= 0xff }},
		{"the game returned by Join", func(*testing.T) {
			joined.Tokens[engine.South][0] ^= 0xff
			joined.Tokens[engine.North][0] ^= 0xff
		}},
		{"the play given to ApplyPlay", func(*testing.T) {
			p.TokenHash[0] ^= 0xff
			p.Answer[0] ^= 0xff
			p.Moves[0].Legs[0].Seeds++
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
		{"the moves returned by Moves", func(t *testing.T) {
			ms := readMovesB(t)
			ms[0].Legs[0].Seeds++
			ms[0].Legs[len(ms[0].Legs)-1].From ^= 1
		}},
		{"the answer returned by Answer", func(t *testing.T) {
			a, err := s.Answer(ctx, aIn.ID, 0, wantMovesA[0].Pit, wantA.Tokens[engine.South])
			if err != nil {
				t.Fatal(err)
			}
			a[0] ^= 0xff
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.mutate(t)
			checkStoredGame(t, s, "game a", wantA)
			checkStoredGame(t, s, "game b", wantB)
			checkStoredMoves(t, s, "game a", aIn.ID, wantMovesA)
			checkStoredMoves(t, s, "game b", bIn.ID, wantMovesB)
			got, err := s.Answer(ctx, aIn.ID, 0, wantMovesA[0].Pit, wantA.Tokens[engine.South])
			checkAnswer(t, got, err, wantAnswer)
		})
	}
}
