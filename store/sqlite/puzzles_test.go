package sqlite

import (
	"reflect"
	"testing"

	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// TestPuzzleRowImmutable: the database itself refuses to change a stored
// puzzle, whatever statement tries; only the counters move.
func TestPuzzleRowImmutable(t *testing.T) {
	ctx := t.Context()
	s, _ := openTemp(t)
	date, err := gen.ParseDate("2026-02-17")
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.Daily(ctx, nil, date, 1) // version 1: no endgame table
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.AddPuzzle(ctx, p, t0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		update  string
		allowed bool
	}{
		{"position", "UPDATE puzzles SET position = 's-444444-444444-0-0'", false},
		{"date", "UPDATE puzzles SET date = '2026-02-18'", false},
		{"id", "UPDATE puzzles SET id = 'p20260218'", false},
		{"solution", "UPDATE puzzles SET solution = '[0]'", false},
		{"themes", "UPDATE puzzles SET themes = '[]'", false},
		{"version", "UPDATE puzzles SET version = version + 1", false},
		{"created_at", "UPDATE puzzles SET created_at = ''", false},
		{"counters", "UPDATE puzzles SET attempts = attempts + 2, solved = solved + 1", true},
	}
	want := stored
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.DB().ExecContext(ctx, tc.update)
			if tc.allowed != (err == nil) {
				t.Fatalf("%s: %v, want allowed %v", tc.update, err, tc.allowed)
			}
			if tc.allowed {
				want.Stats.Attempts += 2
				want.Stats.Solved++
			}
			got, err := s.PuzzleByDate(ctx, date)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("stored puzzle is now %+v, want %+v", got, want)
			}
		})
	}
}
