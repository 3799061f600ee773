package gen

import (
	"fmt"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Thresholds of the goals.
const (
	// MinCaptureMargin: in a max_capture puzzle the key move captures at least
	// this many seeds more than any other move.
	MinCaptureMargin = 2
	// MinThreat: in a defend puzzle every other move lets the opponent capture
	// at least this many seeds next turn...
	MinThreat = 4
	// ThreatMargin: ...and at least this many more than after the key move.
	ThreatMargin = 3
	// decoyLegs: a move whose relay is at least this long cannot be ruled out
	// at a glance; it looks as good as the key until it is followed through.
	decoyLegs = MinKeyLegs
	// decoyCapture: a move that captures at least this much looks tempting.
	decoyCapture = 2
)

// moveFacts is what one legal move of the puzzle position does.
type moveFacts struct {
	pit     int
	legs    int
	maxLeg  int // the most seeds any one leg sows
	capture int
	over    bool          // the move ends the game
	winner  engine.Winner // and who wins, when it does
	next    engine.Position
	threat  int // the most the opponent captures with its reply; 0 when over
	net     int // capture - threat
}

// examine plays every legal move of p in full (legs included) and records
// what each does, in pit order.
func examine(p engine.Position, r engine.Rules) []moveFacts {
	var out engine.Outcome
	var facts []moveFacts
	for m := p.LegalMoves(r); m != 0; {
		pit := m.Next()
		engine.Play(p, pit, r, &out)
		f := moveFacts{pit: pit, legs: len(out.Legs), capture: 0, next: out.Position,
			over: out.Result.Over(), winner: out.Result.Winner}
		for _, l := range out.Legs {
			f.maxLeg = max(f.maxLeg, int(l.Seeds))
		}
		if !out.Capture.None() {
			f.capture = int(out.Capture.Seeds)
		}
		if !f.over {
			f.threat, _ = maxCapture(&f.next, r)
		}
		f.net = f.capture - f.threat
		facts = append(facts, f)
	}
	return facts
}

// finding is a goal a position satisfies, with its proof's numbers.
type finding struct {
	goal   Goal
	key    int // index into the facts
	depth  int
	line   []int
	decoys int
	bound  int // defend: the most the opponent captures after the key move
	others int // defend: the least the opponent captures after any other move
}

// findGoal decides whether the position whose moves are facts makes a puzzle
// with goal under generator version's rules, by exhaustive search, and
// returns its solution when it does. Version 2 adds one rule: a max_capture
// puzzle needs another move that captures something, so that the answer is
// not simply the only capture on the board.
//
// An endgame finding needs tb, the endgame table (findEndgame); with tb nil
// there is none.
func findGoal(p engine.Position, r engine.Rules, facts []moveFacts, goal Goal, version int, tb *tablebase.Table) (finding, bool) {
	f := finding{goal: goal, key: -1, depth: 1}
	if len(facts) < 2 {
		return f, false // a forced move is no puzzle
	}
	switch goal {
	case GoalMaxCapture:
		if slices.ContainsFunc(facts, func(m moveFacts) bool { return m.over }) {
			return f, false // a move that ends the game makes it a win puzzle
		}
		f.key = uniqueBest(facts, func(m moveFacts) int { return m.capture }, MinCaptureMargin)
		if f.key < 0 || facts[f.key].capture < MinCaptureMargin {
			return f, false
		}
		if version >= 2 && !slices.ContainsFunc(facts, func(m moveFacts) bool { return m.capture > 0 && m.pit != facts[f.key].pit }) {
			return f, false
		}
		f.line = []int{facts[f.key].pit}
	case GoalDefend:
		if slices.ContainsFunc(facts, func(m moveFacts) bool { return m.over }) {
			return f, false
		}
		f.key = uniqueBest(facts, func(m moveFacts) int { return -m.threat }, ThreatMargin)
		if f.key < 0 {
			return f, false
		}
		k := facts[f.key]
		for i, m := range facts {
			if i != f.key && (m.threat < MinThreat || m.net > k.net-MinCaptureMargin) {
				return f, false
			}
		}
		_, reply := maxCapture(&k.next, r)
		f.line = []int{k.pit, reply}
		f.bound = k.threat
		f.others = engine.SeedCount
		for i, m := range facts {
			if i != f.key {
				f.others = min(f.others, m.threat)
			}
		}
	case GoalWin:
		for n := 1; n <= MaxWinDepth && f.key < 0; n++ {
			for i := range facts {
				if moveWinsWithin(&facts[i].next, p.ToMove, r, n) {
					if f.key >= 0 {
						return f, false // two first moves win: not unique
					}
					f.key, f.depth = i, n
				}
			}
		}
		if f.key < 0 {
			return f, false
		}
		f.line = prover{r: r}.winLine(p, facts[f.key].pit, f.depth)
	case GoalEndgame:
		if version < 2 {
			return f, false
		}
		var ok bool
		if f, ok = findEndgame(p, r, facts, tb); !ok {
			return f, false
		}
	default:
		return f, false
	}
	if facts[f.key].legs < MinKeyLegs {
		return f, false
	}
	for i, m := range facts {
		if i != f.key && (m.legs >= decoyLegs || m.capture >= decoyCapture) {
			f.decoys++
		}
	}
	return f, true
}

// uniqueBest returns the index of the one move whose score beats every other
// move's by at least margin, or -1.
func uniqueBest(facts []moveFacts, score func(moveFacts) int, margin int) int {
	best := -1
	for i, m := range facts {
		if best < 0 || score(m) > score(facts[best]) {
			best = i
		}
	}
	for i, m := range facts {
		if i != best && score(m) > score(facts[best])-margin {
			return -1
		}
	}
	return best
}

// winLine plays out the forced win that starts with key: the most stubborn
// defence against the fastest win, to the end of the game.
func (pv prover) winLine(p engine.Position, key, depth int) []int {
	r := pv.r
	attacker := p.ToMove
	line := []int{key}
	q, _ := p.Apply(key, r)
	for n := depth; ; n-- {
		reply := pv.stubbornReply(&q, attacker, n)
		if reply < 0 {
			return line
		}
		line = append(line, reply)
		s, _ := q.Apply(reply, r)
		if s.Status(r).Over() {
			return line
		}
		m := pv.fastestWin(&s, n-1)
		line = append(line, m)
		q, _ = s.Apply(m, r)
	}
}

// build turns a finding into the puzzle for date (zero for a practice
// puzzle), with its prompt, themes and difficulty.
func build(d time.Time, version int, p engine.Position, r engine.Rules, facts []moveFacts, f finding) Puzzle {
	k := facts[f.key]
	pz := Puzzle{
		Date: d, Version: version,
		Position: p, Rules: r, Goal: f.goal, Depth: f.depth,
		KeyLegs: k.legs, Solution: f.line,
	}
	if !d.IsZero() { // a practice puzzle's id is the caller's
		pz.ID = IDFor(d)
	}
	pz.Difficulty = grade(version, facts, f)
	pz.Prompt = prompt(p.ToMove, f)
	pz.Themes = themes(p, r, facts, f, version)
	return pz
}

func prompt(s engine.Side, f finding) string {
	who := map[engine.Side]string{engine.South: "South", engine.North: "North"}
	switch f.goal {
	case GoalMaxCapture:
		return fmt.Sprintf("%s to play: find the move that captures the most seeds.", who[s])
	case GoalWin:
		if f.depth == 1 {
			return fmt.Sprintf("%s to play: find the move that wins the game.", who[s])
		}
		return fmt.Sprintf("%s to play and force a win within %d moves, whatever %s replies.", who[s], f.depth, who[s.Other()])
	case GoalEndgame:
		return fmt.Sprintf("%s to play and win with perfect play: only one move keeps the win, which then takes %d moves whatever %s replies.",
			who[s], f.depth, who[s.Other()])
	case GoalDefend:
		return fmt.Sprintf("%s to play: every move but one lets %s capture %d or more seeds next turn. Find the one that does not.",
			who[s], who[s.Other()], f.others)
	}
	return ""
}

// themes names what the solver meets on the way, for filtering and display.
// Version 1's greed_trap only said that another move captures more than the
// key; version 2 calls that sacrifice, and greed_trap says more: every move
// that captures the most is proved to lose or to give more back (greedTrap).
func themes(p engine.Position, r engine.Rules, facts []moveFacts, f finding, version int) []string {
	k := facts[f.key]
	var ts []string
	add := func(ok bool, name string) {
		if ok {
			ts = append(ts, name)
		}
	}
	add(true, "relay")
	add(k.legs >= 12, "long_relay")
	add(k.maxLeg >= engine.NumPits-1, "lap")
	add(k.capture == 0, "quiet_move")
	add(k.capture >= 10, "big_capture")
	if version == 1 {
		add(slices.ContainsFunc(facts, func(m moveFacts) bool { return m.capture > k.capture }), "greed_trap")
	} else {
		add(greedTrap(p, r, facts, f), "greed_trap")
		add(nonGreedy(facts, f.key), "sacrifice")
	}
	add(f.decoys >= 3, "decoys")
	add(p.BoardSeeds() <= 16, "endgame")
	if f.goal == GoalWin || f.goal == GoalEndgame {
		end := p
		for _, pit := range f.line {
			end, _ = end.Apply(pit, r)
		}
		res := end.Status(r)
		add(res.Reason == engine.ByMajority, "majority")
		add(res.Reason == engine.ByNoMoves, "no_moves")
	}
	return ts
}

// mostCaptured returns the most seeds any of the moves captures.
func mostCaptured(facts []moveFacts) int {
	most := 0
	for _, m := range facts {
		most = max(most, m.capture)
	}
	return most
}

// nonGreedy reports whether the key move captures less than some other move:
// a solver who takes the biggest capture on offer misses it. (When no move
// captures, every move ties for the most and none is non-greedy.)
func nonGreedy(facts []moveFacts, key int) bool {
	return facts[key].capture < mostCaptured(facts)
}

// greedTrap reports whether the key is non-greedy and every move that
// captures the most is a trap, by the same exhaustive search as the goals:
// it ends the game lost, or the opponent's best reply captures more than it
// did, or the opponent then forces a win within the puzzle's depth of its
// own moves. In an endgame puzzle every move but the key is proven by the
// table to give up the win: a trap.
func greedTrap(p engine.Position, r engine.Rules, facts []moveFacts, f finding) bool {
	if !nonGreedy(facts, f.key) {
		return false
	}
	if f.goal == GoalEndgame {
		return true
	}
	most := mostCaptured(facts)
	for _, m := range facts {
		if m.capture < most {
			continue
		}
		var trapped bool
		switch {
		case m.over:
			trapped = m.winner == engine.WinnerOf(p.ToMove.Other())
		default:
			trapped = m.threat > m.capture || winsWithin(&m.next, r, f.depth)
		}
		if !trapped {
			return false
		}
	}
	return true
}

// NonGreedy reports whether p's key move captures less than another legal
// move of its position: a solver who takes the biggest capture on offer does
// not find it. Version 2's depth targets count these keys.
func NonGreedy(p Puzzle) bool {
	facts := examine(p.Position, p.Rules)
	for i, m := range facts {
		if m.pit == p.Key() {
			return nonGreedy(facts, i)
		}
	}
	return false
}
