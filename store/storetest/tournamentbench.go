package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/tournaments"
)

// benchArenaPlayers is the arena: 1,000 players.
const benchArenaPlayers = 1000

// TournamentBenchStore is what the tournaments' benchmarks need of a
// store.
type TournamentBenchStore interface {
	tournaments.Store
	games.Store
	CreatePlayer(ctx context.Context, p players.Player) error
}

// benchInstance is one instance of the benchmarks: the games and the
// tournaments over one store.
type benchInstance struct {
	games *games.Service
	svc   *tournaments.Service
}

func benchInstances(stores []TournamentBenchStore) []benchInstance {
	var out []benchInstance
	for _, st := range stores {
		gs := games.NewService(st, budget.New(1), games.Options{Choose: func(context.Context, engine.Position, engine.Rules, []engine.Position, int, uint64) (int, error) {
			return 0, fmt.Errorf("no AI here")
		}})
		svc := tournaments.NewService(st, tournaments.Options{Games: gs})
		gs.OnEnded(svc)
		out = append(out, benchInstance{games: gs, svc: svc})
	}
	return out
}

// benchArena makes 1,000 players and a running, unrated 3+2 arena of an
// hour that they have all joined, paired once: 500 games in play.
func benchArena(b *testing.B, st TournamentBenchStore, in benchInstance) (string, []*players.Player) {
	b.Helper()
	ctx := b.Context()
	now := time.Now().UTC().Truncate(time.Microsecond)
	ps := make([]*players.Player, benchArenaPlayers)
	for i := range ps {
		id := fmt.Sprintf("arena%05d", i)
		p := players.Player{ID: id, Name: id, TokenHash: hashOf(id), CreatedAt: now, UpdatedAt: now,
			Ratings: map[players.Category]players.Rating{}}
		if err := st.CreatePlayer(ctx, p); err != nil {
			b.Fatal(err)
		}
		ps[i] = &p
	}
	tr, err := in.svc.Create(ctx, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Bench", Minutes: 60,
		TimeControl: games.TimeControl{Kind: games.Live, Initial: 3 * time.Minute, Increment: 2 * time.Second}})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range ps {
		if _, err := in.svc.Join(ctx, p, tr.ID); err != nil {
			b.Fatal(err)
		}
	}
	if err := in.svc.Tick(ctx); err != nil {
		b.Fatal(err)
	}
	return tr.ID, ps
}

// running returns the games of the event not done.
func runningGames(b *testing.B, svc *tournaments.Service, id string) []tournaments.Game {
	b.Helper()
	ev, err := svc.Event(b.Context(), id)
	if err != nil {
		b.Fatal(err)
	}
	var out []tournaments.Game
	for _, g := range ev.Games {
		if !g.Done {
			out = append(out, g)
		}
	}
	return out
}

// BenchArenaPairing measures how soon a free player of a 1,000-player
// arena gets a game: each op ends 10 of its games (a resignation each,
// through one instance's games service, which copies the result at once)
// and then runs one look of the other instance (a Tick), which pairs the
// players those games freed, as a second instance on the same database
// would; the op's time is the wait of those players from the last
// resignation to the pairing's write. It reports that wait's p50 and p99 in
// ms. An instance's look comes at most a second after a game ends on
// another one (at once on its own), so a free player's wait is at most a
// second plus this. With one store both roles are one instance's.
func BenchArenaPairing(b *testing.B, filled func(), stores ...TournamentBenchStore) {
	ctx := b.Context()
	insts := benchInstances(stores)
	id, _ := benchArena(b, stores[0], insts[0])
	if filled != nil {
		filled()
	}
	var waits []time.Duration
	i := 0
	for b.Loop() {
		ender, looker := insts[i%len(insts)], insts[(i+1)%len(insts)]
		i++
		gs := runningGames(b, ender.svc, id)
		if len(gs) < 10 {
			b.Fatalf("%d games in play, want 10 or more", len(gs))
		}
		for _, g := range gs[:10] {
			if _, err := ender.games.Resign(ctx, g.GameID, games.Actor{Player: g.South}); err != nil {
				b.Fatal(err)
			}
		}
		t0 := time.Now()
		if err := looker.svc.Tick(ctx); err != nil {
			b.Fatal(err)
		}
		waits = append(waits, time.Since(t0))
		if got := len(runningGames(b, looker.svc, id)); got < 495 {
			b.Fatalf("%d games in play after the look, want the freed players paired again (495 or more)", got)
		}
	}
	b.ReportMetric(percentile(waits, 0.50), "p50-ms")
	b.ReportMetric(percentile(waits, 0.99), "p99-ms")
}

// BenchStandings measures a read of the standings of a 1,000-player arena
// after every change: each op copies one more result (a resignation) and
// reads the standings, computed again from every stored game (the read
// after a change never hits the cache). Before the ops, 2,000 games have
// been played. It reports the read's p50 and p99 in ms.
func BenchStandings(b *testing.B, filled func(), st TournamentBenchStore) {
	ctx := b.Context()
	in := benchInstances([]TournamentBenchStore{st})[0]
	id, _ := benchArena(b, st, in)
	for range 4 {
		for _, g := range runningGames(b, in.svc, id) {
			if _, err := in.games.Resign(ctx, g.GameID, games.Actor{Player: g.North}); err != nil {
				b.Fatal(err)
			}
		}
		if err := in.svc.Tick(ctx); err != nil {
			b.Fatal(err)
		}
	}
	if filled != nil {
		filled()
	}
	var reads []time.Duration
	for b.Loop() {
		b.StopTimer()
		gs := runningGames(b, in.svc, id)
		if _, err := in.games.Resign(ctx, gs[0].GameID, games.Actor{Player: gs[0].South}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		v, err := in.svc.Standings(ctx, id)
		reads = append(reads, time.Since(t0))
		if err != nil || len(v.Standings) != benchArenaPlayers {
			b.Fatalf("standings: %d lines, %v", len(v.Standings), err)
		}
	}
	b.ReportMetric(percentile(reads, 0.50), "p50-ms")
	b.ReportMetric(percentile(reads, 0.99), "p99-ms")
}
