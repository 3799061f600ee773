package puzzles

// The daily puzzle feed: puzzles are generated on the first request for
// their day, stored, and served from the store after that, each proved again
// (Verify) every time it is read, so a row that no longer proves is never
// served.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"sync"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Errors of the feed.
var (
	// ErrNotFound: no puzzle for that day or id (a future day, a day before
	// the feed's first, an id that names no day). Stores report a missing
	// row with it too.
	ErrNotFound = fault.New(fault.NotFound, "puzzle_not_found", "No such puzzle", "no such puzzle")
)

// Stats counts what players did with a puzzle.
type Stats struct {
	Attempts int // attempts answered
	Solved   int // attempts that completed the solution
}

// Stored is a puzzle as the feed serves it, with its counters.
type Stored struct {
	Puzzle gen.Puzzle
	Stats  Stats
}

// Store keeps the feed's puzzles. A stored puzzle never changes; only its
// counters do. Implementations decide nothing: the feed proves every puzzle
// it reads. store/storetest holds each implementation to the same cases.
type Store interface {
	// AddPuzzle stores p unless a puzzle for its date is already stored, and
	// returns the stored one either way: concurrent callers for one date,
	// in one process or several, all get the first row committed.
	AddPuzzle(ctx context.Context, p gen.Puzzle, at time.Time) (Stored, error)
	// PuzzleByDate returns the puzzle stored for date's UTC day, or
	// ErrNotFound.
	PuzzleByDate(ctx context.Context, date time.Time) (Stored, error)
	// PuzzlesBefore returns at most limit stored puzzles dated before
	// date's UTC day, newest first.
	PuzzlesBefore(ctx context.Context, date time.Time, limit int) ([]Stored, error)
	// RecordAttempt counts one attempt at puzzle id, and one solve if
	// solved, and returns the new counts; ErrNotFound for an unknown id.
	RecordAttempt(ctx context.Context, id string, solved bool) (Stats, error)
	Ratings
}

// Ratings are the store methods with which players' attempts are rated.
type Ratings interface {
	// PuzzleRating returns the puzzle rating keyed key, and false when
	// the key has none yet.
	PuzzleRating(ctx context.Context, key string) (players.Rating, bool, error)
	// Player returns the player with that id, with its ratings, or
	// players.ErrNotFound.
	Player(ctx context.Context, id string) (players.Player, error)
	// Attempted reports whether the player has attempted puzzle id.
	Attempted(ctx context.Context, player, id string) (bool, error)
	// RecordSolve records s in one transaction and reports whether it was
	// the player's first attempt at s.PuzzleID:
	//   - a first attempt is kept in the player's history (with s.Before
	//     and s.After of the player's rating), moves the player's puzzle
	//     rating and s.Key's rating to s.After, provided both still count
	//     s.Before's Games (no rating counts 0; otherwise nothing is
	//     written and the answer is players.ErrRatingsChanged), and counts
	//     one puzzle (and one solved) in the player's Counts;
	//   - any attempt for which s.OnDay() holds records that day as one of
	//     the player's DailySolves;
	//   - when count, the attempt is counted in puzzle s.PuzzleID's Stats
	//     as RecordAttempt does, and the new Stats returned (else zero).
	// players.ErrNotFound when the player does not exist, ErrNotFound when
	// count and the puzzle is not stored.
	RecordSolve(ctx context.Context, s players.Solve, count bool) (Stats, bool, error)
}

// DefaultFirstDay is the feed's first day unless FeedOptions says otherwise.
var DefaultFirstDay = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Feed limits.
const (
	// generateTimeout bounds one generation unless FeedOptions says
	// otherwise (which takes 2 s at most on one
	// core) with room for a loaded machine and for the first one of version
	// 2, which waits for the endgame table (3 s of CPU).
	generateTimeout = 60 * time.Second
	// pastMaxAge is how long an earlier day's puzzle may be cached: only its
	// stats change.
	pastMaxAge = time.Hour
)

// FeedOptions configure a Feed; the zero value serves from DefaultFirstDay
// by time.Now, with version 1 puzzles before DefaultCutover and version 2
// from it.
type FeedOptions struct {
	// First is the feed's first day (its UTC day counts); earlier days are
	// ErrNotFound.
	First time.Time
	// Now is the clock that says which day is today.
	Now func() time.Time
	// Cutover is the first day made by generator version 2 (its UTC day
	// counts); zero means DefaultCutover. Moving it only changes days not
	// stored yet: a stored puzzle never changes. Practice puzzles are
	// checked against the daily ones of the days before it only (see
	// Feed.Practice).
	Cutover time.Time
	// Generate makes a day's puzzle. Nil: Generator's Generate with the
	// version in force for the day (VersionFor the day and Cutover).
	Generate func(context.Context, time.Time) (gen.Puzzle, error)

	// Practice makes the practice pool's puzzles. Nil: no pool (its
	// operations fail with ErrNoPool).
	Practice PracticeFunc
	// PracticeVersion is the generator version new practice puzzles are
	// made with. Zero: PracticeVersion.
	PracticeVersion int
	// VerifyPractice proves a practice puzzle before it is served. Nil:
	// Generator's VerifyPractice. Tests of the pool's bookkeeping with made-up puzzles
	// put a lighter check here; it then checks stocked rows too (else they
	// get a cheap check of their position: they were proven when stocked).
	VerifyPractice func(gen.Puzzle) error
	// PracticeConcurrency bounds the practice puzzles made at once, within
	// the feed's CPU budget; zero: as many as it has units. A practice generation that
	// finds no unit within a second is ErrPracticeBusy.
	PracticeConcurrency int
	// GenerateTimeout bounds one generation of a day's puzzle; zero means
	// 60 s, room enough for a loaded server. An offline job (filling the
	// feed ahead) may allow more.
	GenerateTimeout time.Duration
	// PracticeTimeout bounds one practice request, past which it is
	// ErrPracticeTimeout (the generation it waits for runs on). Zero: 10 s.
	PracticeTimeout time.Duration
	// Rand draws where a practice walk without `after` starts. Nil:
	// math/rand/v2's Uint64.
	Rand func() uint64
	// Stock keeps the practice stock (see Stocker); nil: every practice
	// puzzle is made on demand. StockSize is its puzzles per filter, at
	// most PracticeWindow; zero reads no stock (rows an earlier run left
	// included), keeps no puzzle made on demand and makes no Stocker.
	Stock     StockStore
	StockSize int
	// Log receives what the practice stock cannot do (a store that fails
	// is read around); nil: nothing is logged.
	Log *slog.Logger
	// Generator makes, proves and judges the feed's puzzles, with the
	// endgame table it builds on first need; nil: a new one, the feed's
	// own, building on as many goroutines as the budget has units. Pass one
	// to share its table (e.g. with the practice pool).
	Generator *Generator
	// Attempted is told how each attempt that was answered ended (an
	// AttemptResult) and whether it moved ratings, for metrics: it must be
	// quick and safe for concurrent use. Nil: nobody is told.
	Attempted func(result AttemptResult, rated bool)
	// Ahead holds puzzles made ahead (package puzzles/ahead ships a set):
	// a day it holds at the version in force for it is served without
	// generation, and its practice rows answer where the stock has none
	// (only while a stock is kept: StockSize above zero). Nil: none.
	Ahead *Ahead
}

// Feed serves the daily puzzles: "today" from the clock, the first day, and
// the generations in progress, so that concurrent first requests for a day
// share one generation. Its methods are safe for concurrent use.
type Feed struct {
	gen      *Generator
	store    Store
	first    time.Time
	now      func() time.Time
	cutover  time.Time
	generate func(context.Context, time.Time) (gen.Puzzle, error)
	budget   *budget.Budget
	pool     *pool
	ahead    *Ahead
	inflight flight[Stored] // generations running, by day (gen.DateLayout)
	// genTimeout bounds one generation of a day (FeedOptions.GenerateTimeout).
	genTimeout time.Duration
	attempted  func(AttemptResult, bool)
}

// NewFeed returns the feed over st. cpu is the process's CPU budget,
// shared with the other services that spend CPU: each generation, daily,
// practice or for the stock, holds a unit of it. It must not be nil.
func NewFeed(st Store, cpu *budget.Budget, o FeedOptions) *Feed {
	if cpu == nil {
		panic("puzzles: NewFeed needs the process's CPU budget")
	}
	if o.First.IsZero() {
		o.First = DefaultFirstDay
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Cutover.IsZero() {
		o.Cutover = gen.DefaultCutover
	}
	o.Cutover = gen.Day(o.Cutover)
	if o.Generator == nil {
		o.Generator = NewGenerator(cpu.Size())
	}
	if o.Generate == nil {
		o.Generate = func(ctx context.Context, d time.Time) (gen.Puzzle, error) {
			return o.Generator.Generate(ctx, d, gen.VersionFor(d, o.Cutover))
		}
	}
	if o.GenerateTimeout <= 0 {
		o.GenerateTimeout = generateTimeout
	}
	return &Feed{
		genTimeout: o.GenerateTimeout,
		gen:        o.Generator,
		store:      st,
		first:      gen.Day(o.First),
		now:        o.Now,
		cutover:    o.Cutover,
		generate:   o.Generate,
		budget:     cpu,
		pool:       newPool(cpu, o),
		attempted:  o.Attempted,
		ahead:      o.Ahead,
	}
}

// Today is the current UTC day.
func (f *Feed) Today() time.Time { return gen.Day(f.now()) }

// published checks that date's puzzle is out: not in the future, not before
// the first day.
func (f *Feed) published(date time.Time) error {
	day := date.Format(gen.DateLayout)
	switch {
	case date.After(f.Today()):
		return fmt.Errorf("%w: no puzzle for %s: it is in the future", ErrNotFound, day)
	case date.Before(f.first):
		return fmt.Errorf("%w: no puzzle for %s: the feed starts on %s", ErrNotFound, day, f.first.Format(gen.DateLayout))
	}
	return nil
}

// proved proves a stored puzzle again before it is served, unless it is
// the one made ahead for its day (proven before it was shipped, and
// compared with the generator's in CI): an endgame puzzle's proof would
// wait for the table.
func (f *Feed) proved(ctx context.Context, sp Stored, err error) (Stored, error) {
	if err != nil {
		return Stored{}, err
	}
	if f.ahead.shipped(sp.Puzzle) {
		return sp, nil
	}
	if err := f.gen.Verify(ctx, sp.Puzzle); err != nil {
		return Stored{}, fmt.Errorf("stored puzzle %s: %w", sp.Puzzle.ID, err)
	}
	return sp, nil
}

// ByDate returns date's puzzle, generating and storing it on the first
// request.
func (f *Feed) ByDate(ctx context.Context, date time.Time) (Stored, error) {
	date = gen.Day(date)
	if err := f.published(date); err != nil {
		return Stored{}, err
	}
	sp, err := f.store.PuzzleByDate(ctx, date)
	if !errors.Is(err, ErrNotFound) {
		return f.proved(ctx, sp, err)
	}
	return f.create(ctx, date)
}

// ByID returns the puzzle with id: a daily one under the same rules as by
// date, or a practice one (made again from its id).
func (f *Feed) ByID(ctx context.Context, id string) (Stored, error) {
	if gen.IsPracticeID(id) {
		return f.practiceByID(ctx, id)
	}
	date, err := gen.DateOfID(id)
	if err != nil {
		return Stored{}, fmt.Errorf("%w: no puzzle has id %q", ErrNotFound, id)
	}
	return f.ByDate(ctx, date)
}

// create generates and stores date's puzzle, once however many requests ask
// at the same time. The generation is detached from the request that
// started it, so that request leaving does not fail the others; the store
// keeps the first row written if two servers race.
func (f *Feed) create(ctx context.Context, date time.Time) (Stored, error) {
	detached := context.WithoutCancel(ctx)
	return f.inflight.do(ctx, date.Format(gen.DateLayout), func() (Stored, error) { return f.run(detached, date) })
}

func (f *Feed) run(ctx context.Context, date time.Time) (Stored, error) {
	ctx, cancel := context.WithTimeout(ctx, f.genTimeout)
	defer cancel()
	p, ok := f.aheadDay(date)
	if !ok {
		var err error
		if p, err = f.generateDay(ctx, date); err != nil {
			return Stored{}, err
		}
		if err := f.gen.Verify(ctx, p); err != nil {
			return Stored{}, fmt.Errorf("generated puzzle %s: %w", p.ID, err)
		}
	}
	sp, err := f.store.AddPuzzle(ctx, p, f.now().UTC())
	return f.proved(ctx, sp, err)
}

// aheadDay returns date's puzzle made ahead, if the feed has one of the
// version in force for the day (a server with another cutover makes its
// own).
func (f *Feed) aheadDay(date time.Time) (gen.Puzzle, bool) {
	p, ok := f.ahead.Day(date)
	if !ok || p.Version != gen.VersionFor(date, f.cutover) {
		return gen.Puzzle{}, false
	}
	return p, true
}

// generateDay makes date's puzzle in a unit of the CPU budget, once a build
// of the generator's table under way is done. Generation is pure CPU, and
// goes after the AI and analyses: it waits as long as ctx lets it.
func (f *Feed) generateDay(ctx context.Context, date time.Time) (gen.Puzzle, error) {
	if err := f.gen.awaitTable(ctx); err != nil {
		return gen.Puzzle{}, err
	}
	release, err := f.budget.Acquire(ctx, budget.Request{Priority: budget.Generation, Weight: 1, Wait: -1})
	if err != nil {
		return gen.Puzzle{}, err
	}
	defer release()
	return f.generate(ctx, date)
}

// Page returns up to limit days' puzzles before the day before (nil: from
// today back), newest first, generating those nobody asked for yet, and the
// day the next page starts before (zero when the feed's first day is on this
// page).
func (f *Feed) Page(ctx context.Context, before time.Time, limit int) (page []Stored, next time.Time, err error) {
	tomorrow := f.Today().AddDate(0, 0, 1)
	if before.IsZero() || before.After(tomorrow) {
		before = tomorrow // a later day shows no more than tomorrow does
	}
	before = gen.Day(before)
	var days []time.Time
	for d := before.AddDate(0, 0, -1); len(days) < limit && !d.Before(f.first); d = d.AddDate(0, 0, -1) {
		days = append(days, d)
	}
	stored, err := f.store.PuzzlesBefore(ctx, before, limit)
	if err != nil {
		return nil, time.Time{}, err
	}
	byDate := map[string]Stored{}
	for _, sp := range stored {
		byDate[sp.Puzzle.Date.Format(gen.DateLayout)] = sp
	}
	page = make([]Stored, len(days))
	errs := make([]error, len(days))
	var wg sync.WaitGroup
	for i, d := range days {
		if sp, ok := byDate[d.Format(gen.DateLayout)]; ok {
			page[i], errs[i] = f.proved(ctx, sp, nil)
			continue
		}
		wg.Go(func() { page[i], errs[i] = f.create(ctx, d) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, time.Time{}, err
	}
	if n := len(days); n > 0 && days[n-1].After(f.first) {
		next = days[n-1]
	}
	return page, next, nil
}

// Attempt judges a solver's moves at puzzle id, plays the replies, counts the
// attempt and returns the verdict with the new counts. Attempts at practice
// puzzles are judged alike but not counted: those puzzles are not stored,
// and counting them would let anyone grow the database without bound, one
// row per id tried; their counts stay zero.
func (f *Feed) Attempt(ctx context.Context, id string, moves []int, giveUp bool) (gen.Attempt, Stats, error) {
	sp, err := f.ByID(ctx, id)
	if err != nil {
		return gen.Attempt{}, Stats{}, err
	}
	a, err := f.gen.Check(ctx, sp.Puzzle, moves, giveUp)
	if err != nil {
		return a, Stats{}, err
	}
	stats, err := f.record(ctx, sp.Puzzle.ID, a.Correct && a.Complete && !giveUp)
	return a, stats, err
}

// record counts an anonymous attempt at puzzle id, unless it is a practice
// puzzle (see Attempt).
func (f *Feed) record(ctx context.Context, id string, solved bool) (Stats, error) {
	if gen.IsPracticeID(id) {
		return Stats{}, nil
	}
	return f.store.RecordAttempt(ctx, id, solved)
}

// MaxAge says how long date's puzzle may be cached: today's until the next
// UTC midnight, an earlier day's for an hour (only its stats change).
func (f *Feed) MaxAge(date time.Time) time.Duration {
	if gen.Day(date).Before(f.Today()) {
		return pastMaxAge
	}
	return max(f.Today().AddDate(0, 0, 1).Sub(f.now()), 0)
}

// Prepare makes sure date's puzzle is stored, generating it if need be, also
// for a day not yet published (to fill the store ahead), and reports whether
// it generated it.
func (f *Feed) Prepare(ctx context.Context, date time.Time) (sp Stored, generated bool, err error) {
	date = gen.Day(date)
	sp, err = f.store.PuzzleByDate(ctx, date)
	if !errors.Is(err, ErrNotFound) {
		sp, err = f.proved(ctx, sp, err)
		return sp, false, err
	}
	sp, err = f.create(ctx, date)
	return sp, err == nil, err
}
