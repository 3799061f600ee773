package search

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
)

// clockless returns every searching level without its clock, and with the
// strongest levels' node budgets cut, so that their moves depend on the
// arguments alone however loaded the machine, and the tests stay quick.
func clockless(t *testing.T) []Level {
	t.Helper()
	var lvs []Level
	for _, lv := range Levels() {
		if lv.Depth == 0 {
			continue
		}
		lv.Time = 0
		if lv.Nodes > 20_000 {
			lv.Nodes = 20_000
		}
		lvs = append(lvs, lv)
	}
	if len(lvs) != MaxLevel-2 {
		t.Fatalf("%d searching levels, want %d", len(lvs), MaxLevel-2)
	}
	return lvs
}

// sameAnalysis reports whether two analyses agree in everything but the
// time they took.
func sameAnalysis(a, b Analysis) bool {
	a.Elapsed, b.Elapsed = 0, 0
	return reflect.DeepEqual(a, b)
}

// TestPoolMatchesFreshSearchers plays the positions of a game through one
// pooled searcher and through fresh ones: every level's move and every
// analysis (scores, principal variation, depth, nodes) must be the same. The
// pool has a single searcher, so each search reuses the table of the one
// before, of another size as often as not: the levels' tables run from 64 KiB
// to 16 MiB and the analyses' from 64 KiB to DefaultHash.
func TestPoolMatchesFreshSearchers(t *testing.T) {
	ctx := context.Background()
	positions, histories := gamePositions(t, 24)
	if len(positions) < 20 {
		t.Fatalf("the game lasted %d plies; want at least 20 positions", len(positions))
	}
	pool := NewPool(1)
	rules := []engine.Rules{{}, {CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}}
	limits := []Limits{
		{Depth: 6},                 // SmallHash
		{Nodes: 15_000},            // DefaultHash
		{Depth: 7, Hash: 64 << 10}, // a small table after the largest
		{Nodes: 10_000, BestOnly: true, Hash: 2 << 20},
	}
	moves := map[int]bool{}
	for i, p := range positions {
		r := rules[i%len(rules)]
		for _, lv := range clockless(t) {
			seed := uint64(i*MaxLevel + lv.Level)
			want, wantErr := chooseFresh(ctx, p, r, histories[i], lv, seed)
			got, err := pool.chooseMove(ctx, p, r, histories[i], lv, seed)
			if got != want || !errors.Is(err, wantErr) {
				t.Fatalf("%s level %d seed %d: pooled %d (%v), fresh %d (%v)", p, lv.Level, seed, got, err, want, wantErr)
			}
			moves[want] = true
		}
		for _, lim := range limits {
			want, wantErr := Analyze(ctx, p, r, lim)
			got, err := pool.Analyze(ctx, p, r, lim)
			if !errors.Is(err, wantErr) || !sameAnalysis(got, want) {
				t.Fatalf("%s %+v:\npooled %+v (%v)\nfresh  %+v (%v)", p, lim, got, err, want, wantErr)
			}
		}
	}
	if len(moves) < 4 {
		t.Fatalf("the levels played only pits %v: the positions test too little", moves)
	}
	if len(pool.idle) != 1 || len(pool.idle[0].tt.mem)*ttEntryBytes != DefaultHash {
		t.Fatalf("pool holds %d searchers; want one, grown to the largest table", len(pool.idle))
	}
}

// TestPoolConcurrent: searches running at once through a pool, more of them
// than it has searchers, give the moves fresh searchers give. Run with -race.
func TestPoolConcurrent(t *testing.T) {
	ctx := context.Background()
	positions, histories := gamePositions(t, 12)
	lvs := clockless(t)[:4] // levels 3-6: depth-bound, quick
	type job struct {
		i    int
		lv   Level
		seed uint64
	}
	var jobs []job
	want := map[job]int{}
	for i := range positions {
		for _, lv := range lvs {
			j := job{i, lv, uint64(i)}
			pit, err := chooseFresh(ctx, positions[i], engine.Rules{}, histories[i], lv, j.seed)
			if err != nil {
				t.Fatal(err)
			}
			jobs = append(jobs, j)
			want[j] = pit
		}
	}
	pool := NewPool(2)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Go(func() {
			for k := w; k < len(jobs); k += 4 {
				j := jobs[k]
				pit, err := pool.chooseMove(ctx, positions[j.i], engine.Rules{}, histories[j.i], j.lv, j.seed)
				if err != nil || pit != want[j] {
					errs <- errors.Join(err, errors.New("pooled move differs from the fresh one"))
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(pool.idle); n < 1 || n > pool.Size() {
		t.Fatalf("%d idle searchers after the searches, want 1 to %d", n, pool.Size())
	}
}

// TestPoolLendsOnlyToSearches holds the only searcher of a pool: the moves
// that need no search still come at once, and a search waits for the
// searcher until its context ends.
func TestPoolLendsOnlyToSearches(t *testing.T) {
	pool := NewPool(1)
	held, err := pool.borrow(context.Background(), SmallHash)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := engine.Start()
	forced := engine.MustParse("s-100000-222222-20-15") // pit 0 is South's only move
	tests := []struct {
		name  string
		pos   engine.Position
		level int
		want  int // -1: any legal move
	}{
		{"level 1 plays at random", start, 1, -1},
		{"level 2 takes the largest capture", engine.MustParse("s-200010-300200-22-18"), 2, 4},
		{"a forced move needs no search", forced, MaxLevel, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pit, err := pool.ChooseMove(ctx, tc.pos, engine.Rules{}, nil, tc.level, 1)
			if err != nil || !tc.pos.LegalMoves(engine.Rules{}).Has(pit) || (tc.want >= 0 && pit != tc.want) {
				t.Fatalf("level %d: pit %d, %v; want a legal move (%d) without waiting", tc.level, pit, err, tc.want)
			}
		})
	}
	over := engine.MustParse("n-000030-010010-25-18")
	if _, err := pool.Analyze(ctx, over, engine.Rules{}, Limits{Depth: 3}); !errors.Is(err, ErrNoMoves) {
		t.Fatalf("finished position: %v, want ErrNoMoves without waiting", err)
	}

	short, cancelShort := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelShort()
	if pit, err := pool.ChooseMove(short, start, engine.Rules{}, nil, 3, 1); pit != -1 || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("level 3 with every searcher lent: pit %d, %v; want -1 once the context ends", pit, err)
	}
	if _, err := pool.Analyze(short, start, engine.Rules{}, Limits{Depth: 3}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("analysis with every searcher lent: %v, want the context's end", err)
	}

	// Once the searcher is back, a search whose context has already ended
	// still gets it, and gives a legal move, as a fresh searcher does.
	pool.giveBack(held)
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	if pit, err := pool.ChooseMove(done, start, engine.Rules{}, nil, 5, 1); !errors.Is(err, context.Canceled) || !start.LegalMoves(engine.Rules{}).Has(pit) {
		t.Fatalf("cancelled level 5 with a free searcher: pit %d, %v; want a legal move and context.Canceled", pit, err)
	}
	if _, err := pool.ChooseMove(ctx, start, engine.Rules{}, nil, MaxLevel+1, 1); !errors.Is(err, ErrInvalidLevel) {
		t.Fatalf("level %d: %v, want ErrInvalidLevel", MaxLevel+1, err)
	}
	bad := start
	bad.Pits[0] = 60
	if _, err := pool.Analyze(ctx, bad, engine.Rules{}, Limits{Depth: 3}); !errors.Is(err, engine.ErrInvalidPosition) {
		t.Fatalf("invalid position: %v, want ErrInvalidPosition", err)
	}
	if len(pool.idle) != 1 {
		t.Fatalf("%d idle searchers, want the one", len(pool.idle))
	}
}
