package games_test

import (
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
)

// ratedFixture is a service over a memory store with two players.
type ratedFixture struct {
	svc     *games.Service
	store   *memory.Store
	clock   *gamestest.Clock
	players [2]players.Player
}

func newRatedFixture(t *testing.T) *ratedFixture {
	t.Helper()
	fx := &ratedFixture{store: memory.New(), clock: gamestest.NewClock()}
	fx.svc = games.NewService(fx.store, testCPU(), games.Options{Now: fx.clock.Now, Choose: lastLegal})
	ps := players.NewService(fx.store, fx.clock.Now)
	for i, name := range []string{"Adé", "Bọ́lá"} {
		p, _, err := ps.Create(t.Context(), name)
		if err != nil {
			t.Fatal(err)
		}
		fx.players[i] = p
	}
	return fx
}

func (fx *ratedFixture) player(t *testing.T, i int) players.Player {
	t.Helper()
	p, err := fx.store.Player(t.Context(), fx.players[i].ID)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// start creates a rated game of tc with player 0 South and player 1 North,
// joined.
func (fx *ratedFixture) start(t *testing.T, tc games.TimeControl, start engine.Position) (games.Game, [2]string) {
	t.Helper()
	a, err := fx.svc.Create(t.Context(), games.NewGame{Start: start, Seat: engine.South, TimeControl: tc, Player: &fx.players[0], Rated: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fx.svc.Join(t.Context(), a.Game.ID, &fx.players[1])
	if err != nil {
		t.Fatal(err)
	}
	return b.Game, [2]string{a.Token, b.Token}
}

func TestRatedCreateRules(t *testing.T) {
	fx := newRatedFixture(t)
	p := &fx.players[0]
	for _, c := range []struct {
		name string
		req  games.NewGame
		want error
	}{
		{"untimed", games.NewGame{Player: p, Rated: true}, games.ErrRatedNotAllowed},
		{"against the AI", games.NewGame{Player: p, Rated: true, TimeControl: blitz, AILevel: 1}, games.ErrRatedNotAllowed},
		{"anonymous creator", games.NewGame{Rated: true, TimeControl: blitz}, games.ErrRatedNotAllowed},
		{"live", games.NewGame{Player: p, Rated: true, TimeControl: blitz}, nil},
		{"correspondence", games.NewGame{Player: p, Rated: true, TimeControl: corr3}, nil},
		{"unrated with a player", games.NewGame{Player: p}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.req.Start, c.req.Seat = engine.Start(), engine.South
			seat, err := fx.svc.Create(t.Context(), c.req)
			if !errors.Is(err, c.want) {
				t.Fatalf("create: %v, want %v", err, c.want)
			}
			if err != nil {
				return
			}
			g := seat.Game
			if g.Rated != c.req.Rated || g.Players[engine.South].ID != p.ID || g.Players[engine.South].Name != p.Name {
				t.Fatalf("game %+v", g.Players)
			}
			if want := g.Category() != ""; (g.Players[engine.South].Rating == players.InitialValue) != want {
				t.Fatalf("seat rating %v in a game of category %q", g.Players[engine.South].Rating, g.Category())
			}
		})
	}
}

func TestRatedJoinRules(t *testing.T) {
	fx := newRatedFixture(t)
	create := func() string {
		a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.North, TimeControl: blitz, Player: &fx.players[0], Rated: true})
		if err != nil {
			t.Fatal(err)
		}
		return a.Game.ID
	}
	for _, c := range []struct {
		name   string
		player *players.Player
		want   error
	}{
		{"anonymous", nil, players.ErrUnauthorized},
		{"the creator", &fx.players[0], games.ErrRatedNotAllowed},
		{"another player", &fx.players[1], nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			seat, err := fx.svc.Join(t.Context(), create(), c.player)
			if !errors.Is(err, c.want) {
				t.Fatalf("join: %v, want %v", err, c.want)
			}
			if err == nil && (seat.Side != engine.South || seat.Game.Players[engine.South].ID != fx.players[1].ID) {
				t.Fatalf("seat %v players %+v", seat.Side, seat.Game.Players)
			}
		})
	}
}

// checkRated asserts that g ended rated with the winner (0 or 1, 2 a draw)
// and that the players' ratings and counts moved once, as g's seats say.
func checkRated(t *testing.T, fx *ratedFixture, g games.Game, winner int, c players.Category) {
	t.Helper()
	if g.Status != games.Finished {
		t.Fatalf("game %s", g.Status)
	}
	for i := range 2 {
		p := fx.player(t, i)
		r := p.Rating(c)
		seat := g.Players[i]
		if !seat.HasChange || r.Games != 1 || math.Abs(seat.Rating+seat.Change-r.Value) > 1e-9 {
			t.Fatalf("player %d: seat %+v, rating %+v", i, seat, r)
		}
		want := 0.0
		switch {
		case winner == 2:
			want = 0
		case winner == i:
			want = 1
		default:
			want = -1
		}
		if math.Signbit(seat.Change) != (want < 0) || (want > 0 && seat.Change <= 0) {
			t.Fatalf("player %d changed %+.1f, want sign %v", i, seat.Change, want)
		}
		if p.Counts.Games != 1 || p.Counts.Rated != 1 {
			t.Fatalf("player %d counts %+v", i, p.Counts)
		}
		hist, _, err := players.NewService(fx.store, fx.clock.Now).Games(t.Context(), p.ID, players.GamesQuery{}, "")
		if err != nil || len(hist) != 1 || hist[0].GameID != g.ID || !hist[0].Rated || hist[0].Category != c ||
			math.Abs(hist[0].Rating.Delta()-seat.Change) > 1e-9 {
			t.Fatalf("player %d history %+v %v", i, hist, err)
		}
	}
}

func TestRatedEndByResignation(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.start(t, blitz, engine.Start())
	fx.clock.Advance(time.Second)
	for ply, pit := range []int{0, 6} { // both sides have moved: a resignation counts
		if _, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[ply%2], Ply: ply, Pit: pit}); err != nil {
			t.Fatal(err)
		}
	}
	ended, err := fx.svc.Resign(t.Context(), g.ID, games.Actor{Token: tokens[1]})
	if err != nil {
		t.Fatal(err)
	}
	checkRated(t, fx, ended, 0, players.Live)
	// The winner cannot resign a finished game, and the loser's second
	// resignation rates nothing again.
	if _, err := fx.svc.Resign(t.Context(), g.ID, games.Actor{Token: tokens[0]}); !errors.Is(err, games.ErrFinished) {
		t.Fatalf("resigning a finished game: %v", err)
	}
	if _, err := fx.svc.Resign(t.Context(), g.ID, games.Actor{Token: tokens[1]}); err != nil {
		t.Fatalf("the same resignation again: %v", err)
	}
	checkRated(t, fx, ended, 0, players.Live)
}

func TestRatedEndByTimeout(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.start(t, corr3, engine.Start())
	for ply, pit := range []int{0, 6} {
		if _, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[ply%2], Ply: ply, Pit: pit}); err != nil {
			t.Fatal(err)
		}
	}
	fx.clock.Advance(4 * 24 * time.Hour) // South, to move, runs out
	if _, err := games.NewSweeper(fx.svc, games.SweepOptions{}).SweepOnce(t.Context()); err != nil {
		t.Fatal(err)
	}
	ended, err := fx.svc.Game(t.Context(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ended.Result.Reason != engine.ByTimeout {
		t.Fatalf("result %+v", ended.Result)
	}
	checkRated(t, fx, ended, 1, players.Correspondence)
}

func TestRatedEndByMove(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.start(t, blitz, engine.MustParse("s-111000-110010-21-21"))
	for i, pit := range []int{2, 7, 0, 6, 2, 10, 4, 8, 0, 6, 2, 10, 4, 8} {
		if _, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[i%2], Ply: i, Pit: pit}); err != nil {
			t.Fatalf("ply %d: %v", i, err)
		}
	}
	ended, err := fx.svc.Game(t.Context(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkRated(t, fx, ended, 1, players.Live) // repetition: North's row wins
}

func TestAbortedRatedGameChangesNothing(t *testing.T) {
	fx := newRatedFixture(t)
	g, _ := fx.start(t, blitz, engine.Start())
	fx.clock.Advance(time.Hour) // South never makes a first move
	ended, err := fx.svc.Game(t.Context(), g.ID)
	if err != nil || ended.Status != games.Aborted {
		t.Fatalf("game %s %v", ended.Status, err)
	}
	for i := range 2 {
		if p := fx.player(t, i); p.Counts != (players.Counts{}) || len(p.Ratings) != 0 || ended.Players[i].HasChange {
			t.Fatalf("player %d: %+v %+v", i, p.Counts, p.Ratings)
		}
	}
}

// TestRatedTimeoutTwoSweepers: two instances sweep the same overdue rated
// game at once; it is rated once.
func TestRatedTimeoutTwoSweepers(t *testing.T) {
	fx := newRatedFixture(t)
	other := games.NewService(fx.store, testCPU(), games.Options{Now: fx.clock.Now, Choose: lastLegal})
	g, tokens := fx.start(t, blitz, engine.Start())
	for ply, pit := range []int{0, 6} {
		if _, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[ply%2], Ply: ply, Pit: pit}); err != nil {
			t.Fatal(err)
		}
	}
	fx.clock.Advance(time.Hour)
	var wg sync.WaitGroup
	for _, svc := range []*games.Service{fx.svc, other} {
		wg.Go(func() {
			if _, err := games.NewSweeper(svc, games.SweepOptions{}).SweepOnce(t.Context()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	ended, err := fx.svc.Game(t.Context(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkRated(t, fx, ended, 1, players.Live)
}

// TestRatedGamesEndingAtOnce ends many rated games of one player at once:
// each rating update reads the rating the one before wrote, so the player's
// rating counts every game, none lost to a race.
func TestRatedGamesEndingAtOnce(t *testing.T) {
	fx := newRatedFixture(t)
	const n = 20
	ids, tokens := make([]string, n), make([][2]string, n)
	for i := range n {
		g, tk := fx.start(t, blitz, engine.Start())
		for ply, pit := range []int{0, 6} {
			if _, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tk[ply%2], Ply: ply, Pit: pit}); err != nil {
				t.Fatal(err)
			}
		}
		ids[i], tokens[i] = g.ID, tk
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = fx.svc.Resign(t.Context(), ids[i], games.Actor{Token: tokens[i][1]}) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		p := fx.player(t, i)
		if r := p.Rating(players.Live); r.Games != n || p.Counts.Games != n {
			t.Fatalf("player %d: %d rated games, %d counted, want %d", i, r.Games, p.Counts.Games, n)
		}
	}
}

// TestOnePlayerBothSeats: a player joining its own unrated game (one
// person playing both sides) takes the seat anonymously, so the game is
// listed and counted once.
func TestOnePlayerBothSeats(t *testing.T) {
	fx := newRatedFixture(t)
	a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, Player: &fx.players[0]})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fx.svc.Join(t.Context(), a.Game.ID, &fx.players[0])
	if err != nil {
		t.Fatal(err)
	}
	if b.Game.Players[engine.North].ID != "" || b.Game.Players[engine.South].ID != fx.players[0].ID {
		t.Fatalf("seats %+v", b.Game.Players)
	}
	if _, err := fx.svc.Resign(t.Context(), a.Game.ID, games.Actor{Token: b.Token}); err != nil {
		t.Fatal(err)
	}
	if p := fx.player(t, 0); p.Counts.Games != 1 || p.Counts.Wins != 1 {
		t.Fatalf("counts %+v", p.Counts)
	}
}

// TestAIGameCountsForItsPlayer: a game against the AI is never rated, but
// its player's counts and history have it.
func TestAIGameCountsForItsPlayer(t *testing.T) {
	fx := newRatedFixture(t)
	a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 1, Player: &fx.players[0]})
	if err != nil {
		t.Fatal(err)
	}
	ended, err := fx.svc.Resign(t.Context(), a.Game.ID, games.Actor{Token: a.Token})
	if err != nil {
		t.Fatal(err)
	}
	p := fx.player(t, 0)
	if p.Counts.Games != 1 || p.Counts.Losses != 1 || p.Counts.Rated != 0 || len(p.Ratings) != 0 || ended.Players[0].HasChange {
		t.Fatalf("counts %+v ratings %+v", p.Counts, p.Ratings)
	}
	hist, _, err := players.NewService(fx.store, fx.clock.Now).Games(t.Context(), p.ID, players.GamesQuery{}, "")
	if err != nil || len(hist) != 1 || !hist[0].AI || hist[0].Rated || hist[0].Result != players.Loss {
		t.Fatalf("history %+v %v", hist, err)
	}
}
