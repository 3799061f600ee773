package games

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
)

func TestAIBudget(t *testing.T) {
	svc := NewService(nil, budget.New(1), Options{AIMoveTime: 800 * time.Millisecond})
	for _, tc := range []struct {
		level int
		want  time.Duration
	}{{8, 800 * time.Millisecond}, {7, 400 * time.Millisecond}, {3, 25 * time.Millisecond}, {1, 6250 * time.Microsecond}} {
		if got := svc.ai.budget(tc.level); got != tc.want {
			t.Errorf("level %d: %v, want %v", tc.level, got, tc.want)
		}
	}
}

func TestGameCache(t *testing.T) {
	c := newGameCache(2)
	c.put(&Game{ID: "a", Version: 2, History: []byte{1, 2}})
	c.put(&Game{ID: "a", Version: 1, History: []byte{9}}) // older: ignored
	g, ok := c.get("a")
	if !ok || g.Version != 2 || len(g.History) != 2 {
		t.Fatalf("get a: %+v %v, want version 2", g, ok)
	}
	g.History = append(g.History, 3) // must not reach the entry
	again, _ := c.get("a")
	more := append(again.History, 4)
	if len(again.History) != 2 || more[2] != 4 || g.History[2] != 3 {
		t.Fatalf("callers' appends share the entry's array")
	}
	c.put(&Game{ID: "b", Version: 1})
	c.put(&Game{ID: "c", Version: 1})
	if c.games.Len() > 2 {
		t.Fatalf("%d games kept, limit 2", c.games.Len())
	}
	if _, ok := c.get("a"); ok {
		t.Fatal("a full cache kept the game played least recently")
	}
	c.drop("c")
	if _, ok := c.get("c"); ok {
		t.Fatal("dropped game still there")
	}
}

// TestGameCacheAdvance: the news of a play brings a copy of the game as it
// was just before the play up to date, forgets an older one, and leaves a
// newer one, and a game not cached, alone.
func TestGameCacheAdvance(t *testing.T) {
	at := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	before := Game{ID: "g", Ply: 2, Version: 4, Status: Active, History: []byte{1, 7}, Position: engine.Start()}
	news := PlayNews{ID: "g", Version: 5, Ply: 2, Pits: []byte{3, 9}, Position: engine.Start(), Status: Active,
		UpdatedAt: at, Clock: [2]time.Duration{time.Minute, 2 * time.Minute}, Deadline: at.Add(time.Minute),
		DrawOffer: OfferByNorth}
	advanced := before
	advanced.Ply, advanced.Version, advanced.History = 4, 5, []byte{1, 7, 3, 9}
	advanced.UpdatedAt, advanced.Clock, advanced.Deadline, advanced.DrawOffer = at, news.Clock, news.Deadline, OfferByNorth
	with := func(f func(g *Game)) *Game {
		g := before
		g.History = append([]byte(nil), before.History...)
		f(&g)
		return &g
	}
	tests := []struct {
		name   string
		cached *Game // nil: not cached
		want   *Game // nil: not cached after
	}{
		{"just before the play", &before, &advanced},
		{"not cached", nil, nil},
		{"older", with(func(g *Game) { g.Version = 3 }), nil},
		{"the play's own", &advanced, &advanced},
		{"newer", with(func(g *Game) { g.Version = 6 }), with(func(g *Game) { g.Version = 6 })},
		{"the version before at another ply", with(func(g *Game) { g.Ply = 1 }), nil},
		{"the version before, not active", with(func(g *Game) { g.Status = Finished }), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newGameCache(4)
			if tc.cached != nil {
				c.put(tc.cached)
			}
			c.advance(&news)
			got, ok := c.get("g")
			if (tc.want != nil) != ok {
				t.Fatalf("cached after: %v, want %v", ok, tc.want != nil)
			}
			if ok && !reflect.DeepEqual(got, *tc.want) {
				t.Fatalf("got  %+v\nwant %+v", got, *tc.want)
			}
		})
	}
	// The entry's history is its own: the news's pits and the copy
	// advanced from do not share it.
	c := newGameCache(1)
	c.put(&before)
	c.advance(&news)
	news.Pits[0] = 0
	if got, _ := c.get("g"); got.History[2] != 3 {
		t.Fatalf("history %v shares the news's pits", got.History)
	}
}

// TestServiceHeard: what a service's cache does with each kind of change
// it hears of.
func TestServiceHeard(t *testing.T) {
	game := Game{ID: "g", Ply: 2, Version: 4, Status: Active, History: []byte{1, 7}, Position: engine.Start()}
	news := &PlayNews{ID: "g", Version: 5, Ply: 2, Pits: []byte{3}, Position: engine.Start(), Status: Active}
	tests := []struct {
		name        string
		heard       Heard
		cached      bool  // g still cached after
		wantVersion int64 // its version then
	}{
		{"another instance's play", Heard{ID: "g", News: news}, true, 5},
		{"this instance's own change", Heard{ID: "g", Own: true}, true, 4},
		{"another instance's other change", Heard{ID: "g"}, false, 0},
		{"another game's change", Heard{ID: "h"}, true, 4},
		{"listening anew", Heard{}, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := NewService(nil, budget.New(1), Options{})
			svc.cache.put(&game)
			svc.Heard(tc.heard)
			g, ok := svc.cache.get("g")
			if ok != tc.cached || ok && g.Version != tc.wantVersion {
				t.Fatalf("cached %v at version %d, want %v at %d", ok, g.Version, tc.cached, tc.wantVersion)
			}
		})
	}
}

// TestGameServiceStaleCache: two services share one database, as two server
// processes would. Each one's cached rows go stale when the other moves; a
// stale row must cost a read, never a wrong answer.

// TestAISlots: one address holds at most half the AI's units; a freed unit
// goes to the move that came first among those whose address holds less
// than that; a move that waits past its bound is ErrAIBusy, one whose
// context ends gets its error, and either leaves the queue. (The budget's
// own tests cover the queue in general; this is the AI's use of it.)
func TestAISlots(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		q := newAISlots(budget.New(4), 0, time.Minute) // two per address
		held := map[string][]func(){}
		take := func(addr string, release func()) { held[addr] = append(held[addr], release) }
		give := func(addr string) {
			held[addr][0]()
			held[addr] = held[addr][1:]
		}
		for _, addr := range []string{"a", "a", "b", "c"} {
			release, err := q.acquire(ctx, addr)
			if err != nil {
				t.Fatalf("%s with a free unit: %v", addr, err)
			}
			take(addr, release)
		}
		type grant struct {
			name, addr string
			release    func()
		}
		granted := make(chan grant, 3)
		// In order of arrival: a third move of a, a second of b, a first of d.
		for _, w := range []struct{ name, addr string }{{"a3", "a"}, {"b2", "b"}, {"d1", "d"}} {
			go func() {
				if release, err := q.acquire(ctx, w.addr); err == nil {
					granted <- grant{w.name, w.addr, release}
				}
			}()
			synctest.Wait()
		}
		if _, waiting := q.counts(); waiting != 3 {
			t.Fatalf("%d moves waiting, want 3", waiting)
		}
		for _, step := range []struct{ release, want string }{
			{"c", "b2"}, // a holds its two: b2 is the first that may have a unit
			{"b", "d1"}, // b's first is done, b2 holds one: d1 is next
			{"a", "a3"}, // a holds one now
		} {
			give(step.release)
			synctest.Wait()
			select {
			case g := <-granted:
				if g.name != step.want {
					t.Fatalf("%s freed a unit, %s got it; want %s", step.release, g.name, step.want)
				}
				take(g.addr, g.release)
			default:
				t.Fatalf("%s freed a unit, and nobody got it; want %s", step.release, step.want)
			}
		}
		if lent, waiting := q.counts(); lent != 4 || waiting != 0 {
			t.Fatalf("%d lent, %d waiting; want 4 and none", lent, waiting)
		}

		// Full: a move gives up at its bound, or when its context ends, and
		// leaves the queue.
		start := time.Now()
		if _, err := q.acquire(ctx, "e"); !errors.Is(err, ErrAIBusy) || time.Since(start) != time.Minute {
			t.Fatalf("past its bound: %v after %v, want ErrAIBusy after a minute", err, time.Since(start))
		}
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(time.Second, cancel)
		if _, err := q.acquire(cctx, "e"); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled: %v, want context.Canceled", err)
		}
		if lent, waiting := q.counts(); lent != 4 || waiting != 0 {
			t.Fatalf("after the give-ups: %d lent, %d waiting; want 4 and none", lent, waiting)
		}
		for _, addr := range []string{"a", "a", "b", "d"} {
			give(addr)
		}
		if lent, _ := q.counts(); lent != 0 || q.budget.Stats().Used != 0 {
			t.Fatalf("all given back: %d lent, %+v", lent, q.budget.Stats())
		}
	})
}
