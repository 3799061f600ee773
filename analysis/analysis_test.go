package analysis_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// TestAnalyze: what takes a unit of the budget and what does not, and how a
// search's end becomes an answer or an error.
func TestAnalyze(t *testing.T) {
	tb, err := tablebase.Build(context.Background(), 4, engine.Rules{}, testWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	endgames, err := search.NewEndgames(tb)
	if err != nil {
		t.Fatal(err)
	}
	partial := search.Analysis{BestMove: 1, Moves: []search.MoveScore{{Pit: 1}}}
	tests := []struct {
		name     string
		position string
		full     bool // the budget's only unit is taken
		search   func(context.Context) (search.Analysis, error)
		wantErr  error
		searched bool
	}{
		{name: "a finished position is no_legal_move, budget or not", position: "s-000000-000100-24-23", full: true, wantErr: search.ErrNoMoves},
		{name: "a table's position needs no unit", position: "n-000000-000001-24-23", full: true},
		{name: "a search waits for a unit, then is busy", position: "s-444444-444444-0-0", full: true, wantErr: analysis.ErrBusy},
		{name: "a search with a unit", position: "s-444444-444444-0-0", searched: true},
		{
			name: "cut short with a move found: an answer", position: "s-444444-444444-0-0", searched: true,
			search: func(ctx context.Context) (search.Analysis, error) { <-ctx.Done(); return partial, ctx.Err() },
		},
		{
			name: "cut short before any move: the error", position: "s-444444-444444-0-0", searched: true,
			search:  func(ctx context.Context) (search.Analysis, error) { <-ctx.Done(); return search.Analysis{}, ctx.Err() },
			wantErr: context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				cpu := budget.New(1)
				if tt.full {
					release, err := cpu.Acquire(ctx, budget.Request{})
					if err != nil {
						t.Fatal(err)
					}
					defer release()
				}
				searched := false
				svc := analysis.New(cpu, analysis.Options{Endgames: endgames, Wait: time.Second,
					Search: func(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error) {
						searched = true
						if used := cpu.Stats().Used; used != 1 {
							t.Errorf("searching with %d units taken, want 1", used)
						}
						if tt.search != nil {
							return tt.search(ctx)
						}
						return partial, nil
					}})
				a, err := svc.Analyze(ctx, engine.MustParse(tt.position), engine.Rules{}, search.Limits{Depth: 4, Time: time.Second})
				if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				if err == nil && len(a.Moves) == 0 {
					t.Errorf("an answer without moves: %+v", a)
				}
				if searched != tt.searched {
					t.Errorf("searched %v, want %v", searched, tt.searched)
				}
				if used := cpu.Stats().Used; used != map[bool]int{true: 1}[tt.full] {
					t.Errorf("%d units taken after the analysis", used)
				}
			})
		})
	}
}
