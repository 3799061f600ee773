package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// The cases of players: identities and tokens, what the end of a game does
// to its players (games.Store's ApplyMatch), what an attempt at a puzzle
// does (puzzles.Ratings' RecordSolve), the histories and the leaderboards.
var playerCases = []suiteCase{
	{"players/create and read", testCreatePlayer},
	{"players/rename", testRenamePlayer},
	{"players/set token", testSetPlayerToken},
	{"players/delete", testDeletePlayer},
	{"players/games keep rated and their players", testSeatPlayers},
	{"players/apply match", testApplyMatch},
	{"players/end race moves ratings once", testMatchEndRace},
	{"players/games history", testPlayerGames},
	{"players/puzzles history", testPlayerPuzzles},
	{"players/daily solves", testDailySolves},
	{"players/leaderboard", testLeaderboard},
	{"players/record solve", testRecordSolve},
	{"players/record solve race at one puzzle", testSolveRaceOnePuzzle},
	{"players/record solve race at many puzzles", testSolveRaceManyPuzzles},
}

// newPlayer is the player id as the suite creates it: a name beyond ASCII,
// a token hash of its own, created at tick(0).
func newPlayer(id string) players.Player {
	return players.Player{ID: id, Name: "Ọlá " + id, TokenHash: hashOf("player " + id), CreatedAt: tick(0), UpdatedAt: tick(0)}
}

// mustCreatePlayer stores newPlayer(id) and returns it.
func mustCreatePlayer(t *testing.T, s Store, id string) players.Player {
	t.Helper()
	p := newPlayer(id)
	if err := s.CreatePlayer(t.Context(), p); err != nil {
		t.Fatalf("create player %s: %v", id, err)
	}
	return p
}

// mustPlayer reads player id.
func mustPlayer(t *testing.T, s Store, id string) players.Player {
	t.Helper()
	p, err := s.Player(t.Context(), id)
	if err != nil {
		t.Fatalf("player %s: %v", id, err)
	}
	return p
}

// sameRating reports whether two ratings are the same, times as instants.
func sameRating(a, b players.Rating) bool {
	return a.Value == b.Value && a.Deviation == b.Deviation && a.Volatility == b.Volatility && a.Games == b.Games && a.At.Equal(b.At)
}

// diffPlayer lists the fields in which got differs from want; a rating
// missing from one and not the other differs.
func diffPlayer(got, want players.Player) []string {
	var d []string
	field := func(name string, same bool, g, w any) {
		if !same {
			d = append(d, fmt.Sprintf("%s %v, want %v", name, g, w))
		}
	}
	field("ID", got.ID == want.ID, got.ID, want.ID)
	field("Name", got.Name == want.Name, got.Name, want.Name)
	field("TokenHash", bytes.Equal(got.TokenHash, want.TokenHash), fmt.Sprintf("%x", got.TokenHash), fmt.Sprintf("%x", want.TokenHash))
	field("CreatedAt", got.CreatedAt.Equal(want.CreatedAt), got.CreatedAt, want.CreatedAt)
	field("UpdatedAt", got.UpdatedAt.Equal(want.UpdatedAt), got.UpdatedAt, want.UpdatedAt)
	field("Counts", got.Counts == want.Counts, got.Counts, want.Counts)
	field("Bot", got.Bot == want.Bot, got.Bot, want.Bot)
	for _, c := range players.Categories {
		g, gok := got.Ratings[c]
		w, wok := want.Ratings[c]
		field("Ratings["+string(c)+"]", gok == wok && sameRating(g, w), ratingText(g, gok), ratingText(w, wok))
	}
	return d
}

func ratingText(r players.Rating, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprintf("%+v", r)
}

// checkPlayer fails t unless got is want.
func checkPlayer(t *testing.T, what string, got, want players.Player) {
	t.Helper()
	if d := diffPlayer(got, want); len(d) > 0 {
		t.Fatalf("%s: player %s: %s", what, want.ID, strings.Join(d, "; "))
	}
}

// checkStoredPlayer reads player want.ID and fails t unless it is want.
func checkStoredPlayer(t *testing.T, s Store, what string, want players.Player) {
	t.Helper()
	checkPlayer(t, what, mustPlayer(t, s, want.ID), want)
}

// checkNoPlayer fails t unless player id is unknown.
func checkNoPlayer(t *testing.T, s Store, what, id string) {
	t.Helper()
	if p, err := s.Player(t.Context(), id); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("%s: player %s: %+v, %v; want players.ErrNotFound", what, id, p, err)
	}
}

// withRating returns p with its rating in c set to r.
func withRating(p players.Player, c players.Category, r players.Rating) players.Player {
	ratings := map[players.Category]players.Rating{}
	for k, v := range p.Ratings {
		ratings[k] = v
	}
	ratings[c] = r
	p.Ratings = ratings
	return p
}

func testCreatePlayer(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	a := mustCreatePlayer(t, s, "create-a")
	// A player handed over with ratings and counts is stored without them:
	// a new player has played nothing.
	b := newPlayer("create-b")
	b.CreatedAt, b.UpdatedAt = tick(1).In(time.FixedZone("WAT", 3600)), tick(2)
	b.Counts = players.Counts{Games: 3, Puzzles: 2}
	b.Ratings = map[players.Category]players.Rating{players.Live: {Value: 2000, Deviation: 50, Volatility: 0.06, Games: 9, At: tick(1)}}
	if err := s.CreatePlayer(ctx, b); err != nil {
		t.Fatal(err)
	}
	b.Counts, b.Ratings = players.Counts{}, nil
	taken := newPlayer("create-a")
	taken.Name, taken.TokenHash = "someone else", hashOf("another token")
	tests := []struct {
		name    string
		read    func() (players.Player, error)
		want    *players.Player // nil: players.ErrNotFound
		wantErr error
	}{
		{"by id", func() (players.Player, error) { return s.Player(ctx, a.ID) }, &a, nil},
		{"by token", func() (players.Player, error) { return s.PlayerByToken(ctx, a.TokenHash) }, &a, nil},
		{"another by id, given counts and ratings", func() (players.Player, error) { return s.Player(ctx, b.ID) }, &b, nil},
		{"another by token", func() (players.Player, error) { return s.PlayerByToken(ctx, b.TokenHash) }, &b, nil},
		{"unknown id", func() (players.Player, error) { return s.Player(ctx, "create-nobody") }, nil, players.ErrNotFound},
		{"unknown token", func() (players.Player, error) { return s.PlayerByToken(ctx, hashOf("nobody's")) }, nil, players.ErrNotFound},
		{"no token", func() (players.Player, error) { return s.PlayerByToken(ctx, nil) }, nil, players.ErrNotFound},
		{"the id taken again", func() (players.Player, error) {
			if err := s.CreatePlayer(ctx, taken); !errors.Is(err, players.ErrConflict) {
				t.Fatalf("create with a taken id: %v, want players.ErrConflict", err)
			}
			return s.Player(ctx, a.ID)
		}, &a, nil},
		{"the refused one's token", func() (players.Player, error) { return s.PlayerByToken(ctx, taken.TokenHash) }, nil, players.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.read()
			if tc.want == nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("read: %+v, %v; want %v", got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkPlayer(t, "read", got, *tc.want)
		})
	}
	t.Run("no aliasing", func(t *testing.T) {
		got := mustPlayer(t, s, a.ID)
		got.TokenHash[0] ^= 0xff
		a.TokenHash[1] ^= 0xff // the caller's copy, handed to CreatePlayer
		want := newPlayer(a.ID)
		checkStoredPlayer(t, s, "after changing copies", want)
	})
}

func testRenamePlayer(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	p := mustCreatePlayer(t, s, "rename")
	other := mustCreatePlayer(t, s, "rename-other")
	got, err := s.RenamePlayer(ctx, p.ID, "Adébáyọ̀ 2", tick(3))
	if err != nil {
		t.Fatal(err)
	}
	p.Name, p.UpdatedAt = "Adébáyọ̀ 2", tick(3)
	checkPlayer(t, "rename's answer", got, p)
	checkStoredPlayer(t, s, "after the rename", p)
	checkStoredPlayer(t, s, "the other player", other)
	if got, err := s.RenamePlayer(ctx, "rename-nobody", "x", tick(4)); !errors.Is(err, players.ErrNotFound) {
		t.Fatalf("rename an unknown player: %+v, %v; want players.ErrNotFound", got, err)
	}
	checkNoPlayer(t, s, "after renaming an unknown one", "rename-nobody")
}

func testSetPlayerToken(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	p := mustCreatePlayer(t, s, "token")
	first, second := hashOf("token 1"), hashOf("token 2")
	steps := []struct {
		name     string
		id       string
		old, new []byte
		wantErr  error
		current  []byte // the player's token after the step
	}{
		{"rotate with the current token", p.ID, p.TokenHash, first, nil, first},
		{"rotate with the old one again", p.ID, p.TokenHash, second, players.ErrConflict, first},
		{"rotate with no token", p.ID, nil, second, players.ErrConflict, first},
		{"rotate again with the current one", p.ID, first, second, nil, second},
		{"unknown player", "token-nobody", second, first, players.ErrNotFound, second},
	}
	for i, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			err := s.SetPlayerToken(ctx, st.id, slices.Clone(st.old), slices.Clone(st.new), tick(10+i))
			if !errors.Is(err, st.wantErr) || (err == nil) != (st.wantErr == nil) {
				t.Fatalf("set token: %v, want %v", err, st.wantErr)
			}
			if err == nil {
				p.UpdatedAt = tick(10 + i)
			}
			p.TokenHash = st.current
			checkStoredPlayer(t, s, "after it", p)
			got, err := s.PlayerByToken(ctx, st.current)
			if err != nil {
				t.Fatalf("by the current token: %v", err)
			}
			checkPlayer(t, "by the current token", got, p)
			for _, dead := range [][]byte{newPlayer("token").TokenHash, first, second} {
				if bytes.Equal(dead, st.current) {
					continue
				}
				if got, err := s.PlayerByToken(ctx, dead); !errors.Is(err, players.ErrNotFound) {
					t.Fatalf("a token no longer the player's finds %+v, %v; want players.ErrNotFound", got, err)
				}
			}
		})
	}
	checkNoPlayer(t, s, "after setting an unknown one's token", "token-nobody")
}

// nearEnd returns a position one move from the end of a game under the
// standard rules, and that move: a game played from the start with choices
// that vary by ply.
func nearEnd(t *testing.T) (engine.Position, int) {
	t.Helper()
	rec, err := engine.NewGame(engine.Start(), engine.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var out engine.Outcome
	for i := 0; i < 2000; i++ {
		before := rec.Position()
		pit := pick(before, rec.Rules(), 3*rec.Ply()+1)
		if err := rec.Play(pit, &out); err != nil {
			t.Fatal(err)
		}
		if rec.Result().Over() {
			return before, pit
		}
	}
	t.Fatal("the game does not end")
	return engine.Position{}, 0
}

// ratedGame is an active game between the players of seats (south first;
// "" none) from a position one move from its end, rated when tc has a
// category and rated is asked, each seat showing its player's rating as
// it is stored. With ai, the side not to move is the AI's, and the
// person's seat gets seats[0]'s player.
func ratedGame(t *testing.T, s Store, id string, seats [2]string, tc games.TimeControl, rated, ai bool) (games.Game, int) {
	t.Helper()
	start, pit := nearEnd(t)
	g := games.Game{ID: id, CreatedAt: t0, UpdatedAt: tick(1), JoinedAt: tick(1), Start: start, Position: start,
		Status: games.Active, Version: 2, TimeControl: tc, Rated: rated, History: []byte{}}
	if tc.Kind != games.Untimed {
		g.Clock, g.Deadline = clockOf(3), tick(40)
	}
	for side := range seats {
		g.Tokens[side] = seatToken(id, engine.Side(side))
	}
	if ai {
		aiSide := start.ToMove.Other()
		g.AI, g.Tokens[aiSide] = &games.AI{Side: aiSide, Level: 2}, nil
		seats[aiSide.Other()], seats[aiSide] = seats[0], ""
	}
	for side, pid := range seats {
		if pid == "" {
			continue
		}
		p := mustPlayer(t, s, pid)
		g.Players[side] = games.SeatPlayer{ID: p.ID, Name: p.Name}
		if c := g.Category(); c != "" {
			r := p.Rating(c)
			g.Players[side].Rating, g.Players[side].Deviation = r.Value, r.Deviation
		}
	}
	mustCreate(t, s, g, nil)
	return g, pit
}

// matchOf is the Match of g's end with result at at, from the ratings
// before, as the game service makes it.
func matchOf(g games.Game, result engine.Result, before [2]players.Rating, at time.Time) *players.Match {
	ids := [2]string{g.Players[engine.South].ID, g.Players[engine.North].ID}
	score := 0.5
	switch result.Winner {
	case engine.SouthWins:
		score = 1
	case engine.NorthWins:
		score = 0
	}
	var c players.Category
	if g.Rated {
		c = g.Category()
	}
	m := players.NewMatch(ids, score, c, before, at)
	return &m
}

// ratingsOf reads the ratings in c of g's seats' players, as the service
// does before an end (a missing player: a new rating).
func ratingsOf(t *testing.T, s Store, g games.Game) [2]players.Rating {
	t.Helper()
	var before [2]players.Rating
	for side, seat := range g.Players {
		before[side] = players.NewRating()
		if seat.ID == "" || g.Category() == "" {
			continue
		}
		p, err := s.Player(t.Context(), seat.ID)
		switch {
		case errors.Is(err, players.ErrNotFound):
		case err != nil:
			t.Fatal(err)
		default:
			before[side] = p.Rating(g.Category())
		}
	}
	return before
}

// withMatch is g, ended, with the seats a rated m leaves.
func withMatch(g games.Game, m *players.Match) games.Game {
	if m == nil || !m.Rated() {
		return g
	}
	for i := range g.Players {
		seat := &g.Players[i]
		seat.Rating, seat.Deviation = m.Before[i].Value, m.Before[i].Deviation
		seat.Change, seat.HasChange = m.After[i].Value-m.Before[i].Value, true
	}
	return g
}

// afterMatch is p after m, where p sits in seat side.
func afterMatch(p players.Player, m *players.Match, side int) players.Player {
	p.Counts = m.Count(p.Counts, side)
	if m.Rated() {
		p = withRating(p, m.Category, m.After[side])
	}
	return p
}

// resignRated ends a rated game between a and b (South a) by b's
// resignation at at, and checks that it did.
func resignRated(t *testing.T, s Store, id, a, b string, tc games.TimeControl, at time.Time) {
	t.Helper()
	g, _ := ratedGame(t, s, id, [2]string{a, b}, tc, true, false)
	result := engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}
	if _, err := s.Resign(t.Context(), id, result, at, matchOf(g, result, ratingsOf(t, s, g), at)); err != nil {
		t.Fatalf("resign %s: %v", id, err)
	}
}

// ender is a write that ends a game with a match: it returns the result
// the end has, and makes the end, returning the game the end leaves (its
// seats as they were).
type ender struct {
	name   string
	result func(t *testing.T, g games.Game, pit int) engine.Result
	end    func(t *testing.T, s Store, g games.Game, pit int, m *players.Match) (games.Game, error)
}

var enders = []ender{
	{"a finishing move",
		func(t *testing.T, g games.Game, pit int) engine.Result {
			next, _ := advance(t, g, tick(5), pit)
			return next.Result
		},
		func(t *testing.T, s Store, g games.Game, pit int, m *players.Match) (games.Game, error) {
			p := request(t, g, seatToken(g.ID, g.Position.ToMove), tick(5), pit, 0)
			p.Game.Deadline = time.Time{}
			if p.Game.Status != games.Finished {
				t.Fatalf("the move does not end game %s", g.ID)
			}
			p.Match = m
			return p.Game, s.ApplyPlay(t.Context(), p)
		}},
	{"a resignation",
		func(t *testing.T, g games.Game, _ int) engine.Result {
			return engine.Result{Reason: engine.ByResignation, Winner: engine.WinnerOf(g.Position.ToMove.Other())}
		},
		func(t *testing.T, s Store, g games.Game, _ int, m *players.Match) (games.Game, error) {
			result := engine.Result{Reason: engine.ByResignation, Winner: engine.WinnerOf(g.Position.ToMove.Other())}
			want := cloneGame(g)
			want.Status, want.Result, want.UpdatedAt, want.Deadline, want.Version = games.Finished, result, tick(5), time.Time{}, g.Version+1
			got, err := s.Resign(t.Context(), g.ID, result, tick(5), m)
			if err == nil {
				checkGame(t, "resign's answer", got, withMatch(want, m))
			}
			return want, err
		}},
	{"an end at the deadline, drawn",
		func(*testing.T, games.Game, int) engine.Result {
			return engine.Result{Reason: engine.ByTimeout, Winner: engine.Draw}
		},
		func(t *testing.T, s Store, g games.Game, _ int, m *players.Match) (games.Game, error) {
			e := games.End{ID: g.ID, Version: g.Version, Status: games.Finished, Result: engine.Result{Reason: engine.ByTimeout, Winner: engine.Draw},
				Clock: clockOf(9), At: tick(5), Match: m}
			want := ended(g, e)
			got, err := s.End(t.Context(), e)
			if err == nil {
				checkGame(t, "end's answer", got, withMatch(want, m))
			}
			return want, err
		}},
}

func testApplyMatch(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	scenarios := []struct {
		name  string
		tc    games.TimeControl
		rated bool
		ai    bool
		// prior: both players have played a rated game of the category
		// before, so their ratings have rows to update.
		prior bool
		// stale: the ratings the match starts from count a game fewer
		// than the store has.
		stale bool
		// deleteNorth: North's player is deleted before the end, after
		// the match was made.
		deleteNorth bool
		wantErr     error
	}{
		{name: "rated live, first rated game of both", tc: live, rated: true},
		{name: "rated correspondence, after an earlier one", tc: correspondence, rated: true, prior: true},
		{name: "unrated live between players", tc: live},
		{name: "unrated against the AI, one player", tc: live, ai: true},
		{name: "ratings changed since they were read", tc: live, rated: true, prior: true, stale: true, wantErr: players.ErrRatingsChanged},
		{name: "north's player deleted", tc: live, rated: true, deleteNorth: true},
	}
	for i, sc := range scenarios {
		for j, en := range enders {
			t.Run(sc.name+"/"+en.name, func(t *testing.T) {
				id := fmt.Sprintf("match-%d-%d", i, j)
				a := mustCreatePlayer(t, s, id+"-a").ID
				b := mustCreatePlayer(t, s, id+"-b").ID
				if sc.prior {
					resignRated(t, s, id+"-prior", a, b, sc.tc, tick(2))
				}
				seats := [2]string{a, b}
				g, pit := ratedGame(t, s, id, seats, sc.tc, sc.rated, sc.ai)
				if sc.ai {
					seats = [2]string{}
					seats[g.AI.Side.Other()] = a
				}
				before := ratingsOf(t, s, g)
				if sc.stale {
					before[engine.North].Games--
				}
				m := matchOf(g, en.result(t, g, pit), before, tick(5))
				if sc.rated != m.Rated() {
					t.Fatalf("the match is rated %v, want %v", m.Rated(), sc.rated)
				}
				if sc.deleteNorth {
					if err := s.DeletePlayer(ctx, b); err != nil {
						t.Fatal(err)
					}
					g.Players[engine.North].ID, g.Players[engine.North].Name = "", ""
				}
				var stored []players.Player
				for _, pid := range seats {
					if pid != "" && !(sc.deleteNorth && pid == b) {
						stored = append(stored, mustPlayer(t, s, pid))
					}
				}
				want, err := en.end(t, s, g, pit, m)
				if !errors.Is(err, sc.wantErr) || (err == nil) != (sc.wantErr == nil) {
					t.Fatalf("end: %v, want %v", err, sc.wantErr)
				}
				if err != nil {
					// Nothing written: the game is as it was, and so are
					// its players.
					checkStoredGame(t, s, "after the refused end", g)
					for _, p := range stored {
						checkStoredPlayer(t, s, "after the refused end", p)
					}
					return
				}
				want = withMatch(want, m)
				checkStoredGame(t, s, "after the end", want)
				for _, p := range stored {
					side := slices.Index(seats[:], p.ID)
					checkStoredPlayer(t, s, "after the end", afterMatch(p, m, side))
				}
				if sc.deleteNorth {
					checkNoPlayer(t, s, "the deleted player after the end", b)
				}
				if sc.ai {
					checkStoredPlayer(t, s, "the player with no seat", newPlayer(b))
				}
				// The ended game heads the history of a, with the change
				// the match made.
				entries, err := s.PlayerGames(ctx, a, players.GamesQuery{Limit: 1})
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != 1 {
					t.Fatalf("a's history: %+v, want the game", entries)
				}
				side := slices.Index(seats[:], a)
				checkEntry(t, "a's history", entries[0], want.Entry(engine.Side(side)))
				if sc.rated && (!entries[0].Rated || entries[0].Rating.Before.Value != m.Before[side].Value ||
					entries[0].Rating.After.Value != m.After[side].Value) {
					t.Fatalf("a's history shows %+v, want the change %+v", entries[0], m)
				}
			})
		}
	}
}

func testMatchEndRace(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	handles := []Store{s}
	if fx.again != nil {
		handles = append(handles, fx.again(t, s))
	}
	a, b := mustCreatePlayer(t, s, "race-a"), mustCreatePlayer(t, s, "race-b")
	g, _ := ratedGame(t, s, "match-race", [2]string{a.ID, b.ID}, live, true, false)
	// Every racer ends the game at the version it read, with the match
	// from the ratings it read: all the same.
	result := engine.TimeoutResult(g.Position.ToMove)
	m := matchOf(g, result, ratingsOf(t, s, g), tick(5))
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		e := games.End{ID: g.ID, Version: g.Version, Status: games.Finished, Result: result, Clock: clockOf(i), At: tick(5), Match: m}
		wg.Go(func() { _, errs[i] = handles[i%len(handles)].End(ctx, e) })
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
	for side, p := range []players.Player{a, b} {
		got := mustPlayer(t, s, p.ID)
		checkPlayer(t, "after the race", got, afterMatch(p, m, side))
		if r := got.Rating(players.Live); r.Games != 1 || got.Counts.Games != 1 {
			t.Fatalf("player %s: rating of %d games, %d games counted; want 1 and 1", p.ID, r.Games, got.Counts.Games)
		}
	}
}

// diffEntry lists the fields in which got differs from want: times as
// instants, ratings by value and deviation, what a history shows.
func diffEntry(got, want players.GameEntry) []string {
	var d []string
	field := func(name string, same bool, g, w any) {
		if !same {
			d = append(d, fmt.Sprintf("%s %v, want %v", name, g, w))
		}
	}
	field("GameID", got.GameID == want.GameID, got.GameID, want.GameID)
	field("EndedAt", got.EndedAt.Equal(want.EndedAt), got.EndedAt, want.EndedAt)
	field("Side", got.Side == want.Side, got.Side, want.Side)
	field("Category", got.Category == want.Category, got.Category, want.Category)
	field("Rated", got.Rated == want.Rated, got.Rated, want.Rated)
	field("Result", got.Result == want.Result, got.Result, want.Result)
	field("Opponent", got.Opponent == want.Opponent, got.Opponent, want.Opponent)
	field("OpponentName", got.OpponentName == want.OpponentName, got.OpponentName, want.OpponentName)
	field("AI", got.AI == want.AI, got.AI, want.AI)
	field("Rating", sameChange(got.Rating, want.Rating), got.Rating, want.Rating)
	return d
}

// sameChange compares two changes as a history shows them: values and
// deviations.
func sameChange(a, b players.Change) bool {
	return a.Before.Value == b.Before.Value && a.Before.Deviation == b.Before.Deviation &&
		a.After.Value == b.After.Value && a.After.Deviation == b.After.Deviation
}

func checkEntry(t *testing.T, what string, got, want players.GameEntry) {
	t.Helper()
	if d := diffEntry(got, want); len(d) > 0 {
		t.Fatalf("%s: entry of game %s: %s", what, want.GameID, strings.Join(d, "; "))
	}
}

func testPlayerGames(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	h, o := mustCreatePlayer(t, s, "hist"), mustCreatePlayer(t, s, "hist-opp")
	seat := func(p players.Player) games.SeatPlayer { return games.SeatPlayer{ID: p.ID, Name: p.Name} }
	// Games are stored as they ended (stores decide nothing), each
	// ended at its UpdatedAt.
	made := map[string]games.Game{}
	game := func(id string, status games.Status, tc games.TimeControl, rated bool, south, north games.SeatPlayer,
		winner engine.Winner, at time.Time) games.Game {
		g := personGame(id, engine.South)
		g.Tokens[engine.North] = seatToken(id, engine.North)
		g.Status, g.JoinedAt, g.UpdatedAt, g.Version, g.TimeControl, g.Rated = status, tick(1), at, 5, tc, rated
		g.Players = [2]games.SeatPlayer{south, north}
		if status == games.Finished {
			g.Result = engine.Result{Reason: engine.ByMajority, Winner: winner}
		}
		made[id] = g
		return g
	}
	change := func(sp games.SeatPlayer, rating, deviation, delta float64) games.SeatPlayer {
		sp.Rating, sp.Deviation, sp.Change, sp.HasChange = rating, deviation, delta, true
		return sp
	}
	ai := game("hist-g4", games.Finished, live, false, games.SeatPlayer{}, seat(h), engine.NorthWins, tick(12))
	ai.AI, ai.Tokens[engine.South] = &games.AI{Side: engine.South, Level: 4}, nil
	made[ai.ID] = ai
	for _, g := range []games.Game{
		game("hist-g1", games.Finished, live, true, change(seat(h), 1500, 350, 172.5), change(seat(o), 1500, 350, -172.5), engine.SouthWins, tick(10)),
		game("hist-g2", games.Finished, correspondence, true, change(seat(o), 1400.25, 300, 50.125), change(seat(h), 1672.5, 250, -60.75), engine.SouthWins, tick(11)),
		game("hist-g3", games.Finished, games.TimeControl{}, false, seat(h), games.SeatPlayer{}, engine.Draw, tick(12)),
		ai,
		game("hist-g5", games.Finished, live, true, change(seat(h), 1611.75, 200, 1.5), change(seat(o), 1327.5, 280, -1.5), engine.Draw, tick(13)),
		// Not in anyone's history: aborted, active, waiting.
		game("hist-g6", games.Aborted, live, true, seat(h), seat(o), 0, tick(14)),
		game("hist-g7", games.Active, live, true, seat(o), seat(h), 0, tick(20)),
		game("hist-g8", games.Waiting, correspondence, false, seat(h), games.SeatPlayer{}, 0, tick(21)),
		// The opponent's game with someone else.
		game("hist-g9", games.Finished, correspondence, false, games.SeatPlayer{ID: "hist-x", Name: "X"}, seat(o), engine.NorthWins, tick(15)),
	} {
		if g.Status == games.Waiting {
			g.Tokens[engine.North] = nil
			made[g.ID] = g
		}
		mustCreate(t, s, made[g.ID], nil)
	}
	cursor := func(id string) players.GameCursor {
		return players.GameCursor{EndedAt: made[id].UpdatedAt, GameID: id}
	}
	tests := []struct {
		name   string
		player string
		q      players.GamesQuery
		want   []string
	}{
		{"all", h.ID, players.GamesQuery{Limit: 100}, []string{"hist-g5", "hist-g4", "hist-g3", "hist-g2", "hist-g1"}},
		{"the first two", h.ID, players.GamesQuery{Limit: 2}, []string{"hist-g5", "hist-g4"}},
		{"after the second", h.ID, players.GamesQuery{Limit: 2, After: cursor("hist-g4")}, []string{"hist-g3", "hist-g2"}},
		{"after one that ended with another", h.ID, players.GamesQuery{Limit: 10, After: cursor("hist-g3")}, []string{"hist-g2", "hist-g1"}},
		{"after the last", h.ID, players.GamesQuery{Limit: 10, After: cursor("hist-g1")}, nil},
		{"no room", h.ID, players.GamesQuery{Limit: 0}, nil},
		{"live", h.ID, players.GamesQuery{Limit: 10, Category: players.Live}, []string{"hist-g5", "hist-g4", "hist-g1"}},
		{"correspondence", h.ID, players.GamesQuery{Limit: 10, Category: players.Correspondence}, []string{"hist-g2"}},
		{"wins", h.ID, players.GamesQuery{Limit: 10, Result: players.Win}, []string{"hist-g4", "hist-g1"}},
		{"losses", h.ID, players.GamesQuery{Limit: 10, Result: players.Loss}, []string{"hist-g2"}},
		{"draws", h.ID, players.GamesQuery{Limit: 10, Result: players.Draw}, []string{"hist-g5", "hist-g3"}},
		{"live wins after the newest", h.ID, players.GamesQuery{Limit: 10, Category: players.Live, Result: players.Win, After: cursor("hist-g5")}, []string{"hist-g4", "hist-g1"}},
		{"live draws, one a page", h.ID, players.GamesQuery{Limit: 1, Category: players.Live, Result: players.Draw}, []string{"hist-g5"}},
		{"the opponent's", o.ID, players.GamesQuery{Limit: 10}, []string{"hist-g9", "hist-g5", "hist-g2", "hist-g1"}},
		{"the opponent's wins", o.ID, players.GamesQuery{Limit: 10, Result: players.Win}, []string{"hist-g9", "hist-g2"}},
		{"an unknown player's", "hist-nobody", players.GamesQuery{Limit: 10}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.PlayerGames(ctx, tc.player, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range got {
				ids = append(ids, e.GameID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Fatalf("games %v, want %v", ids, tc.want)
			}
			for i, e := range got {
				g := made[e.GameID]
				side := engine.South
				if g.Players[engine.North].ID == tc.player {
					side = engine.North
				}
				checkEntry(t, fmt.Sprint("entry ", i), e, g.Entry(side))
			}
		})
	}
	// The entries say what the table above assumes.
	t.Run("entries by hand", func(t *testing.T) {
		got, err := s.PlayerGames(ctx, h.ID, players.GamesQuery{Limit: 100})
		if err != nil || len(got) != 5 {
			t.Fatalf("history: %+v, %v", got, err)
		}
		g2, g4 := got[3], got[1]
		if g2.Side != 1 || g2.Result != players.Loss || g2.Opponent != o.ID || g2.OpponentName != o.Name || !g2.Rated ||
			g2.Category != players.Correspondence || g2.Rating.Before.Value != 1672.5 || g2.Rating.After.Value != 1672.5-60.75 {
			t.Fatalf("hist-g2: %+v", g2)
		}
		if !g4.AI || g4.Opponent != "" || g4.Result != players.Win || g4.Rated || g4.Side != 1 || g4.Rating != (players.Change{}) {
			t.Fatalf("hist-g4: %+v", g4)
		}
	})
}

// solveAt makes player's attempt at puzzle id (rating key key) at at from
// the ratings stored now, as the puzzle service does.
func solveAt(t *testing.T, s Store, player, id, key string, solved bool, daily, at time.Time) players.Solve {
	t.Helper()
	var before [2]players.Rating
	before[0] = players.NewRating()
	if p, err := s.Player(t.Context(), player); err == nil {
		before[0] = p.Rating(players.Puzzles)
	}
	r, ok, err := s.PuzzleRating(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	before[1] = players.NewRating()
	if ok {
		before[1] = r
	}
	return players.NewSolve(player, id, key, solved, daily, before, at)
}

// mustSolve records sv, uncounted, and checks whether it was first.
func mustSolve(t *testing.T, s Store, sv players.Solve, first bool) {
	t.Helper()
	_, got, err := s.RecordSolve(t.Context(), sv, false)
	if err != nil || got != first {
		t.Fatalf("record %s's attempt at %s: first %v, %v; want first %v", sv.Player, sv.PuzzleID, got, err, first)
	}
}

// entryOf is the history entry of sv, a first attempt.
func entryOf(sv players.Solve) players.PuzzleEntry {
	return players.PuzzleEntry{PuzzleID: sv.PuzzleID, At: sv.At, Solved: sv.Solved, Daily: sv.Daily,
		Rating: players.Change{Before: sv.Before[0], After: sv.After[0]}}
}

func checkPuzzleEntries(t *testing.T, what string, got, want []players.PuzzleEntry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries %+v, want %d %+v", what, len(got), got, len(want), want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.PuzzleID != w.PuzzleID || !g.At.Equal(w.At) || g.Solved != w.Solved || !g.Daily.Equal(w.Daily) || !sameChange(g.Rating, w.Rating) {
			t.Fatalf("%s: entry %d %+v, want %+v", what, i, g, w)
		}
	}
}

func testPlayerPuzzles(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	p := mustCreatePlayer(t, s, "pz").ID
	other := mustCreatePlayer(t, s, "pz-other").ID
	d := day(t, "2026-02-16")
	var first []players.PuzzleEntry // by puzzle, in the order made
	for _, a := range []struct {
		id     string
		solved bool
		daily  time.Time
		at     time.Time
	}{
		{"q1", true, time.Time{}, tick(1)},
		{"q2", false, time.Time{}, tick(2)},
		{"q3", true, time.Time{}, tick(2)},
		{"q4", true, d, tick(3)},
		{"q5", false, time.Time{}, tick(4)},
	} {
		sv := solveAt(t, s, p, a.id, "key-"+a.id, a.solved, a.daily, a.at)
		mustSolve(t, s, sv, true)
		first = append(first, entryOf(sv))
	}
	// A later attempt changes no entry; another player's is theirs.
	mustSolve(t, s, solveAt(t, s, p, "q1", "key-q1", false, time.Time{}, tick(9)), false)
	mustSolve(t, s, solveAt(t, s, other, "q6", "key-q6", true, time.Time{}, tick(9)), true)
	q := func(i int) players.PuzzleEntry { return first[i-1] }
	at := func(i int) players.PuzzleCursor { return players.PuzzleCursor{At: q(i).At, PuzzleID: q(i).PuzzleID} }
	tests := []struct {
		name   string
		player string
		after  players.PuzzleCursor
		limit  int
		want   []players.PuzzleEntry
	}{
		{"all", p, players.PuzzleCursor{}, 10, []players.PuzzleEntry{q(5), q(4), q(3), q(2), q(1)}},
		{"the first two", p, players.PuzzleCursor{}, 2, []players.PuzzleEntry{q(5), q(4)}},
		{"after the second", p, at(4), 2, []players.PuzzleEntry{q(3), q(2)}},
		{"after one made with another", p, at(3), 10, []players.PuzzleEntry{q(2), q(1)}},
		{"after the last", p, at(1), 10, nil},
		{"no room", p, players.PuzzleCursor{}, 0, nil},
		{"an unknown player's", "pz-nobody", players.PuzzleCursor{}, 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.PlayerPuzzles(ctx, tc.player, tc.after, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			checkPuzzleEntries(t, "attempts", got, tc.want)
		})
	}
}

func testDailySolves(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	p := mustCreatePlayer(t, s, "daily").ID
	other := mustCreatePlayer(t, s, "daily-other").ID
	d1, d2, d3, d4 := day(t, "2026-02-15"), day(t, "2026-02-16"), day(t, "2026-02-17"), day(t, "2026-02-18")
	noon := func(d time.Time) time.Time { return d.Add(12*time.Hour + 7*time.Microsecond) }
	steps := []struct {
		name  string
		sv    func(t *testing.T) players.Solve
		first bool
		want  []time.Time
	}{
		{"solved on its day", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, gen.IDFor(d1), gen.IDFor(d1), true, d1, noon(d1))
		}, true, []time.Time{d1}},
		{"solved again on its day", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, gen.IDFor(d1), gen.IDFor(d1), true, d1, noon(d1).Add(time.Hour))
		}, false, []time.Time{d1}},
		{"the next one on its day", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, gen.IDFor(d2), gen.IDFor(d2), true, d2, d2)
		}, true, []time.Time{d2, d1}},
		{"missed on its day", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, gen.IDFor(d3), gen.IDFor(d3), false, d3, noon(d3))
		}, true, []time.Time{d2, d1}},
		{"then solved on its day: not first, still a day", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, gen.IDFor(d3), gen.IDFor(d3), true, d3, noon(d3).Add(time.Hour))
		}, false, []time.Time{d3, d2, d1}},
		{"solved a day late", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, gen.IDFor(d4), gen.IDFor(d4), true, d4, noon(d4).Add(24*time.Hour))
		}, true, []time.Time{d3, d2, d1}},
		{"a practice puzzle", func(t *testing.T) players.Solve {
			return solveAt(t, s, p, "practice-1", "bucket", true, time.Time{}, noon(d4))
		}, true, []time.Time{d3, d2, d1}},
		{"another player's", func(t *testing.T) players.Solve {
			return solveAt(t, s, other, gen.IDFor(d4), gen.IDFor(d4), true, d4, noon(d4))
		}, true, []time.Time{d3, d2, d1}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			mustSolve(t, s, st.sv(t), st.first)
			got, err := s.DailySolves(ctx, p, 100)
			if err != nil {
				t.Fatal(err)
			}
			if !sameDays(got, st.want) {
				t.Fatalf("daily solves %v, want %v", got, st.want)
			}
		})
	}
	for _, tc := range []struct {
		name   string
		player string
		limit  int
		want   []time.Time
	}{
		{"at most two", p, 2, []time.Time{d3, d2}},
		{"none asked", p, 0, nil},
		{"the other player's", other, 10, []time.Time{d4}},
		{"an unknown player's", "daily-nobody", 10, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.DailySolves(ctx, tc.player, tc.limit)
			if err != nil || !sameDays(got, tc.want) {
				t.Fatalf("daily solves %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func sameDays(a, b []time.Time) bool {
	return slices.EqualFunc(a, b, func(x, y time.Time) bool { return x.Equal(y) })
}

func testLeaderboard(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	// Stores decide nothing: a solve's ratings after are written as they
	// come, so each player gets the puzzle rating the case needs.
	rate := func(id string, value, deviation float64, at time.Time) players.Rating {
		t.Helper()
		mustCreatePlayer(t, s, id)
		sv := solveAt(t, s, id, "lb-puzzle-"+id, "lb-key-"+id, true, time.Time{}, at)
		sv.After[0] = players.Rating{Value: value, Deviation: deviation, Volatility: 0.0625, Games: 1, At: at}
		mustSolve(t, s, sv, true)
		return sv.After[0]
	}
	since := tick(50)
	leader := func(id string, r players.Rating) players.Leader {
		return players.Leader{PlayerID: id, Name: newPlayer(id).Name, Rating: r}
	}
	a := leader("lb-a", rate("lb-a", 1800, 60, tick(100)))
	b := leader("lb-b", rate("lb-b", 1900, 50, tick(100)))
	c := leader("lb-c", rate("lb-c", 1800, 60, tick(101)))
	d := leader("lb-d", rate("lb-d", 2500, 200, tick(100))) // too uncertain
	e := leader("lb-e", rate("lb-e", 2400, 60, tick(1)))    // not recent
	f := leader("lb-f", rate("lb-f", 1700, 110, since))     // on both bounds
	rate("lb-gone", 3000, 40, tick(100))                    // deleted below
	if err := s.DeletePlayer(ctx, "lb-gone"); err != nil {
		t.Fatal(err)
	}
	// Two live ratings, from a rated game whose match says what they
	// become.
	h, i := mustCreatePlayer(t, s, "lb-h"), mustCreatePlayer(t, s, "lb-i")
	g, _ := ratedGame(t, s, "lb-game", [2]string{h.ID, i.ID}, live, true, false)
	result := engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}
	m := matchOf(g, result, ratingsOf(t, s, g), tick(100))
	m.After[0] = players.Rating{Value: 3100, Deviation: 45, Volatility: 0.05, Games: 1, At: tick(100)}
	m.After[1] = players.Rating{Value: 1000.5, Deviation: 45, Volatility: 0.05, Games: 1, At: tick(100)}
	if _, err := s.Resign(ctx, g.ID, result, tick(100), m); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		c            players.Category
		maxDeviation float64
		since        time.Time
		limit        int
		want         []players.Leader
	}{
		{"puzzles", players.Puzzles, 110, since, 10, []players.Leader{b, a, c, f}},
		{"puzzles, top two", players.Puzzles, 110, since, 2, []players.Leader{b, a}},
		{"puzzles, everyone", players.Puzzles, 350, tick(0), 10, []players.Leader{d, e, b, a, c, f}},
		{"puzzles, the certain only", players.Puzzles, 59.5, since, 10, []players.Leader{b}},
		{"puzzles, none asked", players.Puzzles, 350, tick(0), 0, nil},
		{"live", players.Live, 110, since, 10, []players.Leader{leader(h.ID, m.After[0]), leader(i.ID, m.After[1])}},
		{"correspondence", players.Correspondence, 350, tick(0), 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Leaderboard(ctx, tc.c, tc.maxDeviation, tc.since, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%d leaders %+v, want %d %+v", len(got), got, len(tc.want), tc.want)
			}
			for j := range got {
				if got[j].PlayerID != tc.want[j].PlayerID || got[j].Name != tc.want[j].Name || !sameRating(got[j].Rating, tc.want[j].Rating) {
					t.Fatalf("leader %d: %+v, want %+v", j, got[j], tc.want[j])
				}
			}
		})
	}
}

func testRecordSolve(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	made := fx.puzzles(t)
	mustAdd(t, s, made[0])
	counted := made[0]
	p := mustCreatePlayer(t, s, "solver")
	d, unstored := day(t, "2026-02-20"), day(t, "2000-01-03")
	// want is the player as each step leaves it.
	want := p
	attempted := map[string]bool{}
	var history []players.PuzzleEntry // newest first
	steps := []struct {
		name string
		// sv is the attempt, made from the ratings stored now.
		sv        func(t *testing.T) players.Solve
		count     bool
		first     bool
		wantStats puzzles.Stats
		wantErr   error
	}{
		{"a first attempt, solved", func(t *testing.T) players.Solve {
			return solveAt(t, s, p.ID, "practice-a", "bucket-1", true, time.Time{}, tick(1))
		}, false, true, puzzles.Stats{}, nil},
		{"a second attempt at it", func(t *testing.T) players.Solve {
			return solveAt(t, s, p.ID, "practice-a", "bucket-1", false, time.Time{}, tick(2))
		}, false, false, puzzles.Stats{}, nil},
		{"the player's rating changed since it was read", func(t *testing.T) players.Solve {
			sv := solveAt(t, s, p.ID, "practice-b", "bucket-1", true, time.Time{}, tick(3))
			sv.Before[0].Games--
			return sv
		}, false, false, puzzles.Stats{}, players.ErrRatingsChanged},
		{"the puzzle's rating changed since it was read", func(t *testing.T) players.Solve {
			sv := solveAt(t, s, p.ID, "practice-b", "bucket-1", true, time.Time{}, tick(3))
			sv.Before[1].Games++
			return sv
		}, false, false, puzzles.Stats{}, players.ErrRatingsChanged},
		{"a daily solve whose ratings changed: not even the day", func(t *testing.T) players.Solve {
			sv := solveAt(t, s, p.ID, gen.IDFor(d), gen.IDFor(d), true, d, d.Add(time.Hour))
			sv.Before[0].Games++
			return sv
		}, false, false, puzzles.Stats{}, players.ErrRatingsChanged},
		{"a first attempt, missed, on the same key", func(t *testing.T) players.Solve {
			return solveAt(t, s, p.ID, "practice-b", "bucket-1", false, time.Time{}, tick(4))
		}, false, true, puzzles.Stats{}, nil},
		{"counted, at a stored puzzle", func(t *testing.T) players.Solve {
			return solveAt(t, s, p.ID, counted.ID, counted.ID, true, counted.Date, tick(5))
		}, true, true, puzzles.Stats{Attempts: 1, Solved: 1}, nil},
		{"counted again, not first", func(t *testing.T) players.Solve {
			return solveAt(t, s, p.ID, counted.ID, counted.ID, false, counted.Date, tick(6))
		}, true, false, puzzles.Stats{Attempts: 2, Solved: 1}, nil},
		{"counted, at a puzzle not stored", func(t *testing.T) players.Solve {
			return solveAt(t, s, p.ID, gen.IDFor(unstored), gen.IDFor(unstored), true, unstored, tick(7))
		}, true, false, puzzles.Stats{}, puzzles.ErrNotFound},
		{"an unknown player", func(t *testing.T) players.Solve {
			return solveAt(t, s, "solver-nobody", "practice-c", "bucket-1", true, time.Time{}, tick(8))
		}, false, false, puzzles.Stats{}, players.ErrNotFound},
		{"an unknown player, counted", func(t *testing.T) players.Solve {
			return solveAt(t, s, "solver-nobody", counted.ID, counted.ID, true, counted.Date, tick(8))
		}, true, false, puzzles.Stats{}, players.ErrNotFound},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			sv := st.sv(t)
			keyBefore, keyOK, err := s.PuzzleRating(ctx, sv.Key)
			if err != nil {
				t.Fatal(err)
			}
			stats, first, err := s.RecordSolve(ctx, sv, st.count)
			if !errors.Is(err, st.wantErr) || (err == nil) != (st.wantErr == nil) {
				t.Fatalf("record solve: %v, want %v", err, st.wantErr)
			}
			if err == nil && (first != st.first || stats != st.wantStats) {
				t.Fatalf("record solve: first %v, stats %+v; want %v, %+v", first, stats, st.first, st.wantStats)
			}
			keyAfter, keyAfterOK, err := s.PuzzleRating(ctx, sv.Key)
			if err != nil {
				t.Fatal(err)
			}
			if st.first {
				want = withRating(want, players.Puzzles, sv.After[0])
				want.Counts.Puzzles++
				if sv.Solved {
					want.Counts.Solved++
				}
				attempted[sv.PuzzleID] = true
				history = append([]players.PuzzleEntry{entryOf(sv)}, history...)
				if !keyAfterOK || !sameRating(keyAfter, sv.After[1]) {
					t.Fatalf("puzzle rating %s: %+v, %v; want %+v", sv.Key, keyAfter, keyAfterOK, sv.After[1])
				}
			} else if keyAfterOK != keyOK || !sameRating(keyAfter, keyBefore) {
				t.Fatalf("puzzle rating %s moved to %+v, %v from %+v, %v", sv.Key, keyAfter, keyAfterOK, keyBefore, keyOK)
			}
			checkStoredPlayer(t, s, "after it", want)
			checkNoPlayer(t, s, "after it", "solver-nobody")
			for _, id := range []string{"practice-a", "practice-b", "practice-c", counted.ID, gen.IDFor(unstored), gen.IDFor(d)} {
				got, err := s.Attempted(ctx, p.ID, id)
				if err != nil || got != attempted[id] {
					t.Fatalf("attempted %s: %v, %v; want %v", id, got, err, attempted[id])
				}
			}
			entries, err := s.PlayerPuzzles(ctx, p.ID, players.PuzzleCursor{}, 100)
			if err != nil {
				t.Fatal(err)
			}
			checkPuzzleEntries(t, "history", entries, history)
		})
	}
	t.Run("counts shared with RecordAttempt", func(t *testing.T) {
		if got, err := s.RecordAttempt(ctx, counted.ID, true); err != nil || got != (puzzles.Stats{Attempts: 3, Solved: 2}) {
			t.Fatalf("record attempt: %+v, %v; want 3 attempts, 2 solved", got, err)
		}
		checkStoredPuzzle(t, s, "after it", counted, puzzles.Stats{Attempts: 3, Solved: 2})
	})
	t.Run("no daily solve was written", func(t *testing.T) {
		days, err := s.DailySolves(ctx, p.ID, 10)
		if err != nil || len(days) != 0 {
			// The one on its day had stale ratings; counted's was at
			// tick(5), not on its day.
			t.Fatalf("daily solves %v, %v; want none", days, err)
		}
	})
	t.Run("unknown puzzle rating", func(t *testing.T) {
		if r, ok, err := s.PuzzleRating(ctx, "bucket-nobody"); err != nil || ok {
			t.Fatalf("puzzle rating of an unknown key: %+v, %v, %v; want none", r, ok, err)
		}
	})
	t.Run("another player has attempted nothing", func(t *testing.T) {
		other := mustCreatePlayer(t, s, "solver-other")
		if got, err := s.Attempted(ctx, other.ID, "practice-a"); err != nil || got {
			t.Fatalf("attempted: %v, %v; want false", got, err)
		}
	})
}

func testSolveRaceOnePuzzle(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	p := mustCreatePlayer(t, s, "one-race")
	// Every racer read the same ratings: the first attempt is one of
	// them, the others are later attempts.
	sv := solveAt(t, s, p.ID, "race-puzzle", "race-key", true, time.Time{}, tick(1))
	firsts := make([]bool, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Go(func() { _, firsts[i], errs[i] = s.RecordSolve(ctx, sv, false) })
	}
	wg.Wait()
	n := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		if firsts[i] {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d attempts were first, want 1", n)
	}
	want := withRating(p, players.Puzzles, sv.After[0])
	want.Counts = players.Counts{Puzzles: 1, Solved: 1}
	checkStoredPlayer(t, s, "after the race", want)
	if r, ok, err := s.PuzzleRating(ctx, "race-key"); err != nil || !ok || !sameRating(r, sv.After[1]) {
		t.Fatalf("puzzle rating: %+v, %v, %v; want %+v", r, ok, err, sv.After[1])
	}
}

func testSolveRaceManyPuzzles(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	handles := []Store{s}
	if fx.again != nil {
		handles = append(handles, fx.again(t, s))
	}
	p := mustCreatePlayer(t, s, "many-race")
	// Each racer attempts its own puzzle, reading the player's rating and
	// trying again, as the puzzle service does, whenever another's first
	// attempt moved it in between.
	const maxTries = 10 * racers
	tries := make([]int, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		h := handles[i%len(handles)]
		wg.Go(func() {
			id := fmt.Sprint("many-race-", i)
			for tries[i] = 1; tries[i] <= maxTries; tries[i]++ {
				me, err := h.Player(ctx, p.ID)
				if err != nil {
					errs[i] = err
					return
				}
				sv := players.NewSolve(p.ID, id, id, i%2 == 0, time.Time{},
					[2]players.Rating{me.Rating(players.Puzzles), players.NewRating()}, tick(i))
				var first bool
				_, first, errs[i] = h.RecordSolve(ctx, sv, false)
				if !errors.Is(errs[i], players.ErrRatingsChanged) {
					if errs[i] == nil && !first {
						errs[i] = fmt.Errorf("the attempt at %s was not first", id)
					}
					return
				}
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("racer %d, after %d tries: %v", i, tries[i], err)
		}
	}
	got := mustPlayer(t, s, p.ID)
	if r := got.Rating(players.Puzzles); r.Games != racers || got.Counts.Puzzles != racers || got.Counts.Solved != racers/2 {
		t.Fatalf("after the race: rating of %d games, counts %+v; want %d games, %d puzzles, %d solved",
			r.Games, got.Counts, racers, racers, racers/2)
	}
	entries, err := s.PlayerPuzzles(ctx, p.ID, players.PuzzleCursor{}, 100)
	if err != nil || len(entries) != racers {
		t.Fatalf("history: %d entries, %v; want %d", len(entries), err, racers)
	}
}

// testSeatPlayers: every field of a seat's player, and whether the game
// is rated, round-trip through CreateGame, Join and Game.
func testSeatPlayers(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	full := games.SeatPlayer{ID: "seat-a", Name: "Àdùnní ✓", Rating: 1523.0625, Deviation: 87.5, Change: -12.75, HasChange: true}
	joiner := games.SeatPlayer{ID: "seat-b", Name: "Bọ́lá", Rating: 1400.125, Deviation: 349.99}
	tests := []struct {
		name    string
		creator engine.Side
		rated   bool
		seat    games.SeatPlayer // the creator's
		join    games.SeatPlayer
	}{
		{"rated, south creates, north joins", engine.South, true, full, joiner},
		{"rated, north creates, south joins", engine.North, true, full, joiner},
		{"unrated, a player joins an anonymous creator", engine.South, false, games.SeatPlayer{}, joiner},
		{"unrated, anonymous joins a player", engine.North, false, games.SeatPlayer{ID: "seat-c", Name: "C"}, games.SeatPlayer{}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := timedGame(fmt.Sprint("seats-", i), tc.creator, live, tick(30))
			g.Rated = tc.rated
			g.Players[tc.creator] = tc.seat
			mustCreate(t, s, g, nil)
			checkStoredGame(t, s, "created", g)
			token := seatToken(g.ID, tc.creator.Other())
			got, err := s.Join(ctx, g.ID, token, tick(2), tick(31), tc.join)
			if err != nil {
				t.Fatal(err)
			}
			want := cloneGame(g)
			want.Tokens[tc.creator.Other()] = token
			want.Players[tc.creator.Other()] = tc.join
			want.Status, want.JoinedAt, want.UpdatedAt, want.Deadline, want.Version = games.Active, tick(2), tick(2), tick(31), g.Version+1
			checkGame(t, "join's answer", got, want)
			checkStoredGame(t, s, "joined", want)
		})
	}
	t.Run("against the AI", func(t *testing.T) {
		g, opening := aiGame(t, "seats-ai", engine.South, engine.Start(), engine.Rules{})
		g.Players[engine.North] = joiner
		mustCreate(t, s, g, opening)
		checkStoredGame(t, s, "created", g)
	})
}

func testDeletePlayer(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	gone, stays := mustCreatePlayer(t, s, "del-gone"), mustCreatePlayer(t, s, "del-stays")
	// The player leaves a rated game ended, an active one, a waiting one
	// and an AI game, puzzle attempts and a daily solve.
	resignRated(t, s, "del-rated", gone.ID, stays.ID, live, tick(3))
	active, _ := ratedGame(t, s, "del-active", [2]string{stays.ID, gone.ID}, correspondence, true, false)
	waiting := timedGame("del-waiting", engine.North, live, tick(30))
	waiting.Players[engine.North] = games.SeatPlayer{ID: gone.ID, Name: gone.Name, Rating: 1500, Deviation: 350}
	mustCreate(t, s, waiting, nil)
	aiOnly, opening := aiGame(t, "del-ai", engine.North, engine.Start(), engine.Rules{})
	aiOnly.Players[engine.South] = games.SeatPlayer{ID: gone.ID, Name: gone.Name}
	mustCreate(t, s, aiOnly, opening)
	d := day(t, "2026-02-15")
	mustSolve(t, s, solveAt(t, s, gone.ID, gen.IDFor(d), gen.IDFor(d), true, d, d.Add(time.Hour)), true)
	mustSolve(t, s, solveAt(t, s, stays.ID, gen.IDFor(d), gen.IDFor(d), true, d, d.Add(2*time.Hour)), true)
	before := map[string]games.Game{}
	for _, id := range []string{"del-rated", active.ID, waiting.ID, aiOnly.ID} {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		before[id] = g
	}
	if !before["del-rated"].Players[engine.South].HasChange {
		t.Fatal("the rated game did not record its change: nothing to keep")
	}
	staysAfter := mustPlayer(t, s, stays.ID)
	if err := s.DeletePlayer(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"no player", func(t *testing.T) {
			checkNoPlayer(t, s, "by id", gone.ID)
			if p, err := s.PlayerByToken(ctx, gone.TokenHash); !errors.Is(err, players.ErrNotFound) {
				t.Fatalf("by token: %+v, %v; want players.ErrNotFound", p, err)
			}
		}},
		{"no history", func(t *testing.T) {
			gs, err := s.PlayerGames(ctx, gone.ID, players.GamesQuery{Limit: 10})
			if err != nil || len(gs) != 0 {
				t.Fatalf("games: %+v, %v; want none", gs, err)
			}
			ps, err := s.PlayerPuzzles(ctx, gone.ID, players.PuzzleCursor{}, 10)
			if err != nil || len(ps) != 0 {
				t.Fatalf("puzzles: %+v, %v; want none", ps, err)
			}
			days, err := s.DailySolves(ctx, gone.ID, 10)
			if err != nil || len(days) != 0 {
				t.Fatalf("daily solves: %v, %v; want none", days, err)
			}
			if a, err := s.Attempted(ctx, gone.ID, gen.IDFor(d)); err != nil || a {
				t.Fatalf("attempted: %v, %v; want false", a, err)
			}
		}},
		{"no rating", func(t *testing.T) {
			for _, c := range players.Categories {
				ls, err := s.Leaderboard(ctx, c, 1000, time.Time{}, 10)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range ls {
					if l.PlayerID == gone.ID {
						t.Fatalf("still on the %s leaderboard: %+v", c, l)
					}
				}
			}
		}},
		{"games stay, the seats no longer naming it", func(t *testing.T) {
			for id, g := range before {
				for side := range g.Players {
					if g.Players[side].ID == gone.ID {
						g.Players[side].ID, g.Players[side].Name = "", ""
					}
				}
				checkStoredGame(t, s, id, g)
			}
		}},
		{"the other player keeps everything", func(t *testing.T) {
			checkStoredPlayer(t, s, "the other player", staysAfter)
			gs, err := s.PlayerGames(ctx, stays.ID, players.GamesQuery{Limit: 10})
			if err != nil || len(gs) != 1 || gs[0].GameID != "del-rated" || gs[0].Opponent != "" || gs[0].OpponentName != "" || !gs[0].Rated {
				t.Fatalf("the other player's games: %+v, %v; want del-rated against nobody", gs, err)
			}
			days, err := s.DailySolves(ctx, stays.ID, 10)
			if err != nil || !sameDays(days, []time.Time{d}) {
				t.Fatalf("the other player's daily solves: %v, %v", days, err)
			}
		}},
		{"deleted again", func(t *testing.T) {
			if err := s.DeletePlayer(ctx, gone.ID); !errors.Is(err, players.ErrNotFound) {
				t.Fatalf("delete again: %v, want players.ErrNotFound", err)
			}
		}},
		{"never there", func(t *testing.T) {
			if err := s.DeletePlayer(ctx, "del-nobody"); !errors.Is(err, players.ErrNotFound) {
				t.Fatalf("delete an unknown player: %v, want players.ErrNotFound", err)
			}
		}},
	}
	for _, c := range checks {
		t.Run(c.name, c.check)
	}
}
