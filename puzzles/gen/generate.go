package gen

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// ErrNoPuzzle: the generator found no puzzle at all within its budget. It
// never happens for the dates the tests cover; it exists so that a bug shows
// as an error, not as a loop without end.
var ErrNoPuzzle = errors.New("no puzzle found")

// Window is the length of the no-repeat guarantee, in days.
//
// A pure function of the date cannot look at earlier days' puzzles, and
// deriving them (each from the 365 before it) would never bottom out. So the
// guarantee is built into the candidate space instead: every position has a
// bucket, a fixed hash of the position modulo Window, and the puzzle of day
// number d must have a position in bucket d mod Window. Two dates fewer than
// Window days apart have different buckets, so their positions differ, for
// any generator version (the hash is part of the contract: changing it would
// need a new Window scheme, not just a new version). With Window = 366 any
// 366 consecutive days (a leap year included) have 366 distinct positions.
//
// The price is that only one candidate in 366 is examined; candidates are cheap
// (under a microsecond each), the analysis is not, so this costs little.
const Window = 366

// Bucket returns the position's bucket: 64-bit FNV-1a over the twelve pits,
// South's and North's captured counts and the side to move (0 south, 1
// north), one byte each, modulo Window.
func Bucket(p *engine.Position) int {
	return int(fnv(p) % Window)
}

// fnv is 64-bit FNV-1a over the twelve pits, South's and North's captured
// counts and the side to move, one byte each: the base of every position
// hash the generator's guarantees rest on.
func fnv(p *engine.Position) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for _, b := range p.Pits {
		h = (h ^ uint64(b)) * prime
	}
	h = (h ^ uint64(p.Captured[engine.South])) * prime
	h = (h ^ uint64(p.Captured[engine.North])) * prime
	return (h ^ uint64(p.ToMove)) * prime
}

// mirror returns p seen from the other side of the board: the rows swapped,
// the captured counts swapped and the other player to move. The rules are the
// same for both players once the game is under way, so the mirror is the same
// puzzle for the other colour, as realistic as p, and doubles the candidates
// for the price of a hash.
func mirror(p engine.Position) engine.Position {
	var m engine.Position
	for i := range engine.NumPits {
		m.Pits[i] = p.Pits[(i+engine.RowPits)%engine.NumPits]
	}
	m.Captured[engine.South], m.Captured[engine.North] = p.Captured[engine.North], p.Captured[engine.South]
	m.ToMove = p.ToMove.Other()
	return m
}

// offDepth is how many moves off a self-play line candidates may be.
const offDepth = 2

// offLine appends p and every position up to depth moves from it (not
// finished by majority) to dst, depth first, in pit order, each followed by
// its mirror image.
func offLine(p engine.Position, r engine.Rules, depth int, dst []engine.Position) []engine.Position {
	dst = append(dst, p, mirror(p))
	if depth == 0 {
		return dst
	}
	var c children
	c.expand(&p, r)
	for i := range c.n {
		dst = offLine(c.next[i], r, depth-1, dst)
	}
	return dst
}

// DayBucket is the bucket a date's puzzle must come from.
func DayBucket(d time.Time) int {
	n := dayNumber(d) % Window
	if n < 0 {
		n += Window
	}
	return int(n)
}

// maxGames bounds the self-play of one generation. The hardest grade needs a
// few hundred games on average; past the bound the generator settles for the
// nearest grade it found, still a pure function of the date.
const maxGames = 6000

// preferGames: for this many games the generator holds out for the date's
// preferred goal, so the feed mixes goals instead of serving mostly
// max_capture puzzles, which are the most common; after it, any goal will do.
const preferGames = 2500

// preferredGoal draws the goal a date holds out for, each as likely. No
// defend puzzle grades 1, so the easiest days choose between the other two.
func preferredGoal(rng *prng, target int) Goal {
	choices := []Goal{GoalMaxCapture, GoalWin, GoalDefend}
	if target == 1 {
		choices = choices[:2]
	}
	return choices[rng.intN(len(choices))]
}

// Daily returns the puzzle of date (its UTC day) made by the given
// generator version: the same date and version give the same puzzle on any
// machine. Version 1 has no endgame puzzles and needs no table (tb may be
// nil); version 2 proves its endgame puzzles with tb, which must pass
// CheckTable.
func Daily(ctx context.Context, tb *tablebase.Table, date time.Time, version int) (Puzzle, error) {
	date = Day(date)
	if err := checkDate(date); err != nil {
		return Puzzle{}, err
	}
	switch version {
	case 1:
		return generateV1(ctx, date)
	case 2:
		if err := CheckTable(tb); err != nil {
			return Puzzle{}, err
		}
		return generateV2(ctx, date, tb)
	}
	return Puzzle{}, fmt.Errorf("%w: %d", ErrUnknownVersion, version)
}

// Days returns the puzzles of n consecutive days from first, each made by
// the version in force for it (VersionFor the day and cutover) with tb (nil
// will do while every day is before cutover), on workers goroutines (below
// 1 counts as 1); the results are in date order. The first error, in date order,
// names its day.
func Days(ctx context.Context, tb *tablebase.Table, first time.Time, n int, cutover time.Time, workers int) ([]Puzzle, error) {
	out := make([]Puzzle, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				d := first.AddDate(0, 0, i)
				out[i], errs[i] = Daily(ctx, tb, d, VersionFor(d, cutover))
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", first.AddDate(0, 0, i).Format(DateLayout), err)
		}
	}
	return out, nil
}

// v1Goals are version 1's goals, in the order it tries them.
var v1Goals = []Goal{GoalMaxCapture, GoalWin, GoalDefend}

// generateV1 is version 1 of the generator, kept exactly as it was published:
// its puzzles are stored and served until the cutover.
func generateV1(ctx context.Context, date time.Time) (Puzzle, error) {
	const version = 1
	r := engine.Rules{} // the feed uses Russ's rules, the ones players know
	want := DayBucket(date)
	target := TargetDifficulty(date)
	rng := newPRNG(uint64(dayNumber(date)), 0x6179_6f61_796f_0000|uint64(version))

	var (
		games    []engine.Position
		fallback Puzzle
		gap      = 99 // |difficulty - target| of the fallback
		found    []finding
		cands    []engine.Position
	)
	prefer := preferredGoal(rng, target)
	for game := range maxGames {
		if err := ctx.Err(); err != nil {
			return Puzzle{}, err
		}
		games = selfPlay(rng, r, games[:0], 0)
		// No runtime.Gosched in these loops: a goroutine that yields goes
		// to the back of the scheduler's global queue, behind every
		// goroutine preempted after a full 10 ms slice, and gets a few
		// microseconds a turn. Beside busy goroutines that never yield, a
		// generation of 0.4 s alone took 1 min 45 s that way
		// (BenchmarkDailyBesideBusyWork). The budget's spare core, not
		// yields, keeps cheap requests from waiting behind generations.
		for _, g := range games {
			// The game position and the positions up to offDepth moves off
			// it: all reachable in play, and many times more candidates than
			// the game itself for little work.
			cands = offLine(g, r, offDepth, cands[:0])
			for _, p := range cands {
				if Bucket(&p) != want {
					continue
				}
				facts := examine(p, r)
				found = found[:0]
				for _, goal := range v1Goals {
					f, ok := findGoal(p, r, facts, goal, version, nil)
					if !ok {
						continue
					}
					d := grade(version, facts, f)
					if d == target && (goal == prefer || game >= preferGames) {
						found = append(found, f)
					} else if abs(d-target) < gap {
						fallback, gap = build(date, version, p, r, facts, f), abs(d-target)
					}
				}
				if len(found) > 0 {
					return build(date, version, p, r, facts, found[rng.intN(len(found))]), nil
				}
			}
		}
	}
	if gap < 99 {
		return fallback, nil
	}
	return Puzzle{}, fmt.Errorf("%w for %s", ErrNoPuzzle, date.Format(DateLayout))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
