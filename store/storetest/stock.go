package storetest

import (
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

var stockCases = []suiteCase{
	{"stock/add and read back", testStockAdd},
	{"stock/lease", testLease},
	{"stock/lease race", testLeaseRace},
}

// stocked makes a stock row of the i-th fixture puzzle, as filter's seq:
// stores decide nothing, so a daily puzzle without its date will do.
func stocked(t *testing.T, fx *fixtures, i int, version int, filter string, seq uint64) puzzles.Stocked {
	t.Helper()
	p := clonePuzzle(fx.puzzles(t)[i%len(puzzleDates)])
	p.Date, p.Version = time.Time{}, version
	p.ID = fmt.Sprintf("x%d-%s-%d", version, filter, seq)
	return puzzles.Stocked{Filter: filter, Bucket: int(seq % gen.PracticeWindow), Seq: seq, Puzzle: p}
}

func testStockAdd(t *testing.T, s Store, fx *fixtures) {
	ctx := t.Context()
	const f, g = "d3-gany-tany", "d0-gwin-tany"
	rows := []puzzles.Stocked{
		stocked(t, fx, 0, 3, f, 5+2*gen.PracticeWindow),
		stocked(t, fx, 1, 3, f, 5),
		stocked(t, fx, 2, 3, f, 7),
		stocked(t, fx, 0, 3, g, 5),
		stocked(t, fx, 1, 2, f, 5), // another version
	}
	for i := range rows {
		added, err := s.AddStock(ctx, rows[i], tick(i))
		if err != nil || !added {
			t.Fatalf("add %s: %v, %v; want added", rows[i].Puzzle.ID, added, err)
		}
		rows[i].Made = tick(i) // what a read gives back: when it was stored
	}
	// A row of the same key again changes nothing.
	again := stocked(t, fx, 2, 3, f, 5)
	if added, err := s.AddStock(ctx, again, tick(9)); err != nil || added {
		t.Fatalf("add %s again: %v, %v; want not added", again.Puzzle.ID, added, err)
	}
	tests := []struct {
		name    string
		version int
		filter  string
		bucket  int
		want    []puzzles.Stocked
	}{
		{"a bucket, by seq", 3, f, 5, []puzzles.Stocked{rows[1], rows[0]}},
		{"another bucket", 3, f, 7, []puzzles.Stocked{rows[2]}},
		{"an empty bucket", 3, f, 6, nil},
		{"another filter", 3, g, 5, []puzzles.Stocked{rows[3]}},
		{"another version", 2, f, 5, []puzzles.Stocked{rows[4]}},
		{"an unknown filter", 3, "d5-gany-tany", 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.StockBucket(ctx, tt.version, tt.filter, tt.bucket)
			if err != nil {
				t.Fatal(err)
			}
			checkStockRows(t, got, tt.want)
		})
	}
	t.Run("buckets stocked", func(t *testing.T) {
		for _, c := range []struct {
			version int
			filter  string
			want    int
		}{{3, f, 2}, {3, g, 1}, {2, f, 1}, {2, g, 0}} { // x3-f: buckets 5 (two seqs) and 7
			if n, err := s.StockedBuckets(ctx, c.version, c.filter); err != nil || n != c.want {
				t.Errorf("count of x%d-%s: %d, %v; want %d", c.version, c.filter, n, err, c.want)
			}
		}
	})
	t.Run("whole stock, by bucket then seq", func(t *testing.T) {
		got, err := s.Stock(ctx, 3, f)
		if err != nil {
			t.Fatal(err)
		}
		checkStockRows(t, got, []puzzles.Stocked{rows[1], rows[0], rows[2]})
	})
}

// checkStockRows fails t unless got is want, row for row.
func checkStockRows(t *testing.T, got, want []puzzles.Stocked) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func testLease(t *testing.T, s Store, _ *fixtures) {
	ctx := t.Context()
	const name = "stock/x3-d3-gany-tany"
	steps := []struct {
		what   string
		holder string
		at     int // tick of now; the lease runs to tick(at+10)
		want   bool
	}{
		{"free: taken", "a", 0, true},
		{"held by another", "b", 1, false},
		{"renewed by its holder", "a", 5, true},
		{"still held by another, past the first term", "b", 12, false},
		{"run out: taken by another", "b", 15, true},
		{"the first holder, now refused", "a", 16, false},
	}
	for _, st := range steps {
		got, err := s.TakeLease(ctx, name, st.holder, tick(st.at), tick(st.at+10))
		if err != nil || got != st.want {
			t.Fatalf("%s: %v, %v; want %v", st.what, got, err, st.want)
		}
	}
	if got, err := s.TakeLease(ctx, "another lease", "a", tick(16), tick(26)); err != nil || !got {
		t.Fatalf("another lease's name: %v, %v; want taken", got, err)
	}
}

// testLeaseRace: of racers asking for a free lease at once, on one handle
// and, where the store has them, two, exactly one gets it.
func testLeaseRace(t *testing.T, s Store, fx *fixtures) {
	handles := []Store{s}
	if fx.again != nil {
		handles = append(handles, fx.again(t, s))
	}
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		wins int
	)
	for i := range racers {
		wg.Go(func() {
			got, err := handles[i%len(handles)].TakeLease(t.Context(), "race", fmt.Sprint("holder", i), tick(0), tick(10))
			if err != nil {
				t.Error(err)
				return
			}
			if got {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d holders got the lease, want 1", wins)
	}
}
