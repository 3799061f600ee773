package puzzles

// Puzzles made ahead and shipped with the binary: a span of daily puzzles
// and the first buckets of each stocked filter's practice stock, made by
// `ayoayo puzzles ahead` and embedded by package puzzles/ahead, so that a
// fresh server answers both at once instead of waiting for the endgame
// table and for seconds of search. A shipped puzzle is exactly what the
// generator makes for its date or id (CI makes them again and compares), so
// serving it changes nothing but the time the first answer takes. See
// docs/practice-stock.md and docs/puzzles.md.

import (
	"compress/gzip"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// AheadSet is the content of a file of puzzles made ahead: daily puzzles in
// date order, and practice stock rows by filter (StockedFilters' order),
// bucket and seq. Its rows' Made is zero: a served row is compared with the
// upcoming daily puzzle of its day, as any row not checked ahead is.
type AheadSet struct {
	Days  []gen.Puzzle
	Stock []Stocked
}

// aheadFormat names the file's layout; a file of another is refused, not
// misread.
const aheadFormat = "ayoayo-ahead-1"

// Encode writes s as gzip-compressed gob, the form `ayoayo puzzles ahead`
// writes and DecodeAhead reads.
func (s AheadSet) Encode(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := gob.NewEncoder(zw)
	if err := enc.Encode(aheadFormat); err != nil {
		return err
	}
	if err := enc.Encode(s); err != nil {
		return err
	}
	return zw.Close()
}

// DecodeAhead reads what Encode wrote.
func DecodeAhead(r io.Reader) (AheadSet, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return AheadSet{}, fmt.Errorf("puzzles made ahead: %w", err)
	}
	dec := gob.NewDecoder(zr)
	var format string
	if err := dec.Decode(&format); err != nil {
		return AheadSet{}, fmt.Errorf("puzzles made ahead: %w", err)
	}
	if format != aheadFormat {
		return AheadSet{}, fmt.Errorf("puzzles made ahead: format %q, want %q", format, aheadFormat)
	}
	var s AheadSet
	if err := dec.Decode(&s); err != nil {
		return AheadSet{}, fmt.Errorf("puzzles made ahead: %w", err)
	}
	return s, nil
}

// Ahead is an AheadSet indexed for serving. A nil *Ahead holds nothing.
type Ahead struct {
	days    map[time.Time]gen.Puzzle
	buckets map[aheadKey][]Stocked // by seq
	counts  map[aheadKey]int       // buckets held per version and filter (bucket -1)
}

type aheadKey struct {
	version int
	filter  string
	bucket  int
}

// NewAhead indexes s, checking that every row is what it says (the cheap
// checks of a stocked row; the proofs are CI's, see CheckAhead).
func NewAhead(s AheadSet) (*Ahead, error) {
	a := &Ahead{days: map[time.Time]gen.Puzzle{}, buckets: map[aheadKey][]Stocked{}, counts: map[aheadKey]int{}}
	for _, p := range s.Days {
		d := gen.Day(p.Date)
		if p.ID != gen.IDFor(d) {
			return nil, fmt.Errorf("puzzles made ahead: day %s has id %q", d.Format(gen.DateLayout), p.ID)
		}
		a.days[d] = p
	}
	for _, r := range s.Stock {
		id, err := gen.ParsePracticeID(r.Puzzle.ID)
		switch {
		case err != nil:
			return nil, fmt.Errorf("puzzles made ahead: %w", err)
		case id.Seq != r.Seq || FilterKey(id.Filter) != r.Filter || r.Bucket != int(r.Seq%gen.PracticeWindow) || id.Version != r.Puzzle.Version:
			return nil, fmt.Errorf("puzzles made ahead: row %s/%d/%d holds %s", r.Filter, r.Bucket, r.Seq, r.Puzzle.ID)
		}
		if err := stockedShape(r.Puzzle); err != nil {
			return nil, fmt.Errorf("puzzles made ahead: %w", err)
		}
		k := aheadKey{id.Version, r.Filter, r.Bucket}
		if len(a.buckets[k]) == 0 {
			a.counts[aheadKey{id.Version, r.Filter, -1}]++
		}
		a.buckets[k] = append(a.buckets[k], r)
	}
	for _, rows := range a.buckets {
		slices.SortFunc(rows, func(x, y Stocked) int { return compareSeq(x.Seq, y.Seq) })
	}
	return a, nil
}

func compareSeq(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// Day returns the daily puzzle made ahead for date's UTC day, if any.
func (a *Ahead) Day(date time.Time) (gen.Puzzle, bool) {
	if a == nil {
		return gen.Puzzle{}, false
	}
	p, ok := a.days[gen.Day(date)]
	return p, ok
}

// Days is how many daily puzzles a holds.
func (a *Ahead) Days() int {
	if a == nil {
		return 0
	}
	return len(a.days)
}

// Bucket returns the stock rows made ahead of version and filter in bucket,
// by seq.
func (a *Ahead) Bucket(version int, filter string, bucket int) []Stocked {
	if a == nil {
		return nil
	}
	return slices.Clone(a.buckets[aheadKey{version, filter, bucket}])
}

// Buckets is how many buckets of version and filter's stock a holds.
func (a *Ahead) Buckets(version int, filter string) int {
	if a == nil {
		return 0
	}
	return a.counts[aheadKey{version, filter, -1}]
}

// shipped reports whether p is the daily puzzle made ahead for its date:
// one made and proven by the generator before it was shipped, which need
// not be proven again (an endgame puzzle's proof would wait for the table).
func (a *Ahead) shipped(p gen.Puzzle) bool {
	q, ok := a.Day(p.Date)
	return ok && samePuzzle(p, q)
}

// samePuzzle compares two puzzles field by field (a store may give back an
// empty list for a nil one, or a date in another location).
func samePuzzle(p, q gen.Puzzle) bool {
	return p.ID == q.ID && p.Date.Equal(q.Date) && p.Version == q.Version && p.Position == q.Position &&
		p.Rules == q.Rules && p.Goal == q.Goal && p.Depth == q.Depth && p.Prompt == q.Prompt &&
		slices.Equal(p.Themes, q.Themes) && p.Difficulty == q.Difficulty && p.KeyLegs == q.KeyLegs &&
		slices.Equal(p.Solution, q.Solution)
}

// MakeAhead makes an AheadSet: days daily puzzles from first (each with the
// version cutover gives it), and for each stocked filter the puzzles of
// buckets 0 to perFilter-1 of generator version PracticeVersion, each the
// first of seq b, b+1024, ... (64 at most) that gives one whose position is
// none of the days' (as the stocker does), on workers goroutines. It is
// pure: the same arguments make the same set.
func MakeAhead(ctx context.Context, tb *tablebase.Table, first time.Time, days int, cutover time.Time, perFilter, workers int) (AheadSet, error) {
	ds, err := gen.Days(ctx, tb, first, days, cutover, workers)
	if err != nil {
		return AheadSet{}, err
	}
	taken := map[engine.Position]bool{}
	for _, p := range ds {
		taken[p.Position] = true
	}
	type job struct {
		filter gen.PracticeFilter
		bucket int
	}
	var jobs []job
	for _, f := range StockedFilters() {
		for b := range min(perFilter, gen.PracticeWindow) {
			jobs = append(jobs, job{f, b})
		}
	}
	rows := make([]Stocked, len(jobs))
	found := make([]bool, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := range next {
				rows[i], found[i], errs[i] = makeAheadRow(ctx, tb, jobs[i].filter, jobs[i].bucket, taken)
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return AheadSet{}, err
	}
	set := AheadSet{Days: ds}
	for i, r := range rows {
		if found[i] {
			set.Stock = append(set.Stock, r)
		}
	}
	return set, nil
}

// makeAheadRow makes bucket's row of filter's stock, or none when 64 seqs
// of the bucket give no puzzle (the stocker passes such a bucket over).
func makeAheadRow(ctx context.Context, tb *tablebase.Table, f gen.PracticeFilter, bucket int, taken map[engine.Position]bool) (Stocked, bool, error) {
	for try := range uint64(maxTries) {
		id := gen.PracticeID{Version: gen.PracticeVersion, Filter: f, Seq: uint64(bucket) + try*gen.PracticeWindow}
		p, err := aheadPractice(ctx, tb, id)
		switch {
		case errors.Is(err, gen.ErrNoPuzzle):
			continue
		case err != nil:
			return Stocked{}, false, err
		case taken[p.Position]:
			continue
		}
		return Stocked{Filter: FilterKey(f), Bucket: bucket, Seq: id.Seq, Puzzle: p}, true, nil
	}
	return Stocked{}, false, nil
}

// aheadPractice makes and proves the practice puzzle of id, with its id.
func aheadPractice(ctx context.Context, tb *tablebase.Table, id gen.PracticeID) (gen.Puzzle, error) {
	p, err := gen.Practice(ctx, tb, id.Version, id.Filter, id.Seq)
	if err != nil {
		return gen.Puzzle{}, fmt.Errorf("%s: %w", id, err)
	}
	p.ID = id.String()
	if err := gen.VerifyPractice(tb, p); err != nil {
		return gen.Puzzle{}, err
	}
	if !gen.Meets(p, id.Filter) {
		return gen.Puzzle{}, fmt.Errorf("%s: not a puzzle its filter asks for", id)
	}
	return p, nil
}

// CheckAheadDay reports whether p is what the generator makes for its date
// at its version.
func CheckAheadDay(ctx context.Context, tb *tablebase.Table, p gen.Puzzle) error {
	q, err := gen.Daily(ctx, tb, p.Date, p.Version)
	if err != nil {
		return fmt.Errorf("%s: %w", p.ID, err)
	}
	return CompareAheadDay(p, q)
}

// CompareAheadDay reports whether p, a daily puzzle made ahead, is made, the
// puzzle the generator made for the same day: for a check that has
// generated the day already (puzzles/gen's year tests compare the shipped
// days they generate), instead of CheckAheadDay generating it again.
func CompareAheadDay(p, made gen.Puzzle) error {
	switch {
	case !gen.Day(p.Date).Equal(gen.Day(made.Date)):
		return fmt.Errorf("%s: compared with the puzzle of another day, %s", p.ID, made.ID)
	case p.Version != made.Version:
		return fmt.Errorf("%s: version %d made ahead, the generator's is %d", p.ID, p.Version, made.Version)
	case !samePuzzle(p, made):
		return fmt.Errorf("%s: the generator makes another puzzle for this day", p.ID)
	}
	return nil
}

// DaySpan returns the first and last day of s's daily puzzles and whether
// every day between them is held once; ok is false when s holds none.
func (s AheadSet) DaySpan() (first, last time.Time, gapless, ok bool) {
	if len(s.Days) == 0 {
		return time.Time{}, time.Time{}, false, false
	}
	first, last = gen.Day(s.Days[0].Date), gen.Day(s.Days[0].Date)
	seen := map[time.Time]bool{}
	for _, p := range s.Days {
		d := gen.Day(p.Date)
		seen[d] = true
		if d.Before(first) {
			first = d
		}
		if d.After(last) {
			last = d
		}
	}
	span := int(last.Sub(first)/(24*time.Hour)) + 1
	return first, last, len(seen) == span && len(s.Days) == span, true
}

// CheckAheadRow reports whether r's puzzle is what the generator makes for
// its id. (That the seqs before it in its bucket give none is not checked:
// it would cost what making the stock costs, and serving needs only that a
// row is the puzzle of its id.)
func CheckAheadRow(ctx context.Context, tb *tablebase.Table, r Stocked) error {
	id, err := gen.ParsePracticeID(r.Puzzle.ID)
	if err != nil {
		return err
	}
	q, err := aheadPractice(ctx, tb, id)
	if err != nil {
		return err
	}
	if !samePuzzle(r.Puzzle, q) || r.Seq != id.Seq || r.Filter != FilterKey(id.Filter) {
		return fmt.Errorf("%s: the generator makes another puzzle for this id", r.Puzzle.ID)
	}
	return nil
}
