package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/puzzles"
)

// PuzzleStats counts what players did with a puzzle.
type PuzzleStats struct {
	Attempts int // attempts answered
	Solved   int // attempts that completed the solution
}

// StoredPuzzle is a puzzle as the feed serves it: verified on loading, with
// its counters.
type StoredPuzzle struct {
	Puzzle puzzles.Puzzle
	Stats  PuzzleStats
}

const puzzleColumns = `id, date, version, position, capture_seed, leftovers, goal, depth,
	prompt, themes, difficulty, key_legs, solution, attempts, solved`

// AddPuzzle stores p unless a puzzle for its date is already stored, and
// returns the stored one either way. Concurrent callers for one date all get
// the same row, the first to commit, and none gets an error. A puzzle that
// does not verify is refused.
func (s *Store) AddPuzzle(ctx context.Context, p puzzles.Puzzle) (StoredPuzzle, error) {
	if err := puzzles.Verify(p); err != nil {
		return StoredPuzzle{}, err
	}
	themes, err := json.Marshal(p.Themes)
	if err != nil {
		return StoredPuzzle{}, err
	}
	solution, err := json.Marshal(p.Solution)
	if err != nil {
		return StoredPuzzle{}, err
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO puzzles (id, date, version, position, capture_seed,
		leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT DO NOTHING`,
		p.ID, p.Date.Format(puzzles.DateLayout), p.Version, p.Position.String(),
		p.Rules.CaptureSeed.String(), p.Rules.Leftovers.String(), string(p.Goal), p.Depth,
		p.Prompt, string(themes), p.Difficulty, p.KeyLegs, string(solution),
		time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return StoredPuzzle{}, fmt.Errorf("store puzzle %s: %w", p.ID, err)
	}
	return s.PuzzleByDate(ctx, p.Date)
}

// PuzzleByDate returns the puzzle stored for date's UTC day, or ErrNotFound.
func (s *Store) PuzzleByDate(ctx context.Context, date time.Time) (StoredPuzzle, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+puzzleColumns+" FROM puzzles WHERE date = ?",
		puzzles.Day(date).Format(puzzles.DateLayout))
	return scanPuzzle(row)
}

// PuzzleByID returns the puzzle with id, or ErrNotFound.
func (s *Store) PuzzleByID(ctx context.Context, id string) (StoredPuzzle, error) {
	row := s.db.QueryRowContext(ctx, "SELECT "+puzzleColumns+" FROM puzzles WHERE id = ?", id)
	return scanPuzzle(row)
}

// PuzzlesBefore returns at most limit stored puzzles dated before date's UTC
// day, newest first.
func (s *Store) PuzzlesBefore(ctx context.Context, date time.Time, limit int) ([]StoredPuzzle, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT "+puzzleColumns+
		" FROM puzzles WHERE date < ? ORDER BY date DESC LIMIT ?",
		puzzles.Day(date).Format(puzzles.DateLayout), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []StoredPuzzle
	for rows.Next() {
		p, err := scanPuzzle(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// RecordPuzzleAttempt counts one attempt at puzzle id, and one solve if
// solved, and returns the new counts (ErrNotFound for an unknown id).
func (s *Store) RecordPuzzleAttempt(ctx context.Context, id string, solved bool) (PuzzleStats, error) {
	var st PuzzleStats
	add := 0
	if solved {
		add = 1
	}
	err := s.db.QueryRowContext(ctx, `UPDATE puzzles SET attempts = attempts + 1, solved = solved + ?
		WHERE id = ? RETURNING attempts, solved`, add, id).Scan(&st.Attempts, &st.Solved)
	if errors.Is(err, sql.ErrNoRows) {
		return st, fmt.Errorf("puzzle %s: %w", id, ErrNotFound)
	}
	return st, err
}

// scanPuzzle reads one row and proves the puzzle again (puzzles.Verify): a
// row that does not verify is an error wrapping puzzles.ErrUnverified (or
// ErrUnknownVersion), never served.
func scanPuzzle(row interface{ Scan(...any) error }) (StoredPuzzle, error) {
	var (
		sp                                 StoredPuzzle
		p                                  = &sp.Puzzle
		date, position, capSeed, leftovers string
		goal, themes, solution             string
	)
	err := row.Scan(&p.ID, &date, &p.Version, &position, &capSeed, &leftovers, &goal, &p.Depth,
		&p.Prompt, &themes, &p.Difficulty, &p.KeyLegs, &solution, &sp.Stats.Attempts, &sp.Stats.Solved)
	if errors.Is(err, sql.ErrNoRows) {
		return sp, ErrNotFound
	}
	if err != nil {
		return sp, err
	}
	corrupt := func(err error) (StoredPuzzle, error) {
		return StoredPuzzle{}, fmt.Errorf("%w: stored puzzle %s: %w", puzzles.ErrUnverified, p.ID, err)
	}
	if p.Date, err = puzzles.ParseDate(date); err != nil {
		return corrupt(err)
	}
	if p.Position, err = engine.Parse(position); err != nil {
		return corrupt(err)
	}
	if p.Rules, err = engine.ParseRules(capSeed, leftovers); err != nil {
		return corrupt(err)
	}
	p.Goal = puzzles.Goal(goal)
	if err := json.Unmarshal([]byte(themes), &p.Themes); err != nil {
		return corrupt(err)
	}
	if err := json.Unmarshal([]byte(solution), &p.Solution); err != nil {
		return corrupt(err)
	}
	if err := puzzles.Verify(*p); err != nil {
		return StoredPuzzle{}, err
	}
	return sp, nil
}
