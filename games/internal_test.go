package games

import (
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
