package postgres

import (
	"context"
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
	themes, solution := arrays(p)
	tag, err := s.pool.Exec(ctx, `INSERT INTO practice_stock (version, filter, bucket, seq, id, position,
			capture_seed, leftovers, goal, depth, prompt, themes, difficulty, key_legs, solution, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		ON CONFLICT DO NOTHING`,
		p.Version, row.Filter, row.Bucket, int64(row.Seq), p.ID, p.Position.String(),
		p.Rules.CaptureSeed.String(), p.Rules.Leftovers.String(), string(p.Goal), p.Depth, p.Prompt,
		themes, p.Difficulty, p.KeyLegs, solution, stamp(at))
	if err != nil {
		return false, fmt.Errorf("stock practice puzzle %s: %w", p.ID, s.wrote(err))
	}
	return tag.RowsAffected() > 0, nil
}

// StockBucket implements puzzles.StockStore.
func (s *Store) StockBucket(ctx context.Context, version int, filter string, bucket int) ([]puzzles.Stocked, error) {
	out, err := s.stockRows(ctx, " AND bucket = $3 ORDER BY seq", version, filter, bucket)
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
	err := s.pool.QueryRow(ctx, "SELECT count(DISTINCT bucket) FROM practice_stock WHERE version = $1 AND filter = $2",
		version, filter).Scan(&n)
	return n, s.read(err)
}

func (s *Store) stockRows(ctx context.Context, rest string, args ...any) ([]puzzles.Stocked, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+stockColumns+
		" FROM practice_stock WHERE version = $1 AND filter = $2"+rest, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []puzzles.Stocked{}
	for rows.Next() {
		var (
			st                                 puzzles.Stocked
			p                                  = &st.Puzzle
			seq                                int64
			position, capSeed, leftovers, goal string
		)
		if err := rows.Scan(&st.Filter, &st.Bucket, &seq, &p.ID, &p.Version, &position, &capSeed, &leftovers,
			&goal, &p.Depth, &p.Prompt, &p.Themes, &p.Difficulty, &p.KeyLegs, &p.Solution, &st.Made); err != nil {
			return nil, err
		}
		st.Seq, st.Made = uint64(seq), st.Made.UTC()
		if err := decodePuzzle(p, position, capSeed, leftovers, goal); err != nil { // no date: stays zero
			return nil, stored.Undecodable("practice puzzle "+p.ID, err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// TakeLease implements puzzles.StockStore: one upsert whose update is
// conditional; the row lock orders instances asking at once, and only the
// one whose write happened gets a row back.
func (s *Store) TakeLease(ctx context.Context, name, holder string, now, until time.Time) (bool, error) {
	var got string
	err := s.pool.QueryRow(ctx, `INSERT INTO leases (name, holder, until) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
		WHERE leases.holder = excluded.holder OR leases.until <= $4
		RETURNING holder`, name, holder, stamp(until), stamp(now)).Scan(&got)
	if noRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("lease %s: %w", name, s.wrote(err))
	}
	return got == holder, nil
}
