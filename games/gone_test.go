package games_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

func TestGoneAfter(t *testing.T) {
	for _, tc := range []struct {
		name string
		tc   games.TimeControl
		want time.Duration
	}{
		{"1+0, the floor", games.TimeControl{Kind: games.Live, Initial: time.Minute}, 20 * time.Second},
		{"3+2", blitz, 30 * time.Second},
		{"10+0, the ceiling", games.TimeControl{Kind: games.Live, Initial: 10 * time.Minute}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := games.GoneAfter(tc.tc); got != tc.want {
				t.Fatalf("GoneAfter %v, want %v", got, tc.want)
			}
		})
	}
}

// TestClaimVictory: in a rated 3+2 after both first moves, South to move
// is gone 30 s into its turn and North may claim 10 s later: a win by
// timeout, rated; not before, not by South, and the same claim again gets
// the same game.
func TestClaimVictory(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.start(t, blitz, engine.Start())
	g = fx.moves(t, g, tokens, 0, 6)
	south, north := games.Actor{Token: tokens[0]}, games.Actor{Token: tokens[1]}
	gone, ok := g.Gone()
	if !ok || gone.Side != engine.South || !gone.Since.Equal(g.UpdatedAt.Add(30*time.Second)) || !gone.ClaimAt.Equal(gone.Since.Add(games.ClaimGrace)) {
		t.Fatalf("gone %+v %v, want South from 30 s into its turn", gone, ok)
	}
	for _, tc := range []struct {
		name    string
		advance time.Duration
		by      games.Actor
		want    error
	}{
		{"at once", 0, north, games.ErrClaimTooEarly},
		{"by the side to move", 0, south, games.ErrClaimUnavailable},
		{"gone, in the grace", 30 * time.Second, north, games.ErrClaimTooEarly},
		{"a moment before the claim opens", 10*time.Second - time.Microsecond, north, games.ErrClaimTooEarly},
		{"when it opens", time.Microsecond, north, nil},
		{"again", time.Minute, north, nil},
		{"by the loser", 0, south, games.ErrFinished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx.clock.Advance(tc.advance)
			got, err := fx.svc.ClaimVictory(t.Context(), g.ID, tc.by)
			if !errors.Is(err, tc.want) {
				t.Fatalf("claim: %v, want %v", err, tc.want)
			}
			var early *games.ClaimTooEarlyError
			if errors.As(err, &early) && !early.ClaimAt.Equal(gone.ClaimAt) {
				t.Fatalf("claim opens at %v, want %v", early.ClaimAt, gone.ClaimAt)
			}
			if err != nil {
				return
			}
			if got.Status != games.Finished || got.Result != (engine.Result{Reason: engine.ByTimeout, Winner: engine.NorthWins}) {
				t.Fatalf("claimed: %s %+v, want North's win by timeout", got.Status, got.Result)
			}
			if !got.Players[engine.North].HasChange || got.Players[engine.North].Change <= 0 {
				t.Fatalf("North's rating change %+v, want a rated win", got.Players[engine.North])
			}
			// South's clock ran through the 40 s it was gone.
			if want := g.Clock[engine.South] - 40*time.Second; got.Clock[engine.South] != want {
				t.Fatalf("South's clock %v, want %v", got.Clock[engine.South], want)
			}
		})
	}
}

// TestClaimDraw: the same claim as a draw, rated as one.
func TestClaimDraw(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.start(t, blitz, engine.Start())
	g = fx.moves(t, g, tokens, 0, 6, 1) // North to move
	fx.clock.Advance(40 * time.Second)
	got, err := fx.svc.ClaimDraw(t.Context(), g.ID, games.Actor{Token: tokens[0]})
	if err != nil || got.Result != (engine.Result{Reason: engine.ByTimeout, Winner: engine.Draw}) || !got.Players[engine.South].HasChange {
		t.Fatalf("claim a draw: %+v %+v %v, want a rated draw by timeout", got.Result, got.Players[engine.South], err)
	}
}

// TestClaimUnavailable: the games no side of which can be gone.
func TestClaimUnavailable(t *testing.T) {
	fx := newRatedFixture(t)
	for _, tc := range []struct {
		name  string
		tc    games.TimeControl
		pits  []int
		ai    bool
		rated bool
	}{
		{"untimed", games.TimeControl{}, []int{0, 6}, false, false},
		{"correspondence", corr3, []int{0, 6}, false, true},
		{"before the second side's first move", blitz, []int{0}, false, true},
		{"a clock that runs out first", games.TimeControl{Kind: games.Live, Initial: 15 * time.Second}, []int{0, 6}, false, false},
		{"against the AI", blitz, []int{0}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var g games.Game
			var tokens [2]string
			switch {
			case tc.ai:
				a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, TimeControl: tc.tc, AILevel: 1})
				if err != nil {
					t.Fatal(err)
				}
				g, tokens = a.Game, [2]string{a.Token, a.Token} // the person claims: the AI has no token
			case tc.rated:
				g, tokens = fx.start(t, tc.tc, engine.Start())
			default:
				g, tokens = fx.unrated(t, tc.tc)
			}
			g = fx.moves(t, g, tokens, tc.pits...)
			fx.clock.Advance(12 * time.Second)
			other := tokens[g.Position.ToMove.Other()]
			if _, ok := g.Gone(); ok {
				t.Fatal("a side can be gone")
			}
			if _, err := fx.svc.ClaimVictory(t.Context(), g.ID, games.Actor{Token: other}); !errors.Is(err, games.ErrClaimUnavailable) {
				t.Fatalf("claim: %v, want ErrClaimUnavailable", err)
			}
		})
	}
}

// TestAbort: either seat aborts a game until both sides have moved, a
// rated one included; not after.
func TestAbort(t *testing.T) {
	fx := newRatedFixture(t)
	waiting, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, TimeControl: blitz, Player: &fx.players[0], Rated: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		pits  []int
		by    int
		want  error
		after games.Status
	}{
		{"before any move, by North", nil, 1, nil, games.Aborted},
		{"after South's first move, by South", []int{0}, 0, nil, games.Aborted},
		{"after both first moves", []int{0, 6}, 0, games.ErrAbortTooLate, games.Active},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, tokens := fx.start(t, blitz, engine.Start())
			g = fx.moves(t, g, tokens, tc.pits...)
			got, err := fx.svc.Abort(t.Context(), g.ID, games.Actor{Token: tokens[tc.by]})
			if !errors.Is(err, tc.want) || got.Status != tc.after {
				t.Fatalf("abort: %s, %v; want %s, %v", got.Status, err, tc.after, tc.want)
			}
			if err != nil {
				return
			}
			if got.Result.Over() || got.Players[0].HasChange {
				t.Fatalf("aborted with result %+v, change %+v", got.Result, got.Players[0])
			}
			again, err := fx.svc.Abort(t.Context(), g.ID, games.Actor{Token: tokens[1-tc.by]})
			if err != nil || again.Version != got.Version {
				t.Fatalf("abort again: version %d, %v; want %d", again.Version, err, got.Version)
			}
		})
	}
	t.Run("waiting", func(t *testing.T) {
		got, err := fx.svc.Abort(t.Context(), waiting.Game.ID, games.Actor{Token: waiting.Token})
		if err != nil || got.Status != games.Aborted {
			t.Fatalf("abort a waiting game: %s, %v", got.Status, err)
		}
	})
}

// TestOfferDrawWithMove: offerDraw on a move makes the offer in the
// move's write, or accepts the standing one: a draw by agreement, or an
// abort when a side of a rated game has yet to move; the move's retry
// answers the same.
func TestOfferDrawWithMove(t *testing.T) {
	fx := newRatedFixture(t)
	play := func(t *testing.T, g games.Game, token string, pit int) games.PlayResult {
		t.Helper()
		fx.clock.Advance(time.Second)
		res, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: token, Ply: g.Ply, Pit: pit, OfferDraw: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	t.Run("offer, then accept", func(t *testing.T) {
		g, tokens := fx.start(t, blitz, engine.Start())
		res := play(t, g, tokens[0], 0)
		if res.Game.DrawOffer != games.OfferBySouth || res.Game.Status != games.Active {
			t.Fatalf("after South's move with an offer: offer %v, %s", res.Game.DrawOffer, res.Game.Status)
		}
		res = play(t, res.Game, tokens[1], 6)
		want := engine.Result{Reason: engine.ByAgreement, Winner: engine.Draw}
		if res.Game.Status != games.Finished || res.Game.Result != want || !res.Game.Players[0].HasChange {
			t.Fatalf("after North's move accepting: %s %+v, want a rated draw by agreement", res.Game.Status, res.Game.Result)
		}
		again, replayed, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[1], Ply: 1, Pit: 6, OfferDraw: true})
		if err != nil || !replayed || again.Game.Status != games.Finished || again.Game.Result != want {
			t.Fatalf("retry: %s %+v replayed %v, %v", again.Game.Status, again.Game.Result, replayed, err)
		}
	})
	t.Run("accepted with a rated game's first move", func(t *testing.T) {
		g, tokens := fx.start(t, blitz, engine.Start())
		if _, err := fx.svc.Draw(t.Context(), g.ID, games.Actor{Token: tokens[1]}, true); err != nil {
			t.Fatal(err)
		}
		g, _ = fx.svc.Game(t.Context(), g.ID)
		if res := play(t, g, tokens[0], 0); res.Game.Status != games.Aborted || res.Game.Result.Over() {
			t.Fatalf("%s %+v, want aborted", res.Game.Status, res.Game.Result)
		}
	})
	t.Run("the AI declines", func(t *testing.T) {
		a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 1})
		if err != nil {
			t.Fatal(err)
		}
		if res := play(t, a.Game, a.Token, 0); res.Game.DrawOffer != games.NoOffer || res.Game.Status != games.Active {
			t.Fatalf("offer %v, %s, want none standing", res.Game.DrawOffer, res.Game.Status)
		}
	})
}

// TestHubOpponentGone: the game stream tells when the side to move is
// gone, once per version, with id 8v+7, by the injected clock; a claim
// ends the game.
func TestHubOpponentGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	fx := newRatedFixture(t)
	hub := games.NewHub(fx.store, games.HubOptions{PollInterval: time.Hour, Now: fx.clock.Now})
	fx.svc = games.NewService(fx.store, testCPU(), games.Options{Now: fx.clock.Now, Choose: lastLegal, Changed: hub})
	g, tokens := fx.start(t, blitz, engine.Start())
	g = fx.moves(t, g, tokens, 0, 6)
	events := make(chan games.Event, 10)
	done := make(chan error, 1)
	go func() {
		done <- hub.Follow(ctx, g.ID, -1, time.Hour, stream{send: func(e games.Event) error { events <- e; return nil }})
	}()
	next := func() games.Event {
		t.Helper()
		select {
		case e := <-events:
			return e
		case <-ctx.Done():
			t.Fatal("no event")
		}
		return games.Event{}
	}
	if e := next(); e.Kind != games.EventGame {
		t.Fatalf("first %s, want the game", e.Kind)
	}
	fx.clock.Advance(31 * time.Second)
	hub.Changed(ctx, g.ID) // wakes the feed, as its timer would
	e := next()
	if e.Kind != games.EventOpponentGone || e.ID != int(g.Version)*8+7 || e.Gone.Side != engine.South || e.Version != g.Version {
		t.Fatalf("%s %d %+v, want opponentGone %d for South", e.Kind, e.ID, e.Gone, g.Version*8+7)
	}
	// A follower that starts now gets the game, then the same opponentGone.
	late := make(chan games.Event, 10)
	lctx, lcancel := context.WithCancel(ctx)
	defer lcancel()
	go func() {
		_ = hub.Follow(lctx, g.ID, -1, time.Hour, stream{send: func(e games.Event) error { late <- e; return nil }})
	}()
	if first, then := <-late, <-late; first.Kind != games.EventGame || then.Kind != games.EventOpponentGone || then.ID != e.ID {
		t.Fatalf("a later follower got %s, then %s %d; want the game, then opponentGone %d", first.Kind, then.Kind, then.ID, e.ID)
	}
	fx.clock.Advance(10 * time.Second)
	if _, err := fx.svc.ClaimVictory(ctx, g.ID, games.Actor{Token: tokens[1]}); err != nil {
		t.Fatal(err)
	}
	if e := next(); e.Kind != games.EventEnd || e.ID != int(g.Version+1)*8 || e.Status != games.Finished {
		t.Fatalf("%s %d %s, want the end at %d", e.Kind, e.ID, e.Status, (g.Version+1)*8)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
