package postgres

import (
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// TestOldGamesGetDeadlines: migration 0004 gives the waiting and active
// games of a database from before time existed the deadlines the default
// expiries would have, and leaves ended games and dated ones alone.
func TestOldGamesGetDeadlines(t *testing.T) {
	s := openFresh(t)
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
	for _, tc := range tests {
		g := games.Game{ID: tc.id, CreatedAt: created, UpdatedAt: updated, Start: engine.Start(), Position: engine.Start(),
			Status: tc.status, Result: tc.result, Version: 1, Deadline: tc.deadline}
		g.Tokens[engine.South] = hashOf(tc.id)
		if tc.status != games.Waiting {
			g.Tokens[engine.North] = hashOf(tc.id + "-north")
			g.JoinedAt = created
		}
		if err := s.CreateGame(ctx, g, nil); err != nil {
			t.Fatal(err)
		}
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var script string
	for _, m := range ms {
		if strings.Contains(m.Name, "old_game_deadlines") {
			script = m.SQL
		}
	}
	if script == "" {
		t.Fatal("no old_game_deadlines migration")
	}
	if _, err := s.pool.Exec(ctx, script); err != nil {
		t.Fatal(err)
	}
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
