package api

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	store "github.com/ayoayo/ayoayo/store/sqlite"
)

// The daily puzzle feed: puzzles are generated on the first request for
// their day, stored, and served from the store after that. Answers never
// contain the solution except where the client asks for it (the solution
// endpoint, an attempt that gives up or solves the puzzle).

// ErrPuzzleNotFound: no puzzle for that day or id (a future day, a day
// before the feed's first, an id that names no day).
var ErrPuzzleNotFound = errors.New("no such puzzle")

// DefaultPuzzlesFrom is the feed's first day unless Options says otherwise.
var DefaultPuzzlesFrom = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// PuzzleStore is what the feed needs of the database: *store.Store has it.
type PuzzleStore interface {
	AddPuzzle(ctx context.Context, p puzzles.Puzzle) (store.StoredPuzzle, error)
	PuzzleByDate(ctx context.Context, date time.Time) (store.StoredPuzzle, error)
	PuzzleByID(ctx context.Context, id string) (store.StoredPuzzle, error)
	PuzzlesBefore(ctx context.Context, date time.Time, limit int) ([]store.StoredPuzzle, error)
	RecordPuzzleAttempt(ctx context.Context, id string, solved bool) (store.PuzzleStats, error)
}

// Feed limits.
const (
	defaultPuzzleLimit = 10
	// generateTimeout bounds one generation (which takes 2 s at most on one
	// core) with room for a loaded machine.
	generateTimeout = 20 * time.Second
	// pastPuzzleMaxAge is how long an earlier day's puzzle may be cached:
	// only its stats change.
	pastPuzzleMaxAge = time.Hour
)

// puzzleFeed serves the feed for the Server: "today" from the clock, the
// first day, and the generations in progress, so that concurrent first
// requests for a day share one generation.
type puzzleFeed struct {
	store    PuzzleStore
	first    time.Time
	now      func() time.Time
	generate func(context.Context, time.Time) (puzzles.Puzzle, error)
	slots    chan struct{} // one per generation running at once

	mu       sync.Mutex
	inflight map[string]*generation
}

type generation struct {
	done chan struct{}
	sp   store.StoredPuzzle
	err  error
}

func newPuzzleFeed(opts Options) *puzzleFeed {
	return &puzzleFeed{
		store:    opts.Puzzles,
		first:    puzzles.Day(opts.PuzzlesFrom),
		now:      opts.Now,
		generate: puzzles.Generate,
		slots:    make(chan struct{}, runtime.GOMAXPROCS(0)),
		inflight: map[string]*generation{},
	}
}

// today is the current UTC day.
func (f *puzzleFeed) today() time.Time { return puzzles.Day(f.now()) }

// published checks that date's puzzle is out: not in the future, not before
// the first day.
func (f *puzzleFeed) published(date time.Time) error {
	day := date.Format(puzzles.DateLayout)
	switch {
	case date.After(f.today()):
		return newError(ErrPuzzleNotFound, "no puzzle for %s: it is in the future", day)
	case date.Before(f.first):
		return newError(ErrPuzzleNotFound, "no puzzle for %s: the feed starts on %s", day, f.first.Format(puzzles.DateLayout))
	}
	return nil
}

// get returns date's puzzle, generating and storing it on the first request.
func (f *puzzleFeed) get(ctx context.Context, date time.Time) (store.StoredPuzzle, error) {
	if f.store == nil {
		return store.StoredPuzzle{}, newError(ErrNotReady, "the puzzle feed has no database")
	}
	if err := f.published(date); err != nil {
		return store.StoredPuzzle{}, err
	}
	sp, err := f.store.PuzzleByDate(ctx, date)
	if !errors.Is(err, store.ErrNotFound) {
		return sp, err
	}
	return f.create(ctx, date)
}

// create generates and stores date's puzzle, once however many requests ask
// at the same time. The generation is detached from the request that
// started it, so that request leaving does not fail the others; the store
// keeps the first row written if two servers race.
func (f *puzzleFeed) create(ctx context.Context, date time.Time) (store.StoredPuzzle, error) {
	key := date.Format(puzzles.DateLayout)
	f.mu.Lock()
	g, running := f.inflight[key]
	if !running {
		g = &generation{done: make(chan struct{})}
		f.inflight[key] = g
		go f.run(context.WithoutCancel(ctx), date, g)
	}
	f.mu.Unlock()
	select {
	case <-g.done:
		return g.sp, g.err
	case <-ctx.Done():
		return store.StoredPuzzle{}, ctx.Err()
	}
}

func (f *puzzleFeed) run(ctx context.Context, date time.Time, g *generation) {
	ctx, cancel := context.WithTimeout(ctx, generateTimeout)
	defer cancel()
	defer func() {
		f.mu.Lock()
		delete(f.inflight, date.Format(puzzles.DateLayout))
		f.mu.Unlock()
		close(g.done)
	}()
	// Generation is pure CPU: at most one per core, the rest wait.
	select {
	case f.slots <- struct{}{}:
		defer func() { <-f.slots }()
	case <-ctx.Done():
		g.err = ctx.Err()
		return
	}
	p, err := f.generate(ctx, date)
	if err != nil {
		g.err = err
		return
	}
	g.sp, g.err = f.store.AddPuzzle(ctx, p)
}

// byID returns the puzzle with id, under the same rules as by date.
func (f *puzzleFeed) byID(ctx context.Context, id string) (store.StoredPuzzle, error) {
	date, err := puzzles.DateOfID(id)
	if err != nil {
		return store.StoredPuzzle{}, newError(ErrPuzzleNotFound, "no puzzle has id %q", id)
	}
	return f.get(ctx, date)
}

// cacheFor says how long date's answer may be cached: today's until the next
// UTC midnight, an earlier day's for an hour.
func (f *puzzleFeed) cacheFor(date time.Time) string {
	now := f.now()
	age := pastPuzzleMaxAge
	if !date.Before(f.today()) {
		age = f.today().AddDate(0, 0, 1).Sub(now)
	}
	return fmt.Sprintf("public, max-age=%d", max(int(age/time.Second), 0))
}

// etagOf tags an answer by its content: the puzzle and its stats.
func etagOf(p Puzzle) (string, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`, nil
}

// notModified reports whether an If-None-Match header matches etag.
func notModified(ifNoneMatch *string, etag string) bool {
	if ifNoneMatch == nil {
		return false
	}
	for tag := range strings.SplitSeq(*ifNoneMatch, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// dailyAnswer is a daily puzzle with its caching headers, or the 304.
type dailyAnswer struct {
	puzzle       Puzzle
	cacheControl string
	etag         string
	notModified  bool
}

func (s *Server) daily(ctx context.Context, date time.Time, ifNoneMatch *string) (dailyAnswer, error) {
	sp, err := s.feed.get(ctx, date)
	if err != nil {
		return dailyAnswer{}, err
	}
	a := dailyAnswer{puzzle: puzzleToAPI(sp), cacheControl: s.feed.cacheFor(date)}
	if a.etag, err = etagOf(a.puzzle); err != nil {
		return a, err
	}
	a.notModified = notModified(ifNoneMatch, a.etag)
	return a, nil
}

// GetDailyPuzzle answers today's puzzle.
func (s *Server) GetDailyPuzzle(ctx context.Context, req GetDailyPuzzleRequestObject) (GetDailyPuzzleResponseObject, error) {
	a, err := s.daily(ctx, s.feed.today(), req.Params.IfNoneMatch)
	if err != nil {
		return nil, err
	}
	if a.notModified {
		return GetDailyPuzzle304Response{Headers: GetDailyPuzzle304ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
	}
	return GetDailyPuzzle200JSONResponse{Body: a.puzzle, Headers: GetDailyPuzzle200ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
}

// GetDailyPuzzleByDate answers one day's puzzle.
func (s *Server) GetDailyPuzzleByDate(ctx context.Context, req GetDailyPuzzleByDateRequestObject) (GetDailyPuzzleByDateResponseObject, error) {
	date, err := puzzles.ParseDate(req.Date)
	if err != nil {
		return nil, err
	}
	a, err := s.daily(ctx, date, req.Params.IfNoneMatch)
	if err != nil {
		return nil, err
	}
	if a.notModified {
		return GetDailyPuzzleByDate304Response{Headers: GetDailyPuzzleByDate304ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
	}
	return GetDailyPuzzleByDate200JSONResponse{Body: a.puzzle, Headers: GetDailyPuzzleByDate200ResponseHeaders{CacheControl: &a.cacheControl, ETag: &a.etag}}, nil
}

// ListPuzzles pages back through the feed, newest first. Every day from the
// first to today has a puzzle, so the page is those days, generated where
// nobody asked for them yet.
func (s *Server) ListPuzzles(ctx context.Context, req ListPuzzlesRequestObject) (ListPuzzlesResponseObject, error) {
	f := s.feed
	if f.store == nil {
		return nil, newError(ErrNotReady, "the puzzle feed has no database")
	}
	limit := defaultPuzzleLimit
	if req.Params.Limit != nil {
		limit = *req.Params.Limit
	}
	tomorrow := f.today().AddDate(0, 0, 1)
	before := tomorrow
	if req.Params.Before != nil {
		d, err := puzzles.ParseDate(*req.Params.Before)
		if err != nil {
			return nil, err
		}
		if d.Before(tomorrow) {
			before = d // a later day shows no more than tomorrow does
		}
	}
	var days []time.Time
	for d := before.AddDate(0, 0, -1); len(days) < limit && !d.Before(f.first); d = d.AddDate(0, 0, -1) {
		days = append(days, d)
	}
	stored, err := f.store.PuzzlesBefore(ctx, before, limit)
	if err != nil {
		return nil, err
	}
	byDate := map[string]store.StoredPuzzle{}
	for _, sp := range stored {
		byDate[sp.Puzzle.Date.Format(puzzles.DateLayout)] = sp
	}
	page := make([]store.StoredPuzzle, len(days))
	errs := make([]error, len(days))
	var wg sync.WaitGroup
	for i, d := range days {
		if sp, ok := byDate[d.Format(puzzles.DateLayout)]; ok {
			page[i] = sp
			continue
		}
		wg.Go(func() { page[i], errs[i] = f.create(ctx, d) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := ListPuzzles200JSONResponse{Puzzles: make([]Puzzle, len(page))}
	for i, sp := range page {
		out.Puzzles[i] = puzzleToAPI(sp)
	}
	if n := len(days); n > 0 && days[n-1].After(f.first) {
		out.Next.Set(days[n-1].Format(puzzles.DateLayout))
	} else {
		out.Next.SetNull()
	}
	return out, nil
}

// GetPuzzle answers one puzzle by id.
func (s *Server) GetPuzzle(ctx context.Context, req GetPuzzleRequestObject) (GetPuzzleResponseObject, error) {
	sp, err := s.feed.byID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return GetPuzzle200JSONResponse(puzzleToAPI(sp)), nil
}

// SubmitPuzzleAttempt judges the solver's moves, plays the replies, and
// counts the attempt.
func (s *Server) SubmitPuzzleAttempt(ctx context.Context, req SubmitPuzzleAttemptRequestObject) (SubmitPuzzleAttemptResponseObject, error) {
	if req.Body == nil {
		return nil, errNoBody
	}
	sp, err := s.feed.byID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	giveUp := req.Body.GiveUp != nil && *req.Body.GiveUp
	a, err := puzzles.Check(sp.Puzzle, req.Body.Moves, giveUp)
	if err != nil {
		return nil, err
	}
	stats, err := s.feed.store.RecordPuzzleAttempt(ctx, sp.Puzzle.ID, a.Correct && a.Complete && !giveUp)
	if err != nil {
		return nil, err
	}
	out := SubmitPuzzleAttempt200JSONResponse{
		Correct:     a.Correct,
		Complete:    a.Complete,
		Explanation: stepsToAPI(a.Steps),
		Stats:       PuzzleStats{Attempts: stats.Attempts, Solved: stats.Solved},
	}
	if a.Solution != nil {
		sol := stepsToAPI(a.Solution)
		out.Solution = &sol
	}
	return out, nil
}

// GetPuzzleSolution answers the whole solution line.
func (s *Server) GetPuzzleSolution(ctx context.Context, req GetPuzzleSolutionRequestObject) (GetPuzzleSolutionResponseObject, error) {
	sp, err := s.feed.byID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return GetPuzzleSolution200JSONResponse{
		Id:       sp.Puzzle.ID,
		Goal:     PuzzleGoal(sp.Puzzle.Goal),
		Solution: stepsToAPI(puzzles.SolutionSteps(sp.Puzzle)),
	}, nil
}

// puzzleToAPI maps a stored puzzle, leaving out its solution.
func puzzleToAPI(sp store.StoredPuzzle) Puzzle {
	p := sp.Puzzle
	captureSeed := RulesCaptureSeed(p.Rules.CaptureSeed.String())
	leftovers := RulesLeftovers(p.Rules.Leftovers.String())
	return Puzzle{
		Id:         p.ID,
		Date:       p.Date.Format(puzzles.DateLayout),
		Position:   positionToAPI(p.Position),
		Rules:      Rules{CaptureSeed: &captureSeed, Leftovers: &leftovers},
		Goal:       PuzzleGoal(p.Goal),
		Prompt:     p.Prompt,
		Themes:     append([]string{}, p.Themes...),
		Difficulty: p.Difficulty,
		KeyLegs:    p.KeyLegs,
		Plies:      p.Plies(),
		Stats:      PuzzleStats{Attempts: sp.Stats.Attempts, Solved: sp.Stats.Solved},
	}
}

func stepsToAPI(steps []puzzles.Step) []PuzzleStep {
	out := make([]PuzzleStep, len(steps))
	for i := range steps {
		o := &steps[i].Outcome
		x := outcomeToAPI(o)
		out[i] = PuzzleStep{
			Pit: o.Pit, Reply: steps[i].Reply, Legal: x.Legal, Reason: x.Reason,
			Legs: x.Legs, Capture: x.Capture, Position: x.Position, Result: x.Result,
		}
	}
	return out
}
