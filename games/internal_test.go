package games

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAIBudget(t *testing.T) {
	svc := NewService(nil, Options{AIMoveTime: 800 * time.Millisecond})
	for _, tc := range []struct {
		level int
		want  time.Duration
	}{{8, 800 * time.Millisecond}, {7, 400 * time.Millisecond}, {3, 25 * time.Millisecond}, {1, 6250 * time.Microsecond}} {
		if got := svc.aiBudget(tc.level); got != tc.want {
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
	if len(c.games) > 2 {
		t.Fatalf("%d games kept, limit 2", len(c.games))
	}
	c.drop("c")
	if _, ok := c.get("c"); ok {
		t.Fatal("dropped game still there")
	}
}

// TestGameServiceStaleCache: two services share one database, as two server
// processes would. Each one's cached rows go stale when the other moves; a
// stale row must cost a read, never a wrong answer.

// TestAISlots: one address holds at most half the slots; a freed slot goes
// to the waiter that came first among those whose address holds less than
// that; a waiter that gives up leaves the queue.
func TestAISlots(t *testing.T) {
	ctx := context.Background()
	q := newAISlots(4) // two per address
	for _, addr := range []string{"a", "a", "b", "c"} {
		if ok, err := q.acquire(ctx, addr, 0); !ok || err != nil {
			t.Fatalf("%s with a free slot: %v %v", addr, ok, err)
		}
	}
	granted := make(chan string, 3)
	wait := func(name, addr string) {
		go func() {
			if ok, err := q.acquire(ctx, addr, time.Minute); ok && err == nil {
				granted <- name
			}
		}()
	}
	// In order of arrival: a third move of a, a second of b, a first of d.
	for i, w := range []struct{ name, addr string }{{"a3", "a"}, {"b2", "b"}, {"d1", "d"}} {
		wait(w.name, w.addr)
		for _, waiting := q.counts(); waiting != i+1; _, waiting = q.counts() {
			time.Sleep(time.Millisecond)
		}
	}
	for _, step := range []struct{ release, want string }{
		{"c", "b2"}, // a holds its two: b2 is the first that may have a slot
		{"b", "d1"}, // b's first is done, b2 holds one: d1 is next
		{"a", "a3"}, // a holds one now
	} {
		q.release(step.release)
		select {
		case got := <-granted:
			if got != step.want {
				t.Fatalf("%s freed a slot, %s got it; want %s", step.release, got, step.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s freed a slot, and nobody got it in 10s; want %s", step.release, step.want)
		}
	}
	if lent, waiting := q.counts(); lent != 4 || waiting != 0 {
		t.Fatalf("%d lent, %d waiting; want 4 and none", lent, waiting)
	}

	// Full: a waiter gives up at its bound, or when its context ends, and
	// leaves the queue.
	if ok, err := q.acquire(ctx, "e", 10*time.Millisecond); ok || err != nil {
		t.Fatalf("past its bound: %v %v, want no slot and no error", ok, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	go func() {
		for _, waiting := q.counts(); waiting == 0; _, waiting = q.counts() {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	if ok, err := q.acquire(cctx, "e", time.Minute); ok || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v %v, want no slot and context.Canceled", ok, err)
	}
	if lent, waiting := q.counts(); lent != 4 || waiting != 0 {
		t.Fatalf("after the give-ups: %d lent, %d waiting; want 4 and none", lent, waiting)
	}
	for _, addr := range []string{"a", "a", "b", "d"} {
		q.release(addr)
	}
	if lent, _ := q.counts(); lent != 0 || len(q.held) != 0 || q.free != 4 {
		t.Fatalf("all given back: %d lent, held %v, %d free", lent, q.held, q.free)
	}
}
