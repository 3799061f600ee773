package explorer_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/store/memory"
)

var base = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

// play stores a finished rated live game of the pits given, rated rating
// on average, won by w.
func play(t *testing.T, s *memory.Store, id string, rating float64, w engine.Winner, pits ...int) games.Game {
	t.Helper()
	p := engine.Start()
	var hist []byte
	for _, pit := range pits {
		next, why := p.Apply(pit, engine.Rules{})
		if why != engine.Legal {
			t.Fatalf("%s: pit %d at %v: %v", id, pit, p, why)
		}
		hist = append(hist, byte(pit))
		p = next
	}
	g := games.Game{ID: id, CreatedAt: base, UpdatedAt: base.Add(time.Duration(len(id)) * time.Second), JoinedAt: base,
		Start: engine.Start(), Ply: len(hist), Position: p, History: hist, Status: games.Finished,
		Result: engine.Result{Winner: w, Reason: engine.ByResignation}, Version: 3, Rated: true,
		TimeControl: games.TimeControl{Kind: games.Live, Initial: time.Minute},
		Players:     [2]games.SeatPlayer{{Rating: rating, Deviation: 50}, {Rating: rating, Deviation: 50}}}
	if err := s.CreateGame(t.Context(), g, nil); err != nil {
		t.Fatal(err)
	}
	return g
}

// fakeAnalyzer scores every legal move pit - 5, and counts its calls.
type fakeAnalyzer struct {
	calls atomic.Int32
	err   error
}

func (f *fakeAnalyzer) Analyze(_ context.Context, p engine.Position, r engine.Rules, _ search.Limits) (search.Analysis, error) {
	f.calls.Add(1)
	if f.err != nil {
		return search.Analysis{}, f.err
	}
	var a search.Analysis
	for m := p.LegalMoves(r); m != 0; {
		pit := m.Next()
		a.Moves = append(a.Moves, search.MoveScore{Pit: pit, Score: pit - 5, Exact: pit == 3})
	}
	a.Depth = 7
	return a, nil
}

func TestExplore(t *testing.T) {
	s := memory.New()
	play(t, s, "a", 1500, engine.SouthWins, 3, 8)
	play(t, s, "bb", 1600, engine.NorthWins, 3, 9)
	play(t, s, "ccc", 2000, engine.Draw, 3, 8)
	play(t, s, "dddd", 1450, engine.SouthWins, 0, 6)
	az := &fakeAnalyzer{}
	svc := explorer.New(s, explorer.Options{Analyzer: az, EngineWait: -1})
	if n, err := svc.CatchUp(t.Context()); err != nil || n != 4 {
		t.Fatalf("CatchUp = %d, %v; want 4 games", n, err)
	}
	after3, _ := engine.Start().Apply(3, engine.Rules{})
	type move struct {
		pit, south, draws, north, avg int
		recent                        []string
	}
	tests := []struct {
		name  string
		q     explorer.Query
		moves []move
	}{
		{"the start, every rating", explorer.Query{Position: engine.Start(), Category: players.Live, MaxRating: 9999},
			[]move{{3, 1, 1, 1, 1700, []string{"ccc", "bb", "a"}}, {0, 1, 0, 0, 1450, []string{"dddd"}}}},
		{"the start, 1400-1599", explorer.Query{Position: engine.Start(), Category: players.Live, MinRating: 1400, MaxRating: 1599},
			[]move{{0, 1, 0, 0, 1450, []string{"dddd"}}, {3, 1, 0, 0, 1500, []string{"a"}}}},
		{"after pit 3", explorer.Query{Position: after3, Category: players.Live, MaxRating: 9999},
			[]move{{8, 1, 1, 0, 1750, []string{"ccc", "a"}}, {9, 0, 0, 1, 1600, []string{"bb"}}}},
		{"correspondence has none", explorer.Query{Position: engine.Start(), Category: players.Correspondence, MaxRating: 9999}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := svc.Explore(t.Context(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []move
			for _, m := range a.Moves {
				got = append(got, move{m.Pit, int(m.South), int(m.Draws), int(m.North), m.AverageRating, m.Recent})
				if !m.HasScore || m.Score != m.Pit-5 || m.Exact != (m.Pit == 3) {
					t.Errorf("move %d: score %d exact %v (has %v), want %d", m.Pit, m.Score, m.Exact, m.HasScore, m.Pit-5)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.moves) {
				t.Errorf("moves %v, want %v", got, tc.moves)
			}
			if !a.HasEngine || a.Engine.Depth != 7 {
				t.Errorf("engine %+v (%v), want depth 7", a.Engine, a.HasEngine)
			}
		})
	}
	if n := az.calls.Load(); n != 2 {
		t.Errorf("the analyzer ran %d times for two positions, want 2 (the rest cached)", n)
	}
}

func TestExploreWithoutEngine(t *testing.T) {
	s := memory.New()
	play(t, s, "a", 1500, engine.SouthWins, 3)
	svc := explorer.New(s, explorer.Options{Analyzer: &fakeAnalyzer{err: errors.New("busy")}})
	if _, err := svc.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	a, err := svc.Explore(t.Context(), explorer.Query{Position: engine.Start(), Category: players.Live, MaxRating: 9999})
	if err != nil || a.HasEngine || len(a.Moves) != 1 || a.Moves[0].HasScore || a.Games() != 1 {
		t.Fatalf("Explore with a failing engine = %+v, %v; want the move without a score", a, err)
	}
}

func TestQueryErrors(t *testing.T) {
	svc := explorer.New(memory.New(), explorer.Options{})
	tests := []struct {
		name string
		q    explorer.Query
		want error
	}{
		{"unknown category", explorer.Query{Position: engine.Start(), Category: "blitz", MaxRating: 100}, explorer.ErrInvalidCategory},
		{"range upside down", explorer.Query{Position: engine.Start(), Category: players.Live, MinRating: 1600, MaxRating: 1500}, explorer.ErrInvalidRatings},
		{"negative", explorer.Query{Position: engine.Start(), Category: players.Live, MinRating: -1, MaxRating: 1500}, explorer.ErrInvalidRatings},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := svc.Explore(t.Context(), tc.q); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestParseRatings(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi int
		ok     bool
	}{
		{"", 0, 9999, true}, {"1500-1800", 1500, 1800, true}, {"0-0", 0, 0, true},
		{"1800-1500", 0, 0, false}, {"1500", 0, 0, false}, {"a-b", 0, 0, false}, {"1500-1800x", 0, 0, false},
		{"+1500-1800", 0, 0, false}, {"-5-10", 0, 0, false}, {"0-10000", 0, 0, false}, {"01-10", 0, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			lo, hi, err := explorer.ParseRatings(tc.in)
			if (err == nil) != tc.ok || lo != tc.lo || hi != tc.hi {
				t.Fatalf("ParseRatings(%q) = %d, %d, %v", tc.in, lo, hi, err)
			}
			if err != nil && !errors.Is(err, explorer.ErrInvalidRatings) {
				t.Fatalf("error %v is not ErrInvalidRatings", err)
			}
		})
	}
}

func FuzzParseRatings(f *testing.F) {
	for _, s := range []string{"", "1500-1800", "0-9999", "9-1", "x", "1-2-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lo, hi, err := explorer.ParseRatings(s)
		if err == nil && (lo < 0 || hi > explorer.MaxRating || lo > hi) {
			t.Fatalf("ParseRatings(%q) = %d, %d: out of bounds", s, lo, hi)
		}
	})
}

// A game whose end was stored but not indexed (the process stopped in
// between) is indexed by the next catch-up; one Ended hears of is
// indexed without waiting for the next round; each only once.
func TestRunCatchesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memory.New()
		play(t, s, "left", 1500, engine.SouthWins, 3) // ended before the crash
		svc := explorer.New(s, explorer.Options{Every: time.Hour})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx) }()
		synctest.Wait()
		count := func() int64 {
			a, err := svc.Explore(t.Context(), explorer.Query{Position: engine.Start(), Category: players.Live, MaxRating: 9999})
			if err != nil {
				t.Fatal(err)
			}
			return a.Games()
		}
		if n := count(); n != 1 {
			t.Fatalf("%d games after the start, want the one left unindexed", n)
		}
		g := play(t, s, "new", 1500, engine.NorthWins, 3)
		svc.Ended(t.Context(), g)
		synctest.Wait()
		if n := count(); n != 2 {
			t.Fatalf("%d games after Ended, want 2", n)
		}
		play(t, s, "elsewhere", 1500, engine.NorthWins, 3) // another instance ended it
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := count(); n != 3 {
			t.Fatalf("%d games after a round, want 3", n)
		}
		if n, err := svc.CatchUp(t.Context()); n != 0 || err != nil {
			t.Fatalf("CatchUp again = %d, %v; want nothing left", n, err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// Two instances that catch up at once over one store index each game
// once between them.
func TestTwoInstancesIndexOnce(t *testing.T) {
	s := memory.New()
	for i := range 40 {
		play(t, s, fmt.Sprint("g", i), 1500, engine.SouthWins, 3, 8)
	}
	a, b := explorer.New(s, explorer.Options{}), explorer.New(s, explorer.Options{})
	counts := make(chan int, 2)
	for _, svc := range []*explorer.Service{a, b} {
		go func() {
			n, err := svc.CatchUp(t.Context())
			if err != nil {
				t.Error(err)
			}
			counts <- n
		}()
	}
	if n := <-counts + <-counts; n != 40 {
		t.Fatalf("the two instances indexed %d games, want 40", n)
	}
	ans, err := a.Explore(t.Context(), explorer.Query{Position: engine.Start(), Category: players.Live, MaxRating: 9999})
	if err != nil || ans.Games() != 40 {
		t.Fatalf("the start has %d games (%v), want 40", ans.Games(), err)
	}
}

// slowAnalyzer answers when released.
type slowAnalyzer struct {
	fakeAnalyzer
	release chan struct{}
}

func (f *slowAnalyzer) Analyze(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error) {
	<-f.release
	return f.fakeAnalyzer.Analyze(ctx, p, r, lim)
}

// An answer waits for the engine no longer than EngineWait; the search
// goes on and its scores come with the next answer.
func TestEngineWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := memory.New()
		play(t, s, "a", 1500, engine.SouthWins, 3)
		az := &slowAnalyzer{release: make(chan struct{})}
		svc := explorer.New(s, explorer.Options{Analyzer: az, EngineWait: 10 * time.Millisecond})
		if _, err := svc.CatchUp(t.Context()); err != nil {
			t.Fatal(err)
		}
		q := explorer.Query{Position: engine.Start(), Category: players.Live, MaxRating: 9999}
		start := time.Now()
		a, err := svc.Explore(t.Context(), q)
		if err != nil || a.HasEngine || a.Games() != 1 || time.Since(start) != 10*time.Millisecond {
			t.Fatalf("Explore with a slow engine = %+v, %v after %v; want the games without scores after 10ms", a, err, time.Since(start))
		}
		close(az.release)
		synctest.Wait()
		a, err = svc.Explore(t.Context(), q)
		if err != nil || !a.HasEngine || !a.Moves[0].HasScore || az.calls.Load() != 1 {
			t.Fatalf("Explore once the search ended = %+v, %v (%d searches); want its scores, one search", a, err, az.calls.Load())
		}
	})
}

// TestExplorePruned: pruning games (games.Store.DeleteEnded) leaves the
// index as it was: a pruned game still counts, and its id may stay among a
// move's recent games, which the explorer answers with as before; a game
// indexed after the pruning comes first.
func TestExplorePruned(t *testing.T) {
	s := memory.New()
	play(t, s, "a", 1500, engine.SouthWins, 3, 8)
	play(t, s, "bb", 1600, engine.NorthWins, 3, 9)
	svc := explorer.New(s, explorer.Options{})
	if n, err := svc.CatchUp(t.Context()); err != nil || n != 2 {
		t.Fatalf("CatchUp = %d, %v; want 2 games", n, err)
	}
	q := explorer.Query{Position: engine.Start(), Category: players.Live, MaxRating: 9999}
	before, err := svc.Explore(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := s.DeleteEnded(t.Context(), base.Add(time.Hour), 10); err != nil || n != 2 {
		t.Fatalf("DeleteEnded = %d, %v; want both games", n, err)
	}
	if _, err := s.Game(t.Context(), "a"); !errors.Is(err, games.ErrNotFound) {
		t.Fatalf("a pruned game: %v", err)
	}
	after, err := svc.Explore(t.Context(), q)
	if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("after the pruning: %+v, %v; want %+v as before", after, err, before)
	}
	play(t, s, "ccc", 1700, engine.Draw, 3, 8)
	if n, err := svc.CatchUp(t.Context()); err != nil || n != 1 {
		t.Fatalf("CatchUp = %d, %v; want the new game", n, err)
	}
	after, err = svc.Explore(t.Context(), q)
	if err != nil || len(after.Moves) != 1 || after.Games() != 3 || fmt.Sprint(after.Moves[0].Recent) != "[ccc bb a]" {
		t.Fatalf("a game after the pruning: %+v, %v", after, err)
	}
}
