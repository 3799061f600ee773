package memory

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
)

// stock is the practice stock: rows by version and filter, and the leases.
type stock struct {
	mu     sync.Mutex
	rows   map[stockKey][]puzzles.Stocked // by bucket then seq
	leases map[string]lease
}

type stockKey struct {
	version int
	filter  string
}

type lease struct {
	holder string
	until  time.Time
}

// copyStocked returns s with its own slices.
func copyStocked(s puzzles.Stocked) puzzles.Stocked {
	s.Puzzle.Themes = slices.Clone(s.Puzzle.Themes)
	s.Puzzle.Solution = slices.Clone(s.Puzzle.Solution)
	return s
}

func copyAll(rows []puzzles.Stocked) []puzzles.Stocked {
	out := make([]puzzles.Stocked, 0, len(rows))
	for _, r := range rows {
		out = append(out, copyStocked(r))
	}
	return out
}

// AddStock implements puzzles.StockStore.
func (s *Store) AddStock(ctx context.Context, row puzzles.Stocked, at time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	st := &s.stock
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.rows == nil {
		st.rows = map[stockKey][]puzzles.Stocked{}
	}
	k := stockKey{row.Puzzle.Version, row.Filter}
	order := func(a puzzles.Stocked, b puzzles.Stocked) int {
		return cmp.Or(cmp.Compare(a.Bucket, b.Bucket), cmp.Compare(a.Seq, b.Seq))
	}
	i, found := slices.BinarySearchFunc(st.rows[k], row, order)
	if found {
		return false, nil
	}
	row.Made = at
	st.rows[k] = slices.Insert(st.rows[k], i, copyStocked(row))
	return true, nil
}

// StockBucket implements puzzles.StockStore.
func (s *Store) StockBucket(ctx context.Context, version int, filter string, bucket int) ([]puzzles.Stocked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st := &s.stock
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []puzzles.Stocked
	for _, r := range st.rows[stockKey{version, filter}] {
		if r.Bucket == bucket {
			out = append(out, copyStocked(r))
		}
	}
	return out, nil
}

// StockedBuckets implements puzzles.StockStore.
func (s *Store) StockedBuckets(ctx context.Context, version int, filter string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.stock.mu.Lock()
	defer s.stock.mu.Unlock()
	buckets := map[int]bool{}
	for _, r := range s.stock.rows[stockKey{version, filter}] {
		buckets[r.Bucket] = true
	}
	return len(buckets), nil
}

// Stock implements puzzles.StockStore.
func (s *Store) Stock(ctx context.Context, version int, filter string) ([]puzzles.Stocked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.stock.mu.Lock()
	defer s.stock.mu.Unlock()
	return copyAll(s.stock.rows[stockKey{version, filter}]), nil
}

// TakeLease implements puzzles.StockStore.
func (s *Store) TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	st := &s.stock
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.leases == nil {
		st.leases = map[string]lease{}
	}
	if l, ok := st.leases[name]; ok && l.holder != holder && l.until.After(now) {
		return false, nil
	}
	st.leases[name] = lease{holder: holder, until: until}
	return true, nil
}
