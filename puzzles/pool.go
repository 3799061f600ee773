package puzzles

// The practice pool: puzzles beyond the daily one, made on request from a
// filter and a sequence number by the generator's practice mode, never
// stored. A puzzle's id says how to make it again, so it is served by id
// (and attempted, and its solution shown) like a daily one; a small cache
// spares regenerating the puzzles just served.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ayoayo/ayoayo/engine"
)

// Errors of the practice pool.
var (
	// ErrNoPool: the server was started without a practice generator.
	ErrNoPool = errors.New("no practice pool")
	// ErrFilterUnmet: no puzzle of the generator version in force meets
	// the filter (say, a defend puzzle of difficulty 1: defending is never
	// graded easiest).
	ErrFilterUnmet = errors.New("no practice puzzle meets the filter")
	// ErrPracticeBusy: every practice generation slot is taken; try again
	// shortly.
	ErrPracticeBusy = errors.New("practice pool busy")
)

// Pool limits.
const (
	// practiceTimeout bounds one practice request's generation, skips
	// included: a generation takes 2 s at most on one core.
	practiceTimeout = 10 * time.Second
	// practiceCacheSize is how many practice puzzles are kept made: those
	// players are solving now.
	practiceCacheSize = 1024
	// maxSkips bounds how many sequence numbers in a row one request
	// passes over because their puzzle is an upcoming daily one, or the
	// generator found none for them. One in a row is already rare.
	maxSkips = 16
	// maxMisses is how many sequence numbers in a row the generator may
	// find no puzzle for before the filter is taken as one no puzzle meets.
	// The generator says ErrNoPuzzle at once for a filter that cannot be met
	// by definition, and after its budget for a seq where a rare filter
	// found none; three misses in a row of a filter that can be met are
	// rare enough, and cost a few seconds at most.
	maxMisses = 3
	// missCacheSize is how many sequence numbers the generator found no
	// puzzle for are remembered, so asking for them again by id costs
	// nothing.
	missCacheSize = 256
)

// PracticeFunc makes the practice puzzle seq of filter f with generator
// version: a pure function of its arguments, with ID and Date left zero;
// seq k to k+1023 of one filter give distinct positions; ErrNoPuzzle
// (wrapped), quickly, when no puzzle of that version meets f.
type PracticeFunc func(ctx context.Context, version int, f PracticeFilter, seq uint64) (Puzzle, error)

// pool is the feed's practice part.
type pool struct {
	generate PracticeFunc
	version  int
	verify   func(Puzzle) error
	cutover  time.Time
	rand     func() uint64
	slots    chan struct{} // one per practice generation running at once
	made     *lru.Cache[string, Puzzle]
	missed   *lru.Cache[string, error] // ids the generator made no puzzle for

	mu      sync.Mutex
	dailies map[time.Time]engine.Position // upcoming v1 daily positions, by day
}

func newPool(o FeedOptions) *pool {
	if o.PracticeVersion == 0 {
		o.PracticeVersion = Version
	}
	if o.VerifyPractice == nil {
		o.VerifyPractice = VerifyPractice
	}
	if o.Cutover.IsZero() {
		o.Cutover = DefaultCutover
	}
	if o.Rand == nil {
		o.Rand = rand.Uint64
	}
	if o.PracticeConcurrency <= 0 {
		o.PracticeConcurrency = runtime.GOMAXPROCS(0)
	}
	made, err := lru.New[string, Puzzle](practiceCacheSize)
	if err != nil { // only for a size < 1
		panic(err)
	}
	missed, err := lru.New[string, error](missCacheSize)
	if err != nil {
		panic(err)
	}
	return &pool{
		generate: o.Practice,
		version:  o.PracticeVersion,
		verify:   o.VerifyPractice,
		cutover:  Day(o.Cutover),
		rand:     o.Rand,
		slots:    make(chan struct{}, o.PracticeConcurrency),
		made:     made,
		missed:   missed,
		dailies:  map[time.Time]engine.Position{},
	}
}

// VerifyPractice proves a practice puzzle again: Verify's proof of a
// practice puzzle (no date, the practice side of the split, exactly the
// puzzle its position, rules and goal make), and its id: a practice id of
// its version whose filter asks for it.
func VerifyPractice(p Puzzle) error {
	if !p.Date.IsZero() {
		return fmt.Errorf("%w: %s: a practice puzzle has no date", ErrUnverified, p.ID)
	}
	if err := Verify(p); err != nil {
		return err
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrUnverified, p.ID, fmt.Sprintf(format, args...))
	}
	id, err := ParsePracticeID(p.ID)
	switch {
	case err != nil:
		return fail("%v", err)
	case id.Version != p.Version:
		return fail("made by version %d, the id says %d", p.Version, id.Version)
	case !meets(p, id.Filter):
		return fail("not a puzzle its filter asks for")
	}
	return nil
}

// Practice returns a practice puzzle f asks for: the next one after the
// practice puzzle after (an id of the same filter), or, without after, one
// from a random place in the filter's sequence. Passing each answer's id as
// the next request's after walks the sequence without a repeat. A puzzle
// that is one of the next Window days' daily puzzles is passed over, and so
// is a sequence number the generator finds no puzzle for; maxMisses of
// those in a row are ErrFilterUnmet.
func (f *Feed) Practice(ctx context.Context, filter PracticeFilter, after string) (Stored, error) {
	pl := f.pool
	if pl.generate == nil {
		return Stored{}, fmt.Errorf("%w: this server was started without one", ErrNoPool)
	}
	if err := checkFilter(filter); err != nil {
		return Stored{}, err
	}
	// Random starts stay far below the top, so a walk never wraps.
	id := PracticeID{Version: pl.version, Filter: filter, Seq: pl.rand() % (MaxPracticeSeq / 2)}
	if after != "" {
		prev, err := ParsePracticeID(after)
		if err != nil {
			return Stored{}, fmt.Errorf("after: %w", err)
		}
		if prev.Filter != filter {
			return Stored{}, fmt.Errorf("%w: after names a puzzle of another filter (%s): drop it to start afresh", ErrInvalidPractice, after)
		}
		// A puzzle of an earlier generator version starts the walk afresh
		// with the version in force.
		if prev.Version == pl.version {
			id.Seq = (prev.Seq + 1) % (MaxPracticeSeq + 1)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, practiceTimeout)
	defer cancel()
	misses := 0
	for range maxSkips {
		p, err := f.practice(ctx, id)
		switch {
		case errors.Is(err, errUpcoming):
		case errors.Is(err, ErrFilterUnmet) && misses < maxMisses-1:
			misses++
		default:
			return Stored{Puzzle: p}, err
		}
		id.Seq = (id.Seq + 1) % (MaxPracticeSeq + 1)
	}
	return Stored{}, fmt.Errorf("%d practice puzzles in a row up to %s are upcoming daily puzzles", maxSkips, id)
}

// errUpcoming: the practice puzzle is one of the next Window days' daily
// puzzles, and is not served.
var errUpcoming = errors.New("an upcoming daily puzzle")

// practiceByID returns the practice puzzle with id, unless it is an
// upcoming daily one.
func (f *Feed) practiceByID(ctx context.Context, id string) (Stored, error) {
	if f.pool.generate == nil {
		return Stored{}, fmt.Errorf("%w: this server was started without one", ErrNoPool)
	}
	pid, err := ParsePracticeID(id)
	if err != nil || pid.Version > f.pool.version {
		return Stored{}, fmt.Errorf("%w: no puzzle has id %q", ErrNotFound, id)
	}
	ctx, cancel := context.WithTimeout(ctx, practiceTimeout)
	defer cancel()
	p, err := f.practice(ctx, pid)
	if errors.Is(err, errUpcoming) || errors.Is(err, ErrFilterUnmet) || errors.Is(err, ErrUnknownVersion) {
		return Stored{}, fmt.Errorf("%w: no puzzle has id %q", ErrNotFound, id)
	}
	return Stored{Puzzle: p}, err
}

// practice makes (or finds made) the practice puzzle id, proves it, and
// refuses it with errUpcoming if it is an upcoming daily puzzle.
func (f *Feed) practice(ctx context.Context, id PracticeID) (Puzzle, error) {
	pl := f.pool
	key := id.String()
	if err, ok := pl.missed.Get(key); ok {
		return Puzzle{}, err
	}
	p, ok := pl.made.Get(key)
	if !ok {
		var err error
		if p, err = pl.make(ctx, id); errors.Is(err, ErrFilterUnmet) {
			pl.missed.Add(key, err)
		}
		if err != nil {
			return Puzzle{}, err
		}
		pl.made.Add(key, p)
	}
	if err := f.notUpcoming(ctx, p); err != nil {
		return Puzzle{}, err
	}
	return p, nil
}

// make runs the generator for id, if a slot is free, and checks what it
// made.
func (pl *pool) make(ctx context.Context, id PracticeID) (Puzzle, error) {
	// Generation is pure CPU: as with analyses, a request that finds every
	// slot taken is refused at once rather than queued.
	select {
	case pl.slots <- struct{}{}:
		defer func() { <-pl.slots }()
	default:
		return Puzzle{}, fmt.Errorf("%w: %d practice puzzles are being made; try again in a second", ErrPracticeBusy, cap(pl.slots))
	}
	p, err := pl.generate(ctx, id.Version, id.Filter, id.Seq)
	switch {
	case errors.Is(err, ErrNoPuzzle):
		return Puzzle{}, fmt.Errorf("%w: %s", ErrFilterUnmet, describeFilter(id.Filter))
	case err != nil:
		return Puzzle{}, err
	case !p.Date.IsZero() || p.ID != "" || p.Version != id.Version:
		return Puzzle{}, fmt.Errorf("practice generator: %s came with id %q, date %v, version %d", id, p.ID, p.Date, p.Version)
	}
	p.ID = id.String()
	if err := pl.verify(p); err != nil {
		return Puzzle{}, fmt.Errorf("generated practice puzzle: %w", err)
	}
	if !meets(p, id.Filter) {
		return Puzzle{}, fmt.Errorf("practice generator: %s is not a puzzle its filter asks for", id)
	}
	return p, nil
}

// describeFilter says what a filter asks for, for error details.
func describeFilter(f PracticeFilter) string {
	s := "a puzzle"
	if f.Difficulty != 0 {
		s += fmt.Sprintf(" of difficulty %d", f.Difficulty)
	}
	if f.Goal != "" {
		s += fmt.Sprintf(" with goal %s", f.Goal)
	}
	if f.Theme != "" {
		s += fmt.Sprintf(" with theme %s", f.Theme)
	}
	return s
}

// notUpcoming returns errUpcoming if p's position is the daily puzzle of a
// day from today to Window-1 days ahead. Buckets make the check one
// comparison: a daily puzzle comes from its day's bucket, and each bucket is
// the day of exactly one of those Window days. Days from the cutover on need
// no check at all: the version 2 generator keeps practice positions out of
// daily ones by construction. Earlier days' puzzles are read from the store,
// made (and stored) ahead if need be, and remembered.
func (f *Feed) notUpcoming(ctx context.Context, p Puzzle) error {
	today := f.Today()
	ahead := (bucket(&p.Position) - dayBucket(today) + Window) % Window
	day := today.AddDate(0, 0, ahead)
	if !day.Before(f.pool.cutover) {
		return nil
	}
	daily, err := f.dailyPosition(ctx, day)
	if err != nil {
		return err
	}
	if daily == p.Position {
		return errUpcoming
	}
	return nil
}

// dailyPosition returns day's daily puzzle's position, remembering those of
// the days ahead.
func (f *Feed) dailyPosition(ctx context.Context, day time.Time) (engine.Position, error) {
	pl := f.pool
	pl.mu.Lock()
	pos, ok := pl.dailies[day]
	pl.mu.Unlock()
	if ok {
		return pos, nil
	}
	sp, _, err := f.Prepare(ctx, day)
	if err != nil {
		return engine.Position{}, err
	}
	today := f.Today()
	pl.mu.Lock()
	defer pl.mu.Unlock()
	for d := range pl.dailies {
		if d.Before(today) {
			delete(pl.dailies, d)
		}
	}
	pl.dailies[day] = sp.Puzzle.Position
	return sp.Puzzle.Position, nil
}
