package puzzles_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/store/memory"
)

// FeedOptions.Attempted hears of every attempt answered: how it ended, and
// whether it moved ratings.
func TestAttemptedHook(t *testing.T) {
	ctx := context.Background()
	st := memory.New()
	var mu sync.Mutex
	var heard []string
	feed := puzzles.NewFeed(st, testCPU(), puzzles.FeedOptions{Now: func() time.Time { return quickDay },
		Attempted: func(r puzzles.AttemptResult, rated bool) {
			mu.Lock()
			defer mu.Unlock()
			heard = append(heard, fmt.Sprintf("%s rated=%v", r, rated))
		}})
	p, _, err := players.NewService(st, func() time.Time { return quickDay }).Create(ctx, "solver")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := feed.ByDate(ctx, quickDay.AddDate(0, 0, -1))
	if err != nil {
		t.Fatal(err)
	}
	var mine []int
	for i := 0; i < len(sp.Puzzle.Solution); i += 2 {
		mine = append(mine, sp.Puzzle.Solution[i])
	}
	wrong := 0
	for wrong == sp.Puzzle.Solution[0] {
		wrong++
	}
	steps := []struct {
		moves  []int
		giveUp bool
		player *players.Player
	}{
		{mine, false, &p},          // solved, the player's first: rated
		{mine, false, nil},         // solved, anonymous
		{[]int{wrong}, false, nil}, // a wrong first move
		{mine[:0], true, nil},      // given up
	}
	if len(mine) > 1 {
		steps = append(steps, struct {
			moves  []int
			giveUp bool
			player *players.Player
		}{mine[:1], false, nil}) // right so far
	}
	for _, s := range steps {
		_, _ = feed.AttemptAs(ctx, sp.Puzzle.ID, s.moves, s.giveUp, s.player)
	}
	want := []string{"solved rated=true", "solved rated=false", "wrong rated=false", "gave_up rated=false"}
	if len(mine) > 1 {
		want = append(want, "partial rated=false")
	}
	if !slices.Equal(heard, want) {
		t.Fatalf("heard %q, want %q", heard, want)
	}
}
