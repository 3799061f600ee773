package gen

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Endgame puzzles (from version 2): the player to move wins with perfect
// play, and exactly one move keeps the win; every other legal move gives a
// draw or a loss with perfect play. The endgame table proves it: the value
// of every position with at most EndgameSeeds seeds on the board under the
// default rules, and each move's value anchored at the puzzle's position
// (tablebase.Table.Moves), whose sign with the captured counts is the
// result.
//
// How many moves the win needs is measured by the same exhaustive search as
// the win goal, with the table pruning the winner's moves to those that keep
// the win (exact: a move the table does not call a win cannot force one):
// the fewest own moves, key included, within which the winner forces the
// game to end (majority or no moves) in their win, whatever the defence.
// That is the puzzle's Depth; it grades the puzzle as a win's depth does
// (plus one, for the perfect play the other moves must be judged by), and
// the solution line is that win played out to the end of the game: the
// most stubborn defence, the fastest winning replies. A win that needs more
// than maxEndgameDepth own moves, or that only a cycle scored by the
// repetition rule gives, makes no puzzle: it could not be shown to the end.
//
// The solver plays it out like a win puzzle (Check): the key first, then
// any move that still forces the win within the moves left, against the
// most stubborn defence.
//
// A day does not hold out for the goal: endgame keys that relay 8 legs are
// rare, and nearly always the biggest capture. A deep day that found
// nothing it held out for looks for one in its endgame pass (generateV2).

// EndgameSeeds is the most seeds on the board of an endgame puzzle: the
// size of the table version 2 proves them with (a part of version 2's
// definition, like its budgets; 2.7 M boards, built in 2-3 s of CPU).
const EndgameSeeds = 12

// maxEndgameDepth is the most own moves an endgame puzzle's win may need.
const maxEndgameDepth = 5

// Generator makes and proves puzzles, holding what the proofs need beyond
// the rules: the endgame table of version 2's endgame puzzles, built once,
// on first need, and shared by every call. A Feed holds one; the package
// functions (Generate, GenerateVersion, GeneratePractice, Verify, Check)
// make a fresh one each call, so they build the table again whenever they
// need it. Its methods are safe for concurrent use.
type Generator struct {
	once     sync.Once
	building atomic.Bool // the build has started (or the table was given)
	done     chan struct{}
	table    *tablebase.Table
	err      error
}

// NewGenerator returns a generator whose table is not built yet.
func NewGenerator() *Generator { return &Generator{done: make(chan struct{})} }

// NewGeneratorWith returns a generator that proves endgame puzzles with tb,
// a table the caller built or opened (a server's, say), instead of building
// its own. tb must hold the default rules and at least EndgameSeeds seeds:
// the values of boards with at most EndgameSeeds seeds are the same in
// every such table, so the puzzles are too.
func NewGeneratorWith(tb *tablebase.Table) (*Generator, error) {
	if tb.Rules() != (engine.Rules{}) || tb.MaxSeeds() < EndgameSeeds {
		return nil, fmt.Errorf("puzzles: an endgame table of %d seeds under %+v, want %d or more under the default rules",
			tb.MaxSeeds(), tb.Rules(), EndgameSeeds)
	}
	g := &Generator{done: make(chan struct{}), table: tb}
	g.once.Do(func() {
		g.building.Store(true)
		close(g.done)
	})
	return g, nil
}

// EndgameTable returns the table endgame puzzles are proved with, building
// it on the first call: EndgameSeeds seeds, the default rules. The build is
// not tied to any one caller's ctx (callers share it); a caller whose ctx
// ends first gets ctx's error and the build goes on for the others.
func (g *Generator) EndgameTable(ctx context.Context) (*tablebase.Table, error) {
	g.StartEndgameTable(nil)
	select {
	case <-g.done:
		return g.table, g.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// StartEndgameTable starts building the table in the background, each piece
// of the work admitted by gate (a server's CPU budget), unless it is built
// or being built. A server calls it at start, before any generation:
// generations then wait for the table before they take a unit of the
// budget (see awaitTable), so a build that waits for units never waits for
// a generation that waits for the build. A build started by EndgameTable
// instead, from within a generation, is held back by nothing.
func (g *Generator) StartEndgameTable(gate tablebase.Gate) {
	g.once.Do(func() {
		g.building.Store(true)
		go func() {
			defer close(g.done)
			g.table, g.err = tablebase.BuildGated(context.Background(), EndgameSeeds, engine.Rules{}, nil, gate)
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

// tableFor returns the endgame table for a puzzle of version under rules r,
// or nil when that puzzle can have no endgame goal (version 1, other rules).
func (g *Generator) tableFor(ctx context.Context, version int, r engine.Rules) (*tablebase.Table, error) {
	if version < 2 || r != (engine.Rules{}) {
		return nil, nil
	}
	return g.EndgameTable(ctx)
}

// Generate returns the puzzle of date made by the given generator version:
// the same date and version give the same puzzle on any machine.
func (g *Generator) Generate(ctx context.Context, date time.Time, version int) (Puzzle, error) {
	date = Day(date)
	if err := checkDate(date); err != nil {
		return Puzzle{}, err
	}
	switch version {
	case 1:
		return generateV1(ctx, date)
	case 2:
		tb, err := g.EndgameTable(ctx)
		if err != nil {
			return Puzzle{}, err
		}
		return generateV2(ctx, date, tb)
	}
	return Puzzle{}, fmt.Errorf("%w: %d", ErrUnknownVersion, version)
}

// Verify is the package's Verify with the generator's table.
func (g *Generator) Verify(ctx context.Context, p Puzzle) error {
	tb, err := g.puzzleTable(ctx, p)
	if err != nil {
		return err
	}
	return verify(p, tb)
}

// Check is the package's Check with the generator's table.
func (g *Generator) Check(ctx context.Context, p Puzzle, moves []int, giveUp bool) (Attempt, error) {
	tb, err := g.puzzleTable(ctx, p)
	if err != nil {
		return Attempt{}, err
	}
	return check(p, moves, giveUp, tb)
}

// puzzleTable returns the table p's proof needs: only an endgame puzzle's
// does.
func (g *Generator) puzzleTable(ctx context.Context, p Puzzle) (*tablebase.Table, error) {
	if p.Goal != GoalEndgame {
		return nil, nil
	}
	return g.tableFor(ctx, p.Version, p.Rules)
}

// findEndgame decides whether p makes an endgame puzzle, by tb (nil: it
// cannot), and returns its finding with the key's index in facts.
func findEndgame(p engine.Position, r engine.Rules, facts []moveFacts, tb *tablebase.Table) (finding, bool) {
	f := finding{goal: GoalEndgame, key: -1}
	if tb == nil || tb.Rules() != r || len(facts) < 2 || p.BoardSeeds() > EndgameSeeds {
		return f, false
	}
	var buf [engine.RowPits]tablebase.MoveValue
	moves, ok := tb.Moves(p, buf[:0])
	if !ok || len(moves) != len(facts) {
		return f, false
	}
	lead := int(p.Captured[p.ToMove]) - int(p.Captured[p.ToMove.Other()])
	for i, m := range moves {
		if lead+m.Value <= 0 {
			continue
		}
		if f.key >= 0 {
			return f, false // two moves keep the win
		}
		f.key = i // Moves and facts both list the legal moves in pit order
	}
	if f.key < 0 || facts[f.key].legs < MinKeyLegs {
		return f, false
	}
	pv := prover{r: r, tb: tb}
	for n := 1; n <= maxEndgameDepth; n++ {
		if pv.moveWins(&facts[f.key].next, p.ToMove, n) {
			f.depth = n
			f.line = pv.winLine(p, facts[f.key].pit, n)
			return f, true
		}
	}
	return f, false
}

// GenerateDays returns the puzzles of n consecutive days from first, each
// made by the version in force for it (VersionFor the day and cutover), one
// generation per CPU at a time; the results are in date order. The first
// error, in date order, names its day.
func (g *Generator) GenerateDays(ctx context.Context, first time.Time, n int, cutover time.Time) ([]Puzzle, error) {
	out := make([]Puzzle, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				d := first.AddDate(0, 0, i)
				out[i], errs[i] = g.Generate(ctx, d, VersionFor(d, cutover))
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", first.AddDate(0, 0, i).Format(DateLayout), err)
		}
	}
	return out, nil
}
