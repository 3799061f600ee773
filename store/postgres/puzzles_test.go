package postgres

import (
	"errors"
	"reflect"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// somePuzzle is a puzzle for day as far as a store is concerned: stores
// keep what they are given and prove nothing.
func somePuzzle(t *testing.T, day string) gen.Puzzle {
	t.Helper()
	d, err := gen.ParseDate(day)
	if err != nil {
		t.Fatal(err)
	}
	return gen.Puzzle{ID: gen.IDFor(d), Date: d, Version: 3, Position: engine.Start(),
		Rules: engine.Rules{Leftovers: engine.LeftoversSideOwner}, Goal: gen.GoalWin, Depth: 2,
		Prompt: "South to win in 2", Themes: []string{"relay", "ẹ̀kọ́"}, Difficulty: 4, KeyLegs: 3,
		Solution: []int{4, 9, 0}}
}

// TestPuzzleRoundTripAndRace: a puzzle comes back as it went in, and of
// different puzzles added for one day from several instances at once, all
// callers get the first.
func TestPuzzleRoundTripAndRace(t *testing.T) {
	ctx := t.Context()
	dsn := freshSchema(t)
	stores := []*Store{openOn(t, dsn, Options{}), openOn(t, dsn, Options{})}
	p := somePuzzle(t, "2026-02-15")
	got, err := stores[0].AddPuzzle(ctx, p, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, puzzles.Stored{Puzzle: p}) {
		t.Fatalf("AddPuzzle answered\n%+v\nwant\n%+v", got, puzzles.Stored{Puzzle: p})
	}

	const racers = 16
	answers := make([]puzzles.Stored, racers)
	errs := make([]error, racers)
	var wg sync.WaitGroup
	for i := range racers {
		q := somePuzzle(t, "2026-02-16")
		q.Version = i
		wg.Go(func() { answers[i], errs[i] = stores[i%2].AddPuzzle(ctx, q, t0) })
	}
	wg.Wait()
	for i := range racers {
		if errs[i] != nil {
			t.Fatalf("racer %d: %v", i, errs[i])
		}
		if !reflect.DeepEqual(answers[i], answers[0]) {
			t.Fatalf("racers 0 and %d were answered different puzzles: versions %d and %d",
				i, answers[0].Puzzle.Version, answers[i].Puzzle.Version)
		}
	}
	before, err := stores[1].PuzzlesBefore(ctx, p.Date.AddDate(0, 0, 2), 10)
	if err != nil || len(before) != 2 || before[0].Puzzle.ID != "p20260216" || before[1].Puzzle.ID != p.ID {
		t.Fatalf("PuzzlesBefore: %+v (%v)", before, err)
	}
	if _, err := stores[1].RecordAttempt(ctx, "p20990101", false); !errors.Is(err, puzzles.ErrNotFound) {
		t.Fatalf("RecordAttempt of an unknown id: %v, want puzzles.ErrNotFound", err)
	}
}

// TestStoredPuzzleNeverChanges: the database refuses to change a stored
// puzzle, whoever asks, and lets the counters move.
func TestStoredPuzzleNeverChanges(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)
	p := somePuzzle(t, "2026-03-01")
	if _, err := s.AddPuzzle(ctx, p, t0); err != nil {
		t.Fatal(err)
	}
	refused := []string{
		"prompt = 'easier'",
		"version = version + 1",
		"themes = themes || 'new'::text",
		"solution[1] = 5",
		"date = date + 1",
		"created_at = now()",
		"attempts = attempts + 1, depth = 3", // a counter and more
	}
	for _, set := range refused {
		_, err := s.Pool().Exec(ctx, "UPDATE puzzles SET "+set+" WHERE id = $1", p.ID)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "23000" {
			t.Fatalf("SET %s: %v, want the trigger's integrity_constraint_violation", set, err)
		}
	}
	if _, err := s.Pool().Exec(ctx, "UPDATE puzzles SET attempts = attempts + 2, solved = solved + 1 WHERE id = $1", p.ID); err != nil {
		t.Fatalf("the counters: %v", err)
	}
	got, err := s.PuzzleByDate(ctx, p.Date)
	if err != nil {
		t.Fatal(err)
	}
	if want := (puzzles.Stored{Puzzle: p, Stats: puzzles.Stats{Attempts: 2, Solved: 1}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("after the updates\n%+v\nwant\n%+v", got, want)
	}
}

// TestUndecodablePuzzle: a stored puzzle that does not decode is an error
// that wraps nothing (the trigger must be lifted to make one).
func TestUndecodablePuzzle(t *testing.T) {
	ctx := t.Context()
	s := openFresh(t)
	p := somePuzzle(t, "2026-03-02")
	if _, err := s.AddPuzzle(ctx, p, t0); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE puzzles DISABLE TRIGGER puzzles_immutable",
		"UPDATE puzzles SET position = 'not a position'",
		"ALTER TABLE puzzles ENABLE TRIGGER puzzles_immutable",
	} {
		if _, err := s.Pool().Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.PuzzleByDate(ctx, p.Date)
	if err == nil || errors.Unwrap(err) != nil || errors.Is(err, engine.ErrInvalidNotation) || errors.Is(err, puzzles.ErrNotFound) {
		t.Fatalf("reading the corrupt puzzle: %v, want an error that wraps nothing", err)
	}
}
