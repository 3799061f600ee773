package puzzles

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Generator holds what the proofs of package gen need beyond the rules: the
// endgame table of version 2's endgame puzzles, built once, on first need,
// or handed in, and shared by every call. Its methods wait for the table
// only when the work needs it (gen.NeedsTable), so serving a version 1
// puzzle never waits for a build. A Feed holds one. Its methods are safe for
// concurrent use.
type Generator struct {
	workers  int // the goroutines its table build and GenerateDays run on
	once     sync.Once
	building atomic.Bool // the build has started (or the table was given)
	done     chan struct{}
	table    *tablebase.Table
	err      error
}

// NewGenerator returns a generator whose table is not built yet, built on
// workers goroutines when it is (the caller knows the cores; below 1
// counts as 1).
func NewGenerator(workers int) *Generator {
	return &Generator{workers: max(workers, 1), done: make(chan struct{})}
}

// NewGeneratorWith returns a generator that proves endgame puzzles with tb,
// a table the caller built or opened (a server's, say), instead of building
// its own; tb must pass gen.CheckTable.
func NewGeneratorWith(tb *tablebase.Table) (*Generator, error) {
	if err := gen.CheckTable(tb); err != nil {
		return nil, err
	}
	g := &Generator{workers: 1, done: make(chan struct{}), table: tb}
	g.once.Do(func() {
		g.building.Store(true)
		close(g.done)
	})
	return g, nil
}

// EndgameTable returns the table endgame puzzles are proved with, building
// it on the first call: gen.EndgameSeeds seeds, the default rules. The
// build is not tied to any one caller's ctx (callers share it); a caller
// whose ctx ends first gets ctx's error and the build goes on for the
// others.
func (g *Generator) EndgameTable(ctx context.Context) (*tablebase.Table, error) {
	g.StartEndgameTable(context.Background(), nil)
	select {
	case <-g.done:
		return g.table, g.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// StartEndgameTable starts building the table in the background, each piece
// of the work admitted by gate (a server's CPU budget), unless it is built
// or being built. The build stops when ctx ends (a server's life: a server
// that stops leaves no build behind), and the table is then ctx's error. A server calls it at start, before any generation:
// generations then wait for the table before they take a unit of the
// budget (see awaitTable), so a build that waits for units never waits for
// a generation that waits for the build. A build started by EndgameTable
// instead, from within a generation, is held back by nothing.
func (g *Generator) StartEndgameTable(ctx context.Context, gate tablebase.Gate) {
	g.once.Do(func() {
		g.building.Store(true)
		go func() {
			defer close(g.done)
			g.table, g.err = tablebase.BuildGated(ctx, gen.EndgameSeeds, engine.Rules{}, g.workers, nil, gate)
		}()
	})
}

// awaitTable waits for a build of the table under way to finish; it starts
// none. A generation calls it before taking a unit of the CPU budget (see
// StartEndgameTable).
func (g *Generator) awaitTable(ctx context.Context) error {
	if !g.building.Load() {
		return nil
	}
	select {
	case <-g.done:
		return nil // the build's own error is the generation's to meet
	case <-ctx.Done():
		return ctx.Err()
	}
}

// tableFor returns the table for generator version's puzzles: none for
// version 1, which has no endgame puzzles, so that it never waits for a
// build.
func (g *Generator) tableFor(ctx context.Context, version int) (*tablebase.Table, error) {
	if version < 2 {
		return nil, nil
	}
	return g.EndgameTable(ctx)
}

// proofTable returns the table p's proof needs: only an endgame puzzle's
// does.
func (g *Generator) proofTable(ctx context.Context, p gen.Puzzle) (*tablebase.Table, error) {
	if !gen.NeedsTable(p) {
		return nil, nil
	}
	return g.EndgameTable(ctx)
}

// Generate is gen.Daily with the generator's table.
func (g *Generator) Generate(ctx context.Context, date time.Time, version int) (gen.Puzzle, error) {
	tb, err := g.tableFor(ctx, version)
	if err != nil {
		return gen.Puzzle{}, err
	}
	return gen.Daily(ctx, tb, date, version)
}

// GenerateDays is gen.Days with the generator's table, built only if a day
// is made by version 2 or later, on the generator's workers.
func (g *Generator) GenerateDays(ctx context.Context, first time.Time, n int, cutover time.Time) ([]gen.Puzzle, error) {
	tb, err := g.tableFor(ctx, gen.VersionFor(first.AddDate(0, 0, n-1), cutover))
	if err != nil {
		return nil, err
	}
	return gen.Days(ctx, tb, first, n, cutover, g.workers)
}

// Practice is gen.Practice with the generator's table.
func (g *Generator) Practice(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
	tb, err := g.EndgameTable(ctx)
	if err != nil {
		return gen.Puzzle{}, err
	}
	return gen.Practice(ctx, tb, version, f, seq)
}

// Verify is gen.Verify with the generator's table.
func (g *Generator) Verify(ctx context.Context, p gen.Puzzle) error {
	tb, err := g.proofTable(ctx, p)
	if err != nil {
		return err
	}
	return gen.Verify(tb, p)
}

// VerifyPractice is gen.VerifyPractice with the generator's table.
func (g *Generator) VerifyPractice(ctx context.Context, p gen.Puzzle) error {
	tb, err := g.proofTable(ctx, p)
	if err != nil {
		return err
	}
	return gen.VerifyPractice(tb, p)
}

// Check is gen.Check with the generator's table.
func (g *Generator) Check(ctx context.Context, p gen.Puzzle, moves []int, giveUp bool) (gen.Attempt, error) {
	tb, err := g.proofTable(ctx, p)
	if err != nil {
		return gen.Attempt{}, err
	}
	return gen.Check(tb, p, moves, giveUp)
}
