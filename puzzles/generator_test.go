package puzzles_test

import (
	"context"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/puzzles"
)

// TestNewGeneratorWith: a generator given a table proves with it instead of
// building its own, and refuses one that could give other puzzles.
func TestNewGeneratorWith(t *testing.T) {
	ctx := context.Background()
	tb, err := puzzles.SharedGenerator().EndgameTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g, err := puzzles.NewGeneratorWith(tb)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := g.EndgameTable(ctx); got != tb || err != nil {
		t.Fatalf("EndgameTable = %p, %v; want the table given", got, err)
	}
	small, err := tablebase.Build(ctx, 3, engine.Rules{}, testWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := puzzles.NewGeneratorWith(small); err == nil {
		t.Error("a 3-seed table was taken")
	}
}
