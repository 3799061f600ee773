package games_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// TestRetryRebuildsTheAnswer: a seat's latest accepted request sent again
// gets the result it got (every field of it, as testAnswer encodes it),
// rebuilt from the records, however the game went on since: the other
// seat moved, the AI replied, the clock ran out, the game ended rated.
// Any other request at a past ply is refused as the contract orders it.
func TestRetryRebuildsTheAnswer(t *testing.T) {
	fx := newRatedFixture(t)
	ctx := t.Context()
	g, tokens := fx.start(t, blitz, engine.Start())
	// first keeps each request's first answer, by the seat that made it.
	type sent struct {
		req  games.MoveRequest
		body []byte
	}
	var first [2]sent
	move := func(t *testing.T, think time.Duration) {
		t.Helper()
		fx.clock.Advance(think)
		side := g.Position.ToMove
		req := games.MoveRequest{ID: g.ID, Token: tokens[side], Ply: g.Ply, Pit: firstLegal(&g)}
		body, replayed, err := play(ctx, fx.svc, req)
		if err != nil || replayed {
			t.Fatalf("ply %d: %v (replayed %v)", g.Ply, err, replayed)
		}
		first[side] = sent{req, body}
		if g, err = fx.svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	// retry sends side's latest request again and wants its first answer.
	retry := func(t *testing.T, side engine.Side) {
		t.Helper()
		body, replayed, err := play(ctx, fx.svc, first[side].req)
		if err != nil || !replayed || string(body) != string(first[side].body) {
			t.Fatalf("%s's retry: %v (replayed %v)\n%s\nwant\n%s", side, err, replayed, body, first[side].body)
		}
	}
	refused := func(t *testing.T, req games.MoveRequest, want error) {
		t.Helper()
		if _, replayed, err := fx.svc.Play(ctx, req); !errors.Is(err, want) || replayed {
			t.Fatalf("%+v: %v (replayed %v), want %v", req, err, replayed, want)
		}
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{"the latest move, at once", func(t *testing.T) {
			move(t, 1500*time.Millisecond)
			retry(t, engine.South)
		}},
		{"after the other seat moved", func(t *testing.T) {
			move(t, 2*time.Second+7*time.Microsecond)
			retry(t, engine.South)
			retry(t, engine.North)
		}},
		{"on a running clock", func(t *testing.T) {
			move(t, 4*time.Second+300*time.Microsecond)
			move(t, 3*time.Second)
			fx.clock.Advance(10 * time.Second)
			retry(t, engine.South)
			retry(t, engine.North)
		}},
		{"another pit at the same ply", func(t *testing.T) {
			req := first[engine.South].req
			req.Pit = (req.Pit + 1) % 6
			refused(t, req, games.ErrStalePly)
		}},
		{"the other seat's token", func(t *testing.T) {
			req := first[engine.South].req
			req.Token = tokens[engine.North]
			refused(t, req, games.ErrStalePly)
		}},
		{"an older request of the seat", func(t *testing.T) {
			req := first[engine.South].req
			req.Ply -= 2
			refused(t, req, games.ErrStalePly)
		}},
		{"after an offer made since", func(t *testing.T) {
			// North offers a draw after both latest moves: neither
			// answer showed it, nor does its retry.
			if _, err := fx.svc.Draw(ctx, g.ID, games.Actor{Token: tokens[engine.North]}, true); err != nil {
				t.Fatal(err)
			}
			retry(t, engine.South)
			retry(t, engine.North)
			if _, err := fx.svc.Draw(ctx, g.ID, games.Actor{Token: tokens[engine.South]}, false); err != nil {
				t.Fatal(err)
			}
		}},
		{"the mover's own offer, declined since", func(t *testing.T) {
			// South offers, then moves: its answer shows its offer,
			// which North declines; the retry still shows it.
			side := g.Position.ToMove
			if _, err := fx.svc.Draw(ctx, g.ID, games.Actor{Token: tokens[side]}, true); err != nil {
				t.Fatal(err)
			}
			move(t, time.Second)
			if g.DrawOffer == games.NoOffer {
				t.Fatal("the mover's draw offer did not stand after its move")
			}
			if _, err := fx.svc.Draw(ctx, g.ID, games.Actor{Token: tokens[side.Other()]}, false); err != nil {
				t.Fatal(err)
			}
			retry(t, side)
			retry(t, side.Other())
		}},
		{"after a rated end by resignation", func(t *testing.T) {
			fx.clock.Advance(time.Second)
			if _, err := fx.svc.Resign(ctx, g.ID, games.Actor{Token: tokens[engine.South]}); err != nil {
				t.Fatal(err)
			}
			// The seats' ratings were the players' first ones, which the
			// end was applied to: the answers say them, without the change.
			retry(t, engine.South)
			retry(t, engine.North)
			req := first[engine.South].req
			req.Pit = (req.Pit + 1) % 6
			refused(t, req, games.ErrFinished)
		}},
	}
	for _, step := range steps {
		t.Run(step.name, step.do)
	}
}

// TestRetryAgainstTheAI: the retry of a move the AI replied to has the
// reply, and the AI is not asked again.
func TestRetryAgainstTheAI(t *testing.T) {
	ctx := t.Context()
	asked := 0
	choose := func(ctx2 context.Context, p engine.Position, r engine.Rules, h []engine.Position, level int, seed uint64) (int, error) {
		asked++
		return lastLegal(ctx2, p, r, h, level, seed)
	}
	svc := games.NewService(openGameStore(t), testCPU(), games.Options{Choose: choose})
	me, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	req := games.MoveRequest{ID: me.Game.ID, Token: me.Token, Ply: 0, Pit: 2}
	body, replayed, err := play(ctx, svc, req)
	if err != nil || replayed || asked != 1 {
		t.Fatalf("first: %v (replayed %v), the AI asked %d times", err, replayed, asked)
	}
	again, replayed, err := play(ctx, svc, req)
	if err != nil || !replayed || string(again) != string(body) || asked != 1 {
		t.Fatalf("retry: %v (replayed %v), the AI asked %d times\n%s\nwant\n%s", err, replayed, asked, again, body)
	}
}
