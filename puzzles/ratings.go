package puzzles

// Puzzle ratings: every puzzle has a Glicko-2 rating, a daily one its own
// and a practice one its generator bucket's, which starts from the
// calibration of its difficulty grade and moves with players' first
// attempts. A player's first attempt at a puzzle moves the player's puzzle
// rating too (a solve is a win for the player); later attempts, and
// anonymous ones, move only the counts.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Calibration of the difficulty grades: a puzzle's rating starts at
// CalibrationBase + CalibrationStep × (difficulty - 1), with deviation
// CalibrationDeviation: 1100 for difficulty 1 up to 2100 for 5, so a new
// player (1500) starts between grades 2 and 3, and the wide deviation lets
// the first few dozen attempts set it where players find it.
const (
	CalibrationBase      = 1100.0
	CalibrationStep      = 250.0
	CalibrationDeviation = 250.0
	// nearSpread: near=me picks among the grades whose calibration is
	// within this of the player's puzzle rating (and always the nearest).
	nearSpread = 250.0
	// maxRatingTries bounds the writes one attempt makes when a rating it
	// read keeps changing under it (players.ErrRatingsChanged).
	maxRatingTries = 8
	// nearTries bounds the puzzles near=me passes over because the player
	// attempted them already.
	nearTries = 16
)

// Calibration is the rating a puzzle of difficulty d starts from.
func Calibration(d int) players.Rating {
	d = min(max(d, 1), 5)
	return players.Rating{Value: CalibrationBase + CalibrationStep*float64(d-1),
		Deviation: CalibrationDeviation, Volatility: players.InitialVolatility}
}

// RatingKey names p's rating: a daily puzzle's own id, or a practice
// puzzle's generator bucket (version, grade and goal).
func RatingKey(p *gen.Puzzle) string {
	if !gen.IsPracticeID(p.ID) {
		return p.ID
	}
	return fmt.Sprintf("practice-v%d-d%d-%s", p.Version, p.Difficulty, p.Goal)
}

// Rating returns p's rating: as stored, or its calibration while nobody has
// rated it.
func (f *Feed) Rating(ctx context.Context, p *gen.Puzzle) (players.Rating, error) {
	r, ok, err := f.store.PuzzleRating(ctx, RatingKey(p))
	if err != nil || !ok {
		return Calibration(p.Difficulty), err
	}
	return r, nil
}

// Verdict is the answer to an attempt.
type Verdict struct {
	Attempt gen.Attempt
	Stats   Stats // the puzzle's counts after it (zero for a practice puzzle)
	// Rated: the attempt was its player's first at the puzzle, and moved
	// the player's puzzle rating ([0]) and the puzzle's ([1]) from Before
	// to After.
	Rated         bool
	Before, After [2]players.Rating
}

// AttemptResult is how an attempt ended, as metrics count it.
type AttemptResult string

// The results of an attempt.
const (
	AttemptSolved  AttemptResult = "solved"  // every move right, to the end
	AttemptPartial AttemptResult = "partial" // right so far, not over
	AttemptWrong   AttemptResult = "wrong"   // a wrong or illegal move
	AttemptGaveUp  AttemptResult = "gave_up" // given up
)

// resultOf names how attempt a, given up or not, ended.
func resultOf(a gen.Attempt, giveUp bool) AttemptResult {
	switch {
	case giveUp:
		return AttemptGaveUp
	case !a.Correct:
		return AttemptWrong
	case a.Complete:
		return AttemptSolved
	}
	return AttemptPartial
}

// AttemptAs is Attempt by player (nil: anonymous).
func (f *Feed) AttemptAs(ctx context.Context, id string, moves []int, giveUp bool, player *players.Player) (Verdict, error) {
	v, err := f.attemptAs(ctx, id, moves, giveUp, player)
	if err == nil && f.attempted != nil {
		f.attempted(resultOf(v.Attempt, giveUp), v.Rated)
	}
	return v, err
}

func (f *Feed) attemptAs(ctx context.Context, id string, moves []int, giveUp bool, player *players.Player) (Verdict, error) {
	if player == nil {
		a, stats, err := f.Attempt(ctx, id, moves, giveUp)
		return Verdict{Attempt: a, Stats: stats}, err
	}
	sp, err := f.ByID(ctx, id)
	if err != nil {
		return Verdict{}, err
	}
	a, err := f.gen.Check(ctx, sp.Puzzle, moves, giveUp)
	if err != nil {
		return Verdict{}, err
	}
	if a.Correct && !a.Complete && !giveUp {
		// Right so far, and not over: a front end sends a line of several
		// moves one move at a time, and the attempt counts for the
		// ratings when it ends (solved, a wrong move, or given up).
		// Meanwhile it counts in the stats as an anonymous one does.
		stats, err := f.record(ctx, sp.Puzzle.ID, false)
		return Verdict{Attempt: a, Stats: stats}, err
	}
	solved := a.Correct && a.Complete && !giveUp
	practice := gen.IsPracticeID(id)
	daily := sp.Puzzle.Date
	if practice {
		daily = time.Time{}
	}
	for range maxRatingTries {
		p, err := f.store.Player(ctx, player.ID)
		if err != nil {
			return Verdict{}, err
		}
		puzzle, err := f.Rating(ctx, &sp.Puzzle)
		if err != nil {
			return Verdict{}, err
		}
		before := [2]players.Rating{p.Rating(players.Puzzles), puzzle}
		s := players.NewSolve(p.ID, sp.Puzzle.ID, RatingKey(&sp.Puzzle), solved, daily, before, f.now().UTC().Truncate(time.Microsecond))
		stats, first, err := f.store.RecordSolve(ctx, s, !practice)
		if errors.Is(err, players.ErrRatingsChanged) {
			continue
		}
		if err != nil {
			return Verdict{}, err
		}
		out := Verdict{Attempt: a, Stats: stats, Rated: first}
		if first {
			out.Before, out.After = s.Before, s.After
		}
		return out, nil
	}
	return Verdict{}, fmt.Errorf("%w: the ratings kept changing over %d tries", players.ErrRatingsChanged, maxRatingTries)
}

// PracticeNear is Practice for player with the difficulty chosen from the
// player's puzzle rating: one of the grades whose calibration is within
// nearSpread of it, at random (the nearest when none is), or, should the
// filter meet no puzzle of that grade, the next nearest. A puzzle the
// player has attempted already is passed over, so a walk never repeats an
// attempt; after may name a puzzle of another grade (the walk goes on from
// its sequence number).
func (f *Feed) PracticeNear(ctx context.Context, player *players.Player, filter gen.PracticeFilter, after string) (Stored, error) {
	var prev gen.PracticeID
	if after != "" {
		var err error
		if prev, err = gen.ParsePracticeID(after); err != nil {
			return Stored{}, fmt.Errorf("after: %w", err)
		}
		if prev.Filter.Goal != filter.Goal || prev.Filter.Theme != filter.Theme {
			return Stored{}, fmt.Errorf("%w: after names a puzzle of another filter (%s): drop it to start afresh", gen.ErrInvalidPractice, after)
		}
	}
	var err error
	for _, grade := range f.nearGrades(player.Rating(players.Puzzles).Value) {
		filter.Difficulty = grade
		next := ""
		if after != "" {
			prev.Filter = filter
			next = prev.String()
		}
		var sp Stored
		if sp, err = f.unattempted(ctx, player, filter, next); !errors.Is(err, gen.ErrFilterUnmet) {
			return sp, err
		}
	}
	return Stored{}, err
}

// unattempted is Practice, passing over the puzzles player has attempted.
func (f *Feed) unattempted(ctx context.Context, player *players.Player, filter gen.PracticeFilter, after string) (Stored, error) {
	for range nearTries {
		sp, err := f.Practice(ctx, filter, after)
		if err != nil {
			return Stored{}, err
		}
		seen, err := f.store.Attempted(ctx, player.ID, sp.Puzzle.ID)
		if err != nil {
			return Stored{}, err
		}
		if !seen {
			return sp, nil
		}
		after = sp.Puzzle.ID
	}
	return Stored{}, fmt.Errorf("%w: the next %d puzzles were all attempted already: ask again", ErrPracticeTimeout, nearTries)
}

// nearGrades orders the grades for a puzzle rating r: one of those within
// nearSpread at random first, then the rest by their distance from r.
func (f *Feed) nearGrades(r float64) []int {
	grades := []int{1, 2, 3, 4, 5}
	gap := func(d int) float64 { return math.Abs(Calibration(d).Value - r) }
	slices.SortStableFunc(grades, func(a, b int) int { return cmp.Compare(gap(a), gap(b)) })
	near := 1
	for near < len(grades) && gap(grades[near]) <= nearSpread {
		near++
	}
	pick := int(f.pool.rand() % uint64(near))
	grades[0], grades[pick] = grades[pick], grades[0]
	return grades
}
