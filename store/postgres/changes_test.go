package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/games"
)

var _ games.Changes = (*Store)(nil)

// TestChangesReachEveryInstance: a change published by one instance reaches
// a listener on another instance (and its own) sharing the database, in
// order, and Listen ends when its context does.
func TestChangesReachEveryInstance(t *testing.T) {
	dsn := freshSchema(t)
	a, b := openOn(t, dsn, Options{}), openOn(t, dsn, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	type listener struct {
		name string
		s    *Store
		got  chan string
		done chan error
	}
	var ls []*listener
	for _, l := range []*listener{{name: "other instance", s: b}, {name: "same instance", s: a}} {
		l.got, l.done = make(chan string, 16), make(chan error, 1)
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go func() { l.done <- l.s.Listen(lctx, func(id string) { l.got <- id }) }()
		ls = append(ls, l)
		t.Cleanup(stop)
	}
	// A LISTEN takes effect when its statement has run: publish until the
	// first arrives at both, then the real sequence.
	for _, l := range ls {
		for ready := false; !ready; {
			if err := a.Publish(ctx, "warm-up"); err != nil {
				t.Fatal(err)
			}
			select {
			case <-l.got:
				ready = true
			case <-time.After(50 * time.Millisecond):
			case <-ctx.Done():
				t.Fatalf("%s: no notification arrived", l.name)
			}
		}
	}
	for _, l := range ls {
		for len(l.got) > 0 {
			<-l.got
		}
	}
	ids := []string{"g1", "g2", "g3"}
	for _, id := range ids {
		if err := a.Publish(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range ls {
		t.Run(l.name, func(t *testing.T) {
			for _, want := range ids {
				var got string
				for got = <-l.got; got == "warm-up"; got = <-l.got {
				}
				if got != want {
					t.Fatalf("got %q, want %q", got, want)
				}
			}
		})
	}
	cancel()
	for _, l := range ls {
		select {
		case <-l.done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Listen did not end with its context", l.name)
		}
	}
}
