package puzzles

// The practice stock: proven practice puzzles made ahead, in idle time, for
// the filters players use, and kept in the store every instance shares, so
// that a walk's next puzzle is a read instead of a search of seconds.
//
// A stocked puzzle is exactly the puzzle its id makes (it was made from its
// id, by the same generator, and proven before it was stored), so serving it
// changes nothing a player can see but the time it takes; a walk's buckets
// are the same whether its puzzles come from the stock or are made on
// demand: after seq s, bucket (s+1) mod PracticeWindow. See
// docs/practice-stock.md.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// Stocked is one row of the practice stock.
type Stocked struct {
	Filter string // the filter's key (FilterKey)
	Bucket int    // Seq mod PracticeWindow
	Seq    uint64
	Puzzle gen.Puzzle // with its practice id; its Version is the stock's
	// Made is when the row was stored: the stocker compared its puzzle
	// with the daily puzzles of the Window days from then.
	Made time.Time
}

// StockStore keeps the practice stock, shared by every instance. Like the
// feed's Store it decides nothing: the feed checks what it reads.
type StockStore interface {
	// AddStock stores s unless a row of its version, filter and seq is
	// there already, and reports whether it wrote.
	AddStock(ctx context.Context, s Stocked, at time.Time) (bool, error)
	// StockBucket returns the stocked puzzles of version and filter in
	// bucket, by seq; none is an empty answer, not an error.
	StockBucket(ctx context.Context, version int, filter string, bucket int) ([]Stocked, error)
	// StockedBuckets returns how many buckets of the stock of version and
	// filter hold a puzzle (a bucket may hold several, of different seqs).
	StockedBuckets(ctx context.Context, version int, filter string) (int, error)
	// Stock returns every stocked puzzle of version and filter, by bucket
	// then seq.
	Stock(ctx context.Context, version int, filter string) ([]Stocked, error)
	// TakeLease gives the lease name to holder until until, and reports
	// true, when nobody holds it, or holder does, or the holder's lease
	// ran out by now; else it changes nothing and reports false. One
	// conditional write: of several instances asking at once, one wins.
	TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error)
}

// FilterKey is the stock's key of a filter: its part of a practice id,
// "d3-gany-tany".
func FilterKey(f gen.PracticeFilter) string {
	id := gen.PracticeID{Filter: f}.String()                         // "x0-d3-gany-tany-0"
	return id[strings.Index(id, "-")+1 : strings.LastIndex(id, "-")] // "d3-gany-tany"
}

// StockedFilters are the filters the stocker keeps a stock of: any puzzle,
// each difficulty, each goal, and the two themes of looking ahead.
func StockedFilters() []gen.PracticeFilter {
	fs := []gen.PracticeFilter{{}}
	for d := 1; d <= 5; d++ {
		fs = append(fs, gen.PracticeFilter{Difficulty: d})
	}
	for _, g := range []gen.Goal{gen.GoalMaxCapture, gen.GoalWin, gen.GoalDefend, gen.GoalEndgame} {
		fs = append(fs, gen.PracticeFilter{Goal: g})
	}
	return append(fs, gen.PracticeFilter{Theme: "greed_trap"}, gen.PracticeFilter{Theme: "sacrifice"})
}

// DefaultStockSize is the puzzles per filter a stock holds unless the
// server says otherwise: a whole window, one per bucket, so that every walk
// is served from it (about 300 KB per filter).
const DefaultStockSize = gen.PracticeWindow

// fromStock returns the stocked puzzle that answers a walk at id: the one of
// id's bucket with the smallest seq at or after id.Seq, else the smallest;
// ok false when the bucket is not stocked (or the stock cannot be read: the
// caller makes the puzzle on demand, as without a stock).
func (f *Feed) fromStock(ctx context.Context, id gen.PracticeID) (gen.Puzzle, bool) {
	rows := f.stockBucket(ctx, id)
	if len(rows) == 0 {
		return gen.Puzzle{}, false
	}
	pick := rows[0]
	if i := slices.IndexFunc(rows, func(s Stocked) bool { return s.Seq >= id.Seq }); i >= 0 {
		pick = rows[i]
	}
	if !f.checkedAhead(pick) {
		if err := f.notUpcoming(ctx, pick.Puzzle); err != nil {
			return gen.Puzzle{}, false
		}
	}
	return pick.Puzzle, true
}

// checkedAhead reports whether s's puzzle was compared, when it was
// stocked, with the one daily puzzle it could be today: the day of its
// bucket among the Window days from today. A bucket is the day of exactly
// one of any Window days in a row, so that day was among those from the
// day s was made unless it lies Window days or more after it. This spares a
// request served from the stock the generation of a day's puzzle.
func (f *Feed) checkedAhead(s Stocked) bool {
	today := f.Today()
	ahead := (gen.Bucket(&s.Puzzle.Position) - gen.DayBucket(today) + gen.Window) % gen.Window
	return today.AddDate(0, 0, ahead).Before(gen.Day(s.Made).AddDate(0, 0, gen.Window))
}

// stockedAt returns the stocked puzzle of exactly id, if there is one, and
// whether it was compared with the daily puzzle of its day (checkedAhead).
func (f *Feed) stockedAt(ctx context.Context, id gen.PracticeID) (p gen.Puzzle, ok, checked bool) {
	rows := f.stockBucket(ctx, id)
	if i := slices.IndexFunc(rows, func(s Stocked) bool { return s.Seq == id.Seq }); i >= 0 {
		return rows[i].Puzzle, true, f.checkedAhead(rows[i])
	}
	return gen.Puzzle{}, false, false
}

// stockBucket reads the stock of id's version and filter in id's bucket,
// keeping only the rows that are what they say: the puzzle of their id, in
// their bucket, one the filter asks for. These checks are cheap; the proof
// was made before the row was stored. A store that fails is logged and
// answers nothing: the request goes on as without a stock.
func (f *Feed) stockBucket(ctx context.Context, id gen.PracticeID) []Stocked {
	st := f.pool.stock
	if st == nil || id.Version != f.pool.version {
		return nil
	}
	key, bucket := FilterKey(id.Filter), int(id.Seq%gen.PracticeWindow)
	rows, err := st.StockBucket(ctx, id.Version, key, bucket)
	if err != nil {
		f.pool.log.WarnContext(ctx, "practice stock unreadable: making the puzzle on demand", "err", err)
		rows = nil
	}
	if len(rows) == 0 { // the rows shipped with the binary, if any
		rows = f.ahead.Bucket(id.Version, key, bucket)
	}
	return slices.DeleteFunc(rows, func(s Stocked) bool {
		want := gen.PracticeID{Version: id.Version, Filter: id.Filter, Seq: s.Seq}
		p := s.Puzzle
		return p.ID != want.String() || p.Version != id.Version || !p.Date.IsZero() ||
			s.Seq%gen.PracticeWindow != id.Seq%gen.PracticeWindow || !gen.Meets(p, id.Filter) || f.pool.checkStocked(p) != nil
	})
}

// stockedShape is the default check of a stocked row's position: in its
// seq's bucket, on the practice side of the split. The rest of the proof
// was made when the row was written.
func stockedShape(p gen.Puzzle) error {
	id, err := gen.ParsePracticeID(p.ID)
	switch {
	case err != nil:
		return err
	case gen.DrillBucket(&p.Position) != int(id.Seq%gen.PracticeWindow) || !gen.PracticeSide(&p.Position):
		return fmt.Errorf("%w: %s: a stocked position outside its bucket", gen.ErrUnverified, p.ID)
	}
	return nil
}

// randomStocked answers a walk without `after` from the stock: a random
// bucket among those the stocker has filled (it fills them in order from
// 0), at a random place of the sequence. ok false when the filter's stock is
// empty.
func (f *Feed) randomStocked(ctx context.Context, filter gen.PracticeFilter) (gen.Puzzle, bool) {
	pl := f.pool
	if pl.stock == nil {
		return gen.Puzzle{}, false
	}
	n, err := pl.stock.StockedBuckets(ctx, pl.version, FilterKey(filter))
	if err != nil {
		n = 0
	}
	// The rows made ahead are buckets 0, 1, 2, ..., as the stocker's are.
	n = max(n, f.ahead.Buckets(pl.version, FilterKey(filter)))
	if n == 0 {
		return gen.Puzzle{}, false
	}
	b := pl.rand() % uint64(min(n, gen.PracticeWindow))
	return f.fromStock(ctx, gen.PracticeID{Version: pl.version, Filter: filter, Seq: b})
}

// stockMade adds a puzzle made on demand to the stock, when its bucket is
// one the stock keeps (below its size) and has none: the stock grows only
// where the stocker would have made a puzzle anyway.
func (f *Feed) stockMade(ctx context.Context, id gen.PracticeID, p gen.Puzzle) {
	pl := f.pool
	b := int(id.Seq % gen.PracticeWindow)
	if pl.stock == nil || b >= pl.stockSize || !slices.ContainsFunc(StockedFilters(), func(g gen.PracticeFilter) bool { return g == id.Filter }) {
		return
	}
	if rows := f.stockBucket(ctx, id); len(rows) > 0 {
		return
	}
	// Compared with the upcoming daily puzzles just now (Feed.practice),
	// so made now, as the stocker's rows.
	s := Stocked{Filter: FilterKey(id.Filter), Bucket: b, Seq: id.Seq, Puzzle: p}
	if _, err := pl.stock.AddStock(ctx, s, f.now().UTC()); err != nil {
		pl.log.WarnContext(ctx, "practice stock: could not keep a puzzle made on demand", "id", id.String(), "err", err)
	}
}

// Stocker lease and pacing.
const (
	// stockLease is how long a stocker's lease on a filter lasts; it is
	// taken before a generation waits for its unit of the budget and taken
	// again once the unit is granted (the wait may be long), and a
	// generation takes seconds (practiceGenTimeout at most), so it lapses
	// only when its holder has gone.
	stockLease = 2 * time.Minute
	// stockPause is how long Run waits when Step had nothing to do, or was
	// preempted: the stock is work for idle time.
	stockPause = 5 * time.Second
	// stockRest is how long a filter whose every bucket is stocked or was
	// passed over is left alone.
	stockRest = time.Hour
	// stockShare is the share of one core the stocker takes on average on
	// an idle server: after a step of t it rests t*(1-share)/share. Without
	// it a server nobody uses spent a whole core for the ~18 hours a full
	// stock takes; the stock shipped with the binary (puzzles/ahead) serves
	// every stocked filter meanwhile.
	stockShare = 0.25
)

// stockRestAfter is how long the stocker rests after a step that took
// worked, to keep to stockShare of a core.
func stockRestAfter(worked time.Duration) time.Duration {
	return time.Duration(float64(worked) * (1 - stockShare) / stockShare)
}

// Stocker fills the practice stock in the background: for each stocked
// filter whose lease it holds, buckets 0, 1, 2, ... up to the stock's
// size, each with the first of seq b, b+1024, b+2048, ... that gives a
// puzzle which is not an upcoming daily one. Its generations run at budget
// priority Stock and stop as soon as live work needs their unit.
type Stocker struct {
	feed    *Feed
	holder  string
	filters []gen.PracticeFilter
	next    map[gen.PracticeFilter]*stockCursor
}

// stockCursor is where a filter's filling stands on this instance.
type stockCursor struct {
	bucket int
	tries  uint64    // seqs of bucket tried so far: bucket + tries*PracticeWindow is next
	rest   time.Time // until then, nothing is left to try
}

// ErrNoStock: the feed was made without a stock (FeedOptions.Stock) or
// a practice pool.
var ErrNoStock = errors.New("no practice stock")

// NewStocker returns the stocker of f's stock; holder names this instance
// in the store's leases (empty: a random name).
func (f *Feed) NewStocker(holder string) (*Stocker, error) {
	if f.pool.stock == nil || f.pool.generate == nil || f.pool.stockSize <= 0 {
		return nil, ErrNoStock
	}
	if holder == "" {
		holder = rand.Text()
	}
	return &Stocker{feed: f, holder: holder, filters: StockedFilters(), next: map[gen.PracticeFilter]*stockCursor{}}, nil
}

// Run fills the stock until ctx ends, pausing when there is nothing to do
// or live work took the budget.
func (s *Stocker) Run(ctx context.Context) {
	for ctx.Err() == nil {
		start := time.Now()
		worked, err := s.Step(ctx)
		if err != nil && ctx.Err() == nil {
			s.feed.pool.log.WarnContext(ctx, "practice stock", "err", err)
		}
		pause := stockPause
		if worked && err == nil {
			pause = stockRestAfter(time.Since(start))
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

// Step makes at most one generation for the first filter, in StockedFilters'
// order, whose stock is not full and whose lease this stocker holds or
// takes, and reports whether it did one (false: everything is full or
// leased by others, or the generation was preempted by live work).
func (s *Stocker) Step(ctx context.Context) (bool, error) {
	pl := s.feed.pool
	for _, filter := range s.filters {
		if c := s.next[filter]; c != nil && s.feed.now().Before(c.rest) {
			continue
		}
		key := FilterKey(filter)
		n, err := pl.stock.StockedBuckets(ctx, pl.version, key)
		if err != nil {
			return false, fmt.Errorf("count the stock of %s: %w", key, err)
		}
		if n >= pl.stockSize {
			continue
		}
		if mine, err := s.lease(ctx, filter); err != nil || !mine {
			if err != nil {
				return false, err
			}
			continue
		}
		worked, err := s.fill(ctx, filter)
		if c := s.next[filter]; !worked && err == nil && s.feed.now().Before(c.rest) {
			continue // nothing left to try here: the next filter
		}
		return worked, err
	}
	return false, nil
}

// fill makes the next puzzle of filter's stock.
func (s *Stocker) fill(ctx context.Context, filter gen.PracticeFilter) (bool, error) {
	pl := s.feed.pool
	c := s.next[filter]
	if c == nil {
		c = &stockCursor{}
		s.next[filter] = c
	}
	for ; c.bucket < min(pl.stockSize, gen.PracticeWindow); c.bucket, c.tries = c.bucket+1, 0 {
		id := gen.PracticeID{Version: pl.version, Filter: filter, Seq: uint64(c.bucket)}
		if len(s.feed.stockBucket(ctx, id)) == 0 && c.tries < maxTries {
			break
		}
	}
	if c.bucket >= min(pl.stockSize, gen.PracticeWindow) {
		// Every bucket is stocked or was passed over: the stock is short of
		// its size by those. Try them again later (an upcoming daily puzzle
		// that kept a seq out is a past one tomorrow).
		c.bucket, c.rest = 0, s.feed.now().Add(stockRest)
		return false, nil
	}
	id := gen.PracticeID{Version: pl.version, Filter: filter, Seq: uint64(c.bucket) + c.tries*gen.PracticeWindow}
	start := time.Now()
	p, err := s.make(ctx, id)
	switch {
	case errors.Is(err, budget.ErrPreempted), errors.Is(err, errLeaseLost):
		return false, nil // the same seq again, once live work leaves room (or the lease comes back)
	case errors.Is(err, errMiss), errors.Is(err, gen.ErrFilterUnmet),
		errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil: // a seq too slow for a loaded machine is passed over too
		c.tries++
		return true, nil
	case err != nil:
		return false, fmt.Errorf("make %s: %w", id, err)
	}
	if err := s.feed.notUpcoming(ctx, p); errors.Is(err, errUpcoming) {
		c.tries++
		return true, nil
	} else if err != nil {
		return false, err
	}
	row := Stocked{Filter: FilterKey(filter), Bucket: c.bucket, Seq: id.Seq, Puzzle: p}
	if _, err := pl.stock.AddStock(ctx, row, s.feed.now().UTC()); err != nil {
		return false, fmt.Errorf("stock %s: %w", id, err)
	}
	pl.log.DebugContext(ctx, "practice puzzle stocked", "id", id.String(), "ms", time.Since(start).Milliseconds(),
		"difficulty", p.Difficulty, "goal", p.Goal, "non_greedy", gen.NonGreedy(p))
	c.bucket, c.tries = c.bucket+1, 0
	return true, nil
}

// make runs the generator for id in a preemptible unit of the budget at
// priority Stock; ErrPreempted (wrapped) when live work took it back.
func (s *Stocker) make(ctx context.Context, id gen.PracticeID) (gen.Puzzle, error) {
	pl := s.feed.pool
	if err := pl.gen.awaitTable(ctx); err != nil {
		return gen.Puzzle{}, err
	}
	gctx, release, err := pl.budget.AcquirePreemptible(ctx, budget.Request{Priority: budget.Stock, Weight: 1, Wait: -1})
	if err != nil {
		return gen.Puzzle{}, err
	}
	defer release()
	// The wait for the unit may have outlasted the lease: renewed now, or
	// another instance has the filter and this one leaves it.
	if mine, err := s.lease(ctx, id.Filter); err != nil || !mine {
		if err == nil {
			err = errLeaseLost
		}
		return gen.Puzzle{}, err
	}
	p, err := pl.generateChecked(gctx, id)
	if cause := context.Cause(gctx); err != nil && errors.Is(cause, budget.ErrPreempted) {
		return gen.Puzzle{}, fmt.Errorf("%w: %w", cause, err)
	}
	return p, err
}

// errLeaseLost: another instance took a filter's lease while this one
// waited for a unit of the budget.
var errLeaseLost = errors.New("the practice stock's lease went to another instance")

// lease takes, or renews, this stocker's lease on filter's stock, and
// reports whether it holds it.
func (s *Stocker) lease(ctx context.Context, filter gen.PracticeFilter) (bool, error) {
	pl := s.feed.pool
	key := FilterKey(filter)
	now := s.feed.now()
	mine, err := pl.stock.TakeLease(ctx, fmt.Sprintf("stock/x%d-%s", pl.version, key), s.holder, now, now.Add(stockLease))
	if err != nil {
		return false, fmt.Errorf("lease the stock of %s: %w", key, err)
	}
	return mine, nil
}

// stockLog is the pool's logger unless FeedOptions gives one.
func stockLog(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
