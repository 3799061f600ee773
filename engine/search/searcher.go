package search

import (
	"context"
	"runtime"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

const (
	// MaxDepth is the deepest iteration a search runs, in plies.
	MaxDepth = 100
	// maxPly bounds the search stack: MaxDepth plus room for the frame below
	// the deepest node.
	maxPly = MaxDepth + 2
	// pollEvery is how many nodes pass between looks at the clock, the node
	// limit and the context: often enough to stop within well under a
	// millisecond, rarely enough to cost nothing measurable.
	pollEvery = 1024
	// ttMinDepth is the shallowest remaining depth whose nodes use the
	// table: below it a probe's cache miss costs more than it saves.
	ttMinDepth = 4
	// DefaultHash is the transposition table's size, in bytes, when Limits
	// leaves it zero.
	DefaultHash = 16 << 20
)

// frame is one ply of the search stack. Its move list lives here, so a node
// allocates nothing.
type frame struct {
	pos       engine.Position
	hash      uint64 // Zobrist hash of pos (what the repetition rule compares)
	epochSum  uint64 // see key
	epochFrom int    // index in Searcher.line where pos's capture epoch starts
	killer    [2]int8

	n    int // generated moves
	pits [engine.RowPits]int8
	keys [engine.RowPits]int32
	kids [engine.RowPits]engine.Position
}

// key is the transposition-table key of the frame's node. The value of a node
// depends on the earlier positions the repetition rule could see again, and
// those are exactly the earlier positions with the same captured counts (the
// counts only grow, so a later position can equal an earlier one only within a
// run without captures: a capture epoch). epochSum adds up a hash of each such
// position, so the key tells apart the same position reached with different
// repetition histories, and the table never hands a node a value its history
// would change. After every capture the sum is zero and positions share
// entries freely.
func (f *frame) key() uint64 { return f.hash ^ mix64(f.epochSum) }

// Searcher runs searches with its own transposition table, sized when it is
// made (a Pool resizes the ones it lends), and reusable stacks: searches made
// with it allocate almost nothing. It is not safe for concurrent use; give
// each goroutine its own, or lend them from a Pool.
type Searcher struct {
	tt     table
	ttFrom int // ttMinDepth; tests raise it to search without the table
	w      Weights
	rules  engine.Rules

	// limits of the running search
	done      <-chan struct{}
	deadline  time.Time
	nodeLimit uint64
	nextPoll  uint64
	nodes     uint64
	canStop   bool   // false until the first iteration is complete
	pause     func() // called at each poll, when set (Pool.AnalyzePausing)
	stopped   bool

	// line holds the hashes of the root's capture epoch from the game history,
	// then the root (at index base) and the search path below it.
	line []uint64
	base int

	stack   [maxPly + 1]frame
	pv      [maxPly + 1][maxPly + 1]int8
	pvLen   [maxPly + 1]int
	history [2][engine.NumPits]int32

	// endgames are the tables the searcher may use; eg is the one the
	// running search probes (nil: none), at positions with at least egFrom
	// captured seeds, for their true scores from egScoreFrom on, copying
	// each into egPos (see endgame). egLoose is set once the running search
	// has used a value that is not a true score.
	endgames    *Endgames
	eg          Endgame
	egFrom      int
	egScoreFrom int
	egLoose     bool
	egPos       engine.Position
	egMoves     []tablebase.MoveValue // the moves of a root in the table

	roots []rootMove
	// partial is the best move of an iteration cut short, when one of its
	// moves was searched in full and beat the previous best; else -1.
	partial int
	touch   uint64 // sink for try's early loads
}

// rootMove is one legal move of the root with what the iterations learnt.
type rootMove struct {
	pit    int
	next   engine.Position
	score  int
	proven bool
	exact  bool // score is the move's value at this depth, not a bound
	pv     []int8
}

// NewSearcher returns a searcher whose transposition table takes about
// hashBytes bytes (rounded down to a power of two; 0 means DefaultHash).
// Options may give it endgame tables (WithEndgames).
func NewSearcher(hashBytes int, opts ...Option) *Searcher {
	if hashBytes <= 0 {
		hashBytes = DefaultHash
	}
	o := collect(opts)
	s := &Searcher{tt: newTable(hashBytes), ttFrom: ttMinDepth, w: DefaultWeights, endgames: o.endgames, egFrom: noEndgame, egScoreFrom: noEndgame}
	return s
}

// resize gives the searcher a table of about hashBytes bytes (0:
// DefaultHash), in the memory it has when that is enough: a Pool lends one
// searcher to levels of every size.
func (s *Searcher) resize(hashBytes int) {
	if hashBytes <= 0 {
		hashBytes = DefaultHash
	}
	s.tt.resize(hashBytes)
}

// SetWeights replaces the evaluation's positional terms (for tuning by
// self-play); searches use DefaultWeights otherwise.
func (s *Searcher) SetWeights(w Weights) { s.w = w }

// poll looks at the node limit, the clock and the context, and yields the
// processor: a search never blocks, so without a yield it keeps its thread
// for the scheduler's whole time slice (10 ms), and a cheap request waiting
// for that thread waits behind it. Every pollEvery nodes is a few tens of
// microseconds of search, and a yield with nobody waiting costs well under
// one.
func (s *Searcher) poll() {
	runtime.Gosched()
	if s.pause != nil {
		s.pause()
	}
	s.nextPoll = s.nodes + pollEvery
	stop := false
	if s.nodeLimit > 0 {
		if s.nodes >= s.nodeLimit {
			stop = true
		} else if s.nextPoll > s.nodeLimit {
			s.nextPoll = s.nodeLimit
		}
	}
	if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
		stop = true
	}
	select {
	case <-s.done:
		stop = true
	default:
	}
	if stop && s.canStop {
		s.stopped = true
	}
}

// setChild makes stack[ply+1] the position next, reached from stack[ply].
func (s *Searcher) setChild(ply int, next *engine.Position) {
	f := &s.stack[ply]
	c := &s.stack[ply+1]
	c.pos = *next
	c.hash = hashOf(next)
	if next.Captured == f.pos.Captured {
		c.epochFrom = f.epochFrom
		c.epochSum = f.epochSum + mix64(f.hash)
	} else {
		c.epochFrom = s.base + ply + 1
		c.epochSum = 0
	}
	s.line[s.base+ply+1] = c.hash
}

// repetition reports whether the node at ply is the third occurrence of its
// position in the game: the history and the search path above it. Only its
// own capture epoch can hold an equal position.
func (s *Searcher) repetition(ply int) bool {
	f := &s.stack[ply]
	idx := s.base + ply
	seen := 0
	for j := idx - 1; j >= f.epochFrom; j-- {
		if s.line[j] == f.hash {
			seen++
			if seen == 2 {
				return true
			}
		}
	}
	return false
}

// negamax searches the node at stack[ply] to depth plies within (alpha, beta)
// and returns its score for the side to move, failing soft, with proven set
// when the score is a proven bound on the game's value (exact, upper or lower
// as it relates to the window): every leaf it rests on is a finished game.
func (s *Searcher) negamax(ply, depth, alpha, beta int) (int, bool) {
	s.pvLen[ply] = 0
	s.nodes++
	if s.nodes >= s.nextPoll {
		s.poll()
	}
	if s.stopped {
		return 0, false
	}
	if v, pr, over := s.ended(ply); over {
		return v, pr
	}
	if depth <= 0 || ply >= maxPly-1 {
		return s.leaf(&s.stack[ply].pos)
	}
	if depth == 1 {
		return s.frontier(ply, alpha, beta)
	}
	f := &s.stack[ply]
	p := &f.pos

	key := f.key()
	pvNode := beta-alpha > 1
	ttMove := -1
	if e, ok := s.probe(key, depth); ok {
		ttMove = e.move
		// A proven bound holds at any depth. Principal-variation nodes take
		// no other cut-off, so the variation stays whole.
		if e.proven || (!pvNode && e.depth >= depth) {
			switch {
			case e.bound == boundExact,
				e.bound == boundLower && e.score >= beta,
				e.bound == boundUpper && e.score <= alpha:
				return e.score, e.proven
			}
		}
	}

	st := node{alpha: alpha, beta: beta, best: -infinity, bestMove: -1, allProven: true}
	if ttMove >= 0 {
		if next, why := p.Apply(ttMove, s.rules); why == engine.Legal {
			if s.try(ply, depth, &st, ttMove, &next) {
				return s.finish(ply, depth, key, alpha, &st)
			}
		} else {
			ttMove = -1
		}
	}

	// Generate the rest, captures first (largest first), then the killers,
	// then by history.
	f.n = 0
	side := p.ToMove
	first := side.FirstPit()
	for pit := first; pit < first+engine.RowPits; pit++ {
		if p.Pits[pit] == 0 || pit == ttMove {
			continue
		}
		next, c, why := p.ApplyCapture(pit, s.rules)
		if why != engine.Legal {
			continue
		}
		var k int32
		switch {
		case c.Seeds > 0:
			k = 1<<30 + int32(c.Seeds)
		case int8(pit) == f.killer[0]:
			k = 1<<29 + 1
		case int8(pit) == f.killer[1]:
			k = 1 << 29
		default:
			k = s.history[side][pit]
		}
		f.pits[f.n] = int8(pit)
		f.keys[f.n] = k
		f.kids[f.n] = next
		f.n++
	}
	if f.n == 0 && st.count == 0 {
		return noMovesScore(p, s.rules), true
	}
	for i := 0; i < f.n; i++ {
		// Selection sort, one step per move tried: a cut-off usually comes
		// early, and then the rest is never sorted.
		b := i
		for j := i + 1; j < f.n; j++ {
			if f.keys[j] > f.keys[b] {
				b = j
			}
		}
		if b != i {
			f.pits[i], f.pits[b] = f.pits[b], f.pits[i]
			f.keys[i], f.keys[b] = f.keys[b], f.keys[i]
			f.kids[i], f.kids[b] = f.kids[b], f.kids[i]
		}
		if s.try(ply, depth, &st, int(f.pits[i]), &f.kids[i]) {
			break
		}
	}
	return s.finish(ply, depth, key, alpha, &st)
}

// ended scores the node at ply if the game is over there, in the order
// RULES.md checks after a move: majority, no legal move, then the third
// occurrence of the position. A side with seeds may still have no legal move
// (every move refused); ended leaves that to the caller, which finds out when
// it generates moves.
func (s *Searcher) ended(ply int) (int, bool, bool) {
	p := &s.stack[ply].pos
	return s.over(p, ply > 0 && s.repetition(ply))
}

// over is ended for a position p, told whether p occurs for the third time.
// A position in the search's endgame table ends the search there too: its
// score is the table's, proven (see the package documentation).
func (s *Searcher) over(p *engine.Position, third bool) (int, bool, bool) {
	if p.MajorityResult().Over() {
		return finalScore(p), true, true
	}
	if p.RowEmpty(p.ToMove) {
		return noMovesScore(p, s.rules), true, true
	}
	if third {
		if !p.HasLegalMove(s.rules) {
			return noMovesScore(p, s.rules), true, true
		}
		return repetitionScore(p), true, true
	}
	if v, ok := s.endgame(p); ok {
		return v, true, true
	}
	return 0, false, false
}

// leaf scores a position at the search horizon that is not over as far as
// over can tell. Only a starved opponent makes the lack of a legal move
// likely enough to check; any other position without one is evaluated, and
// the score is simply not proven.
func (s *Searcher) leaf(p *engine.Position) (int, bool) {
	if p.RowEmpty(p.ToMove.Other()) && !p.HasLegalMove(s.rules) {
		return noMovesScore(p, s.rules), true
	}
	return s.w.evaluate(p), false
}

// frontier searches a node one ply above the horizon. Its children are sown
// to be generated anyway, and sowing costs far more than evaluating, so every
// child is evaluated (and counted as a node) and none is skipped by a cut-off:
// no move ordering, no table. The score is the best child's.
func (s *Searcher) frontier(ply, alpha, beta int) (int, bool) {
	f := &s.stack[ply]
	p := &f.pos
	best, bestMove := -infinity, -1
	bestProven := -infinity // the best score among proven children
	allProven := true
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+engine.RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		next, why := p.Apply(pit, s.rules)
		if why != engine.Legal {
			continue
		}
		s.nodes++
		// Only a child that captured nothing can repeat a position, so only
		// then is it hashed (a leaf needs its hash for nothing else).
		third := false
		if next.Captured == p.Captured {
			h := hashOf(&next)
			seen := 0
			for j := s.base + ply - 1; j >= f.epochFrom; j-- {
				if s.line[j] == h {
					seen++
				}
			}
			third = seen >= 2
		}
		v, pr, over := s.over(&next, third)
		if !over {
			v, pr = s.leaf(&next)
		}
		v = -v
		if v > best {
			best, bestMove = v, pit
		}
		if pr {
			bestProven = max(bestProven, v)
		} else {
			allProven = false
		}
	}
	if bestMove < 0 {
		return noMovesScore(p, s.rules), true
	}
	if best > alpha {
		s.pv[ply][0] = int8(bestMove)
		s.pvLen[ply] = 1
	}
	switch {
	case bestProven >= beta:
		// A proven child fails high on its own: report its score, a proven
		// lower bound, rather than a higher unproven one.
		return bestProven, true
	case best >= beta:
		return best, false
	}
	return best, allProven
}

// probe looks key up, for nodes deep enough to use the table.
func (s *Searcher) probe(key uint64, depth int) (ttData, bool) {
	if depth < s.ttFrom {
		return ttData{}, false
	}
	return s.tt.probe(key)
}

// node is the running state of one negamax node.
type node struct {
	alpha, beta int
	best        int
	bestMove    int
	count       int
	allProven   bool // every child's score so far is a proven bound
	cut         bool
	cutProven   bool
}

// try searches one move of the node at ply, principal-variation style: the
// first move with the full window, the others with a null window and again
// with the full one if they beat alpha. It reports whether the node is done
// (a cut-off, or the search was stopped).
func (s *Searcher) try(ply, depth int, st *node, pit int, next *engine.Position) bool {
	s.setChild(ply, next)
	if depth-1 >= s.ttFrom {
		// Touch the child's table bucket now: the cache miss then overlaps
		// the child's first checks instead of stalling its probe.
		s.touch += s.tt.entries[s.stack[ply+1].key()&s.tt.mask].key
	}
	var v int
	var pr bool
	if st.count == 0 {
		v, pr = s.negamax(ply+1, depth-1, -st.beta, -st.alpha)
		v = -v
	} else {
		v, pr = s.negamax(ply+1, depth-1, -st.alpha-1, -st.alpha)
		v = -v
		if v > st.alpha && v < st.beta && !s.stopped {
			v, pr = s.negamax(ply+1, depth-1, -st.beta, -st.alpha)
			v = -v
		}
	}
	st.count++
	if s.stopped {
		return true
	}
	if v > st.best {
		st.best = v
		st.bestMove = pit
	}
	if v > st.alpha {
		st.alpha = v
		s.pv[ply][0] = int8(pit)
		n := copy(s.pv[ply][1:], s.pv[ply+1][:s.pvLen[ply+1]])
		s.pvLen[ply] = 1 + n
		if v >= st.beta {
			st.cut = true
			st.cutProven = pr
			return true
		}
	}
	st.allProven = st.allProven && pr
	return false
}

// finish stores the node's result and returns it.
func (s *Searcher) finish(ply, depth int, key uint64, alpha int, st *node) (int, bool) {
	if s.stopped {
		return 0, false
	}
	d := ttData{score: st.best, move: st.bestMove, depth: depth}
	switch {
	case st.cut:
		d.bound, d.proven = boundLower, st.cutProven
		if p := &s.stack[ply].pos; !s.isCapture(ply) {
			side := p.ToMove
			s.history[side][st.bestMove] += int32(depth * depth)
			if f := &s.stack[ply]; f.killer[0] != int8(st.bestMove) {
				f.killer[1] = f.killer[0]
				f.killer[0] = int8(st.bestMove)
			}
		}
	case st.best <= alpha:
		d.bound, d.proven = boundUpper, st.allProven
	default:
		d.bound, d.proven = boundExact, st.allProven
	}
	if depth >= s.ttFrom {
		s.tt.store(key, d)
	}
	return d.score, d.proven
}

// isCapture reports whether the move just searched at ply captured: its child,
// the last position searched below, has different captured counts.
func (s *Searcher) isCapture(ply int) bool {
	return s.stack[ply+1].pos.Captured != s.stack[ply].pos.Captured
}

// start prepares a search of p: limits, the table's new generation, and the
// repetition line from the history (only its last capture epoch matters).
func (s *Searcher) start(ctx context.Context, p engine.Position, r engine.Rules, history []engine.Position, lim Limits) {
	s.rules = r
	s.done = ctx.Done()
	s.deadline = time.Time{}
	if lim.Time > 0 {
		s.deadline = time.Now().Add(lim.Time)
	}
	s.nodeLimit = lim.Nodes
	s.nodes = 0
	s.nextPoll = 0
	s.canStop = false
	s.stopped = false
	s.egLoose = false
	s.tt.newSearch()
	s.history = [2][engine.NumPits]int32{}
	for i := range s.stack {
		s.stack[i].killer = [2]int8{-1, -1}
	}

	if n := len(history); n > 0 && history[n-1] == p {
		history = history[:n-1] // the caller included the current position
	}
	k := len(history)
	for k > 0 && history[k-1].Captured == p.Captured {
		k--
	}
	need := len(history) - k + maxPly + 2
	if cap(s.line) < need {
		s.line = make([]uint64, need)
	}
	s.line = s.line[:need]
	var sum uint64
	for i := range history[k:] {
		h := hashOf(&history[k+i])
		s.line[i] = h
		sum += mix64(h)
	}
	s.base = len(history) - k
	root := &s.stack[0]
	root.pos = p
	root.hash = hashOf(&p)
	root.epochFrom = 0
	root.epochSum = sum
	s.line[s.base] = root.hash
}

// iterate runs iterative deepening from the root prepared by start. With
// every set, each root move is searched with a full window, so each gets its
// own exact score; otherwise only the best move's score is exact and the others
// are upper bounds. order, if not nil, arranges the root moves before the first
// iteration (levels shuffle them, so equal moves vary with the seed). It
// returns the deepest completed iteration.
func (s *Searcher) iterate(lim Limits, every bool, order func([]rootMove)) Analysis {
	p := &s.stack[0].pos
	s.partial = -1
	s.roots = s.roots[:0]
	for m := p.LegalMoves(s.rules); m != 0; {
		pit := m.Next()
		next, _ := p.Apply(pit, s.rules)
		s.roots = append(s.roots, rootMove{pit: pit, next: next})
	}
	if order != nil {
		order(s.roots)
	}
	maxDepth := lim.Depth
	if maxDepth <= 0 || maxDepth > MaxDepth {
		maxDepth = MaxDepth
	}
	began := time.Now()
	var done Analysis
	var lastTook time.Duration
	for depth := 1; depth <= maxDepth; depth++ {
		iterBegan := time.Now()
		if !s.rootIteration(depth, every) {
			break
		}
		took := time.Since(iterBegan)
		done = s.snapshot(depth)
		s.canStop = true
		if done.Exact {
			break
		}
		if s.poll(); s.stopped {
			break
		}
		// Do not start an iteration the clock would likely cut off: it
		// costs this one's time times the growth seen from the last one.
		if lim.Time > 0 {
			growth := 2.0
			if lastTook > 0 {
				growth = min(max(float64(took)/float64(lastTook), 1.5), 4)
			}
			if time.Since(began)+time.Duration(growth*float64(took)) > lim.Time {
				break
			}
		}
		lastTook = took
		if lim.Nodes > 0 && s.nodes >= lim.Nodes {
			break
		}
		// Best first, then by score: the previous iteration's order is the
		// best guess for this one.
		slices.SortStableFunc(s.roots, func(a, b rootMove) int { return b.score - a.score })
	}
	done.Nodes = s.nodes
	return done
}

// rootIteration searches every root move to depth. It reports false if the
// search was stopped before it finished; the root moves then keep the scores
// of the previous iteration.
func (s *Searcher) rootIteration(depth int, every bool) bool {
	type result struct {
		score         int
		proven, exact bool
	}
	var res [engine.RowPits]result
	var pvs [engine.RowPits][maxPly + 1]int8
	var pvn [engine.RowPits]int
	alpha, beta := -infinity, infinity
	best := -1
	for i := range s.roots {
		rm := &s.roots[i]
		if rm.exact && rm.proven && every {
			// A proven exact score is final: deeper search cannot change it.
			res[i] = result{rm.score, true, true}
			pvn[i] = copy(pvs[i][:], rm.pv)
			if best < 0 || rm.score > res[best].score {
				best = i
			}
			continue
		}
		s.setChild(0, &rm.next)
		var v int
		var pr bool
		exact := true
		if every || i == 0 {
			v, pr = s.negamax(1, depth-1, -beta, -alpha)
			v = -v
		} else {
			v, pr = s.negamax(1, depth-1, -alpha-1, -alpha)
			v = -v
			exact = false
			if v > alpha && !s.stopped {
				v, pr = s.negamax(1, depth-1, -beta, -alpha)
				v = -v
				// A re-search can still fail low; then it is a bound too.
				exact = v > alpha
			}
		}
		if s.stopped {
			// A move searched in full that beat the first one (the previous
			// iteration's best) is the better move at this depth already.
			if best > 0 && res[best].exact {
				s.partial = s.roots[best].pit
			}
			return false
		}
		res[i] = result{v, pr, exact}
		pvs[i][0] = int8(rm.pit)
		pvn[i] = 1 + copy(pvs[i][1:], s.pv[1][:s.pvLen[1]])
		if best < 0 || v > res[best].score {
			best = i
		}
		if !every && v > alpha {
			alpha = v
		}
	}
	for i := range s.roots {
		rm := &s.roots[i]
		rm.score, rm.proven, rm.exact = res[i].score, res[i].proven, res[i].exact
		rm.pv = append(rm.pv[:0], pvs[i][:pvn[i]]...)
	}
	// The best move goes first so snapshot and the next iteration find it.
	if best > 0 {
		b := s.roots[best]
		copy(s.roots[1:best+1], s.roots[:best])
		s.roots[0] = b
	}
	return true
}

// snapshot turns the root moves, best first, into an Analysis.
func (s *Searcher) snapshot(depth int) Analysis {
	b := &s.roots[0]
	a := Analysis{
		BestMove:   b.pit,
		Centiseeds: b.score,
		Score:      seeds(b.score),
		Depth:      depth,
		Exact:      true,
	}
	for i := range s.roots {
		rm := &s.roots[i]
		a.Moves = append(a.Moves, MoveScore{Pit: rm.pit, Score: seeds(rm.score), Exact: rm.proven && rm.exact, Proven: rm.proven && rm.exact, Upper: !rm.exact})
		a.Exact = a.Exact && rm.proven
	}
	slices.SortFunc(a.Moves, func(x, y MoveScore) int { return x.Pit - y.Pit })
	a.PV = s.extendPV(b.pv)
	return a
}

// seeds rounds centiseeds to the nearest seed, halves away from zero.
func seeds(v int) int {
	if v >= 0 {
		return (v + unit/2) / unit
	}
	return -((-v + unit/2) / unit)
}

// extendPV returns the principal variation as pits, continued from the table
// where a proven entry cut it short. It replays the line with the same keys the
// search used, stops at the end of the game and never repeats a key.
func (s *Searcher) extendPV(line []int8) []int {
	pv := make([]int, 0, len(line)+8)
	ply := 0
	for _, m := range line {
		next, why := s.stack[ply].pos.Apply(int(m), s.rules)
		if why != engine.Legal || ply >= maxPly-1 {
			return pv
		}
		pv = append(pv, int(m))
		s.setChild(ply, &next)
		ply++
	}
	for ply < maxPly-1 {
		f := &s.stack[ply]
		if f.pos.MajorityResult().Over() || (ply > 0 && s.repetition(ply)) {
			break
		}
		e, ok := s.tt.probe(f.key())
		if !ok || e.move < 0 || !e.proven {
			break
		}
		next, why := f.pos.Apply(e.move, s.rules)
		if why != engine.Legal {
			break
		}
		pv = append(pv, e.move)
		s.setChild(ply, &next)
		ply++
	}
	return pv
}
