package search

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

var testTables sync.Map // engine.Rules -> func() (*tablebase.Table, error)

// testTable builds (once per rules, for the whole test binary) a table of
// every position with up to testTableSeeds seeds.
func testTable(t testing.TB, r engine.Rules) *tablebase.Table {
	t.Helper()
	f, _ := testTables.LoadOrStore(r, sync.OnceValues(func() (*tablebase.Table, error) {
		return tablebase.Build(context.Background(), testTableSeeds, r, testWorkers, nil)
	}))
	tb, err := f.(func() (*tablebase.Table, error))()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func testEndgames(t testing.TB, r engine.Rules) *Endgames {
	t.Helper()
	e, err := NewEndgames(testTable(t, r))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

var allRules = []engine.Rules{
	{},
	{Leftovers: engine.LeftoversSideOwner},
	{CaptureSeed: engine.CaptureLeft},
	{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner},
}

// resultOnly is a test table without true scores, as a version 1 file is.
type resultOnly struct{ *tablebase.Table }

func (resultOnly) ScoreSeeds() int { return -1 }

func (resultOnly) Score(*engine.Position) (int, bool) { return 0, false }

func (resultOnly) MoveScores(_ engine.Position, out []tablebase.MoveValue) ([]tablebase.MoveValue, bool) {
	return out[:0], false
}

// TestAnalyzeInTheTable: a position in the table is answered from it, with
// every move's root-anchored score, whatever the limits: the true final
// difference, exact, from a table with true scores; from a result-only
// table, the captured difference plus the table's values, with the result
// proven and the score not exact.
func TestAnalyzeInTheTable(t *testing.T) {
	for _, r := range allRules {
		for _, kind := range []string{"scores", "result-only"} {
			t.Run(r.CaptureSeed.String()+"-"+r.Leftovers.String()+"-"+kind, func(t *testing.T) {
				tb := testTable(t, r)
				var table Endgame = tb
				if kind == "result-only" {
					table = resultOnly{tb}
				}
				e, err := NewEndgames(table)
				if err != nil {
					t.Fatal(err)
				}
				s := NewSearcher(1<<16, WithEndgames(e))
				rng := rand.New(rand.NewPCG(5, uint64(rulesIndex(r))))
				answered := 0
				for range 300 {
					p := randomEnding(rng, 1+rng.IntN(testTableSeeds))
					if p.LegalMoves(r) == 0 {
						continue
					}
					a, err := s.Analyze(context.Background(), p, r, nil, Limits{Depth: 1})
					if err != nil {
						t.Fatal(err)
					}
					direct, ok := e.Analyze(p, r)
					direct.Elapsed = a.Elapsed
					if !ok || !reflect.DeepEqual(direct, a) {
						t.Fatalf("%s: Endgames.Analyze %+v (%v), the searcher %+v", p, direct, ok, a)
					}
					v, _ := tb.Value(&p)
					margin := p.Margin(p.ToMove)
					score, want := margin+v, []tablebase.MoveValue(nil)
					want, _ = tb.Moves(p, nil)
					for i := range want {
						want[i].Value += margin
					}
					if kind == "scores" {
						score, _ = tb.Score(&p)
						want, _ = tb.MoveScores(p, nil)
					}
					if a.Source != FromTablebase || a.Exact != (kind == "scores") || !a.Proven || a.Depth != 0 || a.Nodes != 0 {
						t.Fatalf("%s: source %v exact %v proven %v depth %d nodes %d, want the table's answer", p, a.Source, a.Exact, a.Proven, a.Depth, a.Nodes)
					}
					if a.Score != score || a.Centiseeds != unit*a.Score || a.Result != tablebase.Result(&p, v) || a.Result != resultOf(score) {
						t.Fatalf("%s: score %d result %v, want %d %v", p, a.Score, a.Result, score, tablebase.Result(&p, v))
					}
					if len(a.Moves) != len(want) {
						t.Fatalf("%s: %d moves, the table has %d", p, len(a.Moves), len(want))
					}
					for i, m := range want {
						if got := a.Moves[i]; got.Pit != m.Pit || got.Score != m.Value || got.Exact != a.Exact {
							t.Fatalf("%s: move %+v, the table says %+v", p, got, m)
						}
						if m.Pit == a.BestMove && m.Value != score {
							t.Fatalf("%s: best move %d is worth %d, the position %d", p, m.Pit, m.Value, score)
						}
					}
					q := p
					for i, pit := range a.PV {
						next, why := q.Apply(pit, r)
						if why != engine.Legal || (i == 0 && pit != a.BestMove) {
							t.Fatalf("%s: pv %v: move %d is %v", p, a.PV, pit, why)
						}
						q = next
					}
					answered++
				}
				if answered < 150 {
					t.Fatalf("only %d positions answered", answered)
				}
				for _, p := range []engine.Position{engine.Start(), engine.MustParse("s-000000-100000-23-24")} {
					if _, ok := e.Analyze(p, r); ok {
						t.Fatalf("%s: answered from the table", p)
					}
				}
				if _, ok := e.Analyze(engine.MustParse("s-100000-100000-23-23"), engine.Rules{CaptureSeed: 7}); ok {
					t.Fatal("invalid rules answered from the table")
				}
			})
		}
	}
}

// TestSearchWithTheTableAgrees: where the search proves a score on its
// own, a search that scores the positions it reaches in the table by the
// table's true scores proves the same score, and one that uses a
// result-only table's values the same result, with a score that may differ
// in size (the values count play past the majority to the end of the
// board) and is then not exact.
func TestSearchWithTheTableAgrees(t *testing.T) {
	n := 40
	if raceDetector {
		n = 16
	}
	var proven, sameScore, faster int
	for _, r := range allRules {
		plain := NewSearcher(1 << 20)
		with := NewSearcher(1<<20, WithEndgames(testEndgames(t, r)))
		loose, err := NewEndgames(resultOnly{testTable(t, r)})
		if err != nil {
			t.Fatal(err)
		}
		values := NewSearcher(1<<20, WithEndgames(loose))
		rng := rand.New(rand.NewPCG(7, uint64(rulesIndex(r))))
		for range n / len(allRules) * 3 {
			p := randomEnding(rng, testTableSeeds+1+rng.IntN(4))
			if p.LegalMoves(r) == 0 {
				continue
			}
			lim := Limits{Depth: MaxDepth, Nodes: 100_000}
			a, err := plain.Analyze(context.Background(), p, r, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Exact {
				continue
			}
			b, err := with.Analyze(context.Background(), p, r, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			if b.Source != FromSearch || !b.Exact || !b.Proven {
				t.Fatalf("%s %+v: with the table source %v exact %v; without, exact", p, r, b.Source, b.Exact)
			}
			if b.Result != a.Result || a.Result != resultOf(a.Centiseeds) || a.Score != b.Score {
				t.Fatalf("%s %+v: with the table %v (%+d), without %v (%+d)", p, r, b.Result, b.Score, a.Result, a.Score)
			}
			for i, m := range a.Moves {
				if m.Exact && (!b.Moves[i].Exact || b.Moves[i].Score != m.Score) {
					t.Fatalf("%s %+v: move %+v with the table, %+v without", p, r, b.Moves[i], m)
				}
			}
			c, err := values.Analyze(context.Background(), p, r, nil, lim)
			if err != nil {
				t.Fatal(err)
			}
			if !c.Proven || c.Result != a.Result || (c.Exact && c.Score != a.Score) {
				t.Fatalf("%s %+v: with a result-only table %v (%+d) exact %v proven %v, without %v (%+d)", p, r, c.Result, c.Score, c.Exact, c.Proven, a.Result, a.Score)
			}
			proven++
			if a.Score == c.Score {
				sameScore++
			}
			if b.Nodes < a.Nodes {
				faster++
			}
		}
	}
	if proven < n/4 {
		t.Fatalf("only %d positions proven: the test proves little", proven)
	}
	t.Logf("%d proven scores agree (%d with the same score from a result-only table); the table took fewer nodes in %d", proven, sameScore, faster)
}

// smallTable is a test table cut down to positions with at most n seeds.
type smallTable struct {
	Endgame
	n int
}

func (c smallTable) MaxSeeds() int { return c.n }

// TestSearchWithTheTableMatchesMinimax checks the scores the search proves
// with a small table against the reference minimax, on positions with a few
// seeds more than the table holds, which minimax solves to the end: exact
// with the table's true scores; with a result-only table, the result.
func TestSearchWithTheTableMatchesMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var checked, differ int
	want := 40
	if raceDetector {
		want = 8
	}
	for i := 0; i < 400 && checked < want; i++ {
		r := allRules[i%len(allRules)]
		p := randomEnding(rng, 5+rng.IntN(3))
		if p.LegalMoves(r) == 0 {
			continue
		}
		m := &minimax{r: r, limit: 50_000}
		truth, proven, ok := m.score(p, nil, MaxDepth)
		if !ok || !proven {
			continue
		}
		e, err := NewEndgames(smallTable{testTable(t, r), 4})
		if err != nil {
			t.Fatal(err)
		}
		s := NewSearcher(1<<20, WithEndgames(e))
		a, err := s.Analyze(context.Background(), p, r, nil, Limits{Depth: MaxDepth, Nodes: 200_000})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Exact || !a.Proven || a.Source != FromSearch {
			t.Fatalf("%s %+v: exact %v source %v with the table", p, r, a.Exact, a.Source)
		}
		if a.Result != resultOf(truth) || a.Centiseeds != truth {
			t.Fatalf("%s %+v: result %v (%+d) with the table, minimax %+d", p, r, a.Result, a.Score, truth/unit)
		}
		e, err = NewEndgames(smallTable{resultOnly{testTable(t, r)}, 4})
		if err != nil {
			t.Fatal(err)
		}
		a, err = NewSearcher(1<<20, WithEndgames(e)).Analyze(context.Background(), p, r, nil, Limits{Depth: MaxDepth, Nodes: 200_000})
		if err != nil {
			t.Fatal(err)
		}
		if !a.Proven || a.Result != resultOf(truth) || (a.Exact && a.Centiseeds != truth) {
			t.Fatalf("%s %+v: result %v (%+d) exact %v with a result-only table, minimax %+d", p, r, a.Result, a.Score, a.Exact, truth/unit)
		}
		if a.Centiseeds != truth {
			differ++
		}
		checked++
	}
	if checked < want/2 {
		t.Fatalf("only %d positions checked", checked)
	}
	t.Logf("%d scores agree with minimax; a result-only table gave another score in %d", checked, differ)
}

// TestLevelsKeepTableWins: in a position the table calls a win, levels 7 and
// 8 play a move that keeps it (its value is the position's), and one whose
// next position the table calls lost for the opponent whenever there is
// one; lower levels ignore the table.
func TestLevelsKeepTableWins(t *testing.T) {
	var wins, consistent int
	for _, r := range allRules {
		tb := testTable(t, r)
		pool := NewPool(1, WithEndgames(testEndgames(t, r)))
		rng := rand.New(rand.NewPCG(11, uint64(rulesIndex(r))))
		for i := range 150 {
			p := randomEnding(rng, 2+rng.IntN(testTableSeeds-1))
			v, _ := tb.Value(&p)
			if p.LegalMoves(r).Len() < 2 || tablebase.Result(&p, v) != tablebase.Win {
				continue
			}
			moves, _ := tb.Moves(p, nil)
			kept := false // some winning move leaves a position lost for the opponent
			for _, m := range moves {
				if m.Value == v && opponentLost(tb, p, m.Pit, r) {
					kept = true
				}
			}
			for _, level := range []int{7, 8} {
				pit, err := pool.ChooseMove(context.Background(), p, r, nil, level, uint64(i))
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range moves {
					if m.Pit == pit && m.Value != v {
						t.Fatalf("%s %+v: level %d plays %d, worth %d; the position is worth %d", p, r, level, pit, m.Value, v)
					}
				}
				if kept && !opponentLost(tb, p, pit, r) {
					t.Fatalf("%s %+v: level %d plays %d, whose position the table does not call lost for the opponent", p, r, level, pit)
				}
			}
			wins++
			if kept {
				consistent++
			}
		}
	}
	if wins < 100 {
		t.Fatalf("only %d won positions", wins)
	}
	t.Logf("%d won positions, %d with a move to a position lost for the opponent", wins, consistent)
}

// opponentLost reports whether the table calls the position after pit lost
// for its mover (or the game is over there with p's mover ahead).
func opponentLost(tb *tablebase.Table, p engine.Position, pit int, r engine.Rules) bool {
	q, _ := p.Apply(pit, r)
	if final, res := q.Finish(r); res.Over() {
		return final.Margin(p.ToMove) > 0
	}
	w, _ := tb.Value(&q)
	return tablebase.Result(&q, w) == tablebase.Loss
}

// countingTable counts its probes.
type countingTable struct {
	*tablebase.Table
	probes int
}

func (c *countingTable) Value(p *engine.Position) (int, bool) {
	c.probes++
	return c.Table.Value(p)
}

func (c *countingTable) Score(p *engine.Position) (int, bool) {
	c.probes++
	return c.Table.Score(p)
}

// TestTableCostsNoAllocation: the search's nodes allocate nothing, probing
// the table included.
func TestTableCostsNoAllocation(t *testing.T) {
	r := engine.Rules{}
	tb := &countingTable{Table: testTable(t, r)}
	e, err := NewEndgames(tb)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n-102030-010204-17-18", "s-211100-100211-18-20"} {
		p := engine.MustParse(n)
		s := NewSearcher(1<<20, WithEndgames(e))
		s.takeEndgame(r, true)
		allocs := testing.AllocsPerRun(5, func() {
			s.start(context.Background(), p, r, nil, Limits{})
			s.negamax(0, 7, -infinity, infinity)
		})
		s.giveEndgame()
		if allocs != 0 || tb.probes == 0 {
			t.Fatalf("%s: %v allocations a search, %d probes", n, allocs, tb.probes)
		}
	}
}

// closingTable is a table that records being closed, and checks that no
// search is probing it then.
type closingTable struct {
	*tablebase.Table
	n       int
	probing atomic.Int32
	closed  atomic.Bool
	bad     atomic.Bool
}

func (c *closingTable) MaxSeeds() int { return c.n }

func (c *closingTable) Value(p *engine.Position) (int, bool) {
	c.probing.Add(1)
	defer c.probing.Add(-1)
	if c.closed.Load() {
		c.bad.Store(true)
	}
	return c.Table.Value(p)
}

func (c *closingTable) Score(p *engine.Position) (int, bool) {
	c.probing.Add(1)
	defer c.probing.Add(-1)
	if c.closed.Load() {
		c.bad.Store(true)
	}
	return c.Table.Score(p)
}

func (c *closingTable) Close() error {
	if c.probing.Load() != 0 {
		c.bad.Store(true)
	}
	c.closed.Store(true)
	return nil
}

func TestEndgames(t *testing.T) {
	r := engine.Rules{}
	tb := testTable(t, r)
	small := &closingTable{Table: tb, n: testTableSeeds - 2}
	big := &closingTable{Table: tb, n: testTableSeeds}
	e, err := NewEndgames(small)
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := e.Add(big); !kept || err != nil || e.For(r) != big {
		t.Fatalf("a larger table: kept %v, %v", kept, err)
	}
	if kept, err := e.Add(small); kept || err != nil || e.For(r) != big {
		t.Fatalf("a smaller table: kept %v, %v", kept, err)
	}
	if e.For(engine.Rules{CaptureSeed: engine.CaptureLeft}) != nil || len(e.Tables()) != 1 {
		t.Fatalf("a table for other rules: %v", e.Tables())
	}

	// Searches run while the set closes: none probes a closed table.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := NewPool(2, WithEndgames(e))
	var wg sync.WaitGroup
	var setClosed atomic.Bool
	started, searchedAfter := make(chan struct{}, 2), make(chan struct{}, 2)
	for i := range 2 {
		wg.Go(func() {
			p := engine.MustParse("s-306150-0a2041-4-12")
			told := false
			for j := 0; ctx.Err() == nil; j++ {
				after := setClosed.Load()
				if _, err := pool.Analyze(ctx, p, r, Limits{Nodes: 5000 + uint64(i+j)}); err != nil && !errors.Is(err, context.Canceled) {
					t.Error(err)
				}
				if j == 0 {
					started <- struct{}{}
				}
				if after && !told {
					searchedAfter <- struct{}{}
					told = true
				}
			}
		})
	}
	<-started
	<-started
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	setClosed.Store(true)
	// Each worker runs a whole search begun after Close: it uses no table.
	<-searchedAfter
	<-searchedAfter
	cancel()
	wg.Wait()
	if !small.closed.Load() || !big.closed.Load() || small.bad.Load() || big.bad.Load() {
		t.Fatalf("closed %v %v, probed while closing %v %v", small.closed.Load(), big.closed.Load(), small.bad.Load(), big.bad.Load())
	}
	if e.For(r) != nil {
		t.Fatal("a closed set still has a table")
	}
	if _, err := e.Add(big); !errors.Is(err, ErrEndgamesClosed) {
		t.Fatalf("Add after Close: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
}

// TestMatchWithTable: a level with the table never throws away a win the
// table sees, and the judge counts the moves it watched.
func TestMatchWithTable(t *testing.T) {
	r := engine.Rules{}
	games := 4
	if testing.Short() {
		games = 2
	}
	cfg := MatchConfig{
		A: Player{Level: 7, Endgames: testEndgames(t, r)}, B: Player{Level: 7},
		Games: games, Seed: 5, Balance: DefaultBalance, Judge: testTable(t, r),
	}
	res, err := PlayMatch(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.TableWins[0]+res.TableWins[1] == 0 {
		t.Fatalf("%v: the judge saw no won position", res)
	}
	if res.ThrownWins[0] != 0 {
		t.Fatalf("%v: the level with the table threw a win away", res)
	}
	t.Log(res)
	cfg.Judge = testTable(t, engine.Rules{Leftovers: engine.LeftoversSideOwner})
	if _, err := PlayMatch(context.Background(), cfg); err == nil {
		t.Fatal("a judge for other rules: no error")
	}
}

// deepestProbe records the most seeds on the board of the positions probed.
type deepestProbe struct {
	*tablebase.Table
	most int
}

func (c *deepestProbe) Value(p *engine.Position) (int, bool) {
	c.most = max(c.most, p.BoardSeeds())
	return c.Table.Value(p)
}

// TestTableRootWithHistory: a root in the table is answered from it only
// when none of the game's earlier positions has its captured counts;
// otherwise (play could return to one of them and end by the repetition
// rule) the search runs and probes the table only after a capture.
func TestTableRootWithHistory(t *testing.T) {
	r := engine.Rules{}
	root := engine.MustParse("s-011011-100010-22-20")    // 6 seeds: in the race build's table too
	earlier := engine.MustParse("n-011011-100001-22-20") // same captured counts
	before := engine.MustParse("n-131011-100010-19-20")  // before a capture
	tests := []struct {
		name      string
		history   []engine.Position
		fromTable bool
	}{
		{"no history", nil, true},
		{"an earlier epoch only", []engine.Position{before}, true},
		{"a position of the root's epoch", []engine.Position{before, earlier}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tb := &deepestProbe{Table: testTable(t, r)}
			e, err := NewEndgames(tb)
			if err != nil {
				t.Fatal(err)
			}
			s := NewSearcher(1<<16, WithEndgames(e))
			a, err := s.Analyze(context.Background(), root, r, tt.history, Limits{Depth: 6})
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Source == FromTablebase; got != tt.fromTable {
				t.Fatalf("source %v, want from the table: %v", a.Source, tt.fromTable)
			}
			if !tt.fromTable && tb.most >= root.BoardSeeds() {
				t.Fatalf("probed a position with %d seeds on the board, the root has %d", tb.most, root.BoardSeeds())
			}
			tb.most = 0
			pit, err := s.ChooseMove(context.Background(), root, r, tt.history, 7, 1)
			if _, why := root.Apply(pit, r); err != nil || why != engine.Legal {
				t.Fatalf("level 7 played %d: %v", pit, err)
			}
			if !tt.fromTable && tb.most >= root.BoardSeeds() {
				t.Fatalf("level 7 probed a position with %d seeds on the board, the root has %d", tb.most, root.BoardSeeds())
			}
		})
	}
}

// TestNilEndgames: a nil set holds no table, and every method says so.
func TestNilEndgames(t *testing.T) {
	var e *Endgames
	p := engine.MustParse("s-021011-100010-21-20")
	if _, ok := e.Analyze(p, engine.Rules{}); ok || e.For(engine.Rules{}) != nil || e.Tables() != nil || e.Close() != nil {
		t.Fatal("a nil set of tables answered")
	}
	a, err := NewSearcher(1<<16, WithEndgames(nil)).Analyze(context.Background(), p, engine.Rules{}, nil, Limits{Depth: 2})
	if err != nil || a.Source != FromSearch {
		t.Fatalf("a searcher with a nil set: %v, source %v", err, a.Source)
	}
}
