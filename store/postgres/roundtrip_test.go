package postgres

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// tripCounter counts the round trips a store's connections make: each
// query sent alone, each batch (however many statements it holds), and
// each statement prepared.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (c *tripCounter) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *tripCounter) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// TestRoundTripsPerMove counts what the game service asks PostgreSQL per
// move, the move's announcement to the other instances included, once the
// game is in the service's cache and the statements are prepared: one round
// trip for a move between two people, and one for a move against the AI
// with the AI's reply (both go in one play).
func TestRoundTripsPerMove(t *testing.T) {
	trips := &tripCounter{}
	st := openOn(t, freshSchema(t), Options{Tracer: trips})
	hub := games.NewHub(st, games.HubOptions{Changes: st})
	svc := games.NewService(st, budget.New(1), games.Options{Changed: hub})
	ctx := t.Context()

	// play makes the first legal move of the seat to move, as token's
	// holder, and returns the game after it and the round trips it took.
	play := func(g games.Game, token string) (games.Game, int64) {
		t.Helper()
		pit := -1
		legal := g.Position.LegalMoves(g.Rules)
		for p := range engine.NumPits {
			if legal.Has(p) {
				pit = p
				break
			}
		}
		before := trips.n.Load()
		res, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: token, Ply: g.Ply, Pit: pit})
		if err != nil {
			t.Fatalf("ply %d pit %d: %v", g.Ply, pit, err)
		}
		return res.Game, trips.n.Load() - before
	}

	t.Run("two people", func(t *testing.T) {
		south, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
		if err != nil {
			t.Fatal(err)
		}
		north, err := svc.Join(ctx, south.Game.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		tokens := map[engine.Side]string{engine.South: south.Token, engine.North: north.Token}
		g := north.Game
		var n int64
		for i := range 6 {
			if g.Status != games.Active {
				break
			}
			g, n = play(g, tokens[g.Position.ToMove])
			// The first move may prepare the statement on its connection.
			if i >= 2 && n != 1 {
				t.Errorf("move %d took %d round trips, want 1", i+1, n)
			}
		}
	})
	t.Run("against the AI", func(t *testing.T) {
		seat, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 1})
		if err != nil {
			t.Fatal(err)
		}
		g := seat.Game
		var n int64
		for i := range 4 {
			if g.Status != games.Active {
				break
			}
			g, n = play(g, seat.Token)
			if i >= 2 && n != 1 {
				t.Errorf("move %d (with the AI's reply) took %d round trips, want 1", i+1, n)
			}
		}
	})
}

// TestStatementTimeout: the sessions cancel a statement after
// DefaultStatementTimeout, unless the DSN gives a timeout of its own.
func TestStatementTimeout(t *testing.T) {
	dsn := freshSchema(t)
	for _, tc := range []struct {
		name, dsn, want string
	}{
		{"default", dsn, DefaultStatementTimeout},
		{"the DSN's", withParam(t, dsn, "statement_timeout", "5s"), "5s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := openOn(t, tc.dsn, Options{})
			var got string
			if err := s.Pool().QueryRow(t.Context(), "SHOW statement_timeout").Scan(&got); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("statement_timeout %q, want %q", got, tc.want)
			}
		})
	}
}

// instance is a server's game service over a Store of its own, listening
// to the others as serve wires it (Hub.OnHeard with Service.Heard), its
// round trips counted.
type instance struct {
	trips *tripCounter
	st    *Store
	svc   *games.Service
	heard chan games.Heard // every change it heard of
}

// twoInstances starts two instances on one fresh schema, both listening.
func twoInstances(t *testing.T) [2]*instance {
	dsn := freshSchema(t)
	ctx := t.Context()
	var in [2]*instance
	for i := range in {
		x := &instance{trips: &tripCounter{}, heard: make(chan games.Heard, 256)}
		x.st = openOn(t, dsn, Options{Tracer: x.trips})
		hub := games.NewHub(x.st, games.HubOptions{Changes: x.st})
		x.svc = games.NewService(x.st, budget.New(1), games.Options{Changed: hub})
		hub.OnHeard(func(h games.Heard) {
			x.svc.Heard(h)
			select {
			case x.heard <- h:
			default: // a test that does not wait for them
			}
		})
		lctx, stop := context.WithCancel(ctx)
		listening := make(chan struct{})
		go func() {
			defer close(listening)
			hub.Listen(lctx)
		}()
		t.Cleanup(func() {
			stop()
			<-listening
		})
		in[i] = x
	}
	// A LISTEN takes effect when its statement has run.
	for _, x := range in {
		for {
			x.st.listener.mu.Lock()
			live := x.st.listener.loop != nil && x.st.listener.loop.live
			x.st.listener.mu.Unlock()
			if live {
				break
			}
			select {
			case <-time.After(10 * time.Millisecond):
			case <-ctx.Done():
				t.Fatal("no instance listened")
			}
		}
	}
	return in
}

// await waits until x hears what wants says it waits for.
func (x *instance) await(t *testing.T, what string, wants func(games.Heard) bool) {
	t.Helper()
	for {
		select {
		case h := <-x.heard:
			if wants(h) {
				return
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s did not arrive", what)
		}
	}
}

// gameAcross makes a game between two people on instance 0, joined on
// instance 1, and returns it with each seat's token.
func gameAcross(t *testing.T, in [2]*instance) (games.Game, map[engine.Side]string) {
	t.Helper()
	ctx := t.Context()
	south, err := in[0].svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	north, err := in[1].svc.Join(ctx, south.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return north.Game, map[engine.Side]string{engine.South: south.Token, engine.North: north.Token}
}

// firstLegal is the lowest pit the side to move in g may play.
func firstLegal(g games.Game) int {
	legal := g.Position.LegalMoves(g.Rules)
	return legal.Next()
}

// TestRoundTripsPerMoveTwoInstances: two instances answer the moves of one
// game in turn, as a client that sends each request to the next instance
// does. The news of each play (games.NewsListener) brings the other
// instance's cached copy of the game up to date, so that each move there is
// still one round trip, and not a read of the game first. (Only the first
// move reads: the join, which the other instance made, is announced without
// news.)
func TestRoundTripsPerMoveTwoInstances(t *testing.T) {
	ctx := t.Context()
	in := twoInstances(t)
	g, tokens := gameAcross(t, in)
	for i := range 8 {
		if g.Status != games.Active {
			break
		}
		x := in[i%2]
		if i > 0 {
			// The other instance's play must have reached this one first.
			x.await(t, fmt.Sprintf("the news of version %d", g.Version), func(h games.Heard) bool {
				return h.News != nil && h.News.Version >= g.Version
			})
		}
		before := x.trips.n.Load()
		res, _, err := x.svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: firstLegal(g)})
		if err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
		n := x.trips.n.Load() - before
		g = res.Game
		// The first moves may also prepare the statements on their
		// instance's connection.
		if i >= 2 && n != 1 {
			t.Errorf("move %d, on instance %d, took %d round trips, want 1", i+1, i%2, n)
		}
	}
}

// TestOfferOnOtherInstance: a draw offer made on one instance, which is
// announced without news, makes the other instance forget its copy of the
// game; and a move of the offering side there keeps the offer standing (a
// move leaves its own side's offer) whether the announcement came first or
// not: the move's write is conditional on the version its copy had, so a
// move from a copy that does not know the offer is made again from the
// game with it.
func TestOfferOnOtherInstance(t *testing.T) {
	ctx := t.Context()
	for _, heard := range []bool{true, false} {
		t.Run(fmt.Sprintf("announcement heard first %t", heard), func(t *testing.T) {
			in := twoInstances(t)
			g, tokens := gameAcross(t, in)
			// Two moves through instance 1, so that it holds the game.
			for range 2 {
				res, _, err := in[1].svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: firstLegal(g)})
				if err != nil {
					t.Fatal(err)
				}
				g = res.Game
			}
			mover := g.Position.ToMove
			offered, err := in[0].svc.Draw(ctx, g.ID, games.Actor{Token: tokens[mover]}, true)
			if err != nil {
				t.Fatal(err)
			}
			if by, ok := offered.DrawOffer.By(); !ok || by != mover {
				t.Fatalf("draw offer %v after the offer, want %v's", offered.DrawOffer, mover)
			}
			if heard {
				in[1].await(t, "the offer's announcement", func(h games.Heard) bool { return h.ID == g.ID && !h.Own && h.News == nil })
			}
			res, _, err := in[1].svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[mover], Ply: offered.Ply, Pit: firstLegal(offered)})
			if err != nil {
				t.Fatal(err)
			}
			if by, ok := res.Game.DrawOffer.By(); !ok || by != mover || res.Game.Version != offered.Version+1 {
				t.Fatalf("draw offer %v, version %d after the offering side moved on the other instance, want %v's still standing, version %d",
					res.Game.DrawOffer, res.Game.Version, mover, offered.Version+1)
			}
			stored, err := in[1].st.Game(ctx, g.ID)
			if err != nil {
				t.Fatal(err)
			}
			if stored.DrawOffer != res.Game.DrawOffer {
				t.Fatalf("stored draw offer %v, answered %v", stored.DrawOffer, res.Game.DrawOffer)
			}
		})
	}
}
