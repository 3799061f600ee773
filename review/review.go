// Package review is the engine's review of a game: for every ply, the move
// played against the best moves, the score before and after it for the
// side that moved, the seeds it lost, a class (best to blunder) and where a
// proven result changed hands; for each side the counts of each class and
// an accuracy from 0 to 100.
//
// A review is reproducible: every ply is one analysis bounded by a count of
// nodes and a fixed transposition table (never by time), answered from the
// endgame table where it reaches, so one game gets the same review on every
// instance with the same tables. The searches run one ply at a time in a
// unit of the process's CPU budget at its Review priority, behind every
// request someone waits for, and give their unit to more urgent work that
// waits.
package review

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// The fixed search of each ply outside the endgame table. The node count
// bounds a ply to a few tenths of a second on one core; the table size is
// part of what makes the search the same everywhere.
const (
	DefaultNodes = 400_000
	Hash         = 4 << 20
)

// Record is a game to review: where it started, under which rules, and the
// pits played in order.
type Record struct {
	Start engine.Position
	Rules engine.Rules
	Moves []int
}

// Class grades a move by the seeds it loses against the best move.
type Class uint8

// The classes, best first.
const (
	Best Class = iota
	Good
	Inaccuracy
	Mistake
	Blunder
	NumClasses
)

var classWords = [NumClasses]string{"best", "good", "inaccuracy", "mistake", "blunder"}

// String returns the word the API uses.
func (c Class) String() string {
	if c < NumClasses {
		return classWords[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// The thresholds, in seeds lost: a loss of 0 is Best, 1 Good, 2-3 an
// Inaccuracy, 4-6 a Mistake, 7 or more a Blunder.
const (
	GoodMax       = 1
	InaccuracyMax = 3
	MistakeMax    = 6
)

// ClassOf is the class of a move that loses loss seeds and changes a proven
// result as mark says: a move that throws away a proven win is at least a
// Mistake, one that turns a proven win or draw into a proven loss a
// Blunder, whatever the seeds.
func ClassOf(loss int, mark Mark) Class {
	c := Blunder
	switch {
	case loss <= 0:
		c = Best
	case loss <= GoodMax:
		c = Good
	case loss <= InaccuracyMax:
		c = Inaccuracy
	case loss <= MistakeMax:
		c = Mistake
	}
	switch mark {
	case MissedWin:
		c = max(c, Mistake)
	case LostWin, MissedDraw:
		c = Blunder
	}
	return c
}

// Mark says how a move changed the proven result for the side that played
// it; it is set only where the result is proven both before and after.
type Mark uint8

const (
	NoMark     Mark = iota
	MissedWin       // a proven win before, a proven draw after
	LostWin         // a proven win before, a proven loss after
	MissedDraw      // a proven draw before, a proven loss after
)

var markWords = [...]string{"", "missed_win", "lost_win", "missed_draw"}

// String returns the word the API uses ("" for NoMark).
func (m Mark) String() string {
	if int(m) < len(markWords) {
		return markWords[m]
	}
	return fmt.Sprintf("Mark(%d)", uint8(m))
}

// markOf is the mark of a move from result before to result after, each
// for the side that moved and proven when its flag says so.
func markOf(before tablebase.WDL, provenBefore bool, after tablebase.WDL, provenAfter bool) Mark {
	if !provenBefore || !provenAfter {
		return NoMark
	}
	switch {
	case before == tablebase.Win && after == tablebase.Draw:
		return MissedWin
	case before == tablebase.Win && after == tablebase.Loss:
		return LostWin
	case before == tablebase.Draw && after == tablebase.Loss:
		return MissedDraw
	}
	return NoMark
}

// Ply is the review of one move.
type Ply struct {
	Ply  int // 1 for the first move
	Side engine.Side
	Pit  int   // the move played
	Best []int // every move as good as the best, in pit order
	// Before is the position's score for the side that moved (its best
	// move's), After the move played's; both in seeds, the final seed
	// difference where exact, as /v1/analyze scores.
	Before, After           int
	ExactBefore, ExactAfter bool
	// ResultBefore and ResultAfter are the results with perfect play for
	// the side that moved, where proven (the Proven flags).
	ResultBefore, ResultAfter tablebase.WDL
	ProvenBefore, ProvenAfter bool
	Loss                      int // Before - After, never below 0
	Class                     Class
	Mark                      Mark
	Forced                    bool // the only legal move; left out of the accuracy
	Depth                     int  // the search's depth, 0 from the endgame table
	Source                    search.Source
}

// Side is one side's summary.
type Side struct {
	Counts [NumClasses]int
	// Accuracy is in hundredths of a percent, 0 to 10000 (see Accuracy).
	Accuracy int
	Moves    int // moves played, forced ones included
}

// Review is a whole game's review.
type Review struct {
	Plies []Ply
	Sides [2]Side // South, North
	Nodes uint64  // the search budget of a ply outside the table
}

// MoveAccuracy is one move's accuracy in hundredths of a percent:
// 10000 × 4 / (4 + loss), rounded down: 100 for the best move, 80 for a
// loss of one seed, 50 for four, 20 for sixteen. Integers only, so every
// machine gives the same figure.
func MoveAccuracy(loss int) int { return 40000 / (4 + max(loss, 0)) }

// Accuracy is a side's accuracy in hundredths of a percent: the mean of
// MoveAccuracy over its moves that were not forced, rounded down; 10000
// when it had none.
func Accuracy(plies []Ply, s engine.Side) int {
	sum, n := 0, 0
	for _, p := range plies {
		if p.Side == s && !p.Forced {
			sum += MoveAccuracy(p.Loss)
			n++
		}
	}
	if n == 0 {
		return 10000
	}
	return sum / n
}

// Analyzer analyses one position of a game, with the game's earlier
// positions for the repetition rule; search.Pool's AnalyzeGame is one.
type Analyzer func(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim search.Limits, pause func()) (search.Analysis, error)

// Options configure a Reviewer; the zero value works (no endgame tables).
type Options struct {
	// Endgames are the tables that answer the positions they hold.
	Endgames *search.Endgames
	// Nodes is the search budget of a ply; 0: DefaultNodes.
	Nodes uint64
	// Concurrency bounds the plies searched at once; 0: one.
	Concurrency int
	// Analyze replaces the search (tests).
	Analyze Analyzer
}

// Reviewer reviews games. It is safe for concurrent use.
type Reviewer struct {
	budget  *budget.Budget
	analyze Analyzer
	lim     search.Limits
	size    int
}

// shareKey names the reviews' share of the budget.
const shareKey = "review"

// New returns a reviewer spending cpu, the process's CPU budget.
func New(cpu *budget.Budget, o Options) *Reviewer {
	if cpu == nil {
		panic("review: New needs the process's CPU budget")
	}
	if o.Nodes == 0 {
		o.Nodes = DefaultNodes
	}
	o.Concurrency = max(o.Concurrency, 1)
	if o.Analyze == nil {
		o.Analyze = search.NewPool(o.Concurrency, search.WithEndgames(o.Endgames)).AnalyzeGame
	}
	return &Reviewer{budget: cpu, analyze: o.Analyze, lim: search.Limits{Nodes: o.Nodes, Hash: Hash}, size: o.Concurrency}
}

// Replay checks rec and returns the position before each of its moves. An
// illegal move is an error that matches engine.ErrIllegalMove, an invalid
// start or rules one that matches the engine's error for it.
func Replay(rec Record) ([]engine.Position, error) {
	g, err := engine.NewGame(rec.Start, rec.Rules)
	if err != nil {
		return nil, fmt.Errorf("review: %w", err)
	}
	positions := make([]engine.Position, 0, len(rec.Moves))
	var out engine.Outcome
	for i, pit := range rec.Moves {
		before := g.Position()
		if err := g.Play(pit, &out); err != nil {
			return nil, fmt.Errorf("review: move %d (pit %d): %w", i+1, pit, err)
		}
		positions = append(positions, before)
	}
	return positions, nil
}

// Review reviews rec, calling progress (when not nil) with the plies done
// after each. It waits for the budget as long as ctx lets it.
func (rv *Reviewer) Review(ctx context.Context, rec Record, progress func(done, total int)) (Review, error) {
	positions, err := Replay(rec)
	if err != nil {
		return Review{}, err
	}
	out := Review{Plies: make([]Ply, 0, len(positions)), Nodes: rv.lim.Nodes}
	for i, p := range positions {
		a, err := rv.ply(ctx, p, rec.Rules, positions[:i])
		if err != nil {
			return Review{}, fmt.Errorf("review: ply %d: %w", i+1, err)
		}
		ply, err := plyOf(i+1, p, rec.Moves[i], a)
		if err != nil {
			return Review{}, err
		}
		out.Plies = append(out.Plies, ply)
		if progress != nil {
			progress(i+1, len(positions))
		}
	}
	for s := range out.Sides {
		side := engine.Side(s)
		sum := &out.Sides[s]
		for _, p := range out.Plies {
			if p.Side == side {
				sum.Counts[p.Class]++
				sum.Moves++
			}
		}
		sum.Accuracy = Accuracy(out.Plies, side)
	}
	return out, nil
}

// pauseEvery is how often a ply's search looks whether more urgent work
// waits for its unit.
const pauseEvery = 5 * time.Millisecond

// ply analyses one position in a unit of the budget.
func (rv *Reviewer) ply(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position) (search.Analysis, error) {
	req := budget.Request{Priority: budget.Review, Weight: 1, Wait: -1, Shares: []budget.Share{{Key: shareKey, Max: rv.size}}}
	release, err := rv.budget.Acquire(ctx, req)
	if err != nil {
		return search.Analysis{}, err
	}
	defer func() {
		if release != nil {
			release()
		}
	}()
	var checked time.Time
	pause := func() {
		// The node limit, not the clock, ends the search: pausing changes
		// when it ends, never what it finds.
		if now := time.Now(); now.Sub(checked) >= pauseEvery {
			checked = now
			if release != nil && rv.budget.Outranked(budget.Review) {
				release()
				release, _ = rv.budget.Acquire(ctx, req) // nil when ctx ends: the search stops at its next look
			}
		}
	}
	var a search.Analysis
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		lowerThreadPriority()
		a, err = rv.analyze(ctx, p, r, history, rv.lim, pause)
	}()
	<-done
	if err != nil {
		return search.Analysis{}, err
	}
	if ctx.Err() != nil {
		return search.Analysis{}, ctx.Err()
	}
	return a, nil
}

// plyOf makes the review of move pit from p out of p's analysis.
func plyOf(n int, p engine.Position, pit int, a search.Analysis) (Ply, error) {
	out := Ply{Ply: n, Side: p.ToMove, Pit: pit, Before: a.Score, ExactBefore: a.Exact, Depth: a.Depth, Source: a.Source, Forced: len(a.Moves) == 1}
	out.ResultBefore, out.ProvenBefore = positionResult(a)
	found := false
	for _, m := range a.Moves {
		if m.Score == a.Score {
			out.Best = append(out.Best, m.Pit)
		}
		if m.Pit == pit {
			found = true
			out.After, out.ExactAfter, out.ProvenAfter = m.Score, m.Exact, m.Proven
			out.ResultAfter = ResultOf(m.Score)
		}
	}
	slices.Sort(out.Best)
	out.Loss = max(out.Before-out.After, 0)
	out.Mark = markOf(out.ResultBefore, out.ProvenBefore, out.ResultAfter, out.ProvenAfter)
	out.Class = ClassOf(out.Loss, out.Mark)
	if !found {
		return Ply{}, fmt.Errorf("%w: ply %d, pit %d", errNoAnalysis, n, pit)
	}
	return out, nil
}

// positionResult is the proven result of the analysed position for its
// side to move: the analysis's own, or a win when one move proves one.
func positionResult(a search.Analysis) (tablebase.WDL, bool) {
	if a.Proven {
		return a.Result, true
	}
	all := len(a.Moves) > 0
	best := tablebase.Loss
	for _, m := range a.Moves {
		if !m.Proven {
			all = false
			continue
		}
		if w := ResultOf(m.Score); w == tablebase.Win {
			return tablebase.Win, true
		} else if w > best {
			best = w
		}
	}
	return best, all
}

// ResultOf is the result a score gives the side it is for.
func ResultOf(score int) tablebase.WDL {
	switch {
	case score > 0:
		return tablebase.Win
	case score < 0:
		return tablebase.Loss
	}
	return tablebase.Draw
}

// errNoAnalysis guards against an analyzer that answers without the move.
var errNoAnalysis = errors.New("review: the analysis has no score for the move played")
