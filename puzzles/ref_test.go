package puzzles

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
	for pit := range engine.NumPits {
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
