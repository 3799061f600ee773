package games_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// unrated creates an unrated game of tc between the fixture's players
// (player 0 South), joined, and returns it with the seats' tokens.
func (fx *ratedFixture) unrated(t *testing.T, tc games.TimeControl) (games.Game, [2]string) {
	t.Helper()
	a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, TimeControl: tc, Player: &fx.players[0]})
	if err != nil {
		t.Fatal(err)
	}
	b, err := fx.svc.Join(t.Context(), a.Game.ID, &fx.players[1])
	if err != nil {
		t.Fatal(err)
	}
	return b.Game, [2]string{a.Token, b.Token}
}

// moves plays pits from g's current ply on, each by the seat to move, a
// second apart.
func (fx *ratedFixture) moves(t *testing.T, g games.Game, tokens [2]string, pits ...int) games.Game {
	t.Helper()
	for _, pit := range pits {
		fx.clock.Advance(time.Second)
		res, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: pit})
		if err != nil {
			t.Fatalf("ply %d pit %d: %v", g.Ply, pit, err)
		}
		g = res.Game
	}
	return g
}

func TestPlayerTokenActsForItsSeats(t *testing.T) {
	fx := newRatedFixture(t)
	g, _ := fx.start(t, blitz, engine.Start())
	south, north := games.Actor{Player: fx.players[0].ID}, games.Actor{Player: fx.players[1].ID}
	for _, tc := range []struct {
		name string
		by   games.Actor
		pit  int
		want error
	}{
		{"a player of no seat", games.Actor{Player: "nobody"}, 0, games.ErrUnauthorized},
		{"nobody", games.Actor{}, 0, games.ErrUnauthorized},
		{"the other seat's player", north, 6, games.ErrNotYourTurn},
		{"the seat's player", south, 0, nil},
		{"the next seat's player", north, 6, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Player: tc.by.Player, Ply: g.Ply, Pit: tc.pit})
			if !errors.Is(err, tc.want) {
				t.Fatalf("play: %v, want %v", err, tc.want)
			}
			if err == nil {
				g = res.Game
			}
		})
	}
	// A player's move sent again is a retry, as a token's is.
	res, replayed, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Player: north.Player, Ply: 1, Pit: 6})
	if err != nil || !replayed || res.Game.Ply != 2 {
		t.Fatalf("retry by the player: %v replayed %v ply %d", err, replayed, res.Game.Ply)
	}
	ended, err := fx.svc.Resign(t.Context(), g.ID, north)
	if err != nil || ended.Result != (engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}) {
		t.Fatalf("resign by the player: %+v %v", ended.Result, err)
	}
}

func TestRatedGameBeforeBothMovedIsAborted(t *testing.T) {
	for _, tc := range []struct {
		name     string
		pits     []int
		resigner engine.Side
		rated    bool
		want     games.Status
	}{
		{"South resigns at ply 0", nil, engine.South, true, games.Aborted},
		{"North resigns at ply 0", nil, engine.North, true, games.Aborted},
		{"North resigns at ply 1", []int{0}, engine.North, true, games.Aborted},
		{"South resigns at ply 2", []int{0, 6}, engine.South, true, games.Finished},
		{"unrated at ply 0", nil, engine.South, false, games.Finished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRatedFixture(t)
			g, tokens := fx.start(t, blitz, engine.Start())
			if !tc.rated {
				g, tokens = fx.unrated(t, blitz)
			}
			fx.moves(t, g, tokens, tc.pits...)
			by := games.Actor{Token: tokens[tc.resigner]}
			ended, err := fx.svc.Resign(t.Context(), g.ID, by)
			if err != nil || ended.Status != tc.want {
				t.Fatalf("resign: %s %v, want %s", ended.Status, err, tc.want)
			}
			if tc.want == games.Aborted {
				if ended.Result.Over() || ended.Players[0].HasChange {
					t.Fatalf("an aborted game has a result or a rating change: %+v", ended)
				}
				for i := range 2 {
					if p := fx.player(t, i); len(p.Ratings) != 0 || p.Counts != (players.Counts{}) {
						t.Fatalf("player %d changed: %+v %+v", i, p.Ratings, p.Counts)
					}
				}
				again, err := fx.svc.Resign(t.Context(), g.ID, by)
				if err != nil || again.Version != ended.Version {
					t.Fatalf("the resignation sent again: %v, version %d want %d", err, again.Version, ended.Version)
				}
			}
		})
	}
}

func TestDrawOffers(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.unrated(t, games.TimeControl{})
	south, north := games.Actor{Token: tokens[0]}, games.Actor{Token: tokens[1]}
	steps := []struct {
		name  string
		by    games.Actor
		offer bool
		pit   int // a move instead, when >= 0
		draw  games.Offer
		want  error
	}{
		{"nothing to decline", north, false, -1, games.NoOffer, games.ErrNoOffer},
		{"South offers", south, true, -1, games.OfferBySouth, nil},
		{"South offers again", south, true, -1, games.OfferBySouth, nil},
		{"South's own move keeps it", games.Actor{}, false, 0, games.OfferBySouth, nil},
		{"North's move answers it", games.Actor{}, false, 6, games.NoOffer, nil},
		{"North offers", north, true, -1, games.OfferByNorth, nil},
		{"South declines", south, false, -1, games.NoOffer, nil},
		{"North offers once more", north, true, -1, games.OfferByNorth, nil},
		{"North withdraws", north, false, -1, games.NoOffer, nil},
		{"South offers once more", south, true, -1, games.OfferBySouth, nil},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			var err error
			if st.pit >= 0 {
				g = fx.moves(t, g, tokens, st.pit)
			} else {
				var got games.Game
				if got, err = fx.svc.Draw(t.Context(), g.ID, st.by, st.offer); err == nil {
					g = got
				}
			}
			if !errors.Is(err, st.want) || g.DrawOffer != st.draw {
				t.Fatalf("%v, draw offer %v; want %v, %v", err, g.DrawOffer, st.want, st.draw)
			}
		})
	}
	agreed, err := fx.svc.Draw(t.Context(), g.ID, north, true)
	if err != nil || agreed.Status != games.Finished || agreed.Result != (engine.Result{Reason: engine.ByAgreement, Winner: engine.Draw}) {
		t.Fatalf("agreement: %s %+v %v", agreed.Status, agreed.Result, err)
	}
	if again, err := fx.svc.Draw(t.Context(), g.ID, north, true); err != nil || again.Version != agreed.Version {
		t.Fatalf("the acceptance sent again: %v", err)
	}
	if _, err := fx.svc.Draw(t.Context(), g.ID, south, false); !errors.Is(err, games.ErrFinished) {
		t.Fatalf("an offer in a finished game: %v, want ErrFinished", err)
	}
}

// TestMoveAfterAnOfferElsewhere: a draw offer written by another instance
// (a second service on the same store, which tells the first nothing) at
// the ply the first holds in its cache is not undone by a move the first
// makes from that copy: the write finds the version moved on, and the move
// is made again from the game with the offer.
func TestMoveAfterAnOfferElsewhere(t *testing.T) {
	fx := newRatedFixture(t)
	g, tokens := fx.unrated(t, games.TimeControl{})
	g = fx.moves(t, g, tokens, 0, 6) // fx.svc holds the game in its cache
	other := games.NewService(fx.store, testCPU(), games.Options{Now: fx.clock.Now, Choose: lastLegal})
	mover := g.Position.ToMove
	offered, err := other.Draw(t.Context(), g.ID, games.Actor{Token: tokens[mover]}, true)
	if err != nil || offered.DrawOffer != games.OfferBySouth || offered.Ply != g.Ply {
		t.Fatalf("the offer elsewhere: %v %v at ply %d", offered.DrawOffer, err, offered.Ply)
	}
	after := fx.moves(t, g, tokens, 1)
	if after.DrawOffer != games.OfferBySouth || after.Version != offered.Version+1 {
		t.Fatalf("after South's move from the copy before the offer: draw offer %v, version %d; want South's still standing, version %d",
			after.DrawOffer, after.Version, offered.Version+1)
	}
	stored, err := fx.store.Game(t.Context(), g.ID)
	if err != nil || stored.DrawOffer != games.OfferBySouth || stored.Ply != after.Ply {
		t.Fatalf("stored: draw offer %v at ply %d, %v", stored.DrawOffer, stored.Ply, err)
	}
}

func TestRatedDrawByAgreement(t *testing.T) {
	for _, tc := range []struct {
		name string
		pits []int
		want games.Status
	}{
		{"before both moved", []int{0}, games.Aborted},
		{"after both moved", []int{0, 6}, games.Finished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newRatedFixture(t)
			g, tokens := fx.start(t, blitz, engine.Start())
			fx.moves(t, g, tokens, tc.pits...)
			if _, err := fx.svc.Draw(t.Context(), g.ID, games.Actor{Token: tokens[0]}, true); err != nil {
				t.Fatal(err)
			}
			ended, err := fx.svc.Draw(t.Context(), g.ID, games.Actor{Player: fx.players[1].ID}, true)
			if err != nil || ended.Status != tc.want {
				t.Fatalf("accept: %s %v, want %s", ended.Status, err, tc.want)
			}
			p := fx.player(t, 0)
			rated := p.Rating(players.Live).Games == 1
			if rated != (tc.want == games.Finished) || ended.Players[0].HasChange != rated {
				t.Fatalf("rated %v, change %v, for a game %s", rated, ended.Players[0].HasChange, ended.Status)
			}
		})
	}
}

func TestTakebackRules(t *testing.T) {
	fx := newRatedFixture(t)
	rated, rtokens := fx.start(t, blitz, engine.Start())
	rated = fx.moves(t, rated, rtokens, 0, 6)
	if _, err := fx.svc.Takeback(t.Context(), rated.ID, games.Actor{Token: rtokens[1]}, true); !errors.Is(err, games.ErrTakebackRated) {
		t.Fatalf("a takeback in a rated game: %v", err)
	}
	g, tokens := fx.unrated(t, games.TimeControl{})
	south, north := games.Actor{Token: tokens[0]}, games.Actor{Token: tokens[1]}
	if _, err := fx.svc.Takeback(t.Context(), g.ID, south, true); !errors.Is(err, games.ErrNothingToTakeBack) {
		t.Fatalf("a takeback before any move: %v", err)
	}
	if _, err := fx.svc.Takeback(t.Context(), g.ID, south, false); !errors.Is(err, games.ErrNoOffer) {
		t.Fatalf("declining no proposal: %v", err)
	}
	g = fx.moves(t, g, tokens, 0, 6, 1)
	history := string(g.History)
	// North asks to undo its move at ply 1: that and South's reply go.
	if g, _ = fx.svc.Takeback(t.Context(), g.ID, north, true); g.TakebackOffer != games.OfferByNorth || g.Ply != 3 {
		t.Fatalf("proposal: %v at ply %d", g.TakebackOffer, g.Ply)
	}
	back, err := fx.svc.Takeback(t.Context(), g.ID, south, true)
	if err != nil || back.Ply != 1 || string(back.History) != history[:1] || back.TakebackOffer != games.NoOffer ||
		back.Position.ToMove != engine.North || back.Version != g.Version+1 {
		t.Fatalf("accepted: ply %d history %v offer %v version %d, %v", back.Ply, back.History, back.TakebackOffer, back.Version, err)
	}
	ms, err := fx.svc.Moves(t.Context(), g.ID, 0, 10)
	if err != nil || len(ms) != 1 || ms[0].Position != back.Position {
		t.Fatalf("moves after the takeback: %d %v", len(ms), err)
	}
	// South's move at ply 2, sent again, was taken back: a stale ply,
	// never the old answer.
	if _, _, err := fx.svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[0], Ply: 2, Pit: 1}); !errors.Is(err, games.ErrStalePly) {
		t.Fatalf("a retry of a move taken back: %v, want a stale ply", err)
	}
	again := fx.moves(t, back, tokens, 7)
	if again.Ply != 2 || again.History[1] != 7 {
		t.Fatalf("the ply played again: %d %v", again.Ply, again.History)
	}
}

func TestTakebackAgainstTheAI(t *testing.T) {
	fx := newRatedFixture(t)
	a, err := fx.svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := fx.moves(t, a.Game, [2]string{a.Token}, 0)
	if g.Ply != 2 {
		t.Fatalf("the AI did not reply: ply %d", g.Ply)
	}
	back, err := fx.svc.Takeback(t.Context(), g.ID, games.Actor{Token: a.Token}, true)
	if err != nil || back.Ply != 0 || back.Position != engine.Start() || len(back.History) != 0 {
		t.Fatalf("the AI accepts at once: ply %d %v", back.Ply, err)
	}
	if g, _ = fx.svc.Draw(t.Context(), g.ID, games.Actor{Token: a.Token}, true); g.DrawOffer != games.NoOffer || g.Status != games.Active {
		t.Fatalf("the AI declines a draw: offer %v, %s", g.DrawOffer, g.Status)
	}
}

// TestTakebackClock: the proposer's clock runs on through the undone
// moves; the opponent gets back the time of its undone reply.
func TestTakebackClock(t *testing.T) {
	fx := newRatedFixture(t)
	tc := games.TimeControl{Kind: games.Live, Initial: time.Minute}
	g, tokens := fx.unrated(t, tc)
	g = fx.moves(t, g, tokens, 0, 6, 1) // South's clock runs from ply 2
	before := g.Clock
	g = fx.moves(t, g, tokens, 7) // North spends a second
	fx.clock.Advance(5 * time.Second)
	if _, err := fx.svc.Takeback(t.Context(), g.ID, games.Actor{Token: tokens[1]}, true); err != nil {
		t.Fatal(err)
	}
	back, err := fx.svc.Takeback(t.Context(), g.ID, games.Actor{Token: tokens[0]}, true)
	if err != nil {
		t.Fatal(err)
	}
	if back.Ply != 3 || back.Clock != before {
		t.Fatalf("after the takeback: ply %d clock %v, want ply 3 and %v", back.Ply, back.Clock, before)
	}
	// North's turn began when South's move at ply 2 was made: the undone
	// move and the wait were North's time.
	if want := back.UpdatedAt.Add(back.Clock[engine.North]); !back.Deadline.Equal(want) {
		t.Fatalf("deadline %v, want %v", back.Deadline, want)
	}
}

// TestFollowOffersAndTakeback: a follower sees offers, their refusal and a
// takeback as events, and the moves after it from the ply it went back to,
// so that the stream alone rebuilds the game.
func TestFollowOffersAndTakeback(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	svc, hub := followed(t, openGameStore(t), games.Options{Choose: lastLegal}, games.HubOptions{})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan games.Event, 100)
	done := make(chan error, 1)
	go func() {
		done <- hub.Follow(ctx, a.Game.ID, -1, time.Hour, stream{send: func(e games.Event) error {
			events <- e
			return nil
		}})
	}()
	var log []string
	expect := func(kind games.EventKind, id int) games.Event {
		t.Helper()
		select {
		case e := <-events:
			log = append(log, fmt.Sprint(e.Kind, " ", e.ID))
			if e.Kind != kind || e.ID != id {
				t.Fatalf("events %v, want %s %d last", log, kind, id)
			}
			return e
		case <-ctx.Done():
			t.Fatalf("events %v: no %s", log, kind)
		}
		return games.Event{}
	}
	expect(games.EventGame, 0)
	// Each id is 8 times the version its change made (the creation is 1).
	b, err := svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	expect(games.EventJoined, 16)
	south, north := games.Actor{Token: a.Token}, games.Actor{Token: b.Token}
	move := func(by games.Actor, ply, pit, id int) {
		t.Helper()
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: a.Game.ID, Token: by.Token, Ply: ply, Pit: pit}); err != nil {
			t.Fatal(err)
		}
		expect(games.EventMove, id)
	}
	move(south, 0, 0, 24)
	if _, err := svc.Draw(ctx, a.Game.ID, north, true); err != nil {
		t.Fatal(err)
	}
	if e := expect(games.EventOffer, 32); e.Game.DrawOffer != games.OfferByNorth {
		t.Fatalf("offer event's game has draw offer %v", e.Game.DrawOffer)
	}
	if _, err := svc.Draw(ctx, a.Game.ID, south, false); err != nil {
		t.Fatal(err)
	}
	expect(games.EventOfferDeclined, 40)
	move(north, 1, 6, 48)
	move(south, 2, 1, 56)
	if _, err := svc.Takeback(ctx, a.Game.ID, north, true); err != nil {
		t.Fatal(err)
	}
	expect(games.EventOffer, 64)
	if _, err := svc.Takeback(ctx, a.Game.ID, south, true); err != nil {
		t.Fatal(err)
	}
	if e := expect(games.EventTakeback, 72); e.Game.Ply != 1 || e.Game.Position.ToMove != engine.North || len(e.Game.History) != 1 ||
		e.Version != 9 || e.Status != games.Active {
		t.Fatalf("takeback event: ply %d, %s to move, version %d, %s", e.Game.Ply, e.Game.Position.ToMove, e.Version, e.Status)
	}
	move(north, 1, 7, 80)

	// A follower resuming from the move that was taken back (56) gets the
	// game as it is, then only what comes after: no id twice.
	resumed := make(chan games.Event, 10)
	rctx, rcancel := context.WithCancel(ctx)
	defer rcancel()
	rdone := make(chan error, 1)
	go func() {
		rdone <- hub.Follow(rctx, a.Game.ID, 56, time.Hour, stream{send: func(e games.Event) error {
			resumed <- e
			return nil
		}})
	}()
	if e := <-resumed; e.Kind != games.EventGame || e.Game.Ply != 2 || e.Version != 10 || e.Game.History[1] != 7 {
		t.Fatalf("resumed at 56: first %s at ply %d, version %d, want the game at ply 2, version 10", e.Kind, e.Game.Ply, e.Version)
	}

	if _, err := svc.Resign(ctx, a.Game.ID, south); err != nil {
		t.Fatal(err)
	}
	expect(games.EventEnd, 88)
	if e := <-resumed; e.Kind != games.EventEnd || e.ID != 88 {
		t.Fatalf("resumed at 56: then %s %d, want end 88", e.Kind, e.ID)
	}
	if err := <-rdone; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
