package api

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/internal/httpx"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// countingEncoder is encodeEvent, counting its calls.
func countingEncoder(n *atomic.Int64) func(games.Event) ([]byte, error) {
	return func(e games.Event) ([]byte, error) {
		n.Add(1)
		return encodeEvent(e)
	}
}

// TestFramesOncePerEvent: every follower asking at once for the frame of
// one event gets the same bytes from one encoding; another event, another
// kind with the same id, or the same event of another game is encoded on
// its own.
func TestFramesOncePerEvent(t *testing.T) {
	const followers = 5000
	var encoded atomic.Int64
	fs := newFrames(countingEncoder(&encoded))
	move := games.Event{ID: 1, Kind: games.EventMove, Move: &games.Move{Ply: 0, Pit: 2, Position: engine.Start()}}
	got := make([][]byte, followers)
	var wg sync.WaitGroup
	for i := range followers {
		wg.Go(func() {
			f, err := fs.frame("g1", move)
			if err != nil {
				t.Error(err)
			}
			got[i] = f
		})
	}
	wg.Wait()
	if n := encoded.Load(); n != 1 {
		t.Fatalf("%d encodings for %d followers of one event, want 1", n, followers)
	}
	for i := range got {
		if &got[i][0] != &got[0][0] {
			t.Fatalf("follower %d got a frame of its own, want the shared one", i)
		}
	}
	if !bytes.HasPrefix(got[0], []byte("id: 1\nevent: move\ndata: {")) {
		t.Fatalf("frame %q", got[0])
	}

	g := &games.Game{ID: "g1", Ply: 1, Status: games.Finished}
	for _, tc := range []struct {
		name string
		game string
		e    games.Event
	}{
		{"the end with the last move's id", "g1", games.Event{ID: 1, Kind: games.EventEnd, Game: g}},
		{"the same event of another game", "g2", move},
		{"the next move", "g1", games.Event{ID: 2, Kind: games.EventMove, Move: &games.Move{Ply: 1, Pit: 7, Position: engine.Start()}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := encoded.Load()
			for range 3 {
				if _, err := fs.frame(tc.game, tc.e); err != nil {
					t.Fatal(err)
				}
			}
			if n := encoded.Load() - before; n != 1 {
				t.Fatalf("%d encodings, want 1", n)
			}
		})
	}
}

// TestEventStreamsShareFrames: many followers of a game, each on a stream
// of its own as the handler makes it, all get the same frames, in order,
// for one encoding of each event.
func TestEventStreamsShareFrames(t *testing.T) {
	const followers, moves = 500, 4
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	st := memory.New()
	hub := games.NewHub(st, games.HubOptions{PollInterval: time.Hour})
	svc := games.NewService(st, testCPU(), games.Options{Choose: lastLegal, Changed: hub})
	a, err := svc.Create(ctx, games.NewGame{Start: engine.Start(), Seat: engine.South})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Join(ctx, a.Game.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	var encoded atomic.Int64
	fs := newFrames(countingEncoder(&encoded))
	recs := make([]*httptest.ResponseRecorder, followers)
	var wg, following sync.WaitGroup
	for i := range followers {
		recs[i] = httptest.NewRecorder()
		out := &firstFlush{Stream: eventStream{SSEWriter: httpx.NewSSEWriter(recs[i]), frames: fs, game: a.Game.ID}, done: following.Done}
		following.Add(1)
		wg.Go(func() {
			if err := hub.Follow(ctx, a.Game.ID, -1, time.Hour, out); err != nil {
				t.Error(err)
			}
		})
	}
	// Every follower shares the game's one feed before the moves, and has
	// its game event: one that came later would start from a later game.
	following.Wait()
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
	if _, err := svc.Resign(ctx, g.ID, games.Actor{Token: a.Token}); err != nil {
		t.Fatal(err)
	}
	wg.Wait() // the end event ends every stream
	want := recs[0].Body.String()
	// The game event (no id), the moves of versions 3 to 6, the end at 7.
	if ids := sseIDs(want); ids != "24 32 40 48 56" || !strings.HasPrefix(want, "event: game\n") {
		t.Fatalf("follower 0 got the events with ids %s, want the game, then 24 32 40 48 56", ids)
	}
	for i, r := range recs {
		if r.Body.String() != want {
			t.Fatalf("follower %d got\n%s\nwant\n%s", i, r.Body, want)
		}
	}
	if n := encoded.Load(); n != moves+2 {
		t.Fatalf("%d encodings for %d events and %d followers, want one an event", n, moves+2, followers)
	}
}

// firstFlush is a stream that calls done after its first Flush: its
// follower has joined the game's feed and been sent what it held.
type firstFlush struct {
	games.Stream
	once sync.Once
	done func()
}

func (f *firstFlush) Flush() error {
	err := f.Stream.Flush()
	f.once.Do(f.done)
	return err
}

// sseIDs lists the ids of the frames in a stream's body.
func sseIDs(body string) string {
	var ids []string
	for line := range strings.Lines(body) {
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			ids = append(ids, strings.TrimSpace(id))
		}
	}
	return strings.Join(ids, " ")
}

// BenchmarkFrameShared is what each follower pays for an event's frame
// once someone has made it: a look-up in the memo, all followers at once.
func BenchmarkFrameShared(b *testing.B) {
	fs := newFrames(encodeEvent)
	e := games.Event{ID: 1, Kind: games.EventMove, Move: &games.Move{Ply: 0, Pit: 2, Position: engine.Start()}}
	if _, err := fs.frame("g1", e); err != nil {
		b.Fatal(err)
	}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := fs.frame("g1", e); err != nil {
				b.Error(err)
			}
		}
	})
}

// BenchmarkFrameEncode is the encoding of a move's frame, which the memo
// makes once per event instead of once per follower.
func BenchmarkFrameEncode(b *testing.B) {
	e := games.Event{ID: 1, Kind: games.EventMove, Move: &games.Move{Ply: 0, Pit: 2, Position: engine.Start()}}
	for b.Loop() {
		if _, err := encodeEvent(e); err != nil {
			b.Fatal(err)
		}
	}
}
