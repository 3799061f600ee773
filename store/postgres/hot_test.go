package postgres

import (
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// endedAt is the ended_at column of game id: zero while NULL.
func endedAt(t *testing.T, s *Store, id string) time.Time {
	t.Helper()
	var at *time.Time
	if err := s.pool.QueryRow(t.Context(), "SELECT ended_at FROM games WHERE id = $1", id).Scan(&at); err != nil {
		t.Fatalf("ended_at of %s: %v", id, err)
	}
	if at == nil {
		return time.Time{}
	}
	return at.UTC()
}

// firstPit is the first legal pit of g's position.
func firstPit(g games.Game) int {
	legal := g.Position.LegalMoves(g.Rules)
	return legal.Next()
}

// TestEndedAtSetByTheEnd: ended_at (migration 20), the key of the indexes
// of ended games, is the moment a game ended, whichever statement ended
// it (a play of the committer's batch, a resignation, an end by the
// clock or an abort, a game stored already ended), and NULL while a game
// waits or is under way; the database refuses a row where the two
// disagree.
func TestEndedAtSetByTheEnd(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	at := t0.Add(time.Hour)
	tests := []struct {
		name  string
		setup func(t *testing.T, id string) games.Game
		ended bool
	}{
		{"waiting", func(t *testing.T, id string) games.Game { return newGame(t, s, id) }, false},
		{"under way", func(t *testing.T, id string) games.Game {
			g := joinedGame(t, s, id)
			p := playOn(t, g, firstPit(g), seatToken(g), at)
			if err := s.ApplyPlay(ctx, p); err != nil {
				t.Fatal(err)
			}
			return p.Game
		}, false},
		{"ended by a play", func(t *testing.T, id string) games.Game {
			g := joinedGame(t, s, id)
			for ply := 0; g.Status == games.Active; ply++ {
				if ply == 1000 {
					t.Fatal("no end in 1,000 plies")
				}
				at = at.Add(time.Second)
				p := playOn(t, g, firstPit(g), seatToken(g), at)
				if err := s.ApplyPlay(ctx, p); err != nil {
					t.Fatal(err)
				}
				g = p.Game
			}
			return g
		}, true},
		{"resigned", func(t *testing.T, id string) games.Game {
			g := joinedGame(t, s, id)
			g, err := s.Resign(ctx, g.ID, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, at, nil)
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, true},
		{"aborted", func(t *testing.T, id string) games.Game {
			g := newGame(t, s, id)
			g, err := s.End(ctx, games.End{ID: id, Version: g.Version, Status: games.Aborted, Clock: g.Clock, At: at})
			if err != nil {
				t.Fatal(err)
			}
			return g
		}, true},
		{"stored ended", func(t *testing.T, id string) games.Game {
			g := joinedGame(t, s, "source-"+id)
			g.ID, g.Status, g.Result, g.UpdatedAt = id, games.Finished, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}, at
			if err := s.CreateGame(ctx, g, nil); err != nil {
				t.Fatal(err)
			}
			return g
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.setup(t, tc.name)
			want := time.Time{}
			if tc.ended {
				want = micro(g.UpdatedAt)
			}
			if got := endedAt(t, s, g.ID); !got.Equal(want) {
				t.Errorf("ended_at %v, want %v (status %s)", got, want, g.Status)
			}
			// The other way round is refused.
			flip := "NULL"
			if !tc.ended {
				flip = "updated_at"
			}
			_, err := s.pool.Exec(ctx, "UPDATE games SET ended_at = "+flip+" WHERE id = $1", g.ID)
			if pe, ok := errors.AsType[*pgconn.PgError](err); !ok || pe.Code != "23514" {
				t.Errorf("ended_at = %s for a game %s: %v, want a check_violation", flip, g.Status, err)
			}
		})
	}
}

// TestHeapOnlyMigration: migration 20 gives the ended games of a database
// from before it their ended_at, the updated_at they ended at, and the
// others none, and every game with a deadline its floor,
// the deadline itself. The old ended games are then pruned as any, and the
// old pending ones found by the sweeper.
func TestHeapOnlyMigration(t *testing.T) {
	dsn := freshSchema(t)
	ctx := t.Context()
	conn := schemaAt(t, dsn, 19)
	defer conn.Close(ctx)
	start := engine.Start().String()
	rows := []struct {
		id, status, winner, reason string
		ended                      bool
	}{
		{"waiting", "waiting", "", "", false},
		{"active", "active", "", "", false},
		{"finished", "finished", "north", "resignation", true},
		{"aborted", "aborted", "", "", true},
	}
	for i, row := range rows {
		north := hashOf(row.id + "-north")
		if row.status == "waiting" {
			north = nil
		}
		var deadline *time.Time
		if !row.ended {
			d := t0.Add(time.Duration(i) * time.Hour)
			deadline = &d
		}
		_, err := conn.Exec(ctx, `INSERT INTO games (id, created_at, updated_at, capture_seed, leftovers, start, ply,
				position, history, status, winner, end_reason, south_token, north_token, version, deadline)
			VALUES ($1, $2, $3, 'taken', 'last_mover', $4, 0, $4, '', $5, $6, $7, $8, $9, 1, $10)`,
			row.id, t0, t0.Add(time.Duration(i)*time.Minute), start, row.status, row.winner, row.reason,
			hashOf(row.id+"-south"), north, deadline)
		if err != nil {
			t.Fatalf("game %s: %v", row.id, err)
		}
	}
	conn.Close(ctx)

	s := openOn(t, dsn, Options{})
	for i, row := range rows {
		want := time.Time{}
		if row.ended {
			want = micro(t0.Add(time.Duration(i) * time.Minute))
		}
		if got := endedAt(t, s, row.id); !got.Equal(want) {
			t.Errorf("game %s: ended_at %v, want %v", row.id, got, want)
		}
	}
	if n, err := s.DeleteEnded(ctx, t0.Add(time.Hour), 10); err != nil || n != 2 {
		t.Errorf("DeleteEnded after the migration: %d, %v; want the 2 ended games", n, err)
	}
	var floors int
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM games WHERE deadline_floor = deadline").Scan(&floors); err != nil || floors != 2 {
		t.Errorf("%d games with their deadline as floor (%v), want 2", floors, err)
	}
	if next, err := s.NextDeadline(ctx); err != nil || !next.Equal(micro(t0)) {
		t.Errorf("next deadline %v (%v), want %v", next, err, micro(t0))
	}
	due, err := s.Overdue(ctx, t0.Add(2*time.Hour), 10)
	if err != nil || len(due) != 2 {
		t.Errorf("overdue after the migration: %d games (%v), want 2", len(due), err)
	}
}

// TestQueriesUseTheirIndexes: the queries of ended games find them
// through the indexes migration 20 made on ended_at, and the sweeper's
// through the floors of the same migration (planned generic, as a
// prepared statement is once used often, with sequential scans off, so
// that the plan shows an index it can use rather than what suits the
// empty table).
func TestQueriesUseTheirIndexes(t *testing.T) {
	s := openFresh(t)
	for _, c := range []struct {
		name    string
		sql     string
		indexes []string
	}{
		{"DeleteEnded", deleteEndedSQL, []string{"games_ended"}},
		{"UnindexedGames", unindexedSQL, []string{"games_explorer_pending"}},
		{"PlayerGames", playerGamesSQL, []string{"games_south_history", "games_north_history"}},
		{"Overdue", overdueSQL, []string{"games_deadline"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			plan := planOf(t, s, c.sql)
			for _, index := range c.indexes {
				if !plan.uses(index) {
					t.Errorf("the plan does not use %s", index)
				}
			}
		})
	}
}

// TestMovesChangeNoIndexedColumn: no index of games holds (as a key or in
// its condition) a column that every move changes, so that a move can be
// a heap-only update, which inserts into no index (migration 20:
// the sweeper's index holds deadline_floor, not the deadline).
func TestMovesChangeNoIndexedColumn(t *testing.T) {
	s := openFresh(t)
	rows, err := s.pool.Query(t.Context(), `SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid)
		FROM pg_index WHERE indrelid = 'games'::regclass`)
	if err != nil {
		t.Fatal(err)
	}
	defs := map[string]string{}
	var name, def string
	if _, err := pgx.ForEachRow(rows, []any{&name, &def}, func() error {
		defs[name] = def
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(defs) < 10 {
		t.Fatalf("%d indexes of games: %v", len(defs), defs)
	}
	moved := regexp.MustCompile(`\b(ply|position|history|updated_at|south_clock_us|north_clock_us|deadline|draw_offer|takeback_offer|version)\b`)
	for name, def := range defs {
		if col := moved.FindString(def); col != "" {
			t.Errorf("%s holds %s, which every move changes: %s", name, col, def)
		}
	}
}

// TestMovesAreHeapOnly: the committer's statement of plays updates a
// game's row without an index entry (a heap-only update, counted by the
// transaction's own statistics) when the move leaves the deadline's floor
// as it was: a deadline the same or later. A sooner deadline lowers the
// floor to it (an indexed column: not heap-only), and the floor is never
// after the deadline.
func TestMovesAreHeapOnly(t *testing.T) {
	s := openFresh(t)
	ctx := t.Context()
	g := joinedGame(t, s, "hot")
	at := t0.Add(time.Minute)
	first := playOn(t, g, firstPit(g), seatToken(g), at)
	first.Game.Deadline = at.Add(time.Hour)
	if err := s.ApplyPlay(ctx, first); err != nil {
		t.Fatal(err)
	}
	g = first.Game
	tests := []struct {
		name     string
		deadline time.Duration // after the move
		floor    time.Time     // after the move
		hot      bool
	}{
		{"a later deadline", 2 * time.Hour, first.Game.Deadline, true},
		{"the same floor again", 3 * time.Hour, first.Game.Deadline, true},
		{"a sooner deadline", 10 * time.Minute, time.Time{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at = at.Add(time.Second)
			p := playOn(t, g, firstPit(g), seatToken(g), at)
			p.Game.Deadline = at.Add(tc.deadline)
			var updated, hot, updatedBefore, hotBefore int64
			var floor time.Time
			// The counts a backend has not reported yet, which the
			// statement's own add to.
			const counts = `SELECT pg_stat_get_xact_tuples_updated('games'::regclass),
				pg_stat_get_xact_tuples_hot_updated('games'::regclass)`
			err := pgx.BeginFunc(ctx, s.Pool(), func(tx pgx.Tx) error {
				if _, err := tx.Exec(ctx, batchStartSQL); err != nil {
					return err
				}
				if err := tx.QueryRow(ctx, counts).Scan(&updatedBefore, &hotBefore); err != nil {
					return err
				}
				rows, err := tx.Query(ctx, quietBatchSQL, batchArgs(s.instance, []*games.Play{&p}, false)...)
				if err != nil {
					return err
				}
				matched, err := matchedIDs(rows)
				if err != nil {
					return err
				}
				if !matched[g.ID] {
					return errors.New("the play matched no row")
				}
				if err := tx.QueryRow(ctx, counts).Scan(&updated, &hot); err != nil {
					return err
				}
				updated, hot = updated-updatedBefore, hot-hotBefore
				return tx.QueryRow(ctx, "SELECT deadline_floor FROM games WHERE id = $1", g.ID).Scan(&floor)
			})
			if err != nil {
				t.Fatal(err)
			}
			g = p.Game
			if updated != 1 || (hot == 1) != tc.hot {
				t.Errorf("%d updates, %d heap-only; want heap-only %v", updated, hot, tc.hot)
			}
			want := tc.floor
			if want.IsZero() {
				want = p.Game.Deadline
			}
			if !floor.Equal(micro(want)) {
				t.Errorf("floor %v, want %v", floor, micro(want))
			}
		})
	}
}
