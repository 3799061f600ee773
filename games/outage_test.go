package games_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// downStore is a store whose database can be taken away: while down, every
// read and write fails with fault.ErrUnavailable, as the real stores name a
// refused connection, and each failed read is signalled on failed.
type downStore struct {
	*memory.Store
	down   atomic.Bool
	failed chan struct{}
}

func newDownStore() *downStore {
	return &downStore{Store: memory.New(), failed: make(chan struct{}, 1)}
}

func (d *downStore) check() error {
	if !d.down.Load() {
		return nil
	}
	select {
	case d.failed <- struct{}{}:
	default:
	}
	return fmt.Errorf("%w: connection refused", fault.ErrUnavailable)
}

func (d *downStore) Game(ctx context.Context, id string) (games.Game, error) {
	if err := d.check(); err != nil {
		return games.Game{}, err
	}
	return d.Store.Game(ctx, id)
}

func (d *downStore) Records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	if err := d.check(); err != nil {
		return nil, err
	}
	return d.Store.Records(ctx, id, from, limit)
}

func (d *downStore) ApplyPlay(ctx context.Context, p games.Play) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Store.ApplyPlay(ctx, p)
}

// TestFollowRidesOutAnOutage: while the store cannot be read, a follower's
// stream stays open and beats, a follower that arrives meanwhile is taken
// in, and when the store returns both get every event once, in order, the
// moves made by another instance during the outage included.
func TestFollowRidesOutAnOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := newDownStore()
	// A short poll makes the feed try (and fail) a read during the outage
	// without being told of a change.
	svc, hub := followed(t, st, games.Options{Choose: lastLegal}, games.HubOptions{PollInterval: 10 * time.Millisecond})
	// Another instance sharing the database, whose reads do not fail: it
	// goes on playing while this one cannot read.
	other := games.NewService(st.Store, testCPU(), games.Options{Choose: lastLegal})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{a.Token, b.Token}
	g := b.Game
	play := func(on *games.Service) {
		t.Helper()
		legal := g.Position.LegalMoves(g.Rules)
		pit := legal.Next()
		if _, _, err := on.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: pit}); err != nil {
			t.Fatal(err)
		}
		if g, err = st.Store.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}

	type follower struct {
		ids   chan int
		beats chan struct{}
		done  chan error
	}
	follow := func() *follower {
		f := &follower{ids: make(chan int, 64), beats: make(chan struct{}, 64), done: make(chan error, 1)}
		id := g.ID
		go func() {
			f.done <- hub.Follow(ctx, id, -1, 5*time.Millisecond, stream{
				send: func(e games.Event) error { f.ids <- e.ID; return nil },
				beat: func() error {
					select {
					case f.beats <- struct{}{}:
					default:
					}
					return nil
				},
			})
		}()
		return f
	}
	until := func(f *follower, last int) []int {
		t.Helper()
		var got []int
		for {
			select {
			case id := <-f.ids:
				got = append(got, id)
				if id >= last {
					return got
				}
			case err := <-f.done:
				t.Fatalf("the stream ended (%v) after %v, waiting for %d", err, got, last)
			case <-ctx.Done():
				t.Fatalf("event %d never came (got %v)", last, got)
			}
		}
	}

	early := follow()
	seenEarly := until(early, 0) // the game
	play(svc)
	play(svc)
	seenEarly = append(seenEarly, until(early, 32)...) // versions 3 and 4

	st.down.Store(true)
	<-st.failed // the feed has tried a read, and failed
	for range 2 {
		select {
		case <-early.beats:
		case err := <-early.done:
			t.Fatalf("the stream ended during the outage: %v", err)
		}
	}
	late := follow() // its first read fails too: taken in all the same, with the game as the feed last read it
	<-st.failed
	play(other)
	play(other)
	select {
	case err := <-late.done:
		t.Fatalf("a follower arriving during the outage was turned away: %v", err)
	case <-late.beats:
	}

	st.down.Store(false)
	play(svc) // announced: the feed reads at once, and finds the other's moves too
	seenEarly = append(seenEarly, until(early, 56)...)
	seenLate := until(late, 56)
	if want := "[0 24 32 40 48 56]"; fmt.Sprint(seenEarly) != want {
		t.Fatalf("events %v, want %s", seenEarly, want)
	}
	if want := "[0 40 48 56]"; fmt.Sprint(seenLate) != want {
		t.Fatalf("late follower's events %v, want %s: the game at version 4, then the rest", seenLate, want)
	}
}

// TestFollowEndsWhenTheGameIsGone: a follower let in during an outage is
// told so, once the store answers, if there never was such a game.
func TestFollowEndsWhenTheGameIsGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := newDownStore()
	hub := games.NewHub(st, games.HubOptions{PollInterval: 10 * time.Millisecond})
	st.down.Store(true)
	done := make(chan error, 1)
	go func() { done <- hub.Follow(ctx, "no-such-game", -1, time.Hour, stream{}) }()
	<-st.failed
	<-st.failed // the feed's read, or Follow's own and then the feed's
	st.down.Store(false)
	if err := <-done; !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("follow: %v, want ErrNotFound", err)
	}
}
