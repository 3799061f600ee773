package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

const puzzleColumns = `id, date, version, position, capture_seed, leftovers, goal, depth,
	prompt, themes, difficulty, key_legs, solution, attempts, solved`

// AddPuzzle implements puzzles.Store. The insert does nothing when the date
// (or the id) has its row, after waiting for a competing insert to commit or
// roll back; the read that follows is a statement of its own, so under READ
// COMMITTED it sees whichever row was committed first.
func (s *Store) AddPuzzle(ctx context.Context, p gen.Puzzle, at time.Time) (puzzles.Stored, error) {
	themes, solution := arrays(p)
	_, err := s.pool.Exec(ctx, `INSERT INTO puzzles (id, date, version, position, capture_seed,
			leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		ON CONFLICT DO NOTHING`,
		p.ID, gen.Day(p.Date), p.Version, p.Position.String(), p.Rules.CaptureSeed.String(),
		p.Rules.Leftovers.String(), string(p.Goal), p.Depth, p.Prompt, themes, p.Difficulty, p.KeyLegs,
		solution, stamp(at))
	if err != nil {
		return puzzles.Stored{}, fmt.Errorf("store puzzle %s: %w", p.ID, s.wrote(err))
	}
	return s.PuzzleByDate(ctx, p.Date)
}

// arrays returns p's themes and solution as their columns take them:
// arrays, empty rather than NULL (a nil slice would be NULL), the solution's
// pits as smallints.
func arrays(p gen.Puzzle) (themes []string, solution []int16) {
	themes = p.Themes
	if themes == nil {
		themes = []string{}
	}
	solution = make([]int16, len(p.Solution))
	for i, pit := range p.Solution {
		solution[i] = int16(pit)
	}
	return themes, solution
}

// PuzzleByDate implements puzzles.Store.
func (s *Store) PuzzleByDate(ctx context.Context, date time.Time) (puzzles.Stored, error) {
	sp, err := scanPuzzle(s.pool.QueryRow(ctx, "SELECT "+puzzleColumns+" FROM puzzles WHERE date = $1",
		gen.Day(date)))
	if noRows(err) {
		return puzzles.Stored{}, puzzles.ErrNotFound
	}
	return sp, s.read(err)
}

// PuzzlesBefore implements puzzles.Store.
func (s *Store) PuzzlesBefore(ctx context.Context, date time.Time, limit int) ([]puzzles.Stored, error) {
	out, err := s.puzzlesBefore(ctx, date, limit)
	return out, s.read(err)
}

func (s *Store) puzzlesBefore(ctx context.Context, date time.Time, limit int) ([]puzzles.Stored, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+puzzleColumns+" FROM puzzles WHERE date < $1 ORDER BY date DESC LIMIT $2",
		gen.Day(date), max(limit, 0))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return stored.Collect(rows, scanPuzzle)
}

// RecordAttempt implements puzzles.Store. The row lock the UPDATE takes
// orders concurrent attempts, so each is told a different count.
func (s *Store) RecordAttempt(ctx context.Context, id string, solved bool) (puzzles.Stats, error) {
	var st puzzles.Stats
	add := 0
	if solved {
		add = 1
	}
	err := s.pool.QueryRow(ctx, `UPDATE puzzles SET attempts = attempts + 1, solved = solved + $2
		WHERE id = $1 RETURNING attempts, solved`, id, add).Scan(&st.Attempts, &st.Solved)
	if noRows(err) {
		return puzzles.Stats{}, fmt.Errorf("puzzle %s: %w", id, puzzles.ErrNotFound)
	}
	return st, s.wrote(err)
}

// scanPuzzle reads one row; pgx.ErrNoRows when there is none. The feed
// proves the puzzle again before serving it; a row that does not even decode
// is the server's fault.
func scanPuzzle(row stored.Scanner) (puzzles.Stored, error) {
	var (
		sp                           puzzles.Stored
		p                            = &sp.Puzzle
		position, capSeed, leftovers string
		goal                         string
	)
	err := row.Scan(&p.ID, &p.Date, &p.Version, &position, &capSeed, &leftovers, &goal, &p.Depth,
		&p.Prompt, &p.Themes, &p.Difficulty, &p.KeyLegs, &p.Solution, &sp.Stats.Attempts, &sp.Stats.Solved)
	if err != nil {
		return puzzles.Stored{}, err
	}
	if err := decodePuzzle(p, position, capSeed, leftovers, goal); err != nil {
		return puzzles.Stored{}, stored.Undecodable("puzzle "+p.ID, err)
	}
	return sp, nil
}

func decodePuzzle(p *gen.Puzzle, position, capSeed, leftovers, goal string) error {
	// A date column carries no zone; pgx reads it as midnight UTC, the
	// feed's days. Say so rather than rely on it.
	p.Date = time.Date(p.Date.Year(), p.Date.Month(), p.Date.Day(), 0, 0, 0, 0, time.UTC)
	if err := stored.DecodePuzzle(p, position, capSeed, leftovers, goal); err != nil {
		return err
	}
	if len(p.Themes) == 0 {
		p.Themes = nil // as the generator leaves a puzzle without themes
	}
	return nil
}
