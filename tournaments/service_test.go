package tournaments_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/memory"
	"github.com/ayoayo/ayoayo/tournaments"
	"github.com/ayoayo/ayoayo/tournaments/pairing"
)

var blitz = games.TimeControl{Kind: games.Live, Initial: 180 * time.Second, Increment: 2 * time.Second}

// world is the tournaments over a memory store with an injected clock.
type world struct {
	st    *memory.Store
	clock *gamestest.Clock
	games *games.Service
	svc   *tournaments.Service
	ps    *players.Service
	news  *newsLog
}

// newsLog keeps what the service tells.
type newsLog struct {
	mu    sync.Mutex
	news  []tournaments.News
	games map[string][]string // player → game ids made for them
}

func (n *newsLog) Tournament(_ context.Context, ns []tournaments.News) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.news = append(n.news, ns...)
}

func (n *newsLog) TournamentGame(_ context.Context, player, _, gameID string, _ engine.Side, _ time.Time) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.games[player] = append(n.games[player], gameID)
}

func (n *newsLog) kinds(id string) map[tournaments.EventKind]int {
	n.mu.Lock()
	defer n.mu.Unlock()
	out := map[tournaments.EventKind]int{}
	for _, x := range n.news {
		if x.Tournament == id {
			out[x.Kind]++
		}
	}
	return out
}

func noAI(context.Context, engine.Position, engine.Rules, []engine.Position, int, uint64) (int, error) {
	return 0, errors.New("no AI in these tests")
}

func newWorld(t *testing.T) *world {
	t.Helper()
	st := memory.New()
	clock := gamestest.NewClock()
	gs := games.NewService(st, budget.New(1), games.Options{Now: clock.Now, Choose: noAI})
	news := &newsLog{games: map[string][]string{}}
	ps := players.NewService(st, clock.Now)
	svc := tournaments.NewService(st, tournaments.Options{Games: gs, Notify: news, Now: clock.Now, Authorize: ps.Authorize})
	gs.OnEnded(svc)
	return &world{st: st, clock: clock, games: gs, svc: svc, ps: ps, news: news}
}

func (w *world) player(t *testing.T, name string) *players.Player {
	t.Helper()
	p, _, err := w.ps.Create(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return &p
}

func (w *world) players(t *testing.T, n int) []*players.Player {
	t.Helper()
	out := make([]*players.Player, n)
	for i := range out {
		out[i] = w.player(t, fmt.Sprintf("P%02d", i))
	}
	return out
}

func (w *world) create(t *testing.T, org *players.Player, req tournaments.NewTournament) tournaments.Tournament {
	t.Helper()
	tr, err := w.svc.Create(t.Context(), org, req)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	return tr
}

func (w *world) join(t *testing.T, id string, ps ...*players.Player) {
	t.Helper()
	for _, p := range ps {
		if _, err := w.svc.Join(t.Context(), p, id); err != nil {
			t.Fatalf("%s joins: %v", p.Name, err)
		}
	}
}

func (w *world) tick(t *testing.T) {
	t.Helper()
	if err := w.svc.Tick(t.Context()); err != nil {
		t.Fatalf("tick: %v", err)
	}
}

func (w *world) event(t *testing.T, id string) tournaments.Event {
	t.Helper()
	ev, err := w.svc.Event(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// finish ends game g with outcome: both sides move once, then the loser
// resigns, or both agree a draw.
func (w *world) finish(t *testing.T, g tournaments.Game, outcome pairing.Outcome) {
	t.Helper()
	if cur, err := w.games.Game(t.Context(), g.GameID); err != nil || cur.Ply == 0 {
		w.moves(t, g)
	}
	w.end(t, g, outcome)
}

// moves plays the first move of each side of g.
func (w *world) moves(t *testing.T, g tournaments.Game) {
	t.Helper()
	for ply, pit := range []int{2, 8} {
		player := g.South
		if ply == 1 {
			player = g.North
		}
		if _, _, err := w.games.Play(t.Context(), games.MoveRequest{ID: g.GameID, Player: player, Ply: ply, Pit: pit}); err != nil {
			t.Fatalf("game %s ply %d: %v", g.GameID, ply, err)
		}
	}
}

// end ends g, whose sides have moved, with outcome.
func (w *world) end(t *testing.T, g tournaments.Game, outcome pairing.Outcome) {
	t.Helper()
	ctx := t.Context()
	var err error
	switch outcome {
	case pairing.SouthWins:
		_, err = w.games.Resign(ctx, g.GameID, games.Actor{Player: g.North})
	case pairing.NorthWins:
		_, err = w.games.Resign(ctx, g.GameID, games.Actor{Player: g.South})
	default:
		if _, err = w.games.Draw(ctx, g.GameID, games.Actor{Player: g.South}, true); err == nil {
			_, err = w.games.Draw(ctx, g.GameID, games.Actor{Player: g.North}, true)
		}
	}
	if err != nil {
		t.Fatalf("ending game %s: %v", g.GameID, err)
	}
}

// running returns ev's games not done.
func running(ev tournaments.Event) []tournaments.Game {
	var out []tournaments.Game
	for _, g := range ev.Games {
		if !g.Done {
			out = append(out, g)
		}
	}
	return out
}

// checkOneGameEach fails when a player is in two running games of ev.
func checkOneGameEach(t *testing.T, ev tournaments.Event) {
	t.Helper()
	seen := map[string]string{}
	for _, g := range running(ev) {
		for _, p := range []string{g.South, g.North} {
			if other, ok := seen[p]; ok {
				t.Fatalf("player %s is in games %s and %s at once", p, other, g.GameID)
			}
			seen[p] = g.GameID
		}
	}
}

func TestCreateRefusals(t *testing.T) {
	w := newWorld(t)
	org := w.player(t, "Org")
	now := w.clock.Now()
	arena := tournaments.NewTournament{Kind: tournaments.Arena, Name: "Arena", TimeControl: blitz, Minutes: 30}
	swiss := tournaments.NewTournament{Kind: tournaments.Swiss, Name: "Swiss", TimeControl: blitz, Rounds: 5}
	with := func(base tournaments.NewTournament, f func(*tournaments.NewTournament)) tournaments.NewTournament {
		f(&base)
		return base
	}
	for _, tc := range []struct {
		name string
		req  tournaments.NewTournament
		want error
	}{
		{"a start in the past", with(arena, func(r *tournaments.NewTournament) { r.StartsAt = now.Add(-time.Hour) }), tournaments.ErrStartInPast},
		{"no kind", with(arena, func(r *tournaments.NewTournament) { r.Kind = "knockout" }), tournaments.ErrInvalid},
		{"a blank name", with(arena, func(r *tournaments.NewTournament) { r.Name = "  " }), tournaments.ErrInvalid},
		{"an arena without minutes", with(arena, func(r *tournaments.NewTournament) { r.Minutes = 0 }), tournaments.ErrInvalid},
		{"an arena with rounds", with(arena, func(r *tournaments.NewTournament) { r.Rounds = 3 }), tournaments.ErrInvalid},
		{"a Swiss with minutes", with(swiss, func(r *tournaments.NewTournament) { r.Minutes = 30 }), tournaments.ErrInvalid},
		{"a Swiss of 31 rounds", with(swiss, func(r *tournaments.NewTournament) { r.Rounds = 31 }), tournaments.ErrInvalid},
		{"a Swiss with berserk", with(swiss, func(r *tournaments.NewTournament) { r.Berserk = true }), tournaments.ErrInvalid},
		{"correspondence", with(arena, func(r *tournaments.NewTournament) {
			r.TimeControl = games.TimeControl{Kind: games.Correspondence, PerMove: 24 * time.Hour}
		}), tournaments.ErrInvalid},
		{"a clock out of bounds", with(arena, func(r *tournaments.NewTournament) { r.TimeControl.Increment = time.Hour }), games.ErrInvalidTimeControl},
		{"min rating above max", with(arena, func(r *tournaments.NewTournament) {
			r.Conditions = tournaments.Conditions{MinRating: 1800, MaxRating: 1500}
		}), tournaments.ErrInvalid},
		{"too far ahead", with(arena, func(r *tournaments.NewTournament) { r.StartsAt = now.Add(100 * 24 * time.Hour) }), tournaments.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := w.svc.Create(t.Context(), org, tc.req); !errors.Is(err, tc.want) {
				t.Fatalf("create: %v, want %v", err, tc.want)
			}
		})
	}
	if _, err := w.svc.Create(t.Context(), nil, arena); !errors.Is(err, players.ErrUnauthorized) {
		t.Errorf("create without a player: %v, want ErrUnauthorized", err)
	}
	if got, err := w.svc.List(t.Context(), tournaments.Upcoming, 10, ""); err != nil || len(got) != 0 {
		t.Errorf("after the refusals the upcoming list is %v (%v), want none", got, err)
	}
}

func TestJoinAndWithdrawRefusals(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ps := w.players(t, 3)
	start := w.clock.Now().Add(time.Minute)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "A", TimeControl: blitz, Minutes: 10, StartsAt: start,
		Conditions: tournaments.Conditions{MinRatedGames: 1}})
	open := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "B", TimeControl: blitz, Minutes: 10, StartsAt: start})
	if _, err := w.svc.Join(ctx, ps[1], tr.ID); !errors.Is(err, tournaments.ErrConditions) {
		t.Errorf("a player with no rated game joins: %v, want ErrConditions", err)
	}
	w.join(t, open.ID, ps[1])
	if _, err := w.svc.Join(ctx, ps[1], open.ID); !errors.Is(err, tournaments.ErrAlreadyJoined) {
		t.Errorf("joining twice: %v, want ErrAlreadyJoined", err)
	}
	if err := w.svc.Withdraw(ctx, ps[2], open.ID); !errors.Is(err, tournaments.ErrNotJoined) {
		t.Errorf("withdrawing without joining: %v, want ErrNotJoined", err)
	}
	if err := w.svc.Withdraw(ctx, ps[1], open.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.svc.Withdraw(ctx, ps[1], open.ID); !errors.Is(err, tournaments.ErrNotJoined) {
		t.Errorf("withdrawing twice: %v, want ErrNotJoined", err)
	}
	w.join(t, open.ID, ps[1]) // back in
	if _, err := w.svc.Join(ctx, ps[1], "nosuchevent"); !errors.Is(err, tournaments.ErrNotFound) {
		t.Errorf("joining an unknown event: %v, want ErrNotFound", err)
	}
	w.clock.Advance(12 * time.Minute)
	w.tick(t)
	if _, err := w.svc.Join(ctx, ps[2], open.ID); !errors.Is(err, tournaments.ErrFinished) {
		t.Errorf("joining after the end: %v, want ErrFinished", err)
	}
	ev := w.event(t, open.ID)
	if ev.Status != tournaments.Finished || len(ev.Entrants) != 1 || ev.Entrants[0].Withdrawn {
		t.Errorf("the event after its end: %s with %+v, want finished with one active entrant", ev.Status, ev.Entrants)
	}
}

func TestArenaPairsFreePlayers(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 6)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Arena", TimeControl: blitz, Minutes: 30,
		StartsAt: w.clock.Now().Add(time.Minute)})
	w.join(t, tr.ID, ps...)
	w.tick(t)
	if ev := w.event(t, tr.ID); ev.Status != tournaments.Upcoming || len(ev.Games) != 0 {
		t.Fatalf("before its start: %s with %d games", ev.Status, len(ev.Games))
	}
	w.clock.Advance(time.Minute)
	w.tick(t)
	ev := w.event(t, tr.ID)
	if ev.Status != tournaments.Running || len(running(ev)) != 3 {
		t.Fatalf("at its start: %s with %d games running, want running with 3", ev.Status, len(running(ev)))
	}
	checkOneGameEach(t, ev)
	last := map[string]string{}
	for round := range 4 {
		for i, g := range running(ev) {
			last[g.South], last[g.North] = g.North, g.South
			w.finish(t, g, pairing.Outcome(i%3))
		}
		w.clock.Advance(time.Second)
		w.tick(t)
		ev = w.event(t, tr.ID)
		checkOneGameEach(t, ev)
		for _, g := range running(ev) {
			if last[g.South] == g.North {
				t.Errorf("round %d: %s meets %s again straight away", round, g.South, g.North)
			}
		}
	}
	v, err := w.svc.Standings(t.Context(), tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkArenaRecount(t, w.event(t, tr.ID), v)
	if k := w.news.kinds(tr.ID); k[tournaments.EventStarted] != 1 || k[tournaments.EventPaired] != len(v.Tournament.ID)*0+w.gamesOf(t, tr.ID) || k[tournaments.EventGameFinished] != 12 {
		t.Errorf("news %v, want one start, a paired for every game and 12 finished", k)
	}
	for _, p := range ps {
		if got := len(w.news.games[p.ID]); got != 5 {
			t.Errorf("%s was told of %d games, want 5", p.Name, got)
		}
	}
}

func (w *world) gamesOf(t *testing.T, id string) int {
	t.Helper()
	return len(w.event(t, id).Games)
}

// checkArenaRecount recounts every player's points from the games, in the
// order they ended, by the rules of docs/tournaments.md, and compares
// them with the standings.
func checkArenaRecount(t *testing.T, ev tournaments.Event, v tournaments.View) {
	t.Helper()
	type tally struct{ points, streak int }
	want := map[string]*tally{}
	for _, e := range ev.Entrants {
		want[e.PlayerID] = &tally{}
	}
	done := []tournaments.Game{}
	for _, g := range ev.Games {
		if g.Done && !g.Aborted {
			done = append(done, g)
		}
	}
	for i := 1; i < len(done); i++ {
		for j := i; j > 0 && (done[j].EndedAt.Before(done[j-1].EndedAt) ||
			done[j].EndedAt.Equal(done[j-1].EndedAt) && done[j].GameID < done[j-1].GameID); j-- {
			done[j], done[j-1] = done[j-1], done[j]
		}
	}
	score := func(id string, won, drew, berserk bool, plies int) {
		tl := want[id]
		fire := tl.streak >= 2
		switch {
		case won:
			p := 2
			if fire {
				p = 4
			}
			if berserk && plies >= 7 {
				p++
			}
			tl.points += p
			tl.streak++
		case drew:
			p := 1
			if fire {
				p = 2
			}
			tl.points += p
			tl.streak = 0
		default:
			tl.streak = 0
		}
	}
	for _, g := range done {
		score(g.South, g.Outcome == pairing.SouthWins, g.Outcome == pairing.Draw, g.Berserk[0], g.Plies)
		score(g.North, g.Outcome == pairing.NorthWins, g.Outcome == pairing.Draw, g.Berserk[1], g.Plies)
	}
	if len(v.Standings) != len(ev.Entrants) {
		t.Fatalf("%d standings lines for %d entrants", len(v.Standings), len(ev.Entrants))
	}
	for i, st := range v.Standings {
		if st.Points != want[st.PlayerID].points {
			t.Errorf("%s: %d points in the standings, %d recounted", st.PlayerID, st.Points, want[st.PlayerID].points)
		}
		if i > 0 && v.Standings[i-1].Points < st.Points {
			t.Errorf("line %d has more points than the line above it", i)
		}
	}
}

func TestArenaEndsAtItsTime(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 4)
	rapid := games.TimeControl{Kind: games.Live, Initial: 10 * time.Minute}
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Short", TimeControl: rapid, Minutes: 5})
	w.join(t, tr.ID, ps...)
	w.tick(t)
	ev := w.event(t, tr.ID)
	first := running(ev)
	if len(first) != 2 {
		t.Fatalf("%d games at the start, want 2", len(first))
	}
	w.finish(t, first[0], pairing.SouthWins)
	// The other is under way when the arena's time is up.
	w.moves(t, first[1])
	w.clock.Advance(5 * time.Minute)
	w.tick(t)
	ev = w.event(t, tr.ID)
	if ev.Status != tournaments.Running || len(ev.Games) != 2 {
		t.Fatalf("at the end with a game in play: %s with %d games, want running with the 2", ev.Status, len(ev.Games))
	}
	w.end(t, first[1], pairing.Draw)
	w.tick(t)
	ev = w.event(t, tr.ID)
	if ev.Status != tournaments.Finished || len(ev.Games) != 2 {
		t.Fatalf("after its last game: %s with %d games, want finished with 2", ev.Status, len(ev.Games))
	}
	v, _ := w.svc.Standings(t.Context(), tr.ID)
	checkArenaRecount(t, ev, v)
	if k := w.news.kinds(tr.ID); k[tournaments.EventFinished] != 1 {
		t.Errorf("finished told %d times, want once", k[tournaments.EventFinished])
	}
}

func TestSwissRunsEveryRound(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 7)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Swiss, Name: "Swiss", TimeControl: blitz, Rounds: 4,
		RoundGap: 10 * time.Minute})
	w.join(t, tr.ID, ps...)
	met := map[[2]string]bool{}
	byes := map[string]int{}
	for round := 1; round <= 4; round++ {
		w.tick(t)
		ev := w.event(t, tr.ID)
		if ev.Round != round {
			t.Fatalf("round %d: the event is at round %d", round, ev.Round)
		}
		games := running(ev)
		if len(games) != 3 || len(ev.Byes) != round {
			t.Fatalf("round %d: %d games and %d byes so far, want 3 and %d", round, len(games), len(ev.Byes), round)
		}
		byes[ev.Byes[round-1].PlayerID]++
		for i, g := range games {
			key := [2]string{min(g.South, g.North), max(g.South, g.North)}
			if met[key] {
				t.Errorf("round %d: %s and %s meet again", round, g.South, g.North)
			}
			met[key] = true
			w.finish(t, g, pairing.Outcome(i%3))
		}
		w.tick(t) // every game ended, but the gap holds the next round
		if ev := w.event(t, tr.ID); ev.Round != round {
			t.Fatalf("round %d: the next round started before its gap", round)
		}
		w.clock.Advance(10 * time.Minute)
	}
	w.tick(t)
	ev := w.event(t, tr.ID)
	if ev.Status != tournaments.Finished {
		t.Fatalf("after the last round: %s, want finished", ev.Status)
	}
	for p, n := range byes {
		if n > 1 {
			t.Errorf("%s had %d byes", p, n)
		}
	}
	v, err := w.svc.Standings(t.Context(), tr.ID)
	if err != nil {
		t.Fatal(err)
	}
	points := map[string]int{}
	for _, g := range ev.Games {
		switch g.Outcome {
		case pairing.SouthWins:
			points[g.South] += 2
		case pairing.NorthWins:
			points[g.North] += 2
		default:
			points[g.South]++
			points[g.North]++
		}
	}
	for _, b := range ev.Byes {
		points[b.PlayerID] += 2
	}
	for _, st := range v.Standings {
		if st.Points != points[st.PlayerID] {
			t.Errorf("%s: %d points in the standings, %d recounted", st.PlayerID, st.Points, points[st.PlayerID])
		}
	}
	if _, err := w.svc.Join(t.Context(), w.player(t, "Late"), tr.ID); !errors.Is(err, tournaments.ErrFinished) {
		t.Errorf("joining a finished Swiss event: %v, want ErrFinished", err)
	}
}

func TestSwissLateJoinAndLastRound(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 5)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Swiss, Name: "Swiss", TimeControl: blitz, Rounds: 2})
	w.join(t, tr.ID, ps[:4]...)
	w.tick(t)
	late, err := w.svc.Join(t.Context(), ps[4], tr.ID)
	if err != nil || late.JoinedRound != 2 {
		t.Fatalf("a late join: %+v, %v; want paired from round 2", late, err)
	}
	for _, g := range running(w.event(t, tr.ID)) {
		w.finish(t, g, pairing.SouthWins)
	}
	w.tick(t)
	ev := w.event(t, tr.ID)
	if ev.Round != 2 || len(running(ev)) != 2 || len(ev.Byes) != 1 {
		t.Fatalf("round 2: round %d, %d games, %d byes; want 2 games and a bye among 5", ev.Round, len(running(ev)), len(ev.Byes))
	}
	if _, err := w.svc.Join(t.Context(), w.player(t, "Later"), tr.ID); !errors.Is(err, tournaments.ErrTooLate) {
		t.Errorf("joining in the last round: %v, want ErrTooLate", err)
	}
}

// Two services over one store, as two instances over one database, tick
// the same arena at once: each free player gets one game.
func TestTwoInstancesPairOnce(t *testing.T) {
	w := newWorld(t)
	other := tournaments.NewService(w.st, tournaments.Options{Games: w.games, Now: w.clock.Now})
	ps := w.players(t, 40)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Race", TimeControl: blitz, Minutes: 60})
	w.join(t, tr.ID, ps...)
	for round := range 5 {
		var wg sync.WaitGroup
		for _, svc := range []*tournaments.Service{w.svc, other, w.svc, other} {
			wg.Go(func() {
				if err := svc.Tick(context.Background()); err != nil {
					t.Errorf("tick: %v", err)
				}
			})
		}
		wg.Wait()
		ev := w.event(t, tr.ID)
		checkOneGameEach(t, ev)
		if got := len(running(ev)); got != 20 {
			t.Fatalf("round %d: %d games running, want 20", round, got)
		}
		for i, g := range running(ev) {
			w.finish(t, g, pairing.Outcome(i%3))
		}
		w.clock.Advance(time.Second)
	}
}

// A game whose end no instance copied (the one that ended it died first)
// is copied by the next tick, once.
func TestResultCopiedAfterACrash(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 2)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Crash", TimeControl: blitz, Minutes: 60})
	w.join(t, tr.ID, ps...)
	w.tick(t)
	g := running(w.event(t, tr.ID))[0]
	// Another instance's games service, which tells no tournament.
	deaf := games.NewService(w.st, budget.New(1), games.Options{Now: w.clock.Now, Choose: noAI})
	for ply, pit := range []int{2, 8} {
		player := []string{g.South, g.North}[ply]
		if _, _, err := deaf.Play(t.Context(), games.MoveRequest{ID: g.GameID, Player: player, Ply: ply, Pit: pit}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := deaf.Resign(t.Context(), g.GameID, games.Actor{Player: g.South}); err != nil {
		t.Fatal(err)
	}
	if ev := w.event(t, tr.ID); ev.Games[0].Done {
		t.Fatal("the result was copied with nobody told")
	}
	w.clock.Advance(tournaments.DefaultRecheck / 2)
	w.tick(t)
	if ev := w.event(t, tr.ID); ev.Games[0].Done {
		t.Fatal("the games in play were read again before their recheck was due")
	}
	w.clock.Advance(tournaments.DefaultRecheck / 2)
	w.tick(t)
	ev := w.event(t, tr.ID)
	if !ev.Games[0].Done || ev.Games[0].Outcome != pairing.NorthWins || ev.Games[0].Plies != 2 {
		t.Fatalf("after a tick: %+v, want North's win copied", ev.Games[0])
	}
	if len(ev.Games) != 1 {
		t.Errorf("%d games after the copy, want 1: the two may not meet again straight away", len(ev.Games))
	}
	w.tick(t)
	if k := w.news.kinds(tr.ID); k[tournaments.EventGameFinished] != 1 {
		t.Errorf("the end was copied %d times, want once", k[tournaments.EventGameFinished])
	}
}

func TestBerserk(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	ps := w.players(t, 2)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Berserk", TimeControl: blitz, Minutes: 60, Berserk: true})
	w.join(t, tr.ID, ps...)
	w.tick(t)
	g := running(w.event(t, tr.ID))[0]
	south, north := ps[0], ps[1]
	if south.ID != g.South {
		south, north = north, south
	}
	got, err := w.svc.Berserk(ctx, north, g.GameID)
	if err != nil || got.Clock[engine.North] != blitz.Initial/2 || got.Clock[engine.South] != blitz.Initial {
		t.Fatalf("North berserks: clocks %v, %v; want North's halved", got.Clock, err)
	}
	if _, err := w.svc.Berserk(ctx, north, g.GameID); !errors.Is(err, tournaments.ErrBerserk) {
		t.Errorf("berserk twice: %v, want ErrBerserk", err)
	}
	if _, err := w.svc.Berserk(ctx, w.player(t, "Stranger"), g.GameID); !errors.Is(err, tournaments.ErrBerserk) {
		t.Errorf("a stranger's berserk: %v, want ErrBerserk", err)
	}
	if _, _, err := w.games.Play(ctx, games.MoveRequest{ID: g.GameID, Player: south.ID, Ply: 0, Pit: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.svc.Berserk(ctx, south, g.GameID); !errors.Is(err, tournaments.ErrBerserk) {
		t.Errorf("berserk after one's first move: %v, want ErrBerserk", err)
	}
	ev := w.event(t, tr.ID)
	if !ev.Games[0].Berserk[engine.North] || ev.Games[0].Berserk[engine.South] {
		t.Errorf("berserk marks %v, want North's only", ev.Games[0].Berserk)
	}
	noBerserk := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Plain", TimeControl: blitz, Minutes: 60})
	_ = noBerserk
	if _, err := w.svc.Berserk(ctx, north, "nosuchgame"); !errors.Is(err, tournaments.ErrBerserk) {
		t.Errorf("berserk in a game of no event: %v, want ErrBerserk", err)
	}
}

func TestBulkPairingAllOrNone(t *testing.T) {
	w := newWorld(t)
	ctx := t.Context()
	org := w.player(t, "Org")
	type seat struct {
		p     players.Player
		token string
	}
	var seats []seat
	for i := range 4 {
		p, token, err := w.ps.Create(ctx, fmt.Sprintf("B%d", i))
		if err != nil {
			t.Fatal(err)
		}
		seats = append(seats, seat{p, token})
	}
	pair := func(a, b int) tournaments.BulkPair {
		return tournaments.BulkPair{South: seats[a].p.ID, SouthToken: seats[a].token, North: seats[b].p.ID, NorthToken: seats[b].token}
	}
	start := w.clock.Now().Add(10 * time.Minute)
	good := tournaments.NewBulk{TimeControl: blitz, ClockStartsAt: start, Pairs: []tournaments.BulkPair{pair(0, 1), pair(2, 3)}}
	for _, tc := range []struct {
		name  string
		edit  func(*tournaments.NewBulk)
		want  error
		pairs []tournaments.BulkPair
	}{
		{"an unknown player", func(b *tournaments.NewBulk) { b.Pairs[1].North = "nobody" }, tournaments.ErrBulkPlayer, nil},
		{"a wrong token", func(b *tournaments.NewBulk) { b.Pairs[1].NorthToken = seats[0].token }, tournaments.ErrBulkPlayer, nil},
		{"no token", func(b *tournaments.NewBulk) { b.Pairs[0].SouthToken = "" }, tournaments.ErrBulkPlayer, nil},
		{"a player twice", func(b *tournaments.NewBulk) { b.Pairs[1] = pair(2, 0) }, tournaments.ErrBulkInvalid, nil},
		{"no pairs", func(b *tournaments.NewBulk) { b.Pairs = nil }, tournaments.ErrBulkInvalid, nil},
		{"no clock", func(b *tournaments.NewBulk) { b.TimeControl = games.TimeControl{} }, tournaments.ErrBulkInvalid, nil},
		{"a start in the past", func(b *tournaments.NewBulk) { b.ClockStartsAt = w.clock.Now().Add(-time.Hour) }, tournaments.ErrStartInPast, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := good
			req.Pairs = append([]tournaments.BulkPair(nil), good.Pairs...)
			tc.edit(&req)
			if _, err := w.svc.CreateBulk(ctx, org, req); !errors.Is(err, tc.want) {
				t.Fatalf("bulk pairing: %v, want %v", err, tc.want)
			}
			for _, s := range seats {
				if gs, err := w.st.PlayingGames(ctx, s.p.ID); err != nil || len(gs) != 0 {
					t.Fatalf("%s has games %v after a refused bulk pairing (%v)", s.p.Name, gs, err)
				}
			}
		})
	}
	// A token a player made for the organiser consents when it has the
	// tournament:write scope, and only then.
	_, narrow, err := w.ps.CreateToken(ctx, seats[3].token, players.TokenRequest{Scopes: []players.Scope{players.ScopeGamePlay}})
	if err != nil {
		t.Fatal(err)
	}
	_, consent, err := w.ps.CreateToken(ctx, seats[3].token, players.TokenRequest{Scopes: []players.Scope{players.ScopeTournamentWrite}})
	if err != nil {
		t.Fatal(err)
	}
	withToken := func(token string) tournaments.NewBulk {
		req := good
		req.Pairs = append([]tournaments.BulkPair(nil), good.Pairs...)
		req.Pairs[1].NorthToken = token
		return req
	}
	if _, err := w.svc.CreateBulk(ctx, org, withToken(narrow)); !errors.Is(err, tournaments.ErrBulkPlayer) {
		t.Errorf("a consent by a token without tournament:write: %v, want ErrBulkPlayer", err)
	}
	b, err := w.svc.CreateBulk(ctx, org, withToken(consent))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Games) != 2 || !b.ClockStartsAt.Equal(start) {
		t.Fatalf("bulk pairing %+v, want 2 games starting at %v", b, start)
	}
	read, err := w.svc.Bulk(ctx, b.ID)
	if err != nil || len(read.Games) != 2 || read.Games[1].GameID != b.Games[1].GameID {
		t.Fatalf("read back: %+v, %v", read, err)
	}
	g := b.Games[0]
	if _, _, err := w.games.Play(ctx, games.MoveRequest{ID: g.GameID, Player: g.South, Ply: 0, Pit: 2}); !errors.Is(err, games.ErrClockNotStarted) {
		t.Errorf("a move before the clocks start: %v, want ErrClockNotStarted", err)
	}
	w.clock.Advance(10 * time.Minute)
	if _, _, err := w.games.Play(ctx, games.MoveRequest{ID: g.GameID, Player: g.South, Ply: 0, Pit: 2}); err != nil {
		t.Errorf("a move once the clocks started: %v", err)
	}
	if _, err := w.svc.Bulk(ctx, "nosuchbulk"); !errors.Is(err, tournaments.ErrBulkNotFound) {
		t.Errorf("an unknown bulk pairing: %v, want ErrBulkNotFound", err)
	}
}

// A Swiss event of 4 players over 4 rounds runs out of legal pairings
// after 3 (everyone has met everyone): it finishes with the rounds it
// played.
func TestSwissEndsWhenNoRoundCanBePaired(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 4)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Swiss, Name: "Small", TimeControl: blitz, Rounds: 4})
	w.join(t, tr.ID, ps...)
	for range 3 {
		w.tick(t)
		for _, g := range running(w.event(t, tr.ID)) {
			w.finish(t, g, pairing.SouthWins)
		}
	}
	w.tick(t)
	ev := w.event(t, tr.ID)
	if ev.Status != tournaments.Finished || ev.Round != 3 || len(ev.Games) != 6 {
		t.Fatalf("after 3 rounds of 4 players: %s at round %d with %d games, want finished at round 3 with 6", ev.Status, ev.Round, len(ev.Games))
	}
}

// A player who lets a game go without a first move is out of the
// pairings until they join again; the game counts for nobody.
func TestAbsentPlayerWithdrawn(t *testing.T) {
	w := newWorld(t)
	ps := w.players(t, 4)
	tr := w.create(t, ps[0], tournaments.NewTournament{Kind: tournaments.Arena, Name: "Absent", TimeControl: blitz, Minutes: 60})
	w.join(t, tr.ID, ps...)
	w.tick(t)
	first := running(w.event(t, tr.ID))
	// In the first game South moves and North never does; in the second
	// South never moves.
	if _, _, err := w.games.Play(t.Context(), games.MoveRequest{ID: first[0].GameID, Player: first[0].South, Ply: 0, Pit: 2}); err != nil {
		t.Fatal(err)
	}
	w.clock.Advance(games.DefaultFirstMove + time.Second)
	w.tick(t)
	ev := w.event(t, tr.ID)
	gone := map[string]bool{first[0].North: true, first[1].South: true}
	for _, e := range ev.Entrants {
		if e.Withdrawn != gone[e.PlayerID] {
			t.Errorf("%s withdrawn %v, want %v", e.PlayerID, e.Withdrawn, gone[e.PlayerID])
		}
	}
	for _, g := range ev.Games[:2] {
		if !g.Done || !g.Aborted {
			t.Errorf("game %s: %+v, want aborted", g.GameID, g)
		}
	}
	again := running(ev)
	if len(again) != 1 || gone[again[0].South] || gone[again[0].North] {
		t.Fatalf("games after the aborts: %+v, want the two who stayed paired", again)
	}
	v, _ := w.svc.Standings(t.Context(), tr.ID)
	for _, st := range v.Standings {
		if st.Points != 0 || st.Games != 0 {
			t.Errorf("%s: %d points in %d games, want an aborted game to count for nobody", st.PlayerID, st.Points, st.Games)
		}
	}
}
