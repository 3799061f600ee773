package search

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Endgame is an endgame table as the search uses it: *tablebase.Table is
// one. Value and Moves follow the table's semantics (see engine/tablebase):
// the value of a position is the mover's future captures less the
// opponent's, with perfect play continued to the end of the board, which
// gives the result but not always the final difference. ok is false for a
// position with more than MaxSeeds seeds on the board. Score and
// MoveScores give the game's true final difference (majority stop
// included) of the positions with at most ScoreSeeds seeds on the board,
// and ok=false for the others; ScoreSeeds is -1 for a result-only table.
type Endgame interface {
	Rules() engine.Rules
	MaxSeeds() int
	Value(p *engine.Position) (v int, ok bool)
	Moves(p engine.Position, out []tablebase.MoveValue) ([]tablebase.MoveValue, bool)
	ScoreSeeds() int
	Score(p *engine.Position) (score int, ok bool)
	MoveScores(p engine.Position, out []tablebase.MoveValue) ([]tablebase.MoveValue, bool)
}

// scoreSeeds returns the most seeds on the board of the positions t gives
// true scores for: ScoreSeeds, within MaxSeeds (a table may answer fewer
// positions than it holds), or -1.
func scoreSeeds(t Endgame) int { return min(t.ScoreSeeds(), t.MaxSeeds()) }

// ruleSets is how many combinations of rule options there are: a set of
// endgame tables holds one table for each at most.
const ruleSets = 4

func rulesIndex(r engine.Rules) int { return int(r.CaptureSeed&1)<<1 | int(r.Leftovers&1) }

// Endgames is the set of endgame tables searches may use, at most one per
// combination of rule options (the one with the most seeds). Tables may be
// added while searches run, as a server does when one it builds at start is
// ready; a search uses the table its rules had when it began.
//
// Close waits for the searches using a table to finish, then closes every
// table that has a Close method (a memory-mapped file), so a search never
// reads an unmapped table. Searches that begin after Close use no table.
// An Endgames is safe for concurrent use.
type Endgames struct {
	tables [ruleSets]atomic.Pointer[endgameRef]
	add    sync.Mutex   // serialises Add and Close, and guards closed and retired
	inUse  sync.RWMutex // read-held by every search using a table; Close takes it
	closed bool
	// retired are tables a larger one replaced: a search may still be
	// using them, so they are closed with the rest.
	retired []Endgame
}

type endgameRef struct{ t Endgame }

// NewEndgames returns a set of the given tables (see Add).
func NewEndgames(tables ...Endgame) (*Endgames, error) {
	e := &Endgames{}
	for _, t := range tables {
		if _, err := e.Add(t); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// ErrEndgamesClosed: a table added to a closed set.
var ErrEndgamesClosed = errors.New("the set of endgame tables is closed")

// Add makes t the table for its rules unless the set already has one with
// at least as many seeds, and reports whether it did. A table not kept is
// left to the caller (it is not closed); adding to a closed set is an error.
func (e *Endgames) Add(t Endgame) (kept bool, err error) {
	r := t.Rules()
	if err := r.Validate(); err != nil {
		return false, fmt.Errorf("endgame table: %w", err)
	}
	e.add.Lock()
	defer e.add.Unlock()
	if e.closed {
		return false, ErrEndgamesClosed
	}
	slot := &e.tables[rulesIndex(r)]
	if old := slot.Load(); old != nil {
		if old.t.MaxSeeds() >= t.MaxSeeds() {
			return false, nil
		}
		e.retired = append(e.retired, old.t)
	}
	slot.Store(&endgameRef{t})
	return true, nil
}

// For returns the table for rules r, or nil.
func (e *Endgames) For(r engine.Rules) Endgame {
	if e == nil {
		return nil
	}
	if ref := e.tables[rulesIndex(r)].Load(); ref != nil && ref.t.Rules() == r {
		return ref.t
	}
	return nil
}

// Tables returns the tables in use, one per rules at most (none for a nil
// set, which, like For and Analyze, holds no table).
func (e *Endgames) Tables() []Endgame {
	var out []Endgame
	if e == nil {
		return nil
	}
	for i := range e.tables {
		if ref := e.tables[i].Load(); ref != nil {
			out = append(out, ref.t)
		}
	}
	return out
}

// acquire returns the table for r, which the search may use until it calls
// release; with no table, nil (and release must not be called).
func (e *Endgames) acquire(r engine.Rules) Endgame {
	if e == nil || e.For(r) == nil {
		return nil
	}
	e.inUse.RLock()
	t := e.For(r)
	if t == nil { // closed meanwhile
		e.inUse.RUnlock()
	}
	return t
}

func (e *Endgames) release() { e.inUse.RUnlock() }

// Close empties the set, waits for the searches still using its tables
// and closes each that is an io.Closer. Closing twice, or a nil set, does
// nothing.
func (e *Endgames) Close() error {
	if e == nil {
		return nil
	}
	e.add.Lock()
	defer e.add.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	e.inUse.Lock() // every search that acquired a table has released it
	defer e.inUse.Unlock()
	all := e.retired
	e.retired = nil
	for i := range e.tables {
		if ref := e.tables[i].Swap(nil); ref != nil {
			all = append(all, ref.t)
		}
	}
	var errs []error
	for _, t := range all {
		if c, ok := t.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Option configures a Searcher or a Pool.
type Option func(*options)

type options struct {
	endgames *Endgames
}

// WithEndgames gives searches the endgame tables of e: every analysis, and
// the moves of the levels whose Level.Endgame is set, use the table for
// their rules, if e has one.
func WithEndgames(e *Endgames) Option { return func(o *options) { o.endgames = e } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// noEndgame is the searcher's egFrom when it has no table: no position has
// that many captured seeds.
const noEndgame = engine.SeedCount + 1

// useEndgame sets the table the running search probes (nil: none). With
// scores (an analysis), the search takes the table's true scores where it
// has them, and its values elsewhere, noting that it did (egLoose); without
// (a level's move), its values everywhere, as only the result matters.
func (s *Searcher) useEndgame(t Endgame, scores bool) {
	s.eg = t
	s.egFrom, s.egScoreFrom = noEndgame, noEndgame
	if t != nil {
		s.egFrom = engine.SeedCount - t.MaxSeeds()
		if k := scoreSeeds(t); scores && k >= 0 {
			s.egScoreFrom = engine.SeedCount - k
		}
	}
}

// endgame probes the running search's table at p, a position the game has
// not ended at: its score in centiseeds for the side to move, proven. Where
// the table has true scores (and the search wants them) that is the game's
// final difference; elsewhere it is the captured difference plus the
// table's value, which has the result's sign but may differ in size, and
// the search notes that its proofs now prove results only (egLoose). ok is
// false when p is not in the table. It is on the hot path: one comparison
// when p has too many seeds on the board, and p is copied so that it does
// not escape through the interface call.
func (s *Searcher) endgame(p *engine.Position) (int, bool) {
	captured := int(p.Captured[0]) + int(p.Captured[1])
	if captured < s.egFrom {
		return 0, false
	}
	s.egPos = *p
	if captured >= s.egScoreFrom {
		v, ok := s.eg.Score(&s.egPos)
		return unit * v, ok
	}
	v, ok := s.eg.Value(&s.egPos)
	if !ok {
		return 0, false
	}
	s.egLoose = true
	return unit * (p.Margin(p.ToMove) + v), true
}

// tableAtRoot reports whether the running search may answer its root p
// from its table, given the game's earlier positions. It may not when one
// of them has p's captured counts: play since the last capture may come
// back to it, and the repetition rule then scores the game at the first
// position to occur a third time, which the table, scoring a cycle at the
// position it starts from, does not know. The search then probes the table
// only below p's level, after a capture, where no earlier position can
// recur, and scores the positions of p's level itself.
func (s *Searcher) tableAtRoot(p engine.Position, history []engine.Position) bool {
	if s.eg == nil {
		return false
	}
	if !sameEpoch(p, history) {
		return true
	}
	s.egFrom = max(s.egFrom, int(p.Captured[0])+int(p.Captured[1])+1)
	return false
}

// sameEpoch reports whether history (oldest first) holds a position with
// p's captured counts. Captured counts never go down, so the look stops at
// the first position with fewer seeds captured.
func sameEpoch(p engine.Position, history []engine.Position) bool {
	n := int(p.Captured[0]) + int(p.Captured[1])
	for i := len(history) - 1; i >= 0; i-- {
		h := history[i]
		if h.Captured == p.Captured {
			return true
		}
		if int(h.Captured[0])+int(h.Captured[1]) < n {
			return false
		}
	}
	return false
}

// takeEndgame makes the searcher's table for r the one its next search
// probes, for true scores or results (see useEndgame); giveEndgame gives it
// back once the search is done (the search must not probe it after that:
// its file may be closed).
func (s *Searcher) takeEndgame(r engine.Rules, scores bool) {
	s.useEndgame(s.endgames.acquire(r), scores)
}

func (s *Searcher) giveEndgame() {
	if s.eg != nil {
		s.useEndgame(nil, false)
		s.endgames.release()
	}
}

// tableMoves returns t's value of every legal move of p, anchored at p, in
// buf's memory, or ok=false when t is nil or p is not in it.
func tableMoves(t Endgame, p engine.Position, buf []tablebase.MoveValue) ([]tablebase.MoveValue, bool) {
	if t == nil || p.BoardSeeds() > t.MaxSeeds() {
		return buf, false
	}
	moves, ok := t.Moves(p, buf)
	return moves, ok && len(moves) > 0
}

// tableScores returns t's true score of every legal move of p, anchored at
// p, in buf's memory, or ok=false when t is nil or has no true score for p.
func tableScores(t Endgame, p engine.Position, buf []tablebase.MoveValue) ([]tablebase.MoveValue, bool) {
	if t == nil || p.BoardSeeds() > scoreSeeds(t) {
		return buf, false
	}
	moves, ok := t.MoveScores(p, buf)
	return moves, ok && len(moves) > 0
}

// tableBest returns the index of the best of moves, the legal moves of p
// with their values from tableMoves, or their true scores from tableScores
// (scores). The best value comes first; among equals, a move whose position
// the table scores, on its own, as good for the mover as the move's value
// (as every capture is, and a quiet move whose value does not rest on a
// cycle scored at p); then the first, or one drawn by rng when it is not
// nil.
func tableBest(t Endgame, r engine.Rules, p engine.Position, moves []tablebase.MoveValue, scores bool, rng interface{ IntN(int) int }) int {
	best, bestOwn, ties := -1, 0, 0
	for i, m := range moves {
		own := m.Value
		if m.Captured == 0 {
			// A quiet move's own value is the next position's, from its
			// mover's side, negated.
			if q, why := p.Apply(m.Pit, r); why == engine.Legal {
				v, ok := t.Value(&q)
				if scores {
					v, ok = t.Score(&q)
				}
				if ok {
					own = min(-v, m.Value)
				}
			}
		}
		switch {
		case best < 0 || m.Value > moves[best].Value || (m.Value == moves[best].Value && own > bestOwn):
			best, bestOwn, ties = i, own, 1
		case m.Value == moves[best].Value && own == bestOwn:
			ties++
			if rng != nil && rng.IntN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}

// maxTablePV bounds the principal variation of a table's answer.
const maxTablePV = 40

// tableAnalysis answers p from t, if p is in it: every move's score, the
// best first in pit order among equals, and the line of best moves from
// there to the end of the game (or to a position seen before on it, or
// maxTablePV plies). Where t has true scores for p the answer is exact: the
// scores are the game's final differences. Elsewhere they are the captured
// difference plus the table's values: the result is proven, the scores'
// size is not (Exact is false, Proven true).
func tableAnalysis(t Endgame, p engine.Position, r engine.Rules) (Analysis, bool) {
	moves, scores := tableScores(t, p, nil)
	margin := 0 // what turns a move's value into its score
	if !scores {
		var ok bool
		if moves, ok = tableMoves(t, p, nil); !ok {
			return Analysis{}, false
		}
		margin = p.Margin(p.ToMove)
	}
	a := Analysis{Source: FromTablebase, Exact: scores, Proven: true, Moves: make([]MoveScore, len(moves))}
	for i, m := range moves {
		a.Moves[i] = MoveScore{Pit: m.Pit, Score: margin + m.Value, Exact: scores, Proven: true}
	}
	b := moves[tableBest(t, r, p, moves, scores, nil)]
	a.BestMove, a.Score, a.Centiseeds = b.Pit, margin+b.Value, unit*(margin+b.Value)
	a.Result = resultOf(a.Score)
	a.PV = []int{b.Pit}
	seen := map[engine.Position]bool{p: true}
	q, _ := p.Apply(b.Pit, r)
	for len(a.PV) < maxTablePV && !seen[q] && !q.Status(r).Over() {
		seen[q] = true
		var here, ok bool
		if moves, here = tableScores(t, q, moves); !here {
			if moves, ok = tableMoves(t, q, moves); !ok {
				break
			}
		}
		pit := moves[tableBest(t, r, q, moves, here, nil)].Pit
		a.PV = append(a.PV, pit)
		q, _ = q.Apply(pit, r)
	}
	return a, true
}

// Analyze answers p from the set's table for r, as a Searcher with the set
// would, if p is in it; ok is false otherwise (no table, too many seeds on
// the board, an invalid position, no legal move). It needs no searcher,
// and takes microseconds.
func (e *Endgames) Analyze(p engine.Position, r engine.Rules) (a Analysis, ok bool) {
	if check(p, r) != nil || p.LegalMoves(r) == 0 {
		return Analysis{}, false // invalid, or finished (a majority too): nothing to analyse
	}
	t := e.acquire(r)
	if t == nil {
		return Analysis{}, false
	}
	defer e.release()
	return tableAnalysis(t, p, r)
}

var _ Endgame = (*tablebase.Table)(nil)
