package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
)

// The lobby's benchmark sizes: the issue's "10,000 open correspondence
// seeks and 1,000 clock seeks".
const (
	benchCorrespondenceSeeks = 10_000
	benchClockSeeks          = 1_000
)

// LobbyStore is what the lobby's benchmarks need of a store.
type LobbyStore interface {
	lobby.Store
	games.Store
	CreatePlayer(ctx context.Context, p players.Player) error
}

// fillLobby adds the benchmark's open seeks to st: correspondence ones
// over every daysPerMove and both rated flags, clock ones over ten clocks,
// each from a player of its own rated 2,500-3,000 who wants the same, so
// that a 1,500 player's seek pairs with none of them but sees them all.
func fillLobby(b *testing.B, st lobby.Store, now time.Time) {
	b.Helper()
	ctx := b.Context()
	add := func(i int, tc games.TimeControl) {
		sk := lobby.Seek{ID: fmt.Sprintf("bg%06d", i), PlayerID: fmt.Sprintf("bgp%06d", i), Name: "background",
			Rating: players.Rating{Value: 2500 + float64(i%500), Deviation: 60}, TimeControl: tc, Rated: i%2 == 0,
			Seat: lobby.SeatRandom, Range: lobby.Range{Min: 2500, Max: 3000, Set: true}, Status: lobby.SeekOpen,
			CreatedAt: now.Add(time.Duration(i) * time.Microsecond), UpdatedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
		if err := st.AddSeek(ctx, sk, lobby.MaxOpenSeeks); err != nil {
			b.Fatal(err)
		}
	}
	for i := range benchCorrespondenceSeeks {
		add(i, games.TimeControl{Kind: games.Correspondence, PerMove: time.Duration(1+i%14) * 24 * time.Hour})
	}
	for i := range benchClockSeeks {
		add(benchCorrespondenceSeeks+i, games.TimeControl{Kind: games.Live, Initial: time.Duration(1+i%10) * time.Minute, Increment: 2 * time.Second})
	}
}

func percentile(ds []time.Duration, p float64) float64 {
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, int(float64(len(ds))*p))]) / float64(time.Millisecond)
}

// BenchPairing measures the pairing latency over a lobby of 10,000 open
// correspondence seeks and 1,000 clock seeks: each op is two players'
// seeks of a clock the background has too, the first left open, the second
// paired with it (the pairing's one write, its game included), while each
// player follows its event stream. With more than one store, the two seeks
// of an op go to two of them, as to two instances on one database, each
// player's stream is followed on the instance its seek went to, and the
// stores that carry events between instances (lobby.Changes) do so. It
// reports, in ms, each PostSeek's p50 and p99 and, as the issue defines
// the pairing latency, the p50 and p99 from the second seek's post to both
// players' gameStart events. filled, when not nil, runs after the fill (a
// database's ANALYZE, say, which its autovacuum would have run by then).
func BenchPairing(b *testing.B, filled func(), stores ...LobbyStore) {
	ctx := b.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	fillLobby(b, stores[0], now)
	if filled != nil {
		filled()
	}
	type inst struct {
		lobby *lobby.Service
		st    LobbyStore
	}
	var insts []inst
	var listening sync.WaitGroup
	for _, st := range stores {
		gs := games.NewService(st, budget.New(1), games.Options{Choose: func(context.Context, engine.Position, engine.Rules, []engine.Position, int, uint64) (int, error) {
			return 0, fmt.Errorf("no AI here")
		}})
		o := lobby.Options{Games: gs}
		if ch, ok := st.(lobby.Changes); ok && len(stores) > 1 {
			listening.Add(1)
			o.Changes = &readyChanges{Changes: ch, ready: sync.OnceFunc(listening.Done)}
		}
		l := lobby.NewService(st, o)
		go l.Listen(ctx)
		insts = append(insts, inst{lobby: l, st: st})
	}
	listening.Wait()
	var n atomic.Int64
	newPlayer := func(st LobbyStore) *players.Player {
		id := fmt.Sprintf("bench%08d", n.Add(1))
		p := players.Player{ID: id, Name: id, TokenHash: hashOf(id), CreatedAt: now, UpdatedAt: now}
		if err := st.CreatePlayer(ctx, p); err != nil {
			b.Fatal(err)
		}
		return &p
	}
	tc := games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute, Increment: 2 * time.Second}
	var open, paired, started []time.Duration
	i := 0
	for b.Loop() {
		x, y := insts[i%len(insts)], insts[(i+1)%len(insts)]
		i++
		px, py := newPlayer(x.st), newPlayer(y.st)
		// Both players follow their streams from their first event on.
		follow, stop := context.WithCancel(ctx)
		starts := make(chan time.Time, 2)
		var following sync.WaitGroup
		for _, f := range []struct {
			l *lobby.Service
			p *players.Player
		}{{x.lobby, px}, {y.lobby, py}} {
			following.Go(func() { _ = f.l.Follow(follow, f.p.ID, 0, time.Hour, startStream(starts)) })
		}
		t0 := time.Now()
		a, err := x.lobby.PostSeek(ctx, px, lobby.NewSeek{TimeControl: tc, Rated: true})
		t1 := time.Now()
		c, err2 := y.lobby.PostSeek(ctx, py, lobby.NewSeek{TimeControl: tc, Rated: true})
		t2 := time.Now()
		if err != nil || err2 != nil || a.Status != lobby.SeekOpen || c.Status != lobby.SeekMatched {
			b.Fatalf("seeks %+v (%v) and %+v (%v): want open, then matched", a, err, c, err2)
		}
		var last time.Time
		for range 2 {
			select {
			case at := <-starts:
				last = later(last, at)
			case <-time.After(10 * time.Second):
				b.Fatal("no gameStart on a player's stream 10 s after the pairing")
			}
		}
		stop()
		following.Wait()
		open, paired, started = append(open, t1.Sub(t0)), append(paired, t2.Sub(t1)), append(started, last.Sub(t1))
	}
	b.ReportMetric(percentile(open, 0.5), "open-p50-ms")
	b.ReportMetric(percentile(open, 0.99), "open-p99-ms")
	b.ReportMetric(percentile(paired, 0.5), "pair-p50-ms")
	b.ReportMetric(percentile(paired, 0.99), "pair-p99-ms")
	b.ReportMetric(percentile(started, 0.5), "start-p50-ms")
	b.ReportMetric(percentile(started, 0.99), "start-p99-ms")
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// readyChanges is a store's lobby.Changes that says when it listens.
type readyChanges struct {
	lobby.Changes
	ready func()
}

func (r *readyChanges) ListenEvents(ctx context.Context, changed func(stream string)) error {
	return r.Changes.ListenEvents(ctx, func(stream string) {
		if stream == "" {
			r.ready()
		}
		changed(stream)
	})
}

// startStream is a player's event stream that tells when its gameStart
// arrives.
type startStream chan<- time.Time

func (s startStream) Send(e lobby.Event) error {
	if e.Kind == lobby.EventGameStart {
		s <- time.Now()
	}
	return nil
}

func (startStream) Beat() error { return nil }

// BenchLobbyList measures a page of the lobby (GET /v1/lobby's default 50,
// newest first; and the rated correspondence ones) over 11,000 open seeks,
// and reports the p99 in ms.
func BenchLobbyList(b *testing.B, filled func(), st LobbyStore) {
	ctx := b.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	fillLobby(b, st, now)
	if filled != nil {
		filled()
	}
	svc := lobby.NewService(st, lobby.Options{Games: games.NewService(st, budget.New(1), games.Options{})})
	rated := true
	var all, filtered []time.Duration
	for b.Loop() {
		t0 := time.Now()
		page, err := svc.Lobby(ctx, games.Untimed, nil, 50)
		t1 := time.Now()
		page2, err2 := svc.Lobby(ctx, games.Correspondence, &rated, 50)
		t2 := time.Now()
		if err != nil || err2 != nil || len(page) != 50 || len(page2) != 50 {
			b.Fatalf("pages of %d (%v) and %d (%v) seeks", len(page), err, len(page2), err2)
		}
		all, filtered = append(all, t1.Sub(t0)), append(filtered, t2.Sub(t1))
	}
	b.ReportMetric(percentile(all, 0.99), "all-p99-ms")
	b.ReportMetric(percentile(filtered, 0.99), "filtered-p99-ms")
}
