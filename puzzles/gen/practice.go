package gen

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// The practice pool: as many puzzles as a player wants, each a pure function
// of (generator version, filter, seq), made by the same search and proofs as
// the daily ones, from the other half of the positions (practiceSide), so
// that no practice puzzle is ever a daily puzzle of version 2 or later.

// PracticeFilter narrows the practice pool; zero fields mean any.
type PracticeFilter struct {
	Difficulty int    // 1..5, 0 any
	Goal       Goal   // "" any
	Theme      string // "" any
}

// themeNames lists every theme a version 2 puzzle can have, in the order a
// puzzle lists them. Version 1 has the same names but sacrifice.
var themeNames = []string{
	"relay", "long_relay", "lap", "quiet_move", "big_capture", "greed_trap",
	"sacrifice", "decoys", "endgame", "majority", "no_moves",
}

// ThemeNames returns the themes puzzles of generator version 2 and later
// can have, in the order a puzzle lists them.
func ThemeNames() []string { return slices.Clone(themeNames) }

// practiceGames bounds one practice generation, as maxGames bounds a day's:
// a filter that is possible but rare gives ErrNoPuzzle after it, in a few
// seconds, rather than a search without end.
const practiceGames = 12000

// practiceEndgameGames bounds a practice generation for the endgame goal,
// which only a filter naming it asks for: its candidates are the endgame
// pass's (pass.endgame), several times the work per game, and an endgame
// puzzle in one drill bucket on the practice side turns up in about one
// seq in two within it; the pool moves on to the next seq.
const practiceEndgameGames = 6000

// practiceDeepGames bounds a version 3 generation that holds out for a
// non-greedy key: a deep day's games (played to deepSeeds seeds, winSeeds
// for a win), more of them, as a practice seq admits a quarter as many
// positions as a day (a bucket of PracticeWindow, on one side of the split).
const practiceDeepGames = 3 * topGames

// practicePatience: for this many games a practice generation holds out for
// what it prefers (the drawn grade when the filter leaves it open, the drawn
// goal, a non-greedy key from deepFrom); after it, anything the filter
// allows will do.
const practicePatience = 4000

// PracticeVersion is the newest practice generator version, the one new
// practice ids name. Version 3 is version 2's goals, grades, themes and
// proofs (no daily puzzle is made by it), with a deeper search: from
// deepFrom up it takes only a non-greedy key, with a deep day's budget.
const PracticeVersion = 3

// practiceSeed tells practice draws from daily ones.
const practiceSeed = 0x7072_6163_0000_0000

// seed hashes the filter and version into the second seed of the practice
// generator's PCG: FNV-1a over the version, the difficulty, the goal and the
// theme, each text followed by a zero byte.
func (f PracticeFilter) seed(version int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	add := func(b byte) { h = (h ^ uint64(b)) * prime }
	add(byte(version))
	add(byte(f.Difficulty))
	for _, s := range []string{string(f.Goal), f.Theme} {
		for i := range len(s) {
			add(s[i])
		}
		add(0)
	}
	return h ^ practiceSeed
}

// plan decides what f allows: the goals (in v2Goals order) and the grades a
// puzzle may have. It refuses, with ErrNoPuzzle and ErrFilterUnmet, filters that name an
// unknown goal or theme, or that no puzzle can meet by how goals, themes and
// grades are defined (see the comments beside each case).
func (f PracticeFilter) plan() (goals []goalSpec, grades []int, err error) {
	no := func(why string) ([]goalSpec, []int, error) {
		return nil, nil, fmt.Errorf("%w: %w: practice filter %+v: %s", ErrNoPuzzle, ErrFilterUnmet, f, why)
	}
	if f.Difficulty < 0 || f.Difficulty > 5 {
		return no("difficulty is 1 to 5, or 0 for any")
	}
	if f.Goal != "" && !slices.ContainsFunc(v2Goals, func(s goalSpec) bool { return s.goal == f.Goal }) {
		return no("unknown goal")
	}
	if f.Theme != "" && !slices.Contains(themeNames, f.Theme) {
		return no("unknown theme")
	}
	lowest := 1 // the lowest grade the theme allows
	switch f.Theme {
	case "long_relay": // 12 legs or more add a grade
		lowest = 2
	case "decoys": // three decoys or more add two
		lowest = 3
	}
	for _, s := range v2Goals {
		if f.Goal != "" && s.goal != f.Goal {
			continue
		}
		switch f.Theme {
		case "quiet_move", "greed_trap", "sacrifice": // a max_capture key captures 2 or more, and the most
			if s.goal == GoalMaxCapture {
				continue
			}
		case "majority", "no_moves": // how a win ends
			if s.goal != GoalWin && s.goal != GoalEndgame {
				continue
			}
		}
		goals = append(goals, s)
	}
	for d := 1; d <= 5; d++ {
		if (f.Difficulty == 0 || d == f.Difficulty) && d >= lowest &&
			slices.ContainsFunc(goals, func(s goalSpec) bool { return s.minGrade <= d }) {
			grades = append(grades, d)
		}
	}
	if len(grades) == 0 {
		return no("no goal can have that theme at that difficulty")
	}
	return goals, grades, nil
}

// Practice returns practice puzzle number seq for f, made by generator
// version (>= 2): a pure function of (version, f, seq). Its positions satisfy
// practiceSide, so no daily puzzle of version >= 2 ever has them; and seq values
// k, k+1, ..., k+1023 of one filter give distinct positions (a bucket scheme on a
// third hash, like Window). ID and Date are left zero for the caller to set.
// ErrNoPuzzle (wrapped) when f cannot be met (e.g. defend at difficulty 1, an
// unknown theme) -- decide quickly, don't search for minutes.
//
// Filters that cannot be met by definition are refused at once (ErrNoPuzzle
// and ErrFilterUnmet); one that can
// but is rare gets ErrNoPuzzle after practiceGames self-play games (seconds).
// A filter that leaves the grade open draws one for each seq, so that the
// pool is spread over the grades; each seq draws a goal among those allowed.
//
// Every version proves its endgame puzzles with tb, which must pass
// CheckTable.
func Practice(ctx context.Context, tb *tablebase.Table, version int, f PracticeFilter, seq uint64) (Puzzle, error) {
	if version < 2 || version > PracticeVersion {
		return Puzzle{}, fmt.Errorf("%w: %d (practice puzzles start with version 2)", ErrUnknownVersion, version)
	}
	specs, grades, err := f.plan()
	if err != nil {
		return Puzzle{}, err
	}
	if err := CheckTable(tb); err != nil {
		return Puzzle{}, err
	}
	r := engine.Rules{}
	rng := newPRNG(seq, f.seed(version))
	target := grades[rng.intN(len(grades))]
	var choices []goalSpec
	for _, s := range specs {
		if s.minGrade <= target && (!s.fallback || f.Goal == s.goal) {
			choices = append(choices, s)
		}
	}
	if version >= 3 && target >= deepFrom { // hold out for a goal that can be non-greedy
		if deepOnes := slices.DeleteFunc(slices.Clone(choices), func(s goalSpec) bool { return !s.deep }); len(deepOnes) > 0 {
			choices = deepOnes
		}
	}
	prefer := choices[rng.intN(len(choices))]
	// A quiet key rarely has a bigger capture beside it, an endgame key
	// seldom (a non-greedy one sits in a third of the drill buckets).
	deep := target >= deepFrom && prefer.deep && f.Theme != "quiet_move" && !prefer.fallback
	ps, patience := pass{games: practiceGames}, practicePatience
	if prefer.fallback { // asked for by name: the endgame pass's candidates
		ps = pass{games: practiceEndgameGames, endgame: true}
	}
	// Version 3 holds out for depth as a deep day does, with its budget
	// (see generateV2), and never settles: a seq whose search finds no
	// non-greedy key is a miss, and the walk moves on to the next.
	// (The endgame goal keeps version 2's way: of the endgame puzzles of
	// at most EndgameSeeds seeds on the practice side, only 396 have a
	// non-greedy key, in 328 of the 1,024 drill buckets, so a strict
	// search would miss in two buckets of three; see
	// docs/practice-stock.md.)
	strict := version >= 3 && deep
	if strict {
		ps, patience = pass{games: practiceDeepGames, minSeeds: deepSeeds}, practiceDeepGames/3
		if prefer.goal == GoalWin {
			ps.minSeeds, patience = winSeeds, practiceDeepGames*2/3
		}
	}
	want := int(seq % PracticeWindow)
	admit := func(p engine.Position) bool { return DrillBucket(&p) == want && PracticeSide(&p) }

	var (
		pick   Puzzle
		picked bool
	)
	visit := func(game int, p engine.Position, facts []moveFacts, found []finding) bool {
		patient := game < patience
		var hits []finding
		for _, fd := range found {
			d := grade(version, facts, fd)
			switch {
			case f.Difficulty != 0 && d != f.Difficulty, !slices.Contains(grades, d):
				continue
			case strict && !nonGreedy(facts, fd.key):
				continue
			case patient && (d != target || fd.goal != prefer.goal || (deep && !nonGreedy(facts, fd.key))):
				continue
			case f.Theme != "" && !slices.Contains(themes(p, r, facts, fd, version), f.Theme):
				continue
			}
			hits = append(hits, fd)
		}
		if len(hits) > 0 {
			pick, picked = build(time.Time{}, version, p, r, facts, hits[rng.intN(len(hits))]), true
		}
		return picked
	}
	if err := scan(ctx, rng, r, tb, version, ps, admit, goalsOf(specs), visit); err != nil {
		return Puzzle{}, err
	}
	if !picked {
		return Puzzle{}, fmt.Errorf("%w: practice filter %+v, seq %d: none within %d games", ErrNoPuzzle, f, seq, ps.games)
	}
	return pick, nil
}
