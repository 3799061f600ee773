package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

func TestHeuristicScoresAreNotExact(t *testing.T) {
	for _, every := range []bool{true, false} {
		a, err := Analyze(context.Background(), engine.Start(), engine.Rules{}, Limits{Depth: 6, BestOnly: !every})
		if err != nil {
			t.Fatal(err)
		}
		if a.Exact || a.Depth != 6 {
			t.Fatalf("start at depth 6: exact=%v depth %d, want a heuristic score at depth 6", a.Exact, a.Depth)
		}
		for _, m := range a.Moves {
			if m.Exact {
				t.Fatalf("start at depth 6: move %d called exact", m.Pit)
			}
		}
		if len(a.Moves) != 6 || len(a.PV) == 0 || a.PV[0] != a.BestMove {
			t.Fatalf("analysis incomplete: %+v", a)
		}
	}
}

func TestAnalyzeStopsAtExactScore(t *testing.T) {
	// Every line ends within a ply: the search proves the value at depth 1
	// and does not go on to MaxDepth.
	a, err := Analyze(context.Background(), engine.MustParse("s-200010-300200-22-18"), engine.Rules{}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Exact || a.Depth != 1 || a.Score != 8 {
		t.Fatalf("got %+v, want exact +8 at depth 1", a)
	}
}

func TestCancelledContextReturnsCompletedIteration(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := engine.Start()
	a, err := Analyze(ctx, p, engine.Rules{}, Limits{Depth: MaxDepth})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if a.Depth != 1 || !p.LegalMoves(engine.Rules{}).Has(a.BestMove) || len(a.Moves) != 6 {
		t.Fatalf("cancelled search: %+v, want the first iteration with a legal move", a)
	}
	for level := MinLevel; level <= MaxLevel; level++ {
		pit, err := ChooseMove(ctx, p, engine.Rules{}, nil, level, 1)
		if !errors.Is(err, context.Canceled) || !p.LegalMoves(engine.Rules{}).Has(pit) {
			t.Fatalf("level %d, cancelled: pit %d err %v, want a legal move and context.Canceled", level, pit, err)
		}
	}
}

func TestCancelStopsALongSearch(t *testing.T) {
	// Without the cancel this search would run for hours; the test's own
	// timeout is what catches a search that ignores its context.
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		a   Analysis
		err error
	}
	done := make(chan result, 1)
	// Cancelled from the search's own third poll (every thousand nodes or
	// so): well under way, whatever the machine's speed.
	polls := 0
	pause := func() {
		if polls++; polls == 3 {
			cancel()
		}
	}
	go func() {
		a, err := NewPool(1).AnalyzePausing(ctx, engine.Start(), engine.Rules{}, Limits{Depth: MaxDepth, Hash: 1 << 20}, pause)
		done <- result{a, err}
	}()
	res := <-done
	if !errors.Is(res.err, context.Canceled) || res.a.Depth < 1 || res.a.Depth >= MaxDepth || res.a.Nodes == 0 {
		t.Fatalf("got depth %d nodes %d err %v, want a partial search and context.Canceled", res.a.Depth, res.a.Nodes, res.err)
	}
}

func TestNodeLimitIsReproducible(t *testing.T) {
	p := engine.MustParse("n-270616-660066-2-0")
	lim := Limits{Nodes: 30_000, BestOnly: true}
	s := NewSearcher(1 << 20)
	first, err := s.Analyze(context.Background(), p, engine.Rules{}, nil, lim)
	if err != nil {
		t.Fatal(err)
	}
	// A frontier node counts its children at once, so the limit may be
	// passed by a few.
	if first.Nodes > lim.Nodes+engine.RowPits {
		t.Fatalf("%d nodes, over the limit of %d", first.Nodes, lim.Nodes)
	}
	// The same searcher again (its table now full of the first search) and a
	// fresh one give the same analysis.
	for _, s := range []*Searcher{s, NewSearcher(4 << 20)} {
		again, err := s.Analyze(context.Background(), p, engine.Rules{}, nil, lim)
		if err != nil {
			t.Fatal(err)
		}
		if again.BestMove != first.BestMove || again.Centiseeds != first.Centiseeds || again.Depth != first.Depth || again.Nodes != first.Nodes {
			t.Fatalf("second search %+v differs from the first %+v", again, first)
		}
	}
}

// gamePositions plays a fixed random game and returns its positions, with the
// history before each.
func gamePositions(t *testing.T, n int) (positions []engine.Position, histories [][]engine.Position) {
	t.Helper()
	rng := rand.New(rand.NewPCG(9, 9))
	g, err := engine.NewGame(engine.Start(), engine.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var hist []engine.Position
	var out engine.Outcome
	for range n {
		if g.Result().Over() {
			break
		}
		p := g.Position()
		positions = append(positions, p)
		histories = append(histories, append([]engine.Position(nil), hist...))
		hist = append(hist, p)
		if err := g.Play(randomMove(p.LegalMoves(engine.Rules{}), rng), &out); err != nil {
			t.Fatal(err)
		}
	}
	return positions, histories
}

func TestLevelsAreReproducible(t *testing.T) {
	positions, histories := gamePositions(t, 12)
	reused := NewSearcher(2 << 20)
	for level := MinLevel; level <= 7; level++ {
		// Without the level's clock, so that a loaded machine (the race
		// detector beside other jobs) cannot cut one search and not the
		// other: depth and nodes alone decide.
		lv, _ := LevelOf(level)
		lv.Time = 0
		for i, p := range positions {
			for seed := range uint64(2) {
				want, err := NewSearcher(lv.Hash).chooseMove(context.Background(), p, engine.Rules{}, histories[i], lv, seed)
				if err != nil {
					t.Fatal(err)
				}
				if !p.LegalMoves(engine.Rules{}).Has(want) {
					t.Fatalf("level %d plays illegal %d in %s", level, want, p)
				}
				got, err := reused.chooseMove(context.Background(), p, engine.Rules{}, histories[i], lv, seed)
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("level %d seed %d in %s: %d, then %d with a reused searcher", level, seed, p, want, got)
				}
			}
		}
	}
	// Level 8 without its clock (so that a loaded machine cannot cut it
	// short): the node budget alone decides.
	lv, _ := LevelOf(8)
	lv.Time = 0
	p := positions[2]
	first, err := NewSearcher(lv.Hash).chooseMove(context.Background(), p, engine.Rules{}, histories[2], lv, 5)
	if err != nil {
		t.Fatal(err)
	}
	again, err := reused.chooseMove(context.Background(), p, engine.Rules{}, histories[2], lv, 5)
	if err != nil || again != first {
		t.Fatalf("level 8: %d then %d (%v)", first, again, err)
	}
}

func TestLowLevelsVaryWithTheSeed(t *testing.T) {
	p := engine.Start()
	for _, level := range []int{1, 3} {
		seen := map[int]bool{}
		for seed := range uint64(40) {
			pit, err := ChooseMove(context.Background(), p, engine.Rules{}, nil, level, seed)
			if err != nil {
				t.Fatal(err)
			}
			seen[pit] = true
		}
		if level == 1 && len(seen) < 4 {
			t.Errorf("level 1 played only %v from the start over 40 seeds", seen)
		}
	}
	// No capture is possible here (every move ends in North's row or in a
	// pit facing an empty one), so level 2 picks at random among them all.
	q := engine.MustParse("s-111100-000111-21-20")
	if q.LegalMoves(engine.Rules{}).Len() < 2 {
		t.Fatalf("%s: want several legal moves", q)
	}
	seen := map[int]bool{}
	for seed := range uint64(40) {
		pit, err := ChooseMove(context.Background(), q, engine.Rules{}, nil, 2, seed)
		if err != nil {
			t.Fatal(err)
		}
		seen[pit] = true
	}
	if len(seen) < 2 {
		t.Errorf("level 2 played only %v among equal captures", seen)
	}
}

func TestLevelTwoTakesTheLargestCapture(t *testing.T) {
	// Pit 0 takes 3, pit 4 takes 4.
	for seed := range uint64(10) {
		pit, err := ChooseMove(context.Background(), engine.MustParse("s-200010-300200-22-18"), engine.Rules{}, nil, 2, seed)
		if err != nil || pit != 4 {
			t.Fatalf("seed %d: %d %v, want 4", seed, pit, err)
		}
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	for _, level := range []int{0, 9, -1} {
		if _, err := ChooseMove(ctx, engine.Start(), engine.Rules{}, nil, level, 1); !errors.Is(err, ErrInvalidLevel) {
			t.Errorf("level %d: %v, want ErrInvalidLevel", level, err)
		}
	}
	over := engine.MustParse("n-000030-010010-25-18") // South has 25
	if _, err := Analyze(ctx, over, engine.Rules{}, Limits{Depth: 3}); !errors.Is(err, ErrNoMoves) {
		t.Errorf("finished position: %v, want ErrNoMoves", err)
	}
	if _, err := ChooseMove(ctx, over, engine.Rules{}, nil, 5, 1); !errors.Is(err, ErrNoMoves) {
		t.Errorf("finished position: %v, want ErrNoMoves", err)
	}
	bad := engine.Start()
	bad.Pits[3] = 60
	if _, err := Analyze(ctx, bad, engine.Rules{}, Limits{Depth: 3}); !errors.Is(err, engine.ErrInvalidPosition) {
		t.Errorf("invalid position: %v, want ErrInvalidPosition", err)
	}
	if _, err := ChooseMove(ctx, engine.Start(), engine.Rules{CaptureSeed: 7}, nil, 5, 1); !errors.Is(err, engine.ErrInvalidRules) {
		t.Errorf("invalid rules: %v, want ErrInvalidRules", err)
	}
}

func TestLevelTable(t *testing.T) {
	prev := Level{}
	for i, lv := range Levels() {
		if lv.Level != MinLevel+i {
			t.Fatalf("level %d listed as %d", MinLevel+i, lv.Level)
		}
		if lv.Level >= 3 && (lv.Depth <= 0 || lv.Time <= 0 || lv.Time > DefaultTime || lv.Hash <= 0) {
			t.Fatalf("level %d needs a depth, a clock bound of at most %v and a table: %+v", lv.Level, DefaultTime, lv)
		}
		// Each searching level searches at least as deep and as long.
		if lv.Level > 3 && (lv.Depth < prev.Depth || lv.Time < prev.Time || (prev.Nodes > 0 && (lv.Nodes == 0 || lv.Nodes <= prev.Nodes))) {
			t.Fatalf("level %d (%+v) is not above level %d (%+v)", lv.Level, lv, prev.Level, prev)
		}
		prev = lv
	}
}

func TestLevelsIsACopy(t *testing.T) {
	first := Levels()
	want := first[len(first)-1]
	first[len(first)-1].Nodes = 1
	first[0] = Level{}
	again := Levels()
	if again[len(again)-1] != want || again[0].Level != MinLevel {
		t.Fatalf("after changing what Levels returned, it returns %+v ... %+v", again[0], again[len(again)-1])
	}
	if lv, err := LevelOf(MaxLevel); err != nil || lv != want {
		t.Fatalf("LevelOf(%d) = %+v, %v after changing what Levels returned; want %+v", MaxLevel, lv, err, want)
	}
}

func TestMatch(t *testing.T) {
	cfg := MatchConfig{A: Player{Level: 4}, B: Player{Level: 1}, Games: 10, Seed: 3, Balance: DefaultBalance}
	var calls int
	cfg.Progress = func(done int, _ MatchResult) { calls++ }
	one, err := PlayMatch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if one.Games != 10 || one.Wins+one.Draws+one.Losses != 10 || calls != 10 {
		t.Fatalf("%+v after %d progress calls, want 10 games", one, calls)
	}
	if one.Score() < 0.7 {
		t.Fatalf("level 4 scored %.2f against random moves", one.Score())
	}
	cfg.Workers, cfg.Progress = 2, nil
	two, err := PlayMatch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if two != one {
		t.Fatalf("with 2 workers %+v, with 1 %+v: the games must not depend on it", two, one)
	}
	if _, err := PlayMatch(context.Background(), MatchConfig{A: Player{Level: 9}, B: Player{Level: 1}, Games: 2}); !errors.Is(err, ErrInvalidLevel) {
		t.Fatalf("level 9: %v", err)
	}
}
