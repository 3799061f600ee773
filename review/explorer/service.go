package explorer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/sync/singleflight"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// The explorer's errors: what a query got wrong.
var (
	ErrInvalidPosition = fault.New(fault.Malformed, "invalid_explorer_position", "Not a position",
		"the position is not one in the text notation (such as s-444444-444444-0-0)")
	ErrInvalidCategory = fault.New(fault.Malformed, "invalid_explorer_category", "Unknown category",
		"the category must be live or correspondence")
	ErrInvalidRatings = fault.New(fault.Malformed, "invalid_explorer_ratings", "Bad rating range",
		"ratings must be MIN-MAX, two whole numbers from 0 to 9999 with MIN at most MAX")
)

// Analyzer scores a position's moves: the analysis service.
type Analyzer interface {
	Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error)
}

// DefaultLimits is the engine's budget for one position's scores: bounded
// by nodes alone, so every instance gives the same scores, and small
// enough to stay within an explorer request's time.
var DefaultLimits = search.Limits{Nodes: 20_000, Depth: 12, Hash: search.SmallHash}

// Defaults of Options.
const (
	DefaultCacheSize = 1 << 16
	DefaultEvery     = 30 * time.Second
	// DefaultEngineWait is how long an answer waits for the engine's
	// scores of a position not scored before: the search goes on after
	// it, and its scores are kept for the next request.
	DefaultEngineWait = 10 * time.Millisecond
	catchUpBatch      = 100
)

// Options configure a Service; the zero value works: no engine scores.
type Options struct {
	// Analyzer gives each move's engine score. Nil: answers have none.
	Analyzer Analyzer
	// Limits bound the engine's search per position. Zero: DefaultLimits.
	Limits search.Limits
	// CacheSize is how many positions' scores are kept. Zero: DefaultCacheSize.
	CacheSize int
	// EngineWait bounds how long an answer waits for scores not kept yet.
	// Zero: DefaultEngineWait; negative: until the search ends.
	EngineWait time.Duration
	// Every is how often Run looks for games left unindexed. Zero: DefaultEvery.
	Every time.Duration
	// Logger gets the index's trouble with the store. Nil discards it.
	Logger *slog.Logger
}

// Service indexes games as they end and answers queries. Its methods are
// safe for concurrent use.
type Service struct {
	store    Store
	analyzer Analyzer
	limits   search.Limits
	every    time.Duration
	wait     time.Duration // for the engine's scores
	log      *slog.Logger
	scores   *lru.Cache[engine.Position, Scores]
	flight   singleflight.Group
	kick     chan struct{}
}

// New returns the service over store.
func New(store Store, o Options) *Service {
	if o.Limits == (search.Limits{}) {
		o.Limits = DefaultLimits
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.Every <= 0 {
		o.Every = DefaultEvery
	}
	if o.EngineWait == 0 {
		o.EngineWait = DefaultEngineWait
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	cache, err := lru.New[engine.Position, Scores](o.CacheSize)
	if err != nil {
		panic(fmt.Sprintf("explorer: %v", err)) // a positive size never fails
	}
	return &Service{store: store, analyzer: o.Analyzer, limits: o.Limits, every: o.Every, wait: o.EngineWait, log: o.Logger,
		scores: cache, kick: make(chan struct{}, 1)}
}

// Ended is games.EndNotifier: a game ended, so Run looks for it now
// rather than at its next round. It never waits.
func (s *Service) Ended(_ context.Context, g games.Game) {
	if !g.Rated || g.Status != games.Finished {
		return
	}
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Run indexes the games left unindexed at once, then whenever Ended hears
// of an end and every Options.Every, until ctx ends: the games this
// instance ends, those other instances ended and any whose indexing a
// crash cut short.
func (s *Service) Run(ctx context.Context) error {
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		if _, err := s.CatchUp(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "explorer: indexing games", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-s.kick:
		case <-t.C:
		}
	}
}

// CatchUp indexes every game the store has left unindexed and returns how
// many this call indexed (another instance may index some of them first).
func (s *Service) CatchUp(ctx context.Context) (int, error) {
	indexed := 0
	for {
		gs, err := s.store.UnindexedGames(ctx, catchUpBatch)
		if err != nil {
			return indexed, fmt.Errorf("unindexed games: %w", err)
		}
		for _, g := range gs {
			ok, err := s.store.IndexGame(ctx, EntryOf(g))
			if err != nil {
				return indexed, fmt.Errorf("index game %s: %w", g.ID, err)
			}
			if ok {
				indexed++
			}
		}
		if len(gs) < catchUpBatch {
			return indexed, nil
		}
	}
}

// Query is what the explorer is asked.
type Query struct {
	Position engine.Position
	Category players.Category
	// MinRating and MaxRating bound the games' average rating, read to the
	// hundred (see BandWidth).
	MinRating, MaxRating int
}

// MaxRating is the highest bound a query may name.
const MaxRating = 9999

// ParseRatings reads MIN-MAX; empty means every rating.
func ParseRatings(s string) (lo, hi int, err error) {
	if s == "" {
		return 0, MaxRating, nil
	}
	var a, b int
	var rest string
	n, _ := fmt.Sscanf(s, "%d-%d%s", &a, &b, &rest)
	if n != 2 || fmt.Sprintf("%d-%d", a, b) != s || a < 0 || b > MaxRating || a > b {
		return 0, 0, fmt.Errorf("%w: %q", ErrInvalidRatings, s)
	}
	return a, b, nil
}

// ParseCategory reads a category; empty means live.
func ParseCategory(s string) (players.Category, error) {
	switch players.Category(s) {
	case "", players.Live:
		return players.Live, nil
	case players.Correspondence:
		return players.Correspondence, nil
	}
	return "", fmt.Errorf("%w: %q", ErrInvalidCategory, s)
}

// Totals are a position's games by result.
type Totals struct {
	South, Draws, North int64
}

// Games is the sum.
func (t Totals) Games() int64 { return t.South + t.Draws + t.North }

// MoveStats is one move played from the position.
type MoveStats struct {
	Pit int
	Totals
	AverageRating int
	Recent        []string // the latest games, the last first
	// Score is the engine's score of the move, in seeds for the side to
	// move; HasScore false when the engine gave none.
	Score           int
	Exact, HasScore bool
}

// Scores are the engine's scores of a position's moves.
type Scores struct {
	Moves []search.MoveScore
	Depth int
	Exact bool
}

// Answer is what the explorer says of a position.
type Answer struct {
	Totals
	Moves []MoveStats // the most played first
	// Engine is the engine's look at the position; HasEngine false when it
	// gave none (no analyzer, no room in the CPU budget, no move).
	Engine    Scores
	HasEngine bool
}

// Explore answers q: the moves played from its position, with their
// results, and the engine's score of each.
func (s *Service) Explore(ctx context.Context, q Query) (Answer, error) {
	if q.Category != players.Live && q.Category != players.Correspondence {
		return Answer{}, fmt.Errorf("%w: %q", ErrInvalidCategory, q.Category)
	}
	if q.MinRating < 0 || q.MaxRating > MaxRating || q.MinRating > q.MaxRating {
		return Answer{}, fmt.Errorf("%w: %d-%d", ErrInvalidRatings, q.MinRating, q.MaxRating)
	}
	rows, err := s.store.ExplorerRows(ctx, KeyOf(q.Position), q.Category, BandOf(q.MinRating), BandOf(q.MaxRating))
	if err != nil {
		return Answer{}, fmt.Errorf("explorer rows: %w", err)
	}
	a := Answer{Moves: aggregate(rows)}
	for _, m := range a.Moves {
		a.South += m.South
		a.Draws += m.Draws
		a.North += m.North
	}
	if sc, ok := s.engineScores(ctx, q.Position); ok {
		a.Engine, a.HasEngine = sc, true
		for i := range a.Moves {
			for _, ms := range sc.Moves {
				if ms.Pit == a.Moves[i].Pit {
					a.Moves[i].Score, a.Moves[i].Exact, a.Moves[i].HasScore = ms.Score, ms.Exact, true
				}
			}
		}
	}
	return a, nil
}

// aggregate sums rows by move, the most played first (then by pit).
func aggregate(rows []Row) []MoveStats {
	slices.SortFunc(rows, func(a, b Row) int { return b.LastAt.Compare(a.LastAt) })
	var out []MoveStats
	sums := map[int]int64{}
	for _, r := range rows {
		i := slices.IndexFunc(out, func(m MoveStats) bool { return m.Pit == r.Move })
		if i < 0 {
			out = append(out, MoveStats{Pit: r.Move})
			i = len(out) - 1
		}
		m := &out[i]
		m.South += r.South
		m.Draws += r.Draws
		m.North += r.North
		sums[r.Move] += r.RatingSum
		for _, id := range r.Recent {
			if len(m.Recent) < RecentGames && !slices.Contains(m.Recent, id) {
				m.Recent = append(m.Recent, id)
			}
		}
	}
	for i := range out {
		if n := out[i].Games(); n > 0 {
			out[i].AverageRating = int(math.Round(float64(sums[out[i].Pit]) / float64(n)))
		}
	}
	slices.SortFunc(out, func(a, b MoveStats) int {
		return cmp.Or(cmp.Compare(b.Games(), a.Games()), cmp.Compare(a.Pit, b.Pit))
	})
	return out
}

// engineScores returns p's scores, from the cache or one search shared by
// the queries that ask at once; false when there are none (no analyzer, a
// finished position, no room in the CPU budget) or not yet: a search
// that outlasts the service's wait goes on, without the request, and
// keeps its scores for the next one.
func (s *Service) engineScores(ctx context.Context, p engine.Position) (Scores, bool) {
	if s.analyzer == nil {
		return Scores{}, false
	}
	if sc, ok := s.scores.Get(p); ok {
		return sc, true
	}
	ch := s.flight.DoChan(p.String(), func() (any, error) {
		a, err := s.analyzer.Analyze(context.WithoutCancel(ctx), p, engine.Rules{}, s.limits)
		if err != nil {
			return nil, err
		}
		sc := Scores{Moves: a.Moves, Depth: a.Depth, Exact: a.Exact}
		s.scores.Add(p, sc)
		return sc, nil
	})
	var late <-chan time.Time
	if s.wait > 0 {
		t := time.NewTimer(s.wait)
		defer t.Stop()
		late = t.C
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			if !errors.Is(r.Err, search.ErrNoMoves) && ctx.Err() == nil {
				s.log.DebugContext(ctx, "explorer: no engine scores", "position", p.String(), "err", r.Err)
			}
			return Scores{}, false
		}
		return r.Val.(Scores), true
	case <-late:
	case <-ctx.Done():
	}
	return Scores{}, false
}
