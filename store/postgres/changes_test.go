package postgres

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
	// Both listen, then the real sequence.
	for _, l := range ls {
		awaitListening(ctx, t, a, l.got, l.name)
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

// awaitListening publishes "warm-up" on s until one arrives on got, the
// listener name's: a LISTEN takes effect only once its statement has run.
func awaitListening(ctx context.Context, t *testing.T, s *Store, got <-chan string, name string) {
	t.Helper()
	for {
		if err := s.Publish(ctx, "warm-up"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-got:
			return
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("%s: no notification arrived", name)
		}
	}
}

// TestOneListeningConnection: the games' Listen and the lobby's
// ListenEvents of one Store share one listening connection, each hears
// its own channel only, one leaving does not stop the other, and the last
// one out closes it (the next listen opens another).
func TestOneListeningConnection(t *testing.T) {
	dsn := freshSchema(t)
	s := openOn(t, dsn, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	type sub struct {
		name    string
		listen  func(context.Context, func(string)) error
		publish func(context.Context, string) error
		got     chan string
		stop    context.CancelFunc
		done    chan error
	}
	subs := []*sub{{name: "games", listen: s.Listen, publish: s.Publish}, {name: "lobby", listen: s.ListenEvents, publish: s.PublishEvents}}
	for _, x := range subs {
		x.got, x.done = make(chan string, 64), make(chan error, 1)
		var lctx context.Context
		lctx, x.stop = context.WithCancel(ctx)
		defer x.stop()
		go func() { x.done <- x.listen(lctx, func(p string) { x.got <- p }) }()
	}
	// until waits until x hears want and says whether x heard leak before.
	// The channels are the database's, shared with whatever else uses it:
	// payloads are made unique and the others' are skipped.
	until := func(t *testing.T, x *sub, want, leak string) bool {
		t.Helper()
		leaked := false
		for {
			select {
			case p := <-x.got:
				leaked = leaked || p == leak
				if p == want {
					return leaked
				}
			case <-ctx.Done():
				t.Fatalf("%s did not hear %q", x.name, want)
			}
		}
	}
	// Both listen once each has heard "" (the connection listens).
	for _, x := range subs {
		until(t, x, "", "")
	}
	tag := strings.ToLower(rand.Text()[:8])
	for _, tc := range []struct {
		name string
		from int
	}{{"a game's change reaches the games only", 0}, {"a stream's event reaches the lobby only", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			payload := strings.ReplaceAll(tc.name, " ", "-") + tag
			if err := subs[tc.from].publish(ctx, payload); err != nil {
				t.Fatal(err)
			}
			until(t, subs[tc.from], payload, "")
			// The other channel's marker arrives after anything sent before it.
			other := subs[1-tc.from]
			if err := other.publish(ctx, "marker"+tag); err != nil {
				t.Fatal(err)
			}
			if until(t, other, "marker"+tag, payload) {
				t.Fatalf("%s heard the other channel's %q", other.name, payload)
			}
		})
	}
	connections := func() int {
		s.listener.mu.Lock()
		defer s.listener.mu.Unlock()
		return s.listener.connections
	}
	if got := connections(); got != 1 {
		t.Fatalf("%d connections listened, want 1", got)
	}
	// The connection fails: both calls end with an error, and listening
	// again opens one connection for both.
	s.listener.mu.Lock()
	pid := s.listener.pid
	s.listener.mu.Unlock()
	if _, err := s.pool.Exec(ctx, "SELECT pg_terminate_backend($1)", int(pid)); err != nil {
		t.Fatal(err)
	}
	for _, x := range subs {
		if err := <-x.done; err == nil || ctx.Err() != nil {
			t.Fatalf("%s after its connection was killed: %v", x.name, err)
		}
		for len(x.got) > 0 {
			<-x.got
		}
		lctx, stop := context.WithCancel(ctx)
		x.stop = stop
		defer stop()
		go func() { x.done <- x.listen(lctx, func(p string) { x.got <- p }) }()
	}
	for _, x := range subs {
		until(t, x, "", "")
	}
	if got := connections(); got != 2 {
		t.Fatalf("%d connections listened after one failed, want 2", got)
	}
	subs[0].stop()
	<-subs[0].done
	if err := subs[1].publish(ctx, "after"+tag); err != nil {
		t.Fatal(err)
	}
	until(t, subs[1], "after"+tag, "")
	subs[1].stop()
	<-subs[1].done
	s.listener.mu.Lock()
	left := s.listener.loop
	s.listener.mu.Unlock()
	if left != nil {
		t.Fatal("a listening connection outlived its listeners")
	}
}

// TestJoinsAnnounced: a join announces its game to the other instances
// in its own write (AnnouncesJoins), and a join refused announces
// nothing.
func TestJoinsAnnounced(t *testing.T) {
	dsn := freshSchema(t)
	a, b := openOn(t, dsn, Options{}), openOn(t, dsn, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	got := make(chan string, 16)
	go func() { _ = b.Listen(ctx, func(id string) { got <- id }) }()
	awaitListening(ctx, t, a, got, "the other instance")
	joinedGame(t, a, "taken")
	newGame(t, a, "open")
	if _, err := a.Join(ctx, "taken", []byte("taken-third-token-hash-012345678"), t0, time.Time{}, games.SeatPlayer{}); !errors.Is(err, games.ErrConflict) {
		t.Fatalf("join of a full game: %v, want games.ErrConflict", err)
	}
	if _, err := a.Join(ctx, "open", []byte("open-north-token-hash-0123456789"), t0, time.Time{}, games.SeatPlayer{}); err != nil {
		t.Fatal(err)
	}
	var heard []string
	for id := ""; id != "open"; {
		select {
		case id = <-got:
			if id != "warm-up" {
				heard = append(heard, id)
			}
		case <-ctx.Done():
			t.Fatalf("heard %q, never the join of open", heard)
		}
	}
	if want := []string{"taken", "open"}; !slices.Equal(heard, want) {
		t.Fatalf("heard %q, want %q (the join of taken, its refused join nothing, the join of open)", heard, want)
	}
}

// TestAnnouncedToOthersOnly: the plays and joins of the batches are
// announced only while another instance listens (its registration is
// live): not while the instance that writes them listens alone, at once
// when another listens, not once the other's registration has lapsed, and
// again once the other renews it, its listeners told to read everything
// again (the empty id), since what was written meanwhile went unannounced,
// and not once the other has stopped listening. Alone, the writer sends
// its plays without their news (quietBatchSQL); the first batch after
// another instance registered is refused and sent again with them.
func TestAnnouncedToOthersOnly(t *testing.T) {
	dsn := freshSchema(t)
	a, b := openOn(t, dsn, Options{}), openOn(t, dsn, Options{})
	b.listener.every = time.Hour // its registration is renewed below, by hand
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	// A connection of no instance hears everything sent: each step below
	// ends with a marker, sent whoever listens, so that what came before
	// it is all that step's writes sent.
	raw, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(context.WithoutCancel(ctx))
	if _, err := raw.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		t.Fatal(err)
	}
	mine := make(chan string, 64)
	go func() { _ = a.Listen(ctx, func(id string) { mine <- id }) }()
	awaitListening(ctx, t, a, mine, "the writer")
	step := 0
	sent := func() []string {
		t.Helper()
		step++
		g := joinedGame(t, a, fmt.Sprintf("step%d", step))
		if err := a.ApplyPlay(ctx, playOn(t, g, 0, seatToken(g), t0.Add(time.Second))); err != nil {
			t.Fatal(err)
		}
		marker := fmt.Sprintf("marker%d", step)
		if err := a.Publish(ctx, marker); err != nil {
			t.Fatal(err)
		}
		var heard []string
		for {
			n, err := raw.WaitForNotification(ctx)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			for line := range strings.SplitSeq(n.Payload, "\n") {
				switch id, _, _ := strings.Cut(line, " "); id {
				case marker:
					return heard
				case "warm-up":
				default:
					heard = append(heard, id)
				}
			}
		}
	}
	expect := func(what string, heard []string, announced bool) {
		t.Helper()
		var want []string
		if announced {
			id := fmt.Sprintf("step%d", step)
			want = []string{id, id} // its join, then its play
		}
		if !slices.Equal(heard, want) {
			t.Fatalf("%s: heard %q, want %q", what, heard, want)
		}
	}

	expect("the writer alone", sent(), false)
	if q, r := a.quietBatches.Load(), a.resent.Load(); q == 0 || r != 0 {
		t.Fatalf("alone: %d batches sent without their news, %d sent again; want some and none", q, r)
	}

	theirs := make(chan string, 64)
	bctx, stopB := context.WithCancel(ctx)
	bDone := make(chan struct{})
	go func() {
		defer close(bDone)
		_ = b.Listen(bctx, func(id string) { theirs <- id })
	}()
	awaitListening(ctx, t, a, theirs, "the other instance")
	expect("another instance listening", sent(), true)
	if r := a.resent.Load(); r != 1 {
		t.Fatalf("%d batches sent again with their news once another instance listened, want 1", r)
	}

	if _, err := a.Pool().Exec(ctx, "UPDATE listeners SET seen = now() - interval '1 minute' WHERE instance = $1", b.instance); err != nil {
		t.Fatal(err)
	}
	expect("the other's registration lapsed", sent(), false)

	// The renewal tells the other's listeners before it returns, after
	// what they heard of the steps before.
	if err := b.listener.refresh(ctx, b); err != nil {
		t.Fatal(err)
	}
	for told := false; !told; {
		select {
		case id := <-theirs:
			told = id == ""
		default:
			t.Fatal("the renewal of a lapsed registration did not tell the other's listener to read everything again")
		}
	}
	expect("the other's registration renewed", sent(), true)
	if err := b.listener.refresh(ctx, b); err != nil {
		t.Fatal(err)
	}
	for len(theirs) > 0 {
		if id := <-theirs; id == "" {
			t.Fatal("the renewal of a live registration told the other's listener to read everything again")
		}
	}

	// The last listener out removes the registration.
	stopB()
	<-bDone
	var rows int
	if err := a.Pool().QueryRow(ctx, "SELECT count(*) FROM listeners WHERE instance = $1", b.instance).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Fatal("the other stopped listening and left its registration behind")
	}
	expect("the other stopped listening", sent(), false)

	// The writer's next registration finds it alone: its batches go
	// without their news again.
	if err := a.listener.refresh(ctx, a); err != nil {
		t.Fatal(err)
	}
	before := a.quietBatches.Load()
	expect("the writer alone again", sent(), false)
	if a.quietBatches.Load() == before {
		t.Fatal("alone again, the writer still sends its plays' news")
	}
}
