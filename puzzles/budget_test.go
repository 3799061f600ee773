package puzzles_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/memory"
)

// TestGenerationWaitsForTheGatedBuild: with the generator's table being
// built within a CPU budget of one unit (as serve starts it), a generation
// that needs the table waits for the build before it takes the unit, so
// neither waits for the other: without that, the generation would hold the
// only unit while the build's chunks queue for it.
func TestGenerationWaitsForTheGatedBuild(t *testing.T) {
	if testing.Short() || puzzles.RaceDetector {
		t.Skip("builds the 12-seed table: seconds, a minute under the race detector")
	}
	cpu := budget.New(1)
	g := puzzles.NewGenerator(testWorkers)
	g.StartEndgameTable(t.Context(), func(ctx context.Context) (func(), error) {
		return cpu.Acquire(ctx, budget.Request{Priority: budget.Generation, Wait: -1})
	})
	made := errors.New("made with the table")
	today := time.Date(2027, 3, 1, 0, 0, 0, 0, time.UTC)
	feed := puzzles.NewFeed(memory.New(), cpu, puzzles.FeedOptions{
		First: today, Now: func() time.Time { return today }, Generator: g,
		// The feed's own bound (60 s by default) would end the generation
		// before the test's: at a load average of 30 the gated build
		// alone took longer.
		GenerateTimeout: 10 * time.Minute,
		// A version 2 generation: it needs the table, in the unit it holds.
		Generate: func(ctx context.Context, d time.Time) (gen.Puzzle, error) {
			if _, err := g.EndgameTable(ctx); err != nil {
				return gen.Puzzle{}, err
			}
			return gen.Puzzle{}, made
		},
	})
	// Generous: it catches a deadlock, and a gated build on a loaded machine
	// took 26 s at a load average of 15 on 2 cores, over 60 s at 30.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if _, err := feed.ByDate(ctx, today); !errors.Is(err, made) {
		t.Fatalf("the generation: %v, want it to run once the table is built", err)
	}
	if st := cpu.Stats(); st.Used != 0 {
		t.Errorf("%d units left taken", st.Used)
	}
}
