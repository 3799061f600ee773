package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

var offerCases = []suiteCase{
	{"offers/an offer is written and a move clears it", testOfferWritten},
	{"offers/amend conflicts", testAmendConflicts},
	{"offers/a play made before an offer conflicts", testPlayBeforeOffer},
	{"offers/a takeback deletes the undone moves", testTakeback},
	{"offers/an end clears the offers", testEndClearsOffers},
}

// played is a game between people, joined, with n moves played one
// request each, a tick apart.
func played(t *testing.T, s Store, id string, n int) games.Game {
	t.Helper()
	g := mustJoin(t, s, id, engine.South)
	for i := range n {
		g = mustApply(t, s, request(t, g, turnToken(g), tick(2+i), pick(g.Position, g.Rules, i), 0))
	}
	return g
}

// mustAmend writes g as an amendment of the game at version and checks
// the answer and the row read back: g with the version bumped.
func mustAmend(t *testing.T, s Store, version int64, g games.Game) games.Game {
	t.Helper()
	got, err := s.Amend(t.Context(), games.Amend{ID: g.ID, Version: version, Game: cloneGame(g)})
	if err != nil {
		t.Fatalf("amend %s at version %d: %v", g.ID, version, err)
	}
	want := cloneGame(g)
	want.Version = version + 1
	checkGame(t, "amend's answer", got, want)
	checkStoredGame(t, s, "after the amendment", want)
	return want
}

func testOfferWritten(t *testing.T, s Store, _ *fixtures) {
	g := played(t, s, "offer", 2)
	offered := cloneGame(g)
	offered.DrawOffer, offered.TakebackOffer = games.OfferBySouth, games.OfferByNorth
	offered = mustAmend(t, s, g.Version, offered)
	// The play writes the offers the service computed for it.
	p := request(t, offered, turnToken(offered), tick(9), pick(offered.Position, offered.Rules, 0), 0)
	p.Game.DrawOffer, p.Game.TakebackOffer = games.OfferBySouth, games.NoOffer
	mustApply(t, s, p)
}

// testPlayBeforeOffer: a play made from the game as it was before an offer
// (same ply, the version before) is refused, so it cannot undo the offer;
// made again from the game with the offer, it is stored.
func testPlayBeforeOffer(t *testing.T, s Store, _ *fixtures) {
	g := played(t, s, "play-before-offer", 2)
	offered := cloneGame(g)
	offered.DrawOffer = games.OfferBySouth
	offered = mustAmend(t, s, g.Version, offered)
	stale := request(t, g, turnToken(g), tick(9), pick(g.Position, g.Rules, 0), 0)
	if err := s.ApplyPlay(t.Context(), stale); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("a play made before the offer: %v, want games.ErrConflict", err)
	}
	checkStoredGame(t, s, "after the refused play", offered)
	p := request(t, offered, turnToken(offered), tick(9), pick(offered.Position, offered.Rules, 0), 0)
	p.Game.DrawOffer = games.OfferBySouth
	mustApply(t, s, p)
}

func testAmendConflicts(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, id string) (games.Game, int64)
		want  error
	}{
		{"an older version", func(t *testing.T, id string) (games.Game, int64) {
			g := played(t, s, id, 2)
			return g, g.Version - 1
		}, games.ErrConflict},
		{"a finished game", func(t *testing.T, id string) (games.Game, int64) {
			played(t, s, id, 1)
			g, err := s.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, tick(8), nil)
			if err != nil {
				t.Fatal(err)
			}
			return g, g.Version
		}, games.ErrConflict},
		{"a waiting game", func(t *testing.T, id string) (games.Game, int64) {
			g := personGame(id, engine.South)
			mustCreate(t, s, g, nil)
			return g, g.Version
		}, games.ErrConflict},
		{"unknown", func(t *testing.T, id string) (games.Game, int64) {
			return games.Game{ID: id}, 1
		}, games.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := "amend-" + tc.name
			before, version := tc.setup(t, id)
			change := cloneGame(before)
			change.DrawOffer = games.OfferByNorth
			if _, err := s.Amend(ctx, games.Amend{ID: id, Version: version, Game: change}); !errors.Is(err, tc.want) {
				t.Fatalf("amend: %v, want %v", err, tc.want)
			}
			if tc.want != games.ErrNotFound {
				checkStoredGame(t, s, "after the refused amendment", before)
			}
		})
	}
}

func testTakeback(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	g := played(t, s, "takeback", 4)
	two, err := s.Records(ctx, g.ID, 0, 2)
	if err != nil || len(two) != 2 {
		t.Fatalf("records: %v %v", two, err)
	}
	// The game as it was after ply 2, at a later version, with a clock.
	back := cloneGame(g)
	back.Ply, back.History = 2, back.History[:2]
	replayed, _ := advance(t, games.Game{ID: g.ID, Start: g.Start, Position: g.Start, Rules: g.Rules}, tick(3), int(g.History[0]), int(g.History[1]))
	back.Position, back.UpdatedAt = replayed.Position, tick(3)
	back.Clock = [2]time.Duration{7 * time.Second, 5 * time.Second}
	back.Deadline = tick(20)
	back.DrawOffer, back.TakebackOffer = games.NoOffer, games.NoOffer
	back = mustAmend(t, s, g.Version, back)
	recs, err := s.Records(ctx, g.ID, 0, 10)
	if err != nil || len(recs) != 2 {
		t.Fatalf("records after the takeback: %d %v", len(recs), err)
	}
	checkRecords(t, "after the takeback", recs, two)
	// The ply is played again, with another move if there is one.
	again := mustApply(t, s, request(t, back, turnToken(back), tick(30), pick(back.Position, back.Rules, 1), 0))
	recs, err = s.Records(ctx, g.ID, 0, 10)
	if err != nil || len(recs) != 3 || recs[2].Pit != int(again.History[2]) || !recs[2].At.Equal(tick(30)) {
		t.Fatalf("records after the move made again: %+v %v", recs, err)
	}
}

func testEndClearsOffers(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	for i, end := range []string{"resign", "end"} {
		t.Run(end, func(t *testing.T) {
			g := played(t, s, "ends-"+end, 2)
			offered := cloneGame(g)
			offered.DrawOffer, offered.TakebackOffer = games.OfferByNorth, games.OfferBySouth
			offered = mustAmend(t, s, g.Version, offered)
			var got games.Game
			var err error
			result := engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}
			if i == 0 {
				got, err = s.Resign(ctx, g.ID, result, tick(9), nil)
			} else {
				// A draw by agreement ends a game with End.
				result = engine.Result{Reason: engine.ByAgreement, Winner: engine.Draw}
				got, err = s.End(ctx, games.End{ID: g.ID, Version: offered.Version, Status: games.Finished, Result: result, At: tick(9)})
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.DrawOffer != games.NoOffer || got.TakebackOffer != games.NoOffer || got.Result != result {
				t.Fatalf("offers %v %v, result %+v after the end", got.DrawOffer, got.TakebackOffer, got.Result)
			}
			checkStoredGame(t, s, "after the end", got)
		})
	}
}
