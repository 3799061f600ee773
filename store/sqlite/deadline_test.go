package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// TestDeadlineQueriesUseIndexes: every instance asks for the next deadline
// about once a second and for the overdue games at each wake-up, and an
// idle server with 10,000 timed games must spend next to nothing on it; so
// both read the partial index games_deadline (NextDeadline the index
// alone), and retention finds the ended games through games_ended, never
// scanning the table.
func TestDeadlineQueriesUseIndexes(t *testing.T) {
	s, _ := openTemp(t)
	tests := []struct {
		name  string
		query string
		args  []any
		want  string
	}{
		{"NextDeadline", "SELECT deadline_us FROM games WHERE " + pendingGames + " ORDER BY deadline_us LIMIT 1", nil,
			"COVERING INDEX games_deadline"},
		{"Overdue", "SELECT " + gameColumns + " FROM games WHERE " + pendingGames +
			" AND deadline_us <= ? ORDER BY deadline_us LIMIT ?", []any{int64(1), 100}, "INDEX games_deadline"},
		{"DeleteEnded", `SELECT id FROM games WHERE status IN ('finished', 'aborted') AND updated_at < ?
			ORDER BY updated_at LIMIT ?`, []any{"2026", 50}, "INDEX games_ended"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := s.DB().QueryContext(t.Context(), "EXPLAIN QUERY PLAN "+tc.query, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var plan []string
			for rows.Next() {
				var id, parent, unused int
				var detail string
				if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
					t.Fatal(err)
				}
				plan = append(plan, detail)
			}
			text := strings.Join(plan, "; ")
			if !strings.Contains(text, tc.want) || strings.Contains(text, "SCAN games ") || strings.HasSuffix(text, "SCAN games") ||
				strings.Contains(text, "TEMP B-TREE") {
				t.Fatalf("plan %q, want a search of %s with no scan or sort", text, tc.want)
			}
		})
	}
}

// BenchmarkNextDeadline is the sweeper's look at a store of 10,000 timed
// games in play and as many ended ones.
func BenchmarkNextDeadline(b *testing.B) {
	s, _ := openTemp(b)
	ctx := b.Context()
	g := storetest.NewGame(b, s, "model", t0)
	// Copies of the model game, half of them ended, each with its deadline.
	_, err := s.DB().ExecContext(ctx, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
		INSERT INTO games (id, created_at, updated_at, capture_seed, leftovers, start, ply, position, history, status,
			winner, end_reason, south_token, version, time_kind, time_initial_us, deadline_us)
		SELECT 'g' || i, created_at, updated_at, capture_seed, leftovers, start, ply, position, history,
			CASE WHEN i % 2 = 0 THEN 'active' ELSE 'aborted' END, '', '', south_token, 1, 'live', 180000000,
			CASE WHEN i % 2 = 0 THEN ? + i * 1000000 END
		FROM games, n WHERE id = ?`, t0.UnixMicro(), g.ID)
	if err != nil {
		b.Fatal(err)
	}
	want := time.UnixMicro(t0.UnixMicro() + 2_000_000).UTC()
	for b.Loop() {
		if next, err := s.NextDeadline(ctx); err != nil || !next.Equal(want) {
			b.Fatalf("next deadline %v (%v), want %v", next, err, want)
		}
	}
}
