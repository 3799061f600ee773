package games_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// The hub's own tests. They run in a synctest bubble: the bubble's clock
// is the services' clock (time.Now) and the hub's timers' (polls,
// heartbeats, retries), and it moves only when every goroutine waits, so
// the tests drive time and never sleep on the wall clock.

// record is a Stream that keeps what it is sent, for a test to read
// between two synctest.Wait calls.
type record struct {
	mu     sync.Mutex
	events []string
	beats  int
}

func (r *record) Send(e games.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %d", e.Kind, e.ID))
	return nil
}

func (r *record) Flush() error { return nil }

func (r *record) Beat() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.beats++
	return nil
}

func (r *record) seen() (events string, beats int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(r.events), r.beats
}

// twoSeatGame creates a game on svc and joins it, and returns it with its
// seats' tokens.
func twoSeatGame(t *testing.T, svc *games.Service) (games.Game, [2]string) {
	t.Helper()
	a, err := svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Join(t.Context(), a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b.Game, [2]string{a.Token, b.Token}
}

// playNext plays the first legal pit of the side to move in g on svc, and
// returns the game after it.
func playNext(t *testing.T, svc *games.Service, g games.Game, tokens [2]string) games.Game {
	t.Helper()
	if _, _, err := svc.Play(t.Context(), games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: firstLegal(&g)}); err != nil {
		t.Fatal(err)
	}
	g, err := svc.Game(t.Context(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// follow starts a follower of game id on hub, and returns what it records
// and the channel its Follow's error comes on.
func follow(ctx context.Context, hub *games.Hub, id string, heartbeat time.Duration) (*record, chan error) {
	r, done := &record{}, make(chan error, 1)
	go func() { done <- hub.Follow(ctx, id, -1, heartbeat, r) }()
	return r, done
}

// TestHubHeartbeats: a quiet game's followers beat once a heartbeat, and
// not while its moves come more often than that.
func TestHubHeartbeats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		svc, hub := followed(t, memory.New(), games.Options{Choose: lastLegal}, games.HubOptions{PollInterval: time.Hour})
		g, tokens := twoSeatGame(t, svc)
		r, _ := follow(ctx, hub, g.ID, 15*time.Second)
		time.Sleep(46 * time.Second)
		synctest.Wait()
		if events, beats := r.seen(); events != "[game 0]" || beats != 3 {
			t.Fatalf("after 46 s of quiet: %s and %d beats, want the game and 3", events, beats)
		}
		for range 4 {
			time.Sleep(10 * time.Second)
			g = playNext(t, svc, g, tokens)
		}
		synctest.Wait()
		if events, beats := r.seen(); events != "[game 0 move 24 move 32 move 40 move 48]" || beats != 3 {
			t.Fatalf("after a move every 10 s: %s and %d beats, want 4 moves and no more beats", events, beats)
		}
	})
}

// TestHubPolls: a change nobody announces (another process sharing the
// store without Changes) reaches the followers at the next poll.
func TestHubPolls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		st := memory.New()
		_, hub := followed(t, st, games.Options{Choose: lastLegal}, games.HubOptions{PollInterval: 5 * time.Second})
		other := games.NewService(st, testCPU(), games.Options{Choose: lastLegal}) // tells nobody
		g, tokens := twoSeatGame(t, other)
		r, _ := follow(ctx, hub, g.ID, time.Hour)
		time.Sleep(time.Second)
		playNext(t, other, g, tokens)
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if events, _ := r.seen(); events != "[game 0]" {
			t.Fatalf("before the poll: %s, want the game only", events)
		}
		time.Sleep(time.Second) // the poll, 5 s after the feed started
		synctest.Wait()
		if events, _ := r.seen(); events != "[game 0 move 24]" {
			t.Fatalf("at the poll: %s, want the move too", events)
		}
	})
}

// bus is a Changes for instances in one test: what one publishes, every
// listener hears.
type bus struct {
	mu        sync.Mutex
	listeners []func(string)
	published atomic.Int32
}

func (b *bus) Publish(_ context.Context, id string) error {
	b.published.Add(1)
	b.mu.Lock()
	ls := b.listeners
	b.mu.Unlock()
	for _, l := range ls {
		l(id)
	}
	return nil
}

func (b *bus) Listen(ctx context.Context, changed func(string)) error {
	b.mu.Lock()
	b.listeners = append(b.listeners, changed)
	b.mu.Unlock()
	changed("")
	<-ctx.Done()
	return ctx.Err()
}

// TestHubChangesBetweenInstances: a change made through one instance
// reaches the followers on another at once, through Changes, without
// waiting for a poll.
func TestHubChangesBetweenInstances(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		st, changes := memory.New(), &bus{}
		opts := games.HubOptions{Changes: changes, PollInterval: time.Hour}
		svc, _ := followed(t, st, games.Options{Choose: lastLegal}, opts)
		there := games.NewHub(st, opts)
		go there.Listen(ctx)
		g, tokens := twoSeatGame(t, svc)
		r, _ := follow(ctx, there, g.ID, time.Hour)
		synctest.Wait()
		playNext(t, svc, g, tokens)
		synctest.Wait()
		if events, _ := r.seen(); events != "[game 0 move 24]" {
			t.Fatalf("on the other instance: %s, want the move at once", events)
		}
		if n := changes.published.Load(); n != 2 {
			t.Fatalf("%d changes published (a creation announces nothing; a join, a move), want 2", n)
		}
	})
}

// flakyStore is a store whose reads of games fail while it is down, and
// counts them.
type flakyStore struct {
	*memory.Store
	down   atomic.Bool
	failed atomic.Int32
}

func (s *flakyStore) Game(ctx context.Context, id string) (games.Game, error) {
	if s.down.Load() {
		s.failed.Add(1)
		return games.Game{}, fmt.Errorf("%w: connection refused", fault.ErrUnavailable)
	}
	return s.Store.Game(ctx, id)
}

// TestHubRetriesWithGrowingPauses: while the store cannot be read, a feed
// reads again after 250 ms, then after twice the pause before, up to 5 s;
// its followers wait, beating, and get what happened meanwhile once it
// can read again.
func TestHubRetriesWithGrowingPauses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		st := &flakyStore{Store: memory.New()}
		svc, hub := followed(t, st, games.Options{Choose: lastLegal}, games.HubOptions{PollInterval: time.Hour})
		g, tokens := twoSeatGame(t, svc)
		other := games.NewService(st.Store, testCPU(), games.Options{Choose: lastLegal}) // its reads work
		r, done := follow(ctx, hub, g.ID, 10*time.Second)
		synctest.Wait()
		st.down.Store(true)
		hub.Changed(ctx, g.ID) // the read it starts fails
		t0 := time.Now()
		// Reads at 0, 0.25, 0.75, 1.75, 3.75, 7.75, 12.75 and 17.75 s.
		for _, tc := range []struct {
			at    time.Duration
			reads int32
		}{{200 * time.Millisecond, 1}, {300 * time.Millisecond, 2}, {time.Second, 3}, {4 * time.Second, 5}, {10 * time.Second, 6}, {20 * time.Second, 8}} {
			time.Sleep(time.Until(t0.Add(tc.at)))
			synctest.Wait()
			if n := st.failed.Load(); n != tc.reads {
				t.Fatalf("%d failed reads %v into the outage, want %d", n, tc.at, tc.reads)
			}
		}
		g = playNext(t, other, g, tokens)
		playNext(t, other, g, tokens)
		st.down.Store(false)
		time.Sleep(time.Until(t0.Add(22750 * time.Millisecond)))
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("the stream ended during the outage: %v", err)
		default:
		}
		if events, beats := r.seen(); events != "[game 0 move 24 move 32]" || beats < 1 {
			t.Fatalf("after the outage: %s and %d beats, want the moves made meanwhile, having beaten", events, beats)
		}
	})
}

// TestHubFollowUnknownGame: following a game there is not is ErrNotFound
// at once.
func TestHubFollowUnknownGame(t *testing.T) {
	hub := games.NewHub(memory.New(), games.HubOptions{})
	if err := hub.Follow(t.Context(), "no-such-game", -1, time.Hour, &record{}); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("follow: %v, want ErrNotFound", err)
	}
}

// announcingBus is a bus whose store announces plays itself
// (games.PlayAnnouncer).
type announcingBus struct{ bus }

func (*announcingBus) AnnouncesPlays() bool { return true }

// joinsAnnouncingBus announces joins too (games.JoinAnnouncer).
type joinsAnnouncingBus struct{ announcingBus }

func (*joinsAnnouncingBus) AnnouncesJoins() bool { return true }

// TestHubPlayedAnnounced: a Hub over Changes that announce plays (and
// joins) in the store's write publishes no play (join) again, and still
// publishes every other change; over plain Changes it publishes them all.
func TestHubPlayedAnnounced(t *testing.T) {
	for _, tc := range []struct {
		name    string
		changes interface {
			games.Changes
			count() int32
		}
		want int32 // published for one play, one join and one other change
	}{
		{"plain", &countingBus{}, 3},
		{"announcing plays", &countingAnnouncingBus{}, 2},
		{"announcing plays and joins", &countingJoinsAnnouncingBus{}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hub := games.NewHub(memory.New(), games.HubOptions{Changes: tc.changes})
			hub.Played(t.Context(), "g1")
			hub.Joined(t.Context(), "g1")
			hub.Changed(t.Context(), "g1")
			if got := tc.changes.count(); got != tc.want {
				t.Errorf("published %d times, want %d", got, tc.want)
			}
		})
	}
}

type countingBus struct{ bus }

func (b *countingBus) count() int32 { return b.published.Load() }

type countingAnnouncingBus struct{ announcingBus }

func (b *countingAnnouncingBus) count() int32 { return b.published.Load() }

type countingJoinsAnnouncingBus struct{ joinsAnnouncingBus }

func (b *countingJoinsAnnouncingBus) count() int32 { return b.published.Load() }

// toldApart is a Notifier that tells plays and joins apart, and counts
// what it hears.
type toldApart struct {
	mu                      sync.Mutex
	changed, played, joined []string
}

func (n *toldApart) Changed(_ context.Context, id string) { n.add(&n.changed, id) }
func (n *toldApart) Played(_ context.Context, id string)  { n.add(&n.played, id) }
func (n *toldApart) Joined(_ context.Context, id string)  { n.add(&n.joined, id) }
func (n *toldApart) add(to *[]string, id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	*to = append(*to, id)
}

// TestServiceTellsAJoinApart: the session service tells a Notifier that
// tells joins apart (the Hub, JoinNotifier) of a join as a join, so that a
// store that announced the join in its write is not asked to again.
func TestServiceTellsAJoinApart(t *testing.T) {
	n := &toldApart{}
	svc := games.NewService(memory.New(), testCPU(), games.Options{Changed: n})
	seat, err := svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Join(t.Context(), seat.Game.ID, nil); err != nil {
		t.Fatal(err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if want := []string{seat.Game.ID}; !slices.Equal(n.joined, want) || len(n.changed) != 0 {
		t.Fatalf("joined %q and changed %q, want joined %q and nothing changed", n.joined, n.changed, want)
	}
}
