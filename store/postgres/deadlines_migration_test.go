package postgres

import (
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// TestOldGamesGetDeadlines: migration 0004 gives the waiting and active
// games of a database from before time existed the deadlines the default
// expiries would have, and leaves ended games and dated ones alone. The
// database is made at migration 3 and migrated from there at Open, as an
// old one would be.
func TestOldGamesGetDeadlines(t *testing.T) {
	dsn := freshSchema(t)
	ctx := t.Context()
	created := time.Date(2026, 2, 3, 4, 0, 0, 1000, time.UTC)
	updated := time.Date(2026, 2, 3, 4, 5, 6, 789012000, time.UTC)
	dated := updated.Add(time.Hour)
	tests := []struct {
		id       string
		status   games.Status
		result   engine.Result
		deadline time.Time // before the migration
		want     time.Time
	}{
		{"waiting", games.Waiting, engine.Result{}, time.Time{}, created.Add(games.DefaultWaitingExpiry)},
		{"active", games.Active, engine.Result{}, time.Time{}, updated.Add(games.DefaultIdleExpiry)},
		{"dated", games.Active, engine.Result{}, dated, dated},
		{"resigned", games.Finished, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, time.Time{}, time.Time{}},
	}
	conn := schemaAt(t, dsn, 3)
	defer conn.Close(ctx)
	start := engine.Start().String()
	for _, tc := range tests {
		var north []byte
		if tc.status != games.Waiting {
			north = hashOf(tc.id + "-north")
		}
		var deadline *time.Time
		if !tc.deadline.IsZero() {
			deadline = &tc.deadline
		}
		_, err := conn.Exec(ctx, `INSERT INTO games (id, created_at, updated_at, capture_seed, leftovers, start, ply,
				position, history, status, winner, end_reason, south_token, north_token, version, deadline)
			VALUES ($1, $2, $3, 'taken', 'last_mover', $4, 0, $4, '', $5, $6, $7, $8, $9, 1, $10)`,
			tc.id, created, updated, start, string(tc.status), tc.result.Winner.String(), tc.result.Reason.String(),
			hashOf(tc.id), north, deadline)
		if err != nil {
			t.Fatalf("game %s: %v", tc.id, err)
		}
	}
	conn.Close(ctx)

	s := openOn(t, dsn, Options{})
	for _, tc := range tests {
		g, err := s.Game(ctx, tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if !g.Deadline.Equal(tc.want) {
			t.Errorf("game %s: deadline %v, want %v", tc.id, g.Deadline, tc.want)
		}
	}
}
