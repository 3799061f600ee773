package tablebase

import (
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// levelGame is one level of the reference solver seen as the game G(p) of
// the package documentation, from the side of a player X: a state is a
// board and who is to move there, X or O (the opponent). A move that leaves
// the level ends the game (its value is known from the levels below); play
// that stays forever is scored s(p) for X, p being where X started.
type levelGame struct {
	l     *refLevel
	size  int
	preds [][]int // the states one quiet move before each state
	quiet []int   // each state's quiet moves
}

func newLevelGame(l *refLevel) *levelGame {
	g := &levelGame{l: l, size: len(l.boards)}
	g.preds = make([][]int, 2*g.size)
	g.quiet = make([]int, 2*g.size)
	for s := range 2 * g.size {
		i, mover := s%g.size, s/g.size
		for _, m := range l.moves[i] {
			if m.child >= 0 {
				child := (1-mover)*g.size + m.child
				g.preds[child] = append(g.preds[child], s)
				g.quiet[s]++
			}
		}
	}
	return g
}

// attractor returns the states from which player who (0 X, 1 O) can force
// the game out of the level at a value win accepts (values for X), in a
// bounded number of moves: states i (X to move at board i) and size+i (O).
func (g *levelGame) attractor(who int, win func(xv int) bool) []bool {
	in := make([]bool, 2*g.size)
	count := make([]int, 2*g.size)
	var queue []int
	add := func(s int) {
		if !in[s] {
			in[s] = true
			queue = append(queue, s)
		}
	}
	for s := range 2 * g.size {
		i, mover := s%g.size, s/g.size
		sign := 1 - 2*mover // a value for the mover times sign is X's
		if len(g.l.moves[i]) == 0 {
			if win(sign * g.l.end[i]) {
				add(s)
			}
			continue
		}
		wins, all := false, true
		for _, m := range g.l.moves[i] {
			if m.child < 0 {
				w := win(sign * m.exit)
				wins, all = wins || w, all && w
			}
		}
		switch {
		case mover == who && wins:
			add(s)
		case mover != who && !all:
			count[s] = -1 // the opponent leaves at a value who does not want
		case mover != who:
			count[s] = g.quiet[s]
			if count[s] == 0 {
				add(s)
			}
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, s := range g.preds[c] {
			if s/g.size == who {
				add(s)
			} else if count[s] > 0 {
				if count[s]--; count[s] == 0 {
					add(s)
				}
			}
		}
	}
	return in
}

// checkCycleGame solves G(p) for every board p of the reference levels
// straight from its definition, threshold by threshold: X makes sure
// of t when s(p) < t by forcing an exit worth >= t (X's attractor), and when
// s(p) >= t by never letting O force an exit worth < t (outside O's
// attractor). Value must be that, and every move's value from Moves the
// value of G(p) after that move.
func checkCycleGame(t *testing.T, ref *refSolver, tb *Table) {
	var buf []MoveValue
	inside := 0
	for n, l := range ref.levels {
		g := newLevelGame(l)
		// val[s] >= t for the states where X gets t; t = -n always.
		good := make([][]bool, 0, n+1)
		bad := make([][]bool, 0, n+1)
		for th := -n + 2; th <= n; th += 2 {
			good = append(good, g.attractor(0, func(xv int) bool { return xv >= th }))
			bad = append(bad, g.attractor(1, func(xv int) bool { return xv < th }))
		}
		value := func(state, s int) int { // G(p) from state, p's split s
			v := -n
			for k, th := 0, -n+2; th <= n; k, th = k+1, th+2 {
				if (s < th && good[k][state]) || (s >= th && !bad[k][state]) {
					v = th
				}
			}
			return v
		}
		for i, x := range l.boards {
			p := engine.Position{Pits: x}
			s := refSplit(x)
			want := value(i, s)
			if got, _ := tb.Value(&p); got != want {
				t.Fatalf("%v: Value %d, G(p) %d", x, got, want)
			}
			if a, b, _ := tb.Bounds(&p); a < want && want < b {
				inside++
			}
			buf, _ = tb.Moves(p, buf)
			if len(buf) != len(l.moves[i]) {
				t.Fatalf("%v: %d move values, %d legal moves", x, len(buf), len(l.moves[i]))
			}
			for k, m := range l.moves[i] {
				w := m.exit
				if m.child >= 0 {
					w = value(g.size+m.child, s) // O to move after X's move
				}
				if buf[k].Pit != m.pit || buf[k].Value != w {
					t.Fatalf("%v: move %+v, G(p) after pit %d: %d", x, buf[k], m.pit, w)
				}
			}
		}
	}
	t.Logf("%d boards valued strictly between their bounds", inside)
}
