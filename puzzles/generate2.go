package puzzles

import (
	"context"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// Generator version 2 keeps version 1's candidates, goals, proofs and grades,
// and asks for depth: from deepFrom up, a day takes only a puzzle whose key
// move is not the biggest capture on offer (nonGreedy), so that tracing every
// relay and taking the most seeds no longer solves it. It also gives up
// trivial max_capture puzzles (findGoal), splits the positions with the
// practice pool (practiceSide), and names sacrifices and proven greed traps
// (themes).

// goalSpec is one goal of generator version 2: the lowest grade it can have,
// and whether its key can be non-greedy at all. A new goal joins the mix by
// a line here and a case in findGoal: the draw of the preferred goal, the
// depth rule and the practice filter all read this table.
type goalSpec struct {
	goal     Goal
	minGrade int
	deep     bool
}

// v2Goals is version 2's goal mix, in the order candidates are tried.
var v2Goals = []goalSpec{
	{GoalMaxCapture, 1, false}, // the key is the biggest capture by definition
	{GoalWin, 1, true},
	{GoalDefend, 2, true}, // defend adds a grade
}

// deepFrom is the lowest target difficulty at which a version 2 day takes
// only a non-greedy key. Grade 1 leaves almost no room for one: a bigger
// capture of 2 seeds or more is a decoy, which adds a grade.
const deepFrom = 2

// v2Seed tells version 2's random draws from version 1's.
const v2Seed = 0x6179_6f61_796f_0000 | 2

// scan plays up to games seeded self-play games and shows visit every
// candidate that admit lets through, whose moves sift accepts (nil: all), and
// that makes a puzzle for one of goals under version's rules, with every
// finding it makes, in goal order; visit returns true to stop. Candidates are
// the game's positions and those up to offDepth moves off it, with their
// mirror images, as in version 1.
func scan(ctx context.Context, rng *prng, r engine.Rules, version, games int,
	admit func(engine.Position) bool, sift func([]moveFacts) bool, goals []Goal,
	visit func(game int, p engine.Position, facts []moveFacts, found []finding) bool,
) error {
	var (
		played, cands []engine.Position
		found         []finding
	)
	for game := range games {
		if err := ctx.Err(); err != nil {
			return err
		}
		played = selfPlay(rng, r, played[:0])
		for _, g := range played {
			cands = offLine(g, r, offDepth, cands[:0])
			for _, p := range cands {
				if !admit(p) {
					continue
				}
				facts := examine(p, r)
				if sift != nil && !sift(facts) {
					continue
				}
				found = found[:0]
				for _, goal := range goals {
					if f, ok := findGoal(p, r, facts, goal, version); ok {
						found = append(found, f)
					}
				}
				if len(found) > 0 && visit(game, p, facts, found) {
					return nil
				}
			}
		}
	}
	return nil
}

// mayBeDeep is a cheap sift for days that want a non-greedy key: some move
// long enough to be a key captures less than the most any move captures.
func mayBeDeep(facts []moveFacts) bool {
	most := mostCaptured(facts)
	for _, m := range facts {
		if m.legs >= MinKeyLegs && m.capture < most {
			return true
		}
	}
	return false
}

// goalsOf lists the goals of specs.
func goalsOf(specs []goalSpec) []Goal {
	goals := make([]Goal, len(specs))
	for i, s := range specs {
		goals[i] = s.goal
	}
	return goals
}

// preferredGoalV2 draws, each as likely, the goal a version 2 day holds out
// for among those that can grade target and, when deep, have a non-greedy
// key.
func preferredGoalV2(rng *prng, target int, deep bool) Goal {
	var choices []Goal
	for _, s := range v2Goals {
		if s.minGrade <= target && (s.deep || !deep) {
			choices = append(choices, s.goal)
		}
	}
	return choices[rng.intN(len(choices))]
}

// generateV2 is version 2 of the daily generator: version 1's search, with
// the day's bucket, the daily half of the practice split, and from deepFrom a
// non-greedy key (also in the fallback, unless no such puzzle turned up at
// all within the budget).
func generateV2(ctx context.Context, date time.Time) (Puzzle, error) {
	const version = 2
	r := engine.Rules{}
	want := dayBucket(date)
	target := TargetDifficulty(date)
	rng := newPRNG(uint64(dayNumber(date)), v2Seed)
	deep := target >= deepFrom
	prefer := preferredGoalV2(rng, target, deep)

	var (
		pick     Puzzle
		picked   bool
		fallback Puzzle
		rank     = 99 // the fallback's: |difficulty - target|, plus 10 if it is greedy on a deep day
	)
	var sift func([]moveFacts) bool
	if deep {
		sift = mayBeDeep
	}
	admit := func(p engine.Position) bool { return bucket(&p) == want && !practiceSide(&p) }
	visit := func(game int, p engine.Position, facts []moveFacts, found []finding) bool {
		var hits []finding
		for _, f := range found {
			d := difficulty(f.goal, f.depth, facts[f.key].legs, f.decoys)
			shallow := deep && !nonGreedy(facts, f.key)
			if d == target && !shallow && (f.goal == prefer || game >= preferGames) {
				hits = append(hits, f)
				continue
			}
			fr := abs(d - target)
			if shallow {
				fr += 10
			}
			if fr < rank {
				fallback, rank = build(date, version, p, r, facts, f), fr
			}
		}
		if len(hits) > 0 {
			pick, picked = build(date, version, p, r, facts, hits[rng.intN(len(hits))]), true
		}
		return picked
	}
	if err := scan(ctx, rng, r, version, maxGames, admit, sift, goalsOf(v2Goals), visit); err != nil {
		return Puzzle{}, err
	}
	switch {
	case picked:
		return pick, nil
	case rank < 99:
		return fallback, nil
	}
	return Puzzle{}, fmt.Errorf("%w for %s", ErrNoPuzzle, date.Format(DateLayout))
}
