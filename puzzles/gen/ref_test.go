package gen

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// A second, deliberately naive solver for the tests: it walks every pit 0-11
// through engine.Play, the full path that records legs and decides the end of
// the game, and shares no code with solve.go. The proofs the generator
// publishes must agree with it.

// refMoveWins reports whether attacker's move pit in p forces a win within n
// of attacker's moves (counting this one).
func refMoveWins(p engine.Position, pit int, r engine.Rules, attacker engine.Side, n int) bool {
	var out engine.Outcome
	engine.Play(p, pit, r, &out)
	if !out.Legal() {
		return false
	}
	if out.Result.Over() {
		return out.Result.Winner == engine.WinnerOf(attacker)
	}
	if n == 1 {
		return false
	}
	q := out.Position
	for d := range engine.NumPits {
		var reply engine.Outcome
		engine.Play(q, d, r, &reply)
		if !reply.Legal() {
			continue
		}
		if reply.Result.Over() {
			if reply.Result.Winner != engine.WinnerOf(attacker) {
				return false
			}
			continue
		}
		saved := false
		for m := range engine.NumPits {
			if refMoveWins(reply.Position, m, r, attacker, n-1) {
				saved = true
				break
			}
		}
		if !saved {
			return false
		}
	}
	return true
}

// refCapture returns what pit captures in p, or -1 when it is illegal.
func refCapture(p engine.Position, pit int, r engine.Rules) (seeds int, next engine.Position, legal bool) {
	var out engine.Outcome
	engine.Play(p, pit, r, &out)
	if !out.Legal() {
		return -1, p, false
	}
	if !out.Capture.None() {
		seeds = int(out.Capture.Seeds)
	}
	return seeds, out.Position, true
}

// refBestCapture returns the most the side to move in p captures.
func refBestCapture(p engine.Position, r engine.Rules) int {
	best := 0
	for pit := range engine.NumPits {
		if c, _, ok := refCapture(p, pit, r); ok {
			best = max(best, c)
		}
	}
	return best
}

// refProve checks pz's central claim with the naive solver.
func refProve(t *testing.T, pz Puzzle) {
	t.Helper()
	for _, problem := range refProblems(pz) {
		t.Error(problem)
	}
}

// refProblems lists what is wrong with pz's central claim by the naive
// solver: the key move, and no other, must do what the goal asks, with the
// margins the goal promises.
func refProblems(pz Puzzle) []string {
	var problems []string
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	p, r, key := pz.Position, pz.Rules, pz.Key()
	var out engine.Outcome
	engine.Play(p, key, r, &out)
	if len(out.Legs) < MinKeyLegs || len(out.Legs) != pz.KeyLegs {
		errorf("%s: key move %d sows %d legs, puzzle says %d", pz.ID, key, len(out.Legs), pz.KeyLegs)
	}
	keyCapt, keyNext, _ := refCapture(p, key, r)
	keyThreat := refBestCapture(keyNext, r)
	for pit := range engine.NumPits {
		if pit == key {
			continue
		}
		capt, next, legal := refCapture(p, pit, r)
		if !legal {
			continue
		}
		switch pz.Goal {
		case GoalMaxCapture:
			if capt > keyCapt-MinCaptureMargin {
				errorf("%s: pit %d captures %d, key %d captures %d", pz.ID, pit, capt, key, keyCapt)
			}
		case GoalDefend:
			threat := refBestCapture(next, r)
			if threat < MinThreat || threat < keyThreat+ThreatMargin {
				errorf("%s: after pit %d the opponent captures %d, after the key %d", pz.ID, pit, threat, keyThreat)
			}
		case GoalWin:
			if refMoveWins(p, pit, r, p.ToMove, pz.Depth) {
				errorf("%s: pit %d also wins within %d", pz.ID, pit, pz.Depth)
			}
		}
	}
	if pz.Version >= 2 {
		problems = append(problems, refGreedProblems(pz, keyCapt)...)
	}
	if pz.Goal == GoalEndgame {
		more, _ := refEndgameProblems(pz)
		problems = append(problems, more...)
	}
	if pz.Goal == GoalWin {
		if !refMoveWins(p, key, r, p.ToMove, pz.Depth) {
			errorf("%s: key %d does not force a win within %d", pz.ID, key, pz.Depth)
		}
		if pz.Depth > 1 {
			for pit := range engine.NumPits {
				if refMoveWins(p, pit, r, p.ToMove, pz.Depth-1) {
					errorf("%s: pit %d wins within %d already", pz.ID, pit, pz.Depth-1)
				}
			}
		}
	}
	return problems
}

// refGreedProblems checks version 2's rules about captures with the naive
// solver: a max_capture puzzle has another move that captures; the theme
// sacrifice is there exactly when another move captures more than the key;
// greed_trap exactly when, besides, every move that captures the most ends
// the game lost, or lets the opponent capture more than it took, or lets the
// opponent force a win within the puzzle's depth.
func refGreedProblems(pz Puzzle, keyCapt int) []string {
	var problems []string
	p, r, key := pz.Position, pz.Rules, pz.Key()
	most, otherCaptures := 0, false
	for pit := range engine.NumPits {
		if c, _, ok := refCapture(p, pit, r); ok {
			most = max(most, c)
			otherCaptures = otherCaptures || (pit != key && c > 0)
		}
	}
	if pz.Goal == GoalMaxCapture && !otherCaptures {
		problems = append(problems, fmt.Sprintf("%s: no other move captures anything", pz.ID))
	}
	sacrifice := keyCapt < most
	trap := sacrifice
	// An endgame puzzle's other moves all give up the win
	// (refEndgameProblems checks it): each is a trap.
	for pit := range engine.NumPits {
		if pz.Goal == GoalEndgame {
			break
		}
		c, next, ok := refCapture(p, pit, r)
		if !ok || c < most || !trap {
			continue
		}
		var out engine.Outcome
		engine.Play(p, pit, r, &out)
		if out.Result.Over() {
			trap = out.Result.Winner == engine.WinnerOf(p.ToMove.Other())
			continue
		}
		trap = refBestCapture(next, r) > c
		for reply := range engine.NumPits {
			trap = trap || refMoveWins(next, reply, r, next.ToMove, pz.Depth)
		}
	}
	for _, theme := range []struct {
		name string
		want bool
	}{{"sacrifice", sacrifice}, {"greed_trap", trap}} {
		if slices.Contains(pz.Themes, theme.name) != theme.want {
			problems = append(problems, fmt.Sprintf("%s: theme %s is %v in %v, the naive solver says %v", pz.ID, theme.name, !theme.want, pz.Themes, theme.want))
		}
	}
	return problems
}

// refEndgameProblems checks an endgame puzzle without the table or the
// generator's search, in two ways.
//
// Always, by refMoveWins (every pit through engine.Play): the key forces a
// win within the puzzle's depth and not sooner, and no other move forces one
// within one move more than that.
//
// When at most refEndgameStates real positions are reachable from the
// puzzle's (captured counts included), exactly: it walks all of them and
// computes, backwards from the finished games the attacker has won, the
// positions from which the attacker forces such a finish and in how many
// plies (a retrograde attractor with a count of the defender's moves left).
// The key must lead into it within the puzzle's depth and not sooner, and
// no other move may lead into it at all: no other move forces a win in any
// number of moves. It reports whether it could.
//
// That the other moves do not win through a cycle scored by the repetition
// rule either is the table's word alone; the table is checked against its
// own reference solver in engine/tablebase.
func refEndgameProblems(pz Puzzle) (problems []string, exact bool) {
	errorf := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	r, attacker := pz.Rules, pz.Position.ToMove
	for pit := range engine.NumPits {
		switch {
		case pit == pz.Key() && !refMoveWins(pz.Position, pit, r, attacker, pz.Depth):
			errorf("%s: the key %d forces no win within %d", pz.ID, pit, pz.Depth)
		case pit == pz.Key() && pz.Depth > 1 && refMoveWins(pz.Position, pit, r, attacker, pz.Depth-1):
			errorf("%s: the key %d forces a win within %d already", pz.ID, pit, pz.Depth-1)
		case pit != pz.Key() && refMoveWins(pz.Position, pit, r, attacker, pz.Depth+1):
			errorf("%s: pit %d also forces a win within %d", pz.ID, pit, pz.Depth+1)
		}
	}
	type state struct {
		over  bool
		won   bool  // over, won by the attacker
		left  int   // the defender's moves not yet known to lose
		dist  int   // plies to a won finish, -1 unknown
		preds []int // the states with a move here, once per move
	}
	index := map[engine.Position]int{}
	var states []state
	add := func(p engine.Position, over bool, w engine.Winner) int {
		if i, ok := index[p]; ok {
			return i
		}
		index[p] = len(states)
		states = append(states, state{over: over, won: over && w == engine.WinnerOf(attacker), dist: -1})
		return len(states) - 1
	}
	positions := []engine.Position{pz.Position}
	add(pz.Position, false, engine.NoWinner)
	var out engine.Outcome
	for i := 0; i < len(positions); i++ {
		if len(states) > refEndgameStates {
			return problems, false
		}
		p := positions[i]
		if states[i].over {
			continue
		}
		for pit := range engine.NumPits {
			engine.Play(p, pit, r, &out)
			if !out.Legal() {
				continue
			}
			before := len(states)
			c := add(out.Position, out.Result.Over(), out.Result.Winner)
			if c == before {
				positions = append(positions, out.Position)
			}
			states[c].preds = append(states[c].preds, i)
			states[i].left++
		}
	}
	var queue []int
	for i := range states {
		if states[i].won {
			states[i].dist = 0
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, i := range states[c].preds {
			s := &states[i]
			if s.dist >= 0 {
				continue
			}
			if positions[i].ToMove == attacker {
				s.dist = states[c].dist + 1
				queue = append(queue, i)
				continue
			}
			if s.left--; s.left == 0 {
				s.dist = states[c].dist + 1
				queue = append(queue, i)
			}
		}
	}
	for pit := range engine.NumPits {
		engine.Play(pz.Position, pit, r, &out)
		if !out.Legal() {
			continue
		}
		d := states[index[out.Position]].dist
		switch {
		case pit == pz.Key() && d < 0:
			errorf("%s: the key %d forces no win", pz.ID, pit)
		case pit == pz.Key() && 1+(d+1)/2 != pz.Depth:
			errorf("%s: the key %d forces a win in %d more plies, %d own moves; the puzzle says %d", pz.ID, pit, d, 1+(d+1)/2, pz.Depth)
		case pit != pz.Key() && d >= 0:
			errorf("%s: pit %d also forces a win, in %d more plies", pz.ID, pit, d)
		}
	}
	return problems, true
}

// refEndgameStates bounds the exact check of refEndgameProblems: many
// 12-seed endgames reach millions of positions once the captured counts
// count, which takes the test seconds each.
const refEndgameStates = 200_000
