package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

var _ puzzles.StockStore = (*Store)(nil)

const stockColumns = `filter, bucket, seq, id, version, position, capture_seed, leftovers, goal, depth,
	prompt, themes, difficulty, key_legs, solution, created_at`

// AddStock implements puzzles.StockStore.
func (s *Store) AddStock(ctx context.Context, row puzzles.Stocked, at time.Time) (bool, error) {
	p := row.Puzzle
	themes, err := json.Marshal(p.Themes)
	if err != nil {
		return false, err
	}
	solution, err := json.Marshal(p.Solution)
	if err != nil {
		return false, err
	}
	var added bool
	err = s.write(ctx, func(ctx context.Context, r runner) error {
		res, err := r.exec(ctx, `INSERT INTO practice_stock (version, filter, bucket, seq, id, position,
			capture_seed, leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`,
			p.Version, row.Filter, row.Bucket, int64(row.Seq), p.ID, p.Position.String(),
			p.Rules.CaptureSeed.String(), p.Rules.Leftovers.String(), string(p.Goal), p.Depth,
			p.Prompt, string(themes), p.Difficulty, p.KeyLegs, string(solution), at.UnixMicro())
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		added = n > 0
		return err
	})
	if err != nil {
		return false, fmt.Errorf("stock practice puzzle %s: %w", p.ID, err)
	}
	return added, nil
}

// StockBucket implements puzzles.StockStore.
func (s *Store) StockBucket(ctx context.Context, version int, filter string, bucket int) ([]puzzles.Stocked, error) {
	out, err := s.stockRows(ctx, " AND bucket = ? ORDER BY seq", version, filter, bucket)
	return out, s.read(err)
}

// Stock implements puzzles.StockStore.
func (s *Store) Stock(ctx context.Context, version int, filter string) ([]puzzles.Stocked, error) {
	out, err := s.stockRows(ctx, " ORDER BY bucket, seq", version, filter)
	return out, s.read(err)
}

// StockedBuckets implements puzzles.StockStore.
func (s *Store) StockedBuckets(ctx context.Context, version int, filter string) (int, error) {
	var n int
	err := runner{s: s}.queryRow(ctx, "SELECT count(DISTINCT bucket) FROM practice_stock WHERE version = ? AND filter = ?",
		version, filter).Scan(&n)
	return n, s.read(err)
}

func (s *Store) stockRows(ctx context.Context, rest string, args ...any) ([]puzzles.Stocked, error) {
	rows, err := runner{s: s}.query(ctx, "SELECT "+stockColumns+
		" FROM practice_stock WHERE version = ? AND filter = ?"+rest, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []puzzles.Stocked{}
	for rows.Next() {
		var (
			st                                         puzzles.Stocked
			p                                          = &st.Puzzle
			seq, made                                  int64
			position, capSeed, leftovers, goal, themes string
			solution                                   string
		)
		if err := rows.Scan(&st.Filter, &st.Bucket, &seq, &p.ID, &p.Version, &position, &capSeed, &leftovers,
			&goal, &p.Depth, &p.Prompt, &themes, &p.Difficulty, &p.KeyLegs, &solution, &made); err != nil {
			return nil, err
		}
		st.Seq, st.Made = uint64(seq), time.UnixMicro(made).UTC()
		if err := decodeUndated(p, position, capSeed, leftovers, goal, themes, solution); err != nil {
			return nil, stored.Undecodable("practice puzzle "+p.ID, err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// TakeLease implements puzzles.StockStore: one upsert whose update is
// conditional, so of two instances asking at once only one gets a row back.
func (s *Store) TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var mine bool
	err := s.write(ctx, func(ctx context.Context, r runner) error {
		var got string
		err := r.queryRow(ctx, `INSERT INTO leases (name, holder, until_us) VALUES (?, ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until_us = excluded.until_us
			WHERE leases.holder = excluded.holder OR leases.until_us <= ?
			RETURNING holder`, name, holder, until.UnixMicro(), now.UnixMicro()).Scan(&got)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		mine = err == nil && got == holder
		return err
	})
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, err)
	}
	return mine, nil
}
