package tablebase

import (
	"github.com/ayoayo/ayoayo/engine"
)

// refLevel is the reference solution of one level, computed without the
// table's code: the level's boards listed by a recursive enumeration and
// found by a map, moves played with engine.Play, and the bounds found per
// threshold by an attractor over the explicit graph with predecessor
// counts, instead of the table's value iteration.
type refLevel struct {
	boards [][engine.NumPits]uint8
	index  map[[engine.NumPits]uint8]int
	a, b   []int
	moves  [][]refMove // each board's legal moves; none: the game ends
	end    []int       // a board without moves: its value, the leftovers
}

// refMove is a legal move: the value of a move that leaves the level (a
// capture, or the end of the game after it), or the board it leads to.
type refMove struct {
	pit   int
	exit  int // when child < 0
	child int // the index of the board reached on the level, or -1
}

// refSolver holds the reference levels 0..n under one set of rules.
type refSolver struct {
	rules  engine.Rules
	levels []*refLevel
}

func newRefSolver(r engine.Rules, maxSeeds int) *refSolver {
	s := &refSolver{rules: r}
	for n := 0; n <= maxSeeds; n++ {
		s.levels = append(s.levels, s.solve(n))
	}
	return s
}

// value returns V = clamp(s, A, B) of a board with South to move.
func (s *refSolver) value(x [engine.NumPits]uint8) int {
	n := 0
	for _, v := range x {
		n += int(v)
	}
	l := s.levels[n]
	i := l.index[x]
	return max(l.a[i], min(l.b[i], refSplit(x)))
}

func refSplit(x [engine.NumPits]uint8) int {
	s := 0
	for i, v := range x {
		if i < engine.RowPits {
			s += int(v)
		} else {
			s -= int(v)
		}
	}
	return s
}

func refBoards(n int) [][engine.NumPits]uint8 {
	var out [][engine.NumPits]uint8
	var x [engine.NumPits]uint8
	var fill func(i, left int)
	fill = func(i, left int) {
		if i == engine.NumPits-1 {
			x[i] = uint8(left)
			out = append(out, x)
			return
		}
		for v := 0; v <= left; v++ {
			x[i] = uint8(v)
			fill(i+1, left-v)
		}
	}
	fill(0, n)
	return out
}

func rotate(x [engine.NumPits]uint8) [engine.NumPits]uint8 {
	var y [engine.NumPits]uint8
	for i := range y {
		y[i] = x[(i+engine.RowPits)%engine.NumPits]
	}
	return y
}

func (s *refSolver) solve(n int) *refLevel {
	l := &refLevel{boards: refBoards(n), index: map[[engine.NumPits]uint8]int{}}
	l.moves = make([][]refMove, len(l.boards))
	l.end = make([]int, len(l.boards))
	for i, x := range l.boards {
		l.index[x] = i
	}
	size := len(l.boards)
	const none = -1 << 20
	exit := make([]int, size)      // best value among moves that leave the level
	terminal := make([]bool, size) // the mover has no legal move
	quiet := make([][]int, size)   // children at this level, one per move
	preds := make([][]int, size)   // parents at this level, one per move
	var out engine.Outcome
	for i, x := range l.boards {
		// Captured counts stay 0 so that the majority never ends a game here:
		// Play does not check that the counts add up to 48.
		p := engine.Position{Pits: x}
		exit[i] = none
		moves := p.LegalMoves(s.rules)
		if moves == 0 {
			terminal[i] = true
			end := p.Settle(s.rules)
			exit[i] = end.Margin(engine.South)
			l.end[i] = exit[i]
			continue
		}
		for pit := moves.Next(); pit >= 0; pit = moves.Next() {
			engine.Play(p, pit, s.rules, &out)
			k := int(out.Capture.Seeds)
			m := refMove{pit: pit, child: -1}
			switch {
			case out.Result.Over(): // the opponent has no move: settled
				m.exit = out.Position.Margin(engine.South)
			case k > 0:
				m.exit = k - s.value(rotate(out.Position.Pits))
			default:
				m.child = l.index[rotate(out.Position.Pits)]
				quiet[i] = append(quiet[i], m.child)
				preds[m.child] = append(preds[m.child], i)
			}
			if m.child < 0 {
				exit[i] = max(exit[i], m.exit)
			}
			l.moves[i] = append(l.moves[i], m)
		}
	}
	l.a, l.b = make([]int, size), make([]int, size)
	for i := range size {
		l.a[i], l.b[i] = -n, n
	}
	// For each threshold t: inA[p] says A(p) >= t, inB[q] says B(q) <= -t.
	// A(p) >= t: an exit worth >= t, or a quiet move to q with B(q) <= -t.
	// B(q) <= -t: every exit worth <= -t and every quiet move to r with
	// A(r) >= t (a board without moves: its value <= -t). The least such
	// sets are the attractor computed below; they belong to the least A
	// and the greatest B.
	for t := -n + 2; t <= n; t += 2 {
		inA, inB := make([]bool, size), make([]bool, size)
		count := make([]int, size)
		var queueA, queueB []int
		for i := range size {
			if exit[i] >= t {
				inA[i] = true
				queueA = append(queueA, i)
			}
			switch {
			case terminal[i]:
				if exit[i] <= -t {
					inB[i] = true
					queueB = append(queueB, i)
				}
			case exit[i] > -t:
				count[i] = -1 // an exit too good for the mover: never
			default:
				count[i] = len(quiet[i])
				if count[i] == 0 {
					inB[i] = true
					queueB = append(queueB, i)
				}
			}
		}
		for len(queueA)+len(queueB) > 0 {
			if len(queueB) > 0 {
				q := queueB[0]
				queueB = queueB[1:]
				for _, p := range preds[q] {
					if !inA[p] {
						inA[p] = true
						queueA = append(queueA, p)
					}
				}
				continue
			}
			r := queueA[0]
			queueA = queueA[1:]
			for _, q := range preds[r] {
				if count[q] > 0 {
					if count[q]--; count[q] == 0 {
						inB[q] = true
						queueB = append(queueB, q)
					}
				}
			}
		}
		for i := range size {
			if inA[i] {
				l.a[i] = t
			}
			if inB[i] {
				l.b[i] = min(l.b[i], -t)
			}
		}
	}
	return l
}
