package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
)

func openTemp(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func genPuzzle(t *testing.T, date string) puzzles.Puzzle {
	t.Helper()
	d, err := puzzles.ParseDate(date)
	if err != nil {
		t.Fatal(err)
	}
	p, err := puzzles.Generate(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPuzzleSameInTwoFreshDatabases: the feed needs no coordination; two
// servers with their own databases serve the same puzzle for a date.
func TestPuzzleSameInTwoFreshDatabases(t *testing.T) {
	ctx := context.Background()
	var got [2]StoredPuzzle
	for i := range got {
		s := openTemp(t)
		var err error
		if got[i], err = s.AddPuzzle(ctx, genPuzzle(t, "2026-02-15")); err != nil {
			t.Fatal(err)
		}
		back, err := s.PuzzleByID(ctx, got[i].Puzzle.ID)
		if err != nil || !reflect.DeepEqual(back, got[i]) {
			t.Fatalf("PuzzleByID = %+v, %v; want %+v", back, err, got[i])
		}
	}
	if !reflect.DeepEqual(got[0], got[1]) {
		t.Fatalf("two databases hold different puzzles:\n%+v\n%+v", got[0], got[1])
	}
	if want := genPuzzle(t, "2026-02-15"); !reflect.DeepEqual(got[0].Puzzle, want) {
		t.Fatalf("stored %+v, generated %+v", got[0].Puzzle, want)
	}
}

func TestPuzzleFirstWriterWinsConcurrently(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	p := genPuzzle(t, "2026-02-16")
	const n = 8
	var wg sync.WaitGroup
	results := make([]StoredPuzzle, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i], errs[i] = s.AddPuzzle(ctx, p) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || !reflect.DeepEqual(results[i].Puzzle, p) {
			t.Fatalf("caller %d: %+v, %v", i, results[i], errs[i])
		}
	}
	var rows int
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM puzzles").Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d rows (%v), want 1", rows, err)
	}
}

func TestStoredPuzzleNeverChanges(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	p := genPuzzle(t, "2026-02-17")
	if _, err := s.AddPuzzle(ctx, p); err != nil {
		t.Fatal(err)
	}
	// Another valid puzzle for the date (as a later generator would make)
	// changes nothing. A puzzle from 366 days later shares the date's
	// no-repeat bucket, so moved to the date it verifies.
	other := genPuzzle(t, p.Date.AddDate(0, 0, 366).Format(puzzles.DateLayout))
	other.Date, other.ID = p.Date, p.ID
	if err := puzzles.Verify(other); err != nil || reflect.DeepEqual(other, p) {
		t.Fatalf("no other puzzle to try: %v", err)
	}
	got, err := s.AddPuzzle(ctx, other)
	if err != nil || !reflect.DeepEqual(got.Puzzle, p) {
		t.Fatalf("second AddPuzzle = %+v, %v; want the first puzzle", got.Puzzle, err)
	}
	if _, err := s.DB().ExecContext(ctx, "UPDATE puzzles SET position = 's-444444-444444-0-0'"); err == nil {
		t.Fatal("the database let a stored puzzle change")
	}
}

func TestPuzzleLookupsAndCounters(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	first, _ := puzzles.ParseDate("2026-03-01")
	for i := range 5 {
		if _, err := s.AddPuzzle(ctx, genPuzzle(t, first.AddDate(0, 0, i).Format(puzzles.DateLayout))); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("by date", func(t *testing.T) {
		p, err := s.PuzzleByDate(ctx, first.AddDate(0, 0, 2).Add(13*time.Hour))
		if err != nil || p.Puzzle.ID != "p20260303" {
			t.Fatalf("PuzzleByDate = %s, %v", p.Puzzle.ID, err)
		}
		if _, err := s.PuzzleByDate(ctx, first.AddDate(0, 0, 9)); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing date: %v, want ErrNotFound", err)
		}
		if _, err := s.PuzzleByID(ctx, "p20990101"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("missing id: %v, want ErrNotFound", err)
		}
	})
	t.Run("before, newest first", func(t *testing.T) {
		tests := []struct {
			before string
			limit  int
			want   []string
		}{
			{"2026-03-05", 2, []string{"p20260304", "p20260303"}},
			{"2026-03-02", 10, []string{"p20260301"}},
			{"2026-03-01", 10, nil},
			{"2027-01-01", 10, []string{"p20260305", "p20260304", "p20260303", "p20260302", "p20260301"}},
		}
		for _, tt := range tests {
			d, _ := puzzles.ParseDate(tt.before)
			ps, err := s.PuzzlesBefore(ctx, d, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range ps {
				ids = append(ids, p.Puzzle.ID)
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("before %s limit %d: %v, want %v", tt.before, tt.limit, ids, tt.want)
			}
		}
	})
	t.Run("counters", func(t *testing.T) {
		for _, solved := range []bool{false, true, false} {
			if _, err := s.RecordPuzzleAttempt(ctx, "p20260302", solved); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.PuzzleByID(ctx, "p20260302")
		if err != nil || p.Stats != (PuzzleStats{Attempts: 3, Solved: 1}) {
			t.Fatalf("stats %+v, %v; want 3 attempts, 1 solved", p.Stats, err)
		}
		if _, err := s.RecordPuzzleAttempt(ctx, "p20990101", true); !errors.Is(err, ErrNotFound) {
			t.Fatalf("unknown id: %v, want ErrNotFound", err)
		}
	})
}

// TestCorruptPuzzleIsNeverServed: a row whose solution does not verify (a bad
// restore, a hand edit) is refused on every load path.
func TestCorruptPuzzleIsNeverServed(t *testing.T) {
	ctx := context.Background()
	s := openTemp(t)
	p := genPuzzle(t, "2026-02-19")
	bad := p
	bad.KeyLegs++
	if _, err := s.AddPuzzle(ctx, bad); !errors.Is(err, puzzles.ErrUnverified) {
		t.Fatalf("AddPuzzle of a bad puzzle: %v, want ErrUnverified", err)
	}
	if _, err := s.PuzzleByID(ctx, p.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a refused puzzle was stored: %v", err)
	}
	if _, err := s.AddPuzzle(ctx, p); err != nil {
		t.Fatal(err)
	}
	// The trigger keeps the content; drop it to corrupt the row as a bad
	// restore would.
	if _, err := s.DB().ExecContext(ctx, "DROP TRIGGER puzzles_immutable"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, "UPDATE puzzles SET key_legs = key_legs + 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PuzzleByID(ctx, p.ID); !errors.Is(err, puzzles.ErrUnverified) {
		t.Fatalf("PuzzleByID: %v, want ErrUnverified", err)
	}
	if _, err := s.PuzzleByDate(ctx, p.Date); !errors.Is(err, puzzles.ErrUnverified) {
		t.Fatalf("PuzzleByDate: %v, want ErrUnverified", err)
	}
	if _, err := s.PuzzlesBefore(ctx, p.Date.AddDate(0, 0, 1), 5); !errors.Is(err, puzzles.ErrUnverified) {
		t.Fatalf("PuzzlesBefore: %v, want ErrUnverified", err)
	}
	if _, err := s.DB().ExecContext(ctx, "DELETE FROM puzzles"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO puzzles (id, date, version, position, capture_seed,
		leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
		VALUES ('p20260219', '2026-02-19', 1, 'not a position', 'taken', 'last_mover', 'win', 1, '', '[]', 1, 8, '[0]', '')`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PuzzleByID(ctx, "p20260219"); !errors.Is(err, puzzles.ErrUnverified) {
		t.Fatalf("PuzzleByID of a mangled row: %v, want ErrUnverified", err)
	}
}
