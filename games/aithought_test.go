package games_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// Options.AIThought hears of each move the AI chose, with its level and
// the time the choice took on the service's clock.
func TestAIThoughtHook(t *testing.T) {
	var mu sync.Mutex
	clock := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return clock
	}
	const think = 30 * time.Millisecond
	choose := func(_ context.Context, p engine.Position, r engine.Rules, _ []engine.Position, _ int, _ uint64) (int, error) {
		mu.Lock()
		clock = clock.Add(think)
		mu.Unlock()
		legal := p.LegalMoves(r)
		return legal.Next(), nil
	}
	type thought struct {
		level int
		took  time.Duration
	}
	var heard []thought
	s := games.NewService(memory.New(), testCPU(), games.Options{Choose: choose, Now: now,
		AIThought: func(level int, took time.Duration) { heard = append(heard, thought{level, took}) }})
	// The AI plays South and opens.
	seat, err := s.Create(t.Context(), games.NewGame{Start: engine.Start(), Seat: engine.North, AILevel: 5})
	if err != nil {
		t.Fatal(err)
	}
	if seat.Game.Ply != 1 {
		t.Fatalf("the AI did not open: ply %d", seat.Game.Ply)
	}
	if len(heard) != 1 || heard[0] != (thought{5, think}) {
		t.Fatalf("heard %+v, want one move of level 5 taking %v", heard, think)
	}
}
