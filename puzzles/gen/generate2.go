package gen

import (
	"context"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
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
	// fallback: a day never holds out for the goal; it comes from the
	// endgame pass a day runs when its search found nothing it held out for
	// (see generateV2).
	fallback bool
}

// v2Goals is version 2's goal mix, in the order candidates are tried.
var v2Goals = []goalSpec{
	{GoalMaxCapture, 1, false, false}, // the key is the biggest capture by definition
	{GoalWin, 1, true, false},
	{GoalDefend, 2, true, false}, // defend adds a grade
	{GoalEndgame, 2, true, true}, // a win of 1 move or more, and perfect play
}

// deepFrom is the lowest target difficulty at which a version 2 day takes
// only a non-greedy key. Grade 1 leaves almost no room for one: a bigger
// capture of 2 seeds or more is a decoy, which adds a grade.
const deepFrom = 2

// v2Seed tells version 2's random draws from version 1's.
const v2Seed = 0x6179_6f61_796f_0000 | 2

// pass is one scan's budget and candidates.
type pass struct {
	games    int // self-play games at most
	minSeeds int // a game stops once fewer seeds are left on its board (0: played out)
	// endgame: the candidates are endgame positions only: those with at
	// most EndgameSeeds seeds, on a game (played out) from endgameFrom
	// seeds down or up to endgameOffDepth moves off it, where the long
	// relays an endgame key needs are rare enough to need the width.
	endgame bool
}

// The endgame pass's candidates (see pass).
const (
	endgameFrom     = 16
	endgameOffDepth = 4
)

// scan plays up to ps.games seeded self-play games and shows visit every
// candidate that admit lets through and that makes a puzzle for one of
// goals under version's rules (tb proves endgame puzzles), with every
// finding it makes, in goal order; visit returns true to stop. Candidates
// are the game's positions and those up to offDepth moves off it, with
// their mirror images, as in version 1 (but see pass.endgame).
func scan(ctx context.Context, rng *prng, r engine.Rules, tb *tablebase.Table, version int, ps pass,
	admit func(engine.Position) bool, goals []Goal,
	visit func(game int, p engine.Position, facts []moveFacts, found []finding) bool,
) error {
	var (
		played, cands []engine.Position
		found         []finding
	)
	depth, most := offDepth, engine.SeedCount
	if ps.endgame {
		depth, most = endgameOffDepth, EndgameSeeds
	}
	for game := range ps.games {
		if err := ctx.Err(); err != nil {
			return err
		}
		played = selfPlay(rng, r, played[:0], ps.minSeeds)
		for _, g := range played {
			if ps.endgame && g.BoardSeeds() > endgameFrom {
				continue
			}
			cands = offLine(g, r, depth, cands[:0])
			for _, p := range cands {
				if p.BoardSeeds() > most || !admit(p) {
					continue
				}
				facts := examine(p, r)
				found = found[:0]
				for _, goal := range goals {
					if f, ok := findGoal(p, r, facts, goal, version, tb); ok {
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
		if s.minGrade <= target && (s.deep || !deep) && !s.fallback {
			choices = append(choices, s.goal)
		}
	}
	return choices[rng.intN(len(choices))]
}

// Version 2's budget. Non-greedy keys are rare (a few in a hundred findings)
// and most of them sit in the first half of a game, while wins within one
// move, what the easiest days need, sit at its end: so a deep day plays
// maxGamesV2 games, each only until fewer than deepSeeds seeds are left on
// the board, and other days play version 1's maxGames whole games. A day
// holds out for its preferred goal for the first third of its games; a deep
// day that prefers a win, the rarest non-greedy key, holds out for two
// thirds (and plays on to winSeeds seeds, where wins are) before it takes a
// defend of its grade.
//
// A day from grade 2 up that found nothing it held out for, and no
// non-greedy key of its grade either, runs the endgame pass before it
// settles: up to endgameGames more games played out, whose endgame
// positions it examines for endgame puzzles only (pass.endgame), and takes
// the first of its grade, non-greedy or not, over a greedy finding of
// another goal (an endgame key is found by looking to the end of the game,
// even when it captures the most), and over any finding off its grade.
//
// Grade 5 is the rarest non-greedy key: a day that asks for it plays on to
// topGames before it settles (holding out for its preferred goal for the
// same first games as the others, so that a day that finds one sooner keeps
// the puzzle it had).
const (
	maxGamesV2   = 10000
	topGames     = 16000
	deepSeeds    = 16
	winSeeds     = 8
	endgameGames = 3000
)

// rankV2 orders a version 2 day's findings that are not what it holds out
// for, best first: the grade on target first (the weekday's promise), then a
// non-greedy key on a deep day, then, among greedy keys, anything but a win
// in two or three (a win that deep should look ahead).
func rankV2(gap int, deep, shallow bool, f finding) int {
	r := 100 * gap
	if deep && shallow {
		r += 10
		if f.goal == GoalWin && f.depth >= 2 {
			r += 10
		}
	}
	return r
}

// generateV2 is version 2 of the daily generator: version 1's search, with
// the day's bucket, the daily half of the practice split, version 2's goals,
// themes and grades, and from deepFrom a non-greedy key. A deep day that
// finds no non-greedy key of its grade within its budget settles for a
// greedy one of its grade (rankV2).
func generateV2(ctx context.Context, date time.Time, tb *tablebase.Table) (Puzzle, error) {
	const version = 2
	r := engine.Rules{}
	want := DayBucket(date)
	target := TargetDifficulty(date)
	rng := newPRNG(uint64(dayNumber(date)), v2Seed)
	deep := target >= deepFrom
	prefer := preferredGoalV2(rng, target, deep)
	games, minSeeds, patience := maxGames, 0, maxGames/3
	if deep {
		games, minSeeds, patience = maxGamesV2, deepSeeds, maxGamesV2/3
		if prefer == GoalWin {
			minSeeds, patience = winSeeds, maxGamesV2*2/3
		}
		if target == 5 {
			games = topGames
		}
	}

	var (
		pick     Puzzle
		picked   bool
		fallback Puzzle
		rank     = -1
	)
	admit := func(p engine.Position) bool { return Bucket(&p) == want && !PracticeSide(&p) }
	visit := func(game int, p engine.Position, facts []moveFacts, found []finding) bool {
		var hits []finding
		for _, f := range found {
			d := grade(version, facts, f)
			shallow := !nonGreedy(facts, f.key)
			if d == target && !(deep && shallow) && (f.goal == prefer || game >= patience) {
				hits = append(hits, f)
				continue
			}
			if fr := rankV2(abs(d-target), deep, shallow, f); rank < 0 || fr < rank {
				fallback, rank = build(date, version, p, r, facts, f), fr
			}
		}
		if len(hits) > 0 {
			pick, picked = build(date, version, p, r, facts, hits[rng.intN(len(hits))]), true
		}
		return picked
	}
	if err := scan(ctx, rng, r, tb, version, pass{games: games, minSeeds: minSeeds}, admit, goalsOf(v2Goals), visit); err != nil {
		return Puzzle{}, err
	}
	if !picked && target >= 2 && rank != 0 { // rank 0: a non-greedy key of the day's grade, the best there is
		endgames := func(game int, p engine.Position, facts []moveFacts, found []finding) bool {
			f := found[0]
			d := grade(version, facts, f)
			// Ties go to the endgame: its key is found by looking to the
			// end of the game, even when it captures the most. One of the
			// day's grade always wins (its rank is 0 or 10, the fallback's
			// 10 or more) and ends the pass.
			if fr := rankV2(abs(d-target), deep, !nonGreedy(facts, f.key), f); rank < 0 || fr <= rank {
				fallback, rank = build(date, version, p, r, facts, f), fr
			}
			return d == target
		}
		ps := pass{games: endgameGames, endgame: true}
		if err := scan(ctx, rng, r, tb, version, ps, admit, []Goal{GoalEndgame}, endgames); err != nil {
			return Puzzle{}, err
		}
	}
	switch {
	case picked:
		return pick, nil
	case rank >= 0:
		return fallback, nil
	}
	return Puzzle{}, fmt.Errorf("%w for %s", ErrNoPuzzle, date.Format(DateLayout))
}
