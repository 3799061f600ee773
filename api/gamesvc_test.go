package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	store "github.com/ayoayo/ayoayo/store/sqlite"
)

func openGameStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "svc.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// lastLegal is a deterministic AI for tests: the highest legal pit.
func lastLegal(_ context.Context, p engine.Position, r engine.Rules, _ []engine.Position, _ int, _ uint64) (int, error) {
	pit := -1
	for m := p.LegalMoves(r); m != 0; {
		pit = m.Next()
	}
	return pit, nil
}

// testAnswer is a small stand-in for the HTTP answer body.
func testAnswer(r *playResult) ([]byte, error) {
	v := map[string]any{"ply": r.Move.Ply, "pit": r.Move.Pit, "version": r.Game.Version}
	if r.Reply != nil {
		v["reply"] = r.Reply.Pit
	}
	return json.Marshal(v)
}

func TestGameServiceTwoPeople(t *testing.T) {
	ctx := context.Background()
	svc := newGameService(openGameStore(t), lastLegal, time.Second, 0, nil)
	south, err := svc.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	if south.Game.Status != store.Waiting || len(south.Token) < 43 || south.Side != engine.South {
		t.Fatalf("created %+v", south)
	}
	id := south.Game.ID
	if _, _, err := svc.play(ctx, id, south.Token, 0, 0, testAnswer); !errors.Is(err, store.ErrNotStarted) {
		t.Fatalf("move before the join: %v, want ErrNotStarted", err)
	}
	north, err := svc.join(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if north.Side != engine.North || north.Game.Status != store.Active || north.Token == south.Token {
		t.Fatalf("joined %+v", north)
	}
	if _, err := svc.join(ctx, id); !errors.Is(err, store.ErrSeatTaken) {
		t.Fatalf("second join: %v, want ErrSeatTaken", err)
	}

	tests := []struct {
		name     string
		token    string
		ply, pit int
		want     error
		reason   engine.Reason
	}{
		{"no token", "", 0, 0, ErrUnauthorized, 0},
		{"unknown token", "not-a-seat", 0, 0, ErrUnauthorized, 0},
		{"other seat", north.Token, 0, 7, ErrNotYourTurn, 0},
		{"stale ply", south.Token, 3, 0, store.ErrStalePly, 0},
		{"not your pit", south.Token, 0, 7, engine.ErrIllegalMove, engine.NotYourPit},
		{"off the board", south.Token, 0, 12, engine.ErrIllegalMove, engine.NotYourPit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := svc.play(ctx, id, tc.token, tc.ply, tc.pit, testAnswer)
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			var me *engine.MoveError
			if tc.reason != 0 && (!errors.As(err, &me) || me.Reason != tc.reason) {
				t.Fatalf("%v, want reason %s", err, tc.reason)
			}
		})
	}

	body, replayed, err := svc.play(ctx, id, south.Token, 0, 0, testAnswer)
	if err != nil || replayed {
		t.Fatalf("first move: %v (replayed %v)", err, replayed)
	}
	again, replayed, err := svc.play(ctx, id, south.Token, 0, 0, testAnswer)
	if err != nil || !replayed || string(again) != string(body) {
		t.Fatalf("retry: %s %v %v, want the stored %s", again, replayed, err, body)
	}
	if _, _, err := svc.play(ctx, id, south.Token, 0, 1, testAnswer); !errors.Is(err, store.ErrStalePly) {
		t.Fatalf("other pit at the old ply: %v, want stale", err)
	}
	if _, _, err := svc.play(ctx, id, south.Token, 1, 1, testAnswer); !errors.Is(err, ErrNotYourTurn) {
		t.Fatalf("South at North's turn: %v", err)
	}
	g, err := svc.resign(ctx, id, north.Token)
	if err != nil || g.Result != (engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}) {
		t.Fatalf("resign: %+v %v", g.Result, err)
	}
	if _, _, err := svc.play(ctx, id, north.Token, 1, 7, testAnswer); !errors.Is(err, store.ErrFinished) {
		t.Fatalf("move after resignation: %v, want ErrFinished", err)
	}
	if _, err := svc.resign(ctx, id, south.Token); !errors.Is(err, store.ErrFinished) {
		t.Fatalf("second resignation: %v", err)
	}
	if _, err := svc.resign(ctx, id, "nope"); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("resign with a bad token: %v", err)
	}
	if _, err := svc.game(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown game: %v", err)
	}
}

func TestGameServiceAI(t *testing.T) {
	ctx := context.Background()
	st := openGameStore(t)
	var calls []int // the plies the AI was asked about
	var mu sync.Mutex
	choose := func(ctx context.Context, p engine.Position, r engine.Rules, hist []engine.Position, level int, seed uint64) (int, error) {
		mu.Lock()
		calls = append(calls, len(hist))
		mu.Unlock()
		if _, ok := ctx.Deadline(); !ok || level != 3 {
			return -1, fmt.Errorf("no deadline or level %d", level)
		}
		return lastLegal(ctx, p, r, hist, level, seed)
	}
	svc := newGameService(st, choose, time.Second, 0, nil)
	// The person sits North, so the AI plays South and opens at creation.
	me, err := svc.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.North, AILevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	g := me.Game
	if g.Status != store.Active || g.Ply != 1 || len(me.Moves) != 1 || !me.Moves[0].ByAI || me.Moves[0].Pit != 5 {
		t.Fatalf("created %+v with %+v, want the AI's opening pit 5", g, me.Moves)
	}
	if _, err := svc.join(ctx, g.ID); !errors.Is(err, store.ErrSeatTaken) {
		t.Fatalf("join a game against the AI: %v, want ErrSeatTaken", err)
	}
	// Play the person's first legal move until the game ends; each move gets
	// the AI's reply in the same answer.
	for g.Status == store.Active {
		legal := g.Position.LegalMoves(g.Rules)
		body, _, err := svc.play(ctx, g.ID, me.Token, g.Ply, legal.Next(), testAnswer)
		if err != nil {
			t.Fatalf("ply %d: %v", g.Ply, err)
		}
		var ans struct{ Reply *int }
		if err := json.Unmarshal(body, &ans); err != nil {
			t.Fatal(err)
		}
		before := g.Ply
		if g, err = svc.game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		if g.Status == store.Active && (ans.Reply == nil || g.Ply != before+2) {
			t.Fatalf("ply %d: the AI did not reply (%s)", before, body)
		}
	}
	ms, err := st.Moves(ctx, g.ID, 0, 1000)
	if err != nil || len(ms) != g.Ply {
		t.Fatalf("%d moves (%v), game at ply %d", len(ms), err, g.Ply)
	}
	for _, m := range ms {
		if m.ByAI != (m.Side == engine.South) {
			t.Fatalf("ply %d by %s marked byAI=%v", m.Ply, m.Side, m.ByAI)
		}
	}
	for i, n := range calls {
		if n != 2*i { // the AI sees every earlier position
			t.Fatalf("AI call %d saw %d earlier positions, want %d", i, n, 2*i)
		}
	}
}

// TestGameServiceRepetition plays a line found to come back to the same
// position a third time: the service must end the game by repetition, with
// each row going to its owner, exactly as the engine's own record does.
func TestGameServiceRepetition(t *testing.T) {
	ctx := context.Background()
	svc := newGameService(openGameStore(t), lastLegal, time.Second, 0, nil)
	start := engine.MustParse("s-111000-110010-21-21")
	line := []int{2, 7, 0, 6, 2, 10, 4, 8, 0, 6, 2, 10, 4, 8}
	a, err := svc.create(ctx, newGameRequest{Start: start, Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.join(ctx, a.Game.ID)
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{a.Token, b.Token}
	g := b.Game
	for i, pit := range line {
		if g.Status != store.Active {
			t.Fatalf("game over at ply %d of %d: %+v", i, len(line), g.Result)
		}
		if _, _, err := svc.play(ctx, g.ID, tokens[g.Position.ToMove], g.Ply, pit, testAnswer); err != nil {
			t.Fatalf("ply %d: %v", i, err)
		}
		if g, err = svc.game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	want := engine.Result{Reason: engine.ByRepetition, Winner: engine.NorthWins}
	if g.Status != store.Finished || g.Result != want || g.Position != engine.MustParse("s-000000-000000-23-25") {
		t.Fatalf("after the line: %s %+v at %s, want finished by repetition", g.Status, g.Result, g.Position)
	}
	if _, _, err := svc.play(ctx, g.ID, tokens[g.Position.ToMove], g.Ply, 0, testAnswer); !errors.Is(err, store.ErrFinished) {
		t.Fatalf("move after the end: %v, want ErrFinished", err)
	}
}

func TestGameServiceFollow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svc := newGameService(openGameStore(t), lastLegal, time.Second, 0, nil)
	a, err := svc.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	id := a.Game.ID

	type seen struct {
		id   int
		kind gameEventKind
	}
	events := make(chan seen, 100)
	done := make(chan error, 1)
	go func() {
		done <- svc.follow(ctx, id, -1, time.Hour, func(e gameEvent) error {
			events <- seen{e.ID, e.Kind}
			return nil
		}, func() error { return nil })
	}()
	b, err := svc.join(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{a.Token, b.Token}
	g := b.Game
	for range 4 {
		legal := g.Position.LegalMoves(g.Rules)
		if _, _, err := svc.play(ctx, id, tokens[g.Position.ToMove], g.Ply, legal.Next(), testAnswer); err != nil {
			t.Fatal(err)
		}
		if g, err = svc.game(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.resign(ctx, id, a.Token); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("follow: %v", err)
	}
	close(events)
	var got []seen
	for e := range events {
		got = append(got, e)
	}
	want := []seen{{0, eventJoined}, {1, eventMove}, {2, eventMove}, {3, eventMove}, {4, eventMove}, {4, eventEnd}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// Resuming after event 2 gives the rest, without a gap.
	got = nil
	err = svc.follow(ctx, id, 2, time.Hour, func(e gameEvent) error {
		got = append(got, seen{e.ID, e.Kind})
		return nil
	}, func() error { return nil })
	if want := want[3:]; err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("resume after 2: %v (%v), want %v", got, err, want)
	}
}

func TestFollowEndsOnShutdown(t *testing.T) {
	ctx := context.Background()
	svc := newGameService(openGameStore(t), lastLegal, time.Second, 0, nil)
	stopping := make(chan struct{})
	svc.stopping = stopping
	a, err := svc.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	beats := make(chan struct{}, 10)
	go func() {
		done <- svc.follow(ctx, a.Game.ID, -1, 10*time.Millisecond, func(gameEvent) error { return nil },
			func() error { beats <- struct{}{}; return nil })
	}()
	<-beats // the stream is live and beating
	close(stopping)
	if err := <-done; err != nil {
		t.Fatalf("follow after shutdown: %v", err)
	}
}

func TestRateLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newRateLimiter(60, 3, func() time.Time { return now }) // one a second, bursts of 3
	steps := []struct {
		name    string
		advance time.Duration
		key     string
		ok      bool
		retry   int
	}{
		{"burst 1", 0, "a", true, 0},
		{"burst 2", 0, "a", true, 0},
		{"burst 3", 0, "a", true, 0},
		{"over", 0, "a", false, 1},
		{"other client", 0, "b", true, 0},
		{"half refilled", 500 * time.Millisecond, "a", false, 1},
		{"refilled one", 500 * time.Millisecond, "a", true, 0},
		{"empty again", 0, "a", false, 1},
		{"long idle", time.Hour, "a", true, 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			now = now.Add(st.advance)
			err := l.allow(st.key)
			var rl *RateLimitError
			switch {
			case st.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !st.ok && (!errors.As(err, &rl) || !errors.Is(err, ErrRateLimited) || rl.RetrySeconds() != st.retry):
				t.Fatalf("%v, want a rate limit with Retry-After %d", err, st.retry)
			}
		})
	}
	if len(l.buckets) > 1 {
		t.Fatalf("%d buckets kept after an hour idle, want the idle ones forgotten", len(l.buckets))
	}
	if newRateLimiter(0, 10, nil).allow("x") != nil {
		t.Fatal("a zero rate must mean no limit")
	}
}

func TestAIBudget(t *testing.T) {
	svc := newGameService(nil, lastLegal, 800*time.Millisecond, 0, nil)
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
	c.put(&store.Game{ID: "a", Version: 2, History: []byte{1, 2}})
	c.put(&store.Game{ID: "a", Version: 1, History: []byte{9}}) // older: ignored
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
	c.put(&store.Game{ID: "b", Version: 1})
	c.put(&store.Game{ID: "c", Version: 1})
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
func TestGameServiceStaleCache(t *testing.T) {
	ctx := context.Background()
	st := openGameStore(t)
	a := newGameService(st, lastLegal, time.Second, 0, nil)
	b := newGameService(st, lastLegal, time.Second, 0, nil)
	s, err := a.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	n, err := a.join(ctx, s.Game.ID)
	if err != nil {
		t.Fatal(err)
	}
	id := s.Game.ID
	if _, _, err := a.play(ctx, id, s.Token, 0, 0, testAnswer); err != nil { // a caches ply 1
		t.Fatal(err)
	}
	if _, _, err := b.play(ctx, id, n.Token, 1, 7, testAnswer); err != nil { // the game moves on behind a's back
		t.Fatal(err)
	}
	// a's row says ply 1, North to move: a request at ply 1 looks fine to it,
	// and the write must refuse it.
	if _, _, err := a.play(ctx, id, n.Token, 1, 8, testAnswer); !errors.Is(err, store.ErrStalePly) {
		t.Fatalf("stale request through a stale cache: %v, want stale_ply", err)
	}
	// A request at the real ply goes through a, whose row is behind.
	g, _ := st.Game(ctx, id)
	legal := g.Position.LegalMoves(g.Rules)
	if _, _, err := a.play(ctx, id, s.Token, 2, legal.Next(), testAnswer); err != nil {
		t.Fatalf("current request through a stale cache: %v", err)
	}
	ms, err := st.Moves(ctx, id, 0, 10)
	if err != nil || len(ms) != 3 {
		t.Fatalf("%d moves (%v), want 3", len(ms), err)
	}
}

// TestAIBusy: with one AI search slot taken for longer than an AI move may
// wait, the next move against the AI is refused with ErrAIBusy and nothing is
// played; once the slot is free the same request is played.
func TestAIBusy(t *testing.T) {
	ctx := context.Background()
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	choose := func(ctx context.Context, p engine.Position, r engine.Rules, hist []engine.Position, level int, seed uint64) (int, error) {
		if level == 4 { // the game that holds the slot
			entered <- struct{}{}
			<-release
		}
		return lastLegal(ctx, p, r, hist, level, seed)
	}
	svc := newGameService(openGameStore(t), choose, 50*time.Millisecond, 1, nil)
	holder, err := svc.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.South, AILevel: 4})
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.create(ctx, newGameRequest{Start: engine.Start(), Seat: engine.South, AILevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() {
		_, _, err := svc.play(ctx, holder.Game.ID, holder.Token, 0, 0, testAnswer)
		held <- err
	}()
	<-entered
	if _, _, err := svc.play(ctx, other.Game.ID, other.Token, 0, 0, testAnswer); !errors.Is(err, ErrAIBusy) {
		t.Fatalf("move while the only AI slot is taken: %v, want ErrAIBusy", err)
	}
	if g, err := svc.game(ctx, other.Game.ID); err != nil || g.Ply != 0 {
		t.Fatalf("refused move changed the game: ply %d, %v", g.Ply, err)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.play(ctx, other.Game.ID, other.Token, 0, 0, testAnswer); err != nil {
		t.Fatalf("the same move once the slot is free: %v", err)
	}
}
