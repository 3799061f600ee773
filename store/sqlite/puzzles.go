package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

const puzzleColumns = `id, date, version, position, capture_seed, leftovers, goal, depth,
	prompt, themes, difficulty, key_legs, solution, attempts, solved`

// AddPuzzle implements puzzles.Store: the insert does nothing when the
// date has its row, so concurrent callers all read back the first.
func (s *Store) AddPuzzle(ctx context.Context, p gen.Puzzle, at time.Time) (puzzles.Stored, error) {
	themes, err := json.Marshal(p.Themes)
	if err != nil {
		return puzzles.Stored{}, err
	}
	solution, err := json.Marshal(p.Solution)
	if err != nil {
		return puzzles.Stored{}, err
	}
	err = s.write(ctx, func(ctx context.Context, r runner) error {
		_, err := r.exec(ctx, `INSERT INTO puzzles (id, date, version, position, capture_seed,
			leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`,
			p.ID, gen.Day(p.Date).Format(gen.DateLayout), p.Version, p.Position.String(),
			p.Rules.CaptureSeed.String(), p.Rules.Leftovers.String(), string(p.Goal), p.Depth,
			p.Prompt, string(themes), p.Difficulty, p.KeyLegs, string(solution), formatTime(at))
		return err
	})
	if err != nil {
		return puzzles.Stored{}, fmt.Errorf("store puzzle %s: %w", p.ID, err)
	}
	return s.PuzzleByDate(ctx, p.Date)
}

// PuzzleByDate implements puzzles.Store.
func (s *Store) PuzzleByDate(ctx context.Context, date time.Time) (puzzles.Stored, error) {
	row := runner{s: s}.queryRow(ctx, "SELECT "+puzzleColumns+" FROM puzzles WHERE date = ?",
		gen.Day(date).Format(gen.DateLayout))
	sp, err := scanPuzzle(row)
	return sp, s.read(err)
}

// PuzzlesBefore implements puzzles.Store.
func (s *Store) PuzzlesBefore(ctx context.Context, date time.Time, limit int) ([]puzzles.Stored, error) {
	out, err := s.puzzlesBefore(ctx, date, limit)
	return out, s.read(err)
}

func (s *Store) puzzlesBefore(ctx context.Context, date time.Time, limit int) ([]puzzles.Stored, error) {
	rows, err := runner{s: s}.query(ctx, "SELECT "+puzzleColumns+
		" FROM puzzles WHERE date < ? ORDER BY date DESC LIMIT ?",
		gen.Day(date).Format(gen.DateLayout), max(limit, 0))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return stored.Collect(rows, scanPuzzle)
}

// RecordAttempt implements puzzles.Store.
func (s *Store) RecordAttempt(ctx context.Context, id string, solved bool) (puzzles.Stats, error) {
	var st puzzles.Stats
	add := 0
	if solved {
		add = 1
	}
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		err := r.queryRow(ctx, `UPDATE puzzles SET attempts = attempts + 1, solved = solved + ?
			WHERE id = ? RETURNING attempts, solved`, add, id).Scan(&st.Attempts, &st.Solved)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("puzzle %s: %w", id, puzzles.ErrNotFound)
		}
		return err
	})
	return st, err
}

// scanPuzzle reads one row. The feed proves the puzzle again before serving
// it; a row that does not even decode is the server's fault.
func scanPuzzle(row stored.Scanner) (puzzles.Stored, error) {
	var (
		sp                                 puzzles.Stored
		p                                  = &sp.Puzzle
		date, position, capSeed, leftovers string
		goal, themes, solution             string
	)
	err := row.Scan(&p.ID, &date, &p.Version, &position, &capSeed, &leftovers, &goal, &p.Depth,
		&p.Prompt, &themes, &p.Difficulty, &p.KeyLegs, &solution, &sp.Stats.Attempts, &sp.Stats.Solved)
	if errors.Is(err, sql.ErrNoRows) {
		return sp, puzzles.ErrNotFound
	}
	if err != nil {
		return sp, err
	}
	if err := decodePuzzle(p, date, position, capSeed, leftovers, goal, themes, solution); err != nil {
		return puzzles.Stored{}, stored.Undecodable("puzzle "+p.ID, err)
	}
	return sp, nil
}

func decodePuzzle(p *gen.Puzzle, date, position, capSeed, leftovers, goal, themes, solution string) error {
	var err error
	if p.Date, err = gen.ParseDate(date); err != nil {
		return err
	}
	return decodeUndated(p, position, capSeed, leftovers, goal, themes, solution)
}

// decodeUndated reads what a daily row and a practice stock row share:
// every column but the date, themes and solution as SQLite keeps them (JSON
// text).
func decodeUndated(p *gen.Puzzle, position, capSeed, leftovers, goal, themes, solution string) error {
	if err := stored.DecodePuzzle(p, position, capSeed, leftovers, goal); err != nil {
		return err
	}
	return errors.Join(json.Unmarshal([]byte(themes), &p.Themes), json.Unmarshal([]byte(solution), &p.Solution))
}
