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
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Errors of the practice pool.
var (
	// ErrNoPool: the server was started without a practice generator. It
	// will not have one later: no wait is suggested.
	ErrNoPool = fault.New(fault.Busy, "not_ready", "Not ready", "no practice pool")
	// ErrPracticeBusy: no unit of the CPU budget came free for a practice
	// generation in time; try again shortly.
	ErrPracticeBusy = fault.NewRetry(fault.Limited, time.Second, "practice_busy", "Practice pool busy", "practice pool busy")
	// ErrPracticeTimeout: the request's time budget ran out before a
	// puzzle was found (the generator missed, or was slow). The work done
	// is kept (what was made, what was missed; a generation under way runs
	// on), so asking again, the same way, goes further.
	ErrPracticeTimeout = fault.NewRetry(fault.Busy, time.Second, "practice_timeout", "No practice puzzle found in time", "no practice puzzle found in time")
)

// errMiss: the generator found no puzzle for one sequence number of a
// filter it can meet; the walk tries another.
var errMiss = errors.New("no practice puzzle for this sequence number")

// Pool limits.
const (
	// defaultPracticeTimeout bounds one practice request unless
	// FeedOptions says otherwise, waits and misses included: a generation
	// takes a few seconds at most on one core. On running out,
	// ErrPracticeTimeout.
	defaultPracticeTimeout = 10 * time.Second
	// practiceGenTimeout bounds one generation, which runs detached from
	// the requests waiting for it, with room for a loaded machine.
	practiceGenTimeout = 30 * time.Second
	// practiceCacheSize is how many practice puzzles are kept made: those
	// players are solving now.
	practiceCacheSize = 1024
	// maxTries bounds the sequence numbers one request tries for its
	// answer. Most tries that fail are cheap (remembered misses); those
	// that cost a generation are bounded by the request's time budget first.
	maxTries = 64
	// missLimit is how many generations in a row, of one filter and
	// version, may find no puzzle (counted across requests) before the
	// filter is taken as one no puzzle meets. The rarest filters the
	// generator meets miss about half the time (difficulty 4 and
	// sacrifice): 32 in a row is a chance in 10^8; a filter that has never
	// been met costs 32 generations (a minute or two of CPU) once per
	// process before its answer is 422.
	missLimit = 32
	// practiceWait bounds the wait of a practice generation for a unit of
	// the CPU budget, past which it is ErrPracticeBusy: generation goes
	// last, and a player is better told to come back than kept waiting
	// behind a queue of AI moves and analyses.
	practiceWait = time.Second
	// missCacheSize is how many sequence numbers the generator found no
	// puzzle for are remembered, so trying them again costs nothing.
	missCacheSize = 4096
)

// PracticeFunc makes the practice puzzle seq of filter f with generator
// version: a pure function of its arguments, with ID and Date left zero;
// seq k to k+1023 of one filter give distinct positions (a real puzzle's
// position is in bucket seq mod PracticeWindow: VerifyPractice checks it).
// ErrNoPuzzle (wrapped) when it finds none for seq; ErrNoPuzzle and
// ErrFilterUnmet (both wrapped), quickly, when no puzzle of that version
// meets f by definition.
type PracticeFunc func(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error)

// practiceShareKey names the practice generations' share of the budget.
const practiceShareKey = "puzzles.practice"

// pool is the feed's practice part.
type pool struct {
	generate PracticeFunc
	version  int
	verify   func(gen.Puzzle) error
	cutover  time.Time
	rand     func() uint64
	timeout  time.Duration
	gen      *Generator // whose table build a generation waits for
	budget   *budget.Budget
	slots    int // practice generations at once, within budget
	made     *lru.Cache[string, gen.Puzzle]
	missed   *lru.Cache[string, error] // ids the generator made no puzzle for
	making   flight[gen.Puzzle]        // generations running, by id
	dailying flight[engine.Position]   // daily positions being made, by day (gen.DateLayout)

	stock        StockStore // nil: none
	stockSize    int
	checkStocked func(gen.Puzzle) error // what a stocked row is checked with when read
	log          *slog.Logger

	mu      sync.Mutex
	dailies map[time.Time]engine.Position // upcoming v1 daily positions, by day
	// streaks counts, per filter and version (a PracticeID of seq 0), the
	// generations in a row that found no puzzle; missLimit means unmet. Its
	// keys are valid filters of versions up to the pool's: a few thousand
	// at most.
	streaks map[gen.PracticeID]int
	// resume holds, per filter and version (keyed as streaks), the seq a
	// walk from a random start had reached when its request ran out of
	// time: the next request without after starts there, so it joins the
	// generation still running (and the misses passed over stay passed
	// over) instead of drawing another start that needs another slot.
	// Once a random start of the filter is answered, its entry goes.
	resume map[gen.PracticeID]uint64
}

func newPool(cpu *budget.Budget, o FeedOptions) *pool {
	if o.PracticeVersion == 0 {
		o.PracticeVersion = gen.PracticeVersion
	}
	if o.StockSize <= 0 { // no stock: rows an earlier run left are not read either
		o.Stock = nil
	}
	checkStocked := o.VerifyPractice // a test's lighter check covers stocked rows too
	if checkStocked == nil {
		checkStocked = stockedShape
	}
	if o.VerifyPractice == nil {
		g := o.Generator // NewFeed has set it
		o.VerifyPractice = func(p gen.Puzzle) error { return g.VerifyPractice(context.Background(), p) }
	}
	if o.Cutover.IsZero() {
		o.Cutover = gen.DefaultCutover
	}
	if o.Rand == nil {
		o.Rand = rand.Uint64
	}
	if o.PracticeTimeout <= 0 {
		o.PracticeTimeout = defaultPracticeTimeout
	}
	if o.PracticeConcurrency <= 0 || o.PracticeConcurrency > cpu.Size() {
		o.PracticeConcurrency = cpu.Size()
	}
	made, err := lru.New[string, gen.Puzzle](practiceCacheSize)
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
		cutover:  gen.Day(o.Cutover),
		rand:     o.Rand,
		timeout:  o.PracticeTimeout,
		gen:      o.Generator,
		budget:   cpu,
		slots:    o.PracticeConcurrency,
		made:     made,
		missed:   missed,
		dailies:  map[time.Time]engine.Position{},
		streaks:  map[gen.PracticeID]int{},
		resume:   map[gen.PracticeID]uint64{},

		stock:        o.Stock,
		stockSize:    min(o.StockSize, gen.PracticeWindow),
		checkStocked: checkStocked,
		log:          stockLog(o.Log),
	}
}

// Practice returns a practice puzzle f asks for: the next one after the
// practice puzzle after (an id of the same filter), or, without after, one
// from a random place in the filter's sequence.
//
// The no-repeat promise counts answers, not sequence numbers. Each answer
// has a bucket, the next after the previous answer's: after an answer of seq
// s, bucket (s+1) mod PracticeWindow, tried at seq s+1, then s+1+1024,
// s+1+2048, ... (the same bucket, another draw of the generator each time)
// until one gives a puzzle that is not an upcoming daily one. A puzzle's
// position is in its seq's bucket, so any PracticeWindow answers in a row
// are in distinct buckets and have distinct positions, however many seqs
// were passed over. A filter whose generations miss missLimit times in a
// row is ErrFilterUnmet; a request whose time runs out first is
// ErrPracticeTimeout, to ask again the same way: with after, the walk
// starts where it did; without, the next random start of the filter
// resumes where this one stopped, so both find the work done.
func (f *Feed) Practice(ctx context.Context, filter gen.PracticeFilter, after string) (Stored, error) {
	pl := f.pool
	if pl.generate == nil {
		return Stored{}, fmt.Errorf("%w: this server was started without one", ErrNoPool)
	}
	if err := gen.CheckFilter(filter); err != nil {
		return Stored{}, err
	}
	// Random starts stay far below the top, so a walk never wraps.
	id := gen.PracticeID{Version: pl.version, Filter: filter, Seq: pl.rand() % (gen.MaxPracticeSeq / 2)}
	if after != "" {
		prev, err := gen.ParsePracticeID(after)
		if err != nil {
			return Stored{}, fmt.Errorf("after: %w", err)
		}
		if prev.Filter != filter {
			return Stored{}, fmt.Errorf("%w: after names a puzzle of another filter (%s): drop it to start afresh", gen.ErrInvalidPractice, after)
		}
		// A puzzle of an earlier generator version starts the walk afresh
		// with the version in force.
		if prev.Version == pl.version {
			id.Seq = nextSeq(prev.Seq, 1)
		}
	}
	random := after == ""
	if random {
		if p, ok := f.randomStocked(ctx, filter); ok {
			return Stored{Puzzle: p}, nil
		}
		id.Seq = pl.resumeAt(id)
	} else if p, ok := f.fromStock(ctx, id); ok {
		return Stored{Puzzle: p}, nil
	}
	bctx, cancel := context.WithTimeout(ctx, pl.timeout)
	defer cancel()
	first := id.Seq
	for try := range uint64(maxTries) {
		id.Seq = nextSeq(first, try*gen.PracticeWindow)
		p, err := f.practice(bctx, id)
		switch {
		case errors.Is(err, errUpcoming), errors.Is(err, errMiss):
		case err != nil:
			err = pl.overBudget(ctx, err)
			if random && errors.Is(err, ErrPracticeTimeout) {
				pl.stopAt(id)
			}
			return Stored{}, err
		default:
			if random {
				pl.resumed(id)
			}
			f.stockMade(ctx, id, p)
			return Stored{Puzzle: p}, nil
		}
	}
	if random {
		pl.stopAt(id)
	}
	return Stored{}, fmt.Errorf("%w: %d tries from %s found none: ask again", ErrPracticeTimeout, maxTries, gen.PracticeID{Version: id.Version, Filter: filter, Seq: first})
}

// resumeAt returns the seq a random start of id's filter begins at: where
// the last such walk ran out of time, if one did, else id's own.
func (pl *pool) resumeAt(id gen.PracticeID) uint64 {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if seq, ok := pl.resume[streakKey(id)]; ok {
		return seq
	}
	return id.Seq
}

// stopAt records that a walk from a random start ran out of time at id.
func (pl *pool) stopAt(id gen.PracticeID) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.resume[streakKey(id)] = id.Seq
}

// resumed forgets where a walk of id's filter stopped, now that a walk
// from a random start has found a puzzle at id.
func (pl *pool) resumed(id gen.PracticeID) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	delete(pl.resume, streakKey(id))
}

// nextSeq is the sequence number n after seq, wrapping past MaxPracticeSeq
// (whose successor, 2^53, is a multiple of PracticeWindow: buckets hold).
func nextSeq(seq, n uint64) uint64 { return (seq + n) % (gen.MaxPracticeSeq + 1) }

// overBudget turns the end of a request's time budget into
// ErrPracticeTimeout; the end of the caller's own context stays what it is.
func (pl *pool) overBudget(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return fmt.Errorf("%w within %v: ask again, the same way: the work done is kept", ErrPracticeTimeout, pl.timeout)
	}
	return err
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
	pid, err := gen.ParsePracticeID(id)
	if err != nil || pid.Version > f.pool.version {
		return Stored{}, fmt.Errorf("%w: no puzzle has id %q", ErrNotFound, id)
	}
	bctx, cancel := context.WithTimeout(ctx, f.pool.timeout)
	defer cancel()
	p, err := f.practice(bctx, pid)
	switch {
	case errors.Is(err, errUpcoming), errors.Is(err, errMiss), errors.Is(err, gen.ErrFilterUnmet), errors.Is(err, gen.ErrUnknownVersion):
		return Stored{}, fmt.Errorf("%w: no puzzle has id %q", ErrNotFound, id)
	case err != nil:
		return Stored{}, f.pool.overBudget(ctx, err)
	}
	return Stored{Puzzle: p}, nil
}

// practice makes (or finds made) the practice puzzle id, and refuses it
// with errUpcoming if it is an upcoming daily puzzle; errMiss if the
// generator found none for id.
func (f *Feed) practice(ctx context.Context, id gen.PracticeID) (gen.Puzzle, error) {
	pl := f.pool
	key := id.String()
	if err, ok := pl.missed.Get(key); ok {
		return gen.Puzzle{}, err
	}
	p, ok := pl.made.Get(key)
	checked := false
	if !ok {
		p, ok, checked = f.stockedAt(ctx, id)
	}
	if !ok {
		if err := pl.unmet(id); err != nil {
			return gen.Puzzle{}, err
		}
		// One generation per id however many ask at once, detached from
		// them: its result is remembered even if they all leave.
		detached := context.WithoutCancel(ctx)
		var err error
		if p, err = pl.making.do(ctx, key, func() (gen.Puzzle, error) { return pl.make(detached, id) }); err != nil {
			return gen.Puzzle{}, err
		}
	}
	if checked {
		return p, nil
	}
	if err := f.notUpcoming(ctx, p); err != nil {
		return gen.Puzzle{}, err
	}
	return p, nil
}

// streakKey is the key of id's filter and version in streaks.
func streakKey(id gen.PracticeID) gen.PracticeID {
	id.Seq = 0
	return id
}

// unmet returns ErrFilterUnmet if id's filter has missed missLimit times in
// a row.
func (pl *pool) unmet(id gen.PracticeID) error {
	pl.mu.Lock()
	n := pl.streaks[streakKey(id)]
	pl.mu.Unlock()
	if n >= missLimit {
		return fmt.Errorf("%w: %s (the generator found none %d times in a row)", gen.ErrFilterUnmet, describeFilter(id.Filter), missLimit)
	}
	return nil
}

// tally records a generation of id's filter: a miss lengthens its streak,
// anything else ends it; never means unmet by definition.
func (pl *pool) tally(id gen.PracticeID, miss, never bool) {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	k := streakKey(id)
	switch {
	case never:
		pl.streaks[k] = missLimit
	case miss:
		pl.streaks[k] = min(pl.streaks[k]+1, missLimit)
	default:
		delete(pl.streaks, k)
	}
}

// make runs the generator for id, in a unit of the CPU budget (once a build
// of the generator's table under way is done), checks what it made and
// remembers the outcome: the puzzle, or the miss.
func (pl *pool) make(ctx context.Context, id gen.PracticeID) (gen.Puzzle, error) {
	if err := pl.gen.awaitTable(ctx); err != nil {
		return gen.Puzzle{}, err
	}
	release, err := pl.budget.Acquire(ctx, budget.Request{
		Priority: budget.Generation,
		Weight:   1,
		Wait:     practiceWait,
		Shares:   []budget.Share{{Key: practiceShareKey, Max: pl.slots}},
	})
	if errors.Is(err, budget.ErrBusy) {
		return gen.Puzzle{}, fmt.Errorf("%w: no room for another of the %d practice puzzles made at once within %v; try again in a second", ErrPracticeBusy, pl.slots, practiceWait)
	}
	if err != nil {
		return gen.Puzzle{}, err
	}
	defer release()
	return pl.run(ctx, id)
}

// run is make's generation, in the unit its caller holds, with the
// request path's bookkeeping: the streaks of misses, the misses and the
// puzzles made.
func (pl *pool) run(ctx context.Context, id gen.PracticeID) (gen.Puzzle, error) {
	p, err := pl.generateChecked(ctx, id)
	switch {
	case errors.Is(err, gen.ErrFilterUnmet):
		pl.tally(id, true, true)
		return gen.Puzzle{}, err
	case errors.Is(err, errMiss):
		pl.tally(id, true, false)
		pl.missed.Add(id.String(), err)
		return gen.Puzzle{}, err
	case err != nil:
		return gen.Puzzle{}, err
	}
	pl.tally(id, false, false)
	pl.made.Add(id.String(), p)
	return p, nil
}

// generateChecked makes the puzzle of id within practiceGenTimeout and
// checks it: errMiss when the generator found none for id's seq,
// ErrFilterUnmet when none can meet its filter. It keeps no account of
// either (the stocker's generations, which no request waits for, must not
// count towards a filter's streak or push players' puzzles out of the
// cache).
func (pl *pool) generateChecked(ctx context.Context, id gen.PracticeID) (gen.Puzzle, error) {
	ctx, cancel := context.WithTimeout(ctx, practiceGenTimeout)
	defer cancel()
	p, err := pl.generate(ctx, id.Version, id.Filter, id.Seq)
	switch {
	case errors.Is(err, gen.ErrFilterUnmet):
		return gen.Puzzle{}, fmt.Errorf("%w: %s", gen.ErrFilterUnmet, describeFilter(id.Filter))
	case errors.Is(err, gen.ErrNoPuzzle):
		return gen.Puzzle{}, fmt.Errorf("%w: %s", errMiss, id)
	case err != nil:
		return gen.Puzzle{}, err
	case !p.Date.IsZero() || p.ID != "" || p.Version != id.Version:
		return gen.Puzzle{}, fmt.Errorf("practice generator: %s came with id %q, date %v, version %d", id, p.ID, p.Date, p.Version)
	}
	p.ID = id.String()
	if err := pl.verify(p); err != nil {
		return gen.Puzzle{}, fmt.Errorf("generated practice puzzle: %w", err)
	}
	if !gen.Meets(p, id.Filter) {
		return gen.Puzzle{}, fmt.Errorf("practice generator: %s is not a puzzle its filter asks for", id)
	}
	return p, nil
}

// describeFilter says what a filter asks for, for error details.
func describeFilter(f gen.PracticeFilter) string {
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
// daily ones by construction.
func (f *Feed) notUpcoming(ctx context.Context, p gen.Puzzle) error {
	today := f.Today()
	ahead := (gen.Bucket(&p.Position) - gen.DayBucket(today) + gen.Window) % gen.Window
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

// dailyPosition returns day's daily puzzle's position: the stored puzzle's,
// or, for a day not stored yet, the position the feed's generator (a pure
// function of the day) will give it, made here but not stored: practice
// requests never write. Positions of the days ahead are remembered (a year's
// at most), and each is made once however many ask at once.
func (f *Feed) dailyPosition(ctx context.Context, day time.Time) (engine.Position, error) {
	pl := f.pool
	pl.mu.Lock()
	pos, ok := pl.dailies[day]
	pl.mu.Unlock()
	if ok {
		return pos, nil
	}
	detached := context.WithoutCancel(ctx)
	return pl.dailying.do(ctx, day.Format(gen.DateLayout), func() (engine.Position, error) {
		pos, err := f.daily(detached, day)
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
		pl.dailies[day] = pos
		return pos, nil
	})
}

// daily reads day's puzzle's position from the store, or makes it, in a
// daily generation slot, without storing it.
func (f *Feed) daily(ctx context.Context, day time.Time) (engine.Position, error) {
	sp, err := f.store.PuzzleByDate(ctx, day)
	if err == nil {
		return sp.Puzzle.Position, nil
	}
	if !errors.Is(err, ErrNotFound) {
		return engine.Position{}, err
	}
	if p, ok := f.aheadDay(day); ok {
		return p.Position, nil
	}
	ctx, cancel := context.WithTimeout(ctx, f.genTimeout)
	defer cancel()
	p, err := f.generateDay(ctx, day)
	if err != nil {
		return engine.Position{}, fmt.Errorf("the daily puzzle of %s, to compare: %w", day.Format(gen.DateLayout), err)
	}
	return p.Position, nil
}
