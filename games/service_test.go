package games_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/games/gamestest"
	"github.com/ayoayo/ayoayo/store/memory"
)

func openGameStore(t *testing.T) *memory.Store {
	t.Helper()
	return memory.New()
}

// followed is a session service over st whose changes go to a hub over
// the same store, with ho's options.
func followed(t *testing.T, st games.Store, o games.Options, ho games.HubOptions) (*games.Service, *games.Hub) {
	t.Helper()
	hub := games.NewHub(st, ho)
	o.Changed = hub
	return games.NewService(st, testCPU(), o), hub
}

// lastLegal is a deterministic AI for tests: the highest legal pit.
func lastLegal(_ context.Context, p engine.Position, r engine.Rules, _ []engine.Position, _ int, _ uint64) (int, error) {
	pit := -1
	for m := p.LegalMoves(r); m != 0; {
		pit = m.Next()
	}
	return pit, nil
}

// testAnswer is a stand-in for the HTTP answer body: all of the result,
// so that a retry's rebuilt result is held to every field of the first.
func testAnswer(r *games.PlayResult) ([]byte, error) {
	return json.Marshal(r)
}

// play plays req on svc and encodes the result with testAnswer.
func play(ctx context.Context, svc *games.Service, req games.MoveRequest) ([]byte, bool, error) {
	res, replayed, err := svc.Play(ctx, req)
	if err != nil {
		return nil, replayed, err
	}
	body, err := testAnswer(&res)
	return body, replayed, err
}

func TestGameServiceTwoPeople(t *testing.T) {
	ctx := context.Background()
	svc := games.NewService(openGameStore(t), testCPU(), games.Options{Choose: lastLegal, AIMoveTime: time.Second})
	south, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	if south.Game.Status != games.Waiting || len(south.Token) < 43 || south.Side != engine.South {
		t.Fatalf("created %+v", south)
	}
	id := south.Game.ID
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: south.Token, Ply: 0, Pit: 0}); !errors.Is(err, games.ErrNotStarted) {
		t.Fatalf("move before the join: %v, want ErrNotStarted", err)
	}
	north, err := svc.Join(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	if north.Side != engine.North || north.Game.Status != games.Active || north.Token == south.Token {
		t.Fatalf("joined %+v", north)
	}
	if _, err := svc.Join(ctx, id, nil); !errors.Is(err, games.ErrSeatTaken) {
		t.Fatalf("second join: %v, want games.ErrSeatTaken", err)
	}

	tests := []struct {
		name     string
		token    string
		ply, pit int
		want     error
		reason   engine.Reason
	}{
		{"no token", "", 0, 0, games.ErrUnauthorized, 0},
		{"unknown token", "not-a-seat", 0, 0, games.ErrUnauthorized, 0},
		{"other seat", north.Token, 0, 7, games.ErrNotYourTurn, 0},
		{"stale ply", south.Token, 3, 0, games.ErrStalePly, 0},
		{"not your pit", south.Token, 0, 7, engine.ErrIllegalMove, engine.NotYourPit},
		{"off the board", south.Token, 0, 12, engine.ErrIllegalMove, engine.NotYourPit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: tc.token, Ply: tc.ply, Pit: tc.pit})
			if !errors.Is(err, tc.want) {
				t.Fatalf("%v, want %v", err, tc.want)
			}
			var me *engine.MoveError
			if tc.reason != 0 && (!errors.As(err, &me) || me.Reason != tc.reason) {
				t.Fatalf("%v, want reason %s", err, tc.reason)
			}
		})
	}

	body, replayed, err := play(ctx, svc, games.MoveRequest{ID: id, Token: south.Token, Ply: 0, Pit: 0})
	if err != nil || replayed {
		t.Fatalf("first move: %v (replayed %v)", err, replayed)
	}
	again, replayed, err := play(ctx, svc, games.MoveRequest{ID: id, Token: south.Token, Ply: 0, Pit: 0})
	if err != nil || !replayed || string(again) != string(body) {
		t.Fatalf("retry: %s %v %v, want the stored %s", again, replayed, err, body)
	}
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: south.Token, Ply: 0, Pit: 1}); !errors.Is(err, games.ErrStalePly) {
		t.Fatalf("other pit at the old ply: %v, want stale", err)
	}
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: south.Token, Ply: 1, Pit: 1}); !errors.Is(err, games.ErrNotYourTurn) {
		t.Fatalf("South at North's turn: %v", err)
	}
	g, err := svc.Resign(ctx, id, games.Actor{Token: north.Token})
	if err != nil || g.Result != (engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}) {
		t.Fatalf("resign: %+v %v", g.Result, err)
	}
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: north.Token, Ply: 1, Pit: 7}); !errors.Is(err, games.ErrFinished) {
		t.Fatalf("move after resignation: %v, want ErrFinished", err)
	}
	if again, err := svc.Resign(ctx, id, games.Actor{Token: north.Token}); err != nil || again.Version != g.Version || again.Result != g.Result {
		t.Fatalf("the same seat resigning again: version %d %+v %v, want the first answer's version %d", again.Version, again.Result, err, g.Version)
	}
	if _, err := svc.Resign(ctx, id, games.Actor{Token: south.Token}); !errors.Is(err, games.ErrFinished) {
		t.Fatalf("the other seat resigning after the resignation: %v", err)
	}
	if _, err := svc.Resign(ctx, id, games.Actor{Token: "nope"}); !errors.Is(err, games.ErrUnauthorized) {
		t.Fatalf("resign with a bad token: %v", err)
	}
	if _, err := svc.Game(ctx, "nope"); !errors.Is(err, games.ErrNotFound) {
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
	svc := games.NewService(st, testCPU(), games.Options{Choose: choose, AIMoveTime: time.Second})
	// The person sits North, so the AI plays South and opens at creation.
	me, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.North, AILevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	g := me.Game
	if g.Status != games.Active || g.Ply != 1 || len(me.Moves) != 1 || !me.Moves[0].ByAI || me.Moves[0].Pit != 5 {
		t.Fatalf("created %+v with %+v, want the AI's opening pit 5", g, me.Moves)
	}
	if _, err := svc.Join(ctx, g.ID, nil); !errors.Is(err, games.ErrSeatTaken) {
		t.Fatalf("join a game against the AI: %v, want games.ErrSeatTaken", err)
	}
	// Play the person's first legal move until the game ends; each move gets
	// the AI's reply in the same answer.
	for g.Status == games.Active {
		legal := g.Position.LegalMoves(g.Rules)
		ans, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: me.Token, Ply: g.Ply, Pit: legal.Next()})
		if err != nil {
			t.Fatalf("ply %d: %v", g.Ply, err)
		}
		before := g.Ply
		if g, err = svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		if g.Status == games.Active && (ans.Reply == nil || g.Ply != before+2) {
			t.Fatalf("ply %d: the AI did not reply (%+v)", before, ans)
		}
	}
	ms, err := svc.Moves(ctx, g.ID, 0, 1000)
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
	svc := games.NewService(openGameStore(t), testCPU(), games.Options{Choose: lastLegal, AIMoveTime: time.Second})
	start := engine.MustParse("s-111000-110010-21-21")
	line := []int{2, 7, 0, 6, 2, 10, 4, 8, 0, 6, 2, 10, 4, 8}
	a, err := svc.Create(ctx, games.NewGame{Start: start, Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{a.Token, b.Token}
	g := b.Game
	for i, pit := range line {
		if g.Status != games.Active {
			t.Fatalf("game over at ply %d of %d: %+v", i, len(line), g.Result)
		}
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: pit}); err != nil {
			t.Fatalf("ply %d: %v", i, err)
		}
		if g, err = svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	want := engine.Result{Reason: engine.ByRepetition, Winner: engine.NorthWins}
	if g.Status != games.Finished || g.Result != want || g.Position != engine.MustParse("s-000000-000000-23-25") {
		t.Fatalf("after the line: %s %+v at %s, want finished by repetition", g.Status, g.Result, g.Position)
	}
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: 0}); !errors.Is(err, games.ErrFinished) {
		t.Fatalf("move after the end: %v, want ErrFinished", err)
	}
}

// stream is a games.Stream of functions; a nil one does nothing.
type stream struct {
	send  func(games.Event) error
	flush func() error
	beat  func() error
}

func (s stream) Send(e games.Event) error {
	if s.send == nil {
		return nil
	}
	return s.send(e)
}

func (s stream) Flush() error {
	if s.flush == nil {
		return nil
	}
	return s.flush()
}

func (s stream) Beat() error {
	if s.beat == nil {
		return nil
	}
	return s.beat()
}

func TestGameServiceFollow(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svc, hub := followed(t, openGameStore(t), games.Options{Choose: lastLegal, AIMoveTime: time.Second}, games.HubOptions{})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	id := a.Game.ID

	type seen struct {
		id   int
		kind games.EventKind
	}
	events := make(chan seen, 100)
	done := make(chan error, 1)
	go func() {
		done <- hub.Follow(ctx, id, -1, time.Hour, stream{send: func(e games.Event) error {
			events <- seen{e.ID, e.Kind}
			return nil
		}})
	}()
	if first := <-events; first != (seen{0, games.EventGame}) {
		t.Fatalf("first event %v, want the game", first)
	}
	b, err := svc.Join(ctx, id, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{a.Token, b.Token}
	g := b.Game
	for range 4 {
		legal := g.Position.LegalMoves(g.Rules)
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: id, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: legal.Next()}); err != nil {
			t.Fatal(err)
		}
		if g, err = svc.Game(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Resign(ctx, id, games.Actor{Token: a.Token}); err != nil {
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
	// Each id is 8 times the version the event made (the join 2, the moves
	// 3 to 6, the resignation 7), plus its place among the version's.
	want := []seen{{16, games.EventJoined}, {24, games.EventMove}, {32, games.EventMove}, {40, games.EventMove}, {48, games.EventMove}, {56, games.EventEnd}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("events %v, want %v", got, want)
	}

	// Resuming after the second move gives the game as it is now, over,
	// and nothing else: the game holds what the events between did.
	var resumed []games.Event
	err = hub.Follow(ctx, id, 32, time.Hour, stream{send: func(e games.Event) error {
		resumed = append(resumed, e)
		return nil
	}})
	if err != nil || len(resumed) != 1 || resumed[0].Kind != games.EventGame || resumed[0].Game.Status != games.Finished ||
		resumed[0].Version != 7 || resumed[0].Game.Ply != 4 {
		t.Fatalf("resume after 32: %+v (%v), want the finished game at version 7 only", resumed, err)
	}
}

// TestFollowFlushesEachBatch: a follower gets the events it has not seen
// in one batch, flushed once, however many there are.
func TestFollowFlushesEachBatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	svc, hub := followed(t, openGameStore(t), games.Options{Choose: lastLegal}, games.HubOptions{})
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
	for range 3 {
		legal := g.Position.LegalMoves(g.Rules)
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: legal.Next()}); err != nil {
			t.Fatal(err)
		}
		if g, err = svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	// A follows from here, and is held in its first flush until B, which
	// follows too, has seen the end: A then has every event after its
	// game to send at once.
	held, release := make(chan struct{}), make(chan struct{})
	var calls []string
	aDone := make(chan error, 1)
	go func() {
		first := true
		aDone <- hub.Follow(ctx, g.ID, -1, time.Hour, stream{
			send: func(e games.Event) error {
				calls = append(calls, fmt.Sprintf("%s %d", e.Kind, e.ID))
				return nil
			},
			flush: func() error {
				calls = append(calls, "flush")
				if first {
					first = false
					close(held)
					<-release
				}
				return nil
			},
			beat: func() error { calls = append(calls, "beat"); return nil },
		})
	}()
	<-held
	bDone := make(chan error, 1)
	bStarted := make(chan struct{})
	go func() {
		first := true
		bDone <- hub.Follow(ctx, g.ID, -1, time.Hour, stream{send: func(games.Event) error {
			if first {
				first = false
				close(bStarted)
			}
			return nil
		}})
	}()
	<-bStarted
	for range 2 {
		legal := g.Position.LegalMoves(g.Rules)
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: legal.Next()}); err != nil {
			t.Fatal(err)
		}
		if g, err = svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := svc.Resign(ctx, g.ID, games.Actor{Token: a.Token}); err != nil {
		t.Fatal(err)
	}
	if err := <-bDone; err != nil {
		t.Fatal(err)
	}
	close(release)
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	// Versions: the creation 1, the join 2, three moves 3 to 5, then two
	// more 6 and 7 and the resignation 8.
	if got, want := strings.Join(calls, ", "), "game 0, flush, move 48, move 56, end 64, flush"; got != want {
		t.Fatalf("calls %s, want %s", got, want)
	}
}

func TestFollowEndsOnShutdown(t *testing.T) {
	ctx := context.Background()
	stopping := make(chan struct{})
	svc, hub := followed(t, openGameStore(t), games.Options{Choose: lastLegal, AIMoveTime: time.Second}, games.HubOptions{Stopping: stopping})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	beats := make(chan struct{}, 10)
	go func() {
		done <- hub.Follow(ctx, a.Game.ID, -1, 10*time.Millisecond, stream{beat: func() error { beats <- struct{}{}; return nil }})
	}()
	<-beats // the stream is live and beating
	close(stopping)
	if err := <-done; err != nil {
		t.Fatalf("follow after shutdown: %v", err)
	}
}

func TestGameServiceStaleCache(t *testing.T) {
	ctx := context.Background()
	st := openGameStore(t)
	a := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, AIMoveTime: time.Second})
	b := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, AIMoveTime: time.Second})
	s, err := a.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	n, err := a.Join(ctx, s.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := s.Game.ID
	if _, _, err := a.Play(ctx, games.MoveRequest{ID: id, Token: s.Token, Ply: 0, Pit: 0}); err != nil { // a caches ply 1
		t.Fatal(err)
	}
	if _, _, err := b.Play(ctx, games.MoveRequest{ID: id, Token: n.Token, Ply: 1, Pit: 7}); err != nil { // the game moves on behind a's back
		t.Fatal(err)
	}
	// a's row says ply 1, North to move: a request at ply 1 looks fine to it,
	// and the write must refuse it.
	if _, _, err := a.Play(ctx, games.MoveRequest{ID: id, Token: n.Token, Ply: 1, Pit: 8}); !errors.Is(err, games.ErrStalePly) {
		t.Fatalf("stale request through a stale cache: %v, want stale_ply", err)
	}
	// A request at the real ply goes through a, whose row is behind.
	g, _ := st.Game(ctx, id)
	legal := g.Position.LegalMoves(g.Rules)
	if _, _, err := a.Play(ctx, games.MoveRequest{ID: id, Token: s.Token, Ply: 2, Pit: legal.Next()}); err != nil {
		t.Fatalf("current request through a stale cache: %v", err)
	}
	ms, err := a.Moves(ctx, id, 0, 10)
	if err != nil || len(ms) != 3 {
		t.Fatalf("%d moves (%v), want 3", len(ms), err)
	}
}

// gameReading counts the reads of games.
type gameReading struct {
	*memory.Store
	reads atomic.Int64
}

func (r *gameReading) Game(ctx context.Context, id string) (games.Game, error) {
	r.reads.Add(1)
	return r.Store.Game(ctx, id)
}

// TestJoinFromCache: a join of a game this instance created and has
// waiting reads nothing before its write; a copy gone stale (the game
// joined elsewhere) or overdue costs a read and gets the answer the
// database's game gives.
func TestJoinFromCache(t *testing.T) {
	create := func(t *testing.T, svc *games.Service) games.Seat {
		t.Helper()
		s, err := svc.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.South})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, a, b *games.Service, clock *gamestest.Clock) string // the game a then joins
		reads int64                                                                  // reads of games by a's join
		want  error
	}{
		{"created here", func(t *testing.T, a, _ *games.Service, _ *gamestest.Clock) string {
			return create(t, a).Game.ID
		}, 0, nil},
		{"created elsewhere", func(t *testing.T, _, b *games.Service, _ *gamestest.Clock) string {
			return create(t, b).Game.ID
		}, 1, nil},
		{"joined elsewhere since", func(t *testing.T, a, b *games.Service, _ *gamestest.Clock) string {
			id := create(t, a).Game.ID
			if _, err := b.Join(t.Context(), id, nil); err != nil {
				t.Fatal(err)
			}
			return id
		}, 1, games.ErrSeatTaken},
		{"overdue", func(t *testing.T, a, _ *games.Service, clock *gamestest.Clock) string {
			id := create(t, a).Game.ID
			clock.Advance(time.Hour)
			return id
		}, 1, games.ErrFinished},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &gameReading{Store: memory.New()}
			clock := gamestest.NewClock()
			o := games.Options{Choose: lastLegal, Now: clock.Now, Expiries: games.Expiries{Waiting: time.Hour}}
			a, b := games.NewService(st, testCPU(), o), games.NewService(st, testCPU(), o)
			id := tc.setup(t, a, b, clock)
			before := st.reads.Load()
			seat, err := a.Join(t.Context(), id, nil)
			if reads := st.reads.Load() - before; reads != tc.reads {
				t.Errorf("%d reads of the game before the join's answer, want %d", reads, tc.reads)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("join: %v, want %v", err, tc.want)
			}
			if err == nil && (seat.Game.Status != games.Active || seat.Side != engine.North) {
				t.Fatalf("joined %s as %v, want active as North", seat.Game.Status, seat.Side)
			}
			if err != nil {
				// Refused once, the stale copy is gone: the next join reads.
				before = st.reads.Load()
				if _, err := a.Join(t.Context(), id, nil); !errors.Is(err, tc.want) || st.reads.Load() == before {
					t.Fatalf("join again: %v after %d reads, want %v after a read", err, st.reads.Load()-before, tc.want)
				}
			}
		})
	}
}

// TestAIBusy: with one AI search slot taken for longer than an AI move may
// wait, the next move against the AI is refused with ErrAIBusy, nothing is
// played and the move no longer waits; once the slot is free the same
// request is played.
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
	svc := games.NewService(openGameStore(t), budget.New(1), games.Options{Choose: choose, AIMoveTime: 50 * time.Millisecond, AIConcurrency: 1})
	holder, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 4})
	if err != nil {
		t.Fatal(err)
	}
	other, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 3})
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() {
		_, _, err := svc.Play(ctx, games.MoveRequest{ID: holder.Game.ID, Token: holder.Token, Ply: 0, Pit: 0})
		held <- err
	}()
	<-entered
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: other.Game.ID, Token: other.Token, Ply: 0, Pit: 0}); !errors.Is(err, games.ErrAIBusy) {
		t.Fatalf("move while the only AI slot is taken: %v, want ErrAIBusy", err)
	}
	if g, err := svc.Game(ctx, other.Game.ID); err != nil || g.Ply != 0 {
		t.Fatalf("refused move changed the game: ply %d, %v", g.Ply, err)
	}
	if lent, waiting := svc.AISlots(); lent != 1 || waiting != 0 {
		t.Fatalf("after giving up: %d slots lent, %d moves waiting; want 1 and none (the refused move left the queue)", lent, waiting)
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: other.Game.ID, Token: other.Token, Ply: 0, Pit: 0}); err != nil {
		t.Fatalf("the same move once the slot is free: %v", err)
	}
}

// TestCorruptGameHidesEngineErrors: a stored game whose history no longer
// replays is the server's fault. The error must say so (ErrCorrupt) and must
// not match the engine's errors, which the api answers as the client's.
func TestCorruptGameHidesEngineErrors(t *testing.T) {
	ctx := context.Background()
	st := openGameStore(t)
	svc := games.NewService(st, testCPU(), games.Options{Choose: lastLegal})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.Play(ctx, games.MoveRequest{ID: a.Game.ID, Token: a.Token, Ply: 0, Pit: 2}); err != nil {
		t.Fatal(err)
	}
	// Rewrite the record behind the service's back: North's pit 8 as the
	// first move, which South could never have played.
	g, err := st.Game(ctx, a.Game.ID)
	if err != nil {
		t.Fatal(err)
	}
	g.ID, g.History = "corrupt", []byte{8}
	if err := st.CreateGame(ctx, g, nil); err != nil {
		t.Fatal(err)
	}
	_, _, err = svc.Play(ctx, games.MoveRequest{ID: "corrupt", Token: b.Token, Ply: 1, Pit: 7})
	for _, tc := range []struct {
		name   string
		target error
		want   bool
	}{
		{"is ErrCorrupt", games.ErrCorrupt, true},
		{"not the client's illegal move", engine.ErrIllegalMove, false},
		{"not the client's game over", engine.ErrGameOver, false},
		{"not the client's bad position", engine.ErrInvalidPosition, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(err, tc.target); got != tc.want {
				t.Fatalf("errors.Is(%v, %v) = %v, want %v", err, tc.target, got, tc.want)
			}
		})
	}
}

// countingStore counts the reads of moves, which only the event feeds make.
type countingStore struct {
	*memory.Store
	records atomic.Int64
}

func (c *countingStore) Records(ctx context.Context, id string, from, limit int) ([]games.Record, error) {
	c.records.Add(1)
	return c.Store.Records(ctx, id, from, limit)
}

// TestFollowReadsOncePerChange: however many follow a game, each change is
// read from the store once (per instance), each event is made once, and
// every follower gets the same events, in order: the very same values, so
// the api encodes each once.
func TestFollowReadsOncePerChange(t *testing.T) {
	const followers, moves = 200, 6
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := &countingStore{Store: memory.New()}
	svc, hub := followed(t, st, games.Options{Choose: lastLegal}, games.HubOptions{PollInterval: time.Hour})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]string, followers)
	made := make([][]*games.Move, followers) // the move events' values, as each follower got them
	var started, wg sync.WaitGroup
	for i := range followers {
		started.Add(1)
		wg.Go(func() {
			first := true
			_ = hub.Follow(ctx, a.Game.ID, -1, time.Hour, stream{send: func(e games.Event) error {
				got[i] = append(got[i], fmt.Sprintf("%s %d", e.Kind, e.ID))
				if e.Move != nil {
					made[i] = append(made[i], e.Move)
				}
				if first {
					first = false
					started.Done()
				}
				if len(got[i]) == moves+1 {
					return errors.New("seen enough")
				}
				return nil
			}})
		})
	}
	started.Wait() // every follower has the game event
	readsBefore := st.records.Load()
	tokens := [2]string{a.Token, b.Token}
	g := b.Game
	for range moves {
		legal := g.Position.LegalMoves(g.Rules)
		if _, _, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: tokens[g.Position.ToMove], Ply: g.Ply, Pit: legal.Next()}); err != nil {
			t.Fatal(err)
		}
		if g, err = svc.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	want := []string{"game 0"}
	for ply := range moves {
		want = append(want, fmt.Sprintf("move %d", (ply+3)*8)) // versions 3 on: the creation is 1, the join 2
	}
	for i := range got {
		if fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Fatalf("follower %d got %v, want %v", i, got[i], want)
		}
	}
	if reads := st.records.Load() - readsBefore; reads > moves {
		t.Errorf("%d reads of moves for %d moves and %d followers, want at most one a move", reads, moves, followers)
	}
	for i := range made {
		for j, m := range made[i] {
			if m != made[0][j] {
				t.Fatalf("follower %d got move %d as a value of its own, want the one every follower shares", i, m.Ply+1)
			}
		}
	}
}

// eventually waits until cond holds, and fails the test when it does not
// within ten seconds.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after 10s: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// firstLegal is the lowest legal pit of the side to move in g.
func firstLegal(g *games.Game) int {
	legal := g.Position.LegalMoves(g.Rules)
	return legal.Next()
}

// TestPlayOneSearchPerPly: 20 copies of a move request against the level-8
// AI, sent at once, run one search. The AI holds its search until the 19
// other copies wait for it, so none could have gone its own way: one copy
// is played and 19 get its very bytes, replayed. Requests for another pit at
// that ply, arriving meanwhile, wait too and are told the ply is stale,
// without a search of their own.
func TestPlayOneSearchPerPly(t *testing.T) {
	const copies, others = 20, 5
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var (
		svc      *games.Service
		id       string
		searches atomic.Int64
	)
	choose := func(ctx context.Context, p engine.Position, r engine.Rules, hist []engine.Position, level int, seed uint64) (int, error) {
		searches.Add(1)
		// Should the copies not be held here, the count of searches fails
		// the test when the move's time is up; it does not hang.
		for svc.Waiting(id, 0) < copies-1+others && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		return lastLegal(ctx, p, r, hist, level, seed)
	}
	svc = games.NewService(openGameStore(t), testCPU(), games.Options{Choose: choose, AIMoveTime: 10 * time.Second})
	me, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 8})
	if err != nil {
		t.Fatal(err)
	}
	id = me.Game.ID
	req := games.MoveRequest{ID: id, Token: me.Token, Ply: 0, Pit: 2}
	type answer struct {
		body     []byte
		replayed bool
		err      error
	}
	answers := make([]answer, copies+others)
	var wg sync.WaitGroup
	for i := range copies {
		wg.Go(func() {
			a := &answers[i]
			a.body, a.replayed, a.err = play(ctx, svc, req)
		})
	}
	eventually(t, "the first copy searches, the rest wait for it", func() bool { return svc.Waiting(id, 0) == copies-1 })
	other := req
	other.Pit = 3
	for i := copies; i < copies+others; i++ {
		wg.Go(func() {
			a := &answers[i]
			a.body, a.replayed, a.err = play(ctx, svc, other)
		})
	}
	wg.Wait()

	if n := searches.Load(); n != 1 {
		t.Errorf("%d AI searches for ply 0, want 1", n)
	}
	var played []byte
	replays := 0
	for i, a := range answers[:copies] {
		switch {
		case a.err != nil:
			t.Fatalf("copy %d: %v", i, a.err)
		case !a.replayed && played != nil:
			t.Fatalf("copy %d was played too", i)
		case !a.replayed:
			played = a.body
		default:
			replays++
		}
	}
	if played == nil || replays != copies-1 {
		t.Fatalf("%d copies replayed and played %q, want one played and %d replayed", replays, played, copies-1)
	}
	for i, a := range answers[:copies] {
		if string(a.body) != string(played) {
			t.Fatalf("copy %d answered %s, the played one %s", i, a.body, played)
		}
	}
	for i, a := range answers[copies:] {
		var stale *games.StalePlyError
		if !errors.As(a.err, &stale) || stale.Current != 2 || a.body != nil {
			t.Fatalf("pit 3 at ply 0, request %d: %q %v; want stale_ply at ply 2", i, a.body, a.err)
		}
	}
	if g, err := svc.Game(ctx, id); err != nil || g.Ply != 2 || string(g.History) != "\x02\x0b" {
		t.Fatalf("game at ply %d with history %v (%v), want pit 2 and the AI's 11", g.Ply, g.History, err)
	}
}

// TestAIBusyTellsWhatWasPlayed: a move that finds no AI search slot in time
// is answered ErrAIBusy only when nothing was played at its ply. Here a
// second instance (another Service on the same store) plays the very same
// request while this one waits for a slot: the waiting copy gets the
// played one's answer, replayed, and a request for another pit gets
// stale_ply, not ai_busy.
func TestAIBusyTellsWhatWasPlayed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st := openGameStore(t)
	release := make(chan struct{})
	choose := func(ctx context.Context, p engine.Position, r engine.Rules, hist []engine.Position, level int, seed uint64) (int, error) {
		if level == 4 { // the game that holds busy's only slot
			<-release
		}
		return lastLegal(ctx, p, r, hist, level, seed)
	}
	busy := games.NewService(st, budget.New(1), games.Options{Choose: choose, AIMoveTime: 200 * time.Millisecond, AIConcurrency: 1})
	other := games.NewService(st, testCPU(), games.Options{Choose: choose, AIMoveTime: 200 * time.Millisecond})
	holder, err := busy.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 4})
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 1)
	go func() {
		_, _, err := busy.Play(ctx, games.MoveRequest{ID: holder.Game.ID, Token: holder.Token, Ply: 0, Pit: 0})
		held <- err
	}()
	eventually(t, "the only slot is taken", func() bool { lent, _ := busy.AISlots(); return lent == 1 })
	defer func() {
		close(release)
		if err := <-held; err != nil {
			t.Error(err)
		}
	}()

	for _, tc := range []struct {
		name     string
		pit      int // the waiting request's; the other instance plays pit 0
		replayed bool
		want     error
	}{
		{"the same request", 0, true, nil},
		{"another pit", 1, false, games.ErrStalePly},
	} {
		t.Run(tc.name, func(t *testing.T) {
			me, err := busy.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: 3})
			if err != nil {
				t.Fatal(err)
			}
			type answer struct {
				body     []byte
				replayed bool
				err      error
			}
			waited := make(chan answer, 1)
			go func() {
				var a answer
				a.body, a.replayed, a.err = play(ctx, busy, games.MoveRequest{ID: me.Game.ID, Token: me.Token, Ply: 0, Pit: tc.pit})
				waited <- a
			}()
			eventually(t, "the request waits for a slot", func() bool { _, waiting := busy.AISlots(); return waiting == 1 })
			played, replayed, err := play(ctx, other, games.MoveRequest{ID: me.Game.ID, Token: me.Token, Ply: 0, Pit: 0})
			if err != nil || replayed {
				t.Fatalf("the other instance: %v (replayed %v)", err, replayed)
			}
			a := <-waited
			if !errors.Is(a.err, tc.want) || a.replayed != tc.replayed || (tc.replayed && string(a.body) != string(played)) {
				t.Fatalf("the waiting request: %q (replayed %v) %v; want replayed %v, error %v (the other instance answered %s)",
					a.body, a.replayed, a.err, tc.replayed, tc.want, played)
			}
		})
	}
}

// TestAIFairShare is the starvation of issue "Game sessions under abuse":
// one client address plays eight level-8 games at once, in waves, two of
// them sent eight copies of each request; meanwhile another address's
// level-1 game is played every time (a level that does not search takes no
// slot), and a third address's level-8 game gets its move within twice the
// AI's time bound (one address holds at most half the slots, and the other
// address's move is not queued behind its waiting ones). The AI sleeps out
// its time on the bubble's clock (testing/synctest), so the test is about
// order and fairness, not the machine's speed: a move that got its slot at
// once takes the AI's 100 ms, one queued behind a wave at least 200.
func TestAIFairShare(t *testing.T) {
	synctest.Test(t, testAIFairShare)
}

func testAIFairShare(t *testing.T) {
	const (
		aiTime = 100 * time.Millisecond
		waves  = 4
		heavy  = "192.0.2.1"
		light  = "198.51.100.2"
		strong = "203.0.113.3"
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sleepy := func(ctx context.Context, p engine.Position, r engine.Rules, hist []engine.Position, level int, seed uint64) (int, error) {
		<-ctx.Done() // think for the whole of the level's time
		return lastLegal(ctx, p, r, hist, level, seed)
	}
	svc := games.NewService(openGameStore(t), budget.New(4), games.Options{Choose: sleepy, AIMoveTime: aiTime, AIConcurrency: 4})
	create := func(level int, client string) games.Seat {
		t.Helper()
		s, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South, AILevel: level, Client: client})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var many []games.Seat
	for range 8 {
		many = append(many, create(8, heavy))
	}
	one, eight := create(1, light), create(8, strong)
	// move plays at the game's current ply and says how long it took.
	move := func(s *games.Seat, client string) (time.Duration, bool, error) {
		g, err := svc.Game(ctx, s.Game.ID)
		if err != nil {
			return 0, false, err
		}
		start := time.Now()
		_, replayed, err := svc.Play(ctx, games.MoveRequest{ID: g.ID, Token: s.Token, Ply: g.Ply, Pit: firstLegal(&g), Client: client})
		return time.Since(start), replayed, err
	}
	for wave := range waves {
		var wg sync.WaitGroup
		for i := range many {
			g, err := svc.Game(ctx, many[i].Game.ID)
			if err != nil {
				t.Fatal(err)
			}
			req := games.MoveRequest{ID: g.ID, Token: many[i].Token, Ply: g.Ply, Pit: firstLegal(&g), Client: heavy}
			copies := 1
			if i < 2 {
				copies = 8
			}
			for range copies {
				wg.Go(func() { _, _, _ = svc.Play(ctx, req) }) // ai_busy for most: not this test's business
			}
		}
		// Once the busy address holds its share and queues the rest, the
		// others come.
		synctest.Wait()
		if lent, waiting := svc.AISlots(); lent < 2 || waiting == 0 {
			t.Fatalf("wave %d: the busy address holds %d slots with %d moves waiting, want 2 and some", wave, lent, waiting)
		}
		if lent, _ := svc.AISlots(); lent > 2 {
			t.Fatalf("wave %d: one address holds %d of 4 slots, want at most 2", wave, lent)
		}
		var lightTook, strongTook time.Duration
		var lightErr, strongErr error
		var lightReplayed, strongReplayed bool
		var others sync.WaitGroup
		others.Go(func() { lightTook, lightReplayed, lightErr = move(&one, light) })
		others.Go(func() { strongTook, strongReplayed, strongErr = move(&eight, strong) })
		others.Wait()
		if lightErr != nil || lightReplayed {
			t.Errorf("wave %d: the level-1 game: %v (replayed %v), want its move played", wave, lightErr, lightReplayed)
		}
		if strongErr != nil || strongReplayed || strongTook >= 2*aiTime {
			t.Errorf("wave %d: the other address's level-8 game: %v (replayed %v) in %v, want its move played in under %v",
				wave, strongErr, strongReplayed, strongTook, 2*aiTime)
		}
		t.Logf("wave %d: level 1 in %v, the other level 8 in %v", wave, lightTook, strongTook)
		wg.Wait()
	}
}
