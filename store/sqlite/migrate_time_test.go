package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// v4Rows is what a file at schema version 4 holds, each table's rows as
// text, in key order: what migration 5 must keep.
type v4Rows struct {
	games, moves, answers []string
}

// dumpRows reads the rows the migration must keep, every column that
// version 4 had, as text.
func dumpRows(t *testing.T, ctx context.Context, db *sql.DB) v4Rows {
	t.Helper()
	read := func(q string) []string {
		t.Helper()
		rows, err := db.QueryContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var answers []string
	// Migration 0009 drops the answers: a file past it has none to read.
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'answers'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		answers = read(`SELECT concat_ws('|', game_id, hex(token_hash), ply, pit, hex(body)) FROM answers ORDER BY game_id, token_hash`)
	}
	return v4Rows{
		games: read(`SELECT concat_ws('|', id, created_at, updated_at, quote(joined_at), capture_seed, leftovers, start,
			ply, position, history, status, winner, end_reason, quote(ai_side), quote(ai_level), quote(south_token),
			quote(north_token), version) FROM games ORDER BY id`),
		moves:   read(`SELECT concat_ws('|', game_id, ply, pit, by_ai, at) FROM moves ORDER BY game_id, ply`),
		answers: answers,
	}
}

// buildV4 writes a file at schema version 4 (migrations 1-4 only) holding
// games of every status an older server wrote: waiting, active with moves
// and answers, against the AI, and finished by resignation and by the
// rules, and returns its rows.
func buildV4(t *testing.T, ctx context.Context, file string) v4Rows {
	t.Helper()
	db, exec := schemaAt(t, ctx, file, 4, "time")
	defer db.Close()
	tests := []struct {
		id      string
		plies   int
		ai      bool
		status  string
		result  engine.Result
		answers int // how many seats have an answer
	}{
		{id: "waiting", status: "waiting"},
		{id: "active", plies: 7, status: "active", answers: 2},
		{id: "against-ai", plies: 6, ai: true, status: "active", answers: 1},
		{id: "resigned", plies: 4, status: "finished", answers: 2,
			result: engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}},
		{id: "played-out", plies: -1, status: "finished", answers: 2},
	}
	at := time.Date(2026, 2, 3, 4, 5, 6, 789012000, time.UTC)
	for _, g := range tests {
		rec, err := engine.NewGame(engine.Start(), engine.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		var out engine.Outcome
		var moves [][]any
		for i := 0; (g.plies < 0 && !rec.Result().Over()) || i < g.plies; i++ {
			var pits []int
			for legal := rec.Position().LegalMoves(rec.Rules()); legal != 0; {
				pits = append(pits, legal.Next())
			}
			pit := pits[(3*i+1)%len(pits)]
			if err := rec.Play(pit, &out); err != nil {
				t.Fatal(err)
			}
			moves = append(moves, []any{g.id, i, pit, g.ai && i%2 == 1, at.Add(time.Duration(i) * time.Second).UnixMicro()})
		}
		result := g.result
		if g.plies < 0 {
			result = rec.Result()
		}
		history := make([]byte, 0, rec.Ply())
		for _, p := range rec.Moves() {
			history = append(history, byte(p))
		}
		south, north := any(hashOf(g.id+"-south")), any(hashOf(g.id+"-north"))
		var aiSide, aiLevel any
		joined := any("2026-02-03T04:01:00.000000Z")
		switch {
		case g.ai:
			aiSide, aiLevel, north, joined = "north", 3, nil, nil
		case g.status == "waiting":
			north, joined = nil, nil
		}
		exec(`INSERT INTO games (id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply,
			position, history, status, winner, end_reason, ai_side, ai_level, south_token, north_token, version)
			VALUES (?, '2026-02-03T04:00:00.000001Z', '2026-02-03T04:05:06.789012Z', ?, 'taken', 'last_mover', ?, ?,
			?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.id, joined,
			engine.Start().String(), rec.Ply(), rec.Position().String(), stored.EncodeHistory(history), g.status,
			result.Winner.String(), result.Reason.String(), aiSide, aiLevel, south, north, 1+len(moves))
		for _, m := range moves {
			exec(`INSERT INTO moves (game_id, ply, pit, by_ai, at) VALUES (?, ?, ?, ?, ?)`, m...)
		}
		for i, side := range []string{"south", "north"}[:g.answers] {
			exec(`INSERT INTO answers (game_id, token_hash, ply, pit, body) VALUES (?, ?, ?, ?, ?)`,
				g.id, hashOf(g.id+"-"+side), i, moves[i][2], fmt.Appendf(nil, "{\"game\":%q,\"seat\":%q,\"note\":\"Ayò \xff\"}\n", g.id, side))
		}
	}
	rows := dumpRows(t, ctx, db)
	if len(rows.games) != len(tests) || len(rows.moves) < 30 || len(rows.answers) != 7 {
		t.Fatalf("the version 4 file holds %d games, %d moves, %d answers: too few to test with",
			len(rows.games), len(rows.moves), len(rows.answers))
	}
	return rows
}

// TestMigrate0005KeepsMovesAndAnswers builds a file at schema version 4
// with games, moves and answers, opens it, which applies 0005 (the games
// table built anew), and checks that every row of every table survives,
// column for column, that no row lost its game (PRAGMA foreign_key_check),
// that the games read back untimed, and that the new words and indexes are
// there.
func TestMigrate0005KeepsMovesAndAnswers(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "v4.db")
	before := buildV4(t, ctx, file)

	s, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for _, m := range ms {
		all = append(all, m.Version)
	}
	if vs, err := s.Versions(ctx); err != nil || !slices.Equal(vs, all) {
		t.Fatalf("versions %v (%v) after the upgrade, want %v", vs, err, all)
	}
	after := dumpRows(t, ctx, s.DB())

	for _, tc := range []struct {
		name          string
		before, after []string
	}{
		{"games", before.games, after.games},
		{"moves", before.moves, after.moves},
		// 0005 kept the answers; 0009, which applies too, dropped them.
		{"answers", nil, after.answers},
	} {
		t.Run("every row of "+tc.name, func(t *testing.T) {
			if !slices.Equal(tc.after, tc.before) {
				t.Fatalf("%d rows after the migration, %d before:\nafter  %q\nbefore %q", len(tc.after), len(tc.before), tc.after, tc.before)
			}
		})
	}
	t.Run("integrity", func(t *testing.T) {
		var check string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check %q (%v)", check, err)
		}
		var orphan string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA foreign_key_check").Scan(&orphan); !errors.Is(err, sql.ErrNoRows) {
			t.Fatalf("foreign_key_check found %q (%v)", orphan, err)
		}
		var fks string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fks); err != nil || fks != "1" {
			t.Fatalf("foreign keys %q (%v) on a connection after the migration, want 1", fks, err)
		}
		var leftover int
		if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'games_time'").Scan(&leftover); err != nil || leftover != 0 {
			t.Fatalf("games_time left behind (%d, %v)", leftover, err)
		}
		for _, index := range []string{"games_created_at", "games_deadline", "games_ended"} {
			var n int
			if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ? AND tbl_name = 'games'", index).Scan(&n); err != nil || n != 1 {
				t.Fatalf("index %s: %d (%v)", index, n, err)
			}
		}
	})
	t.Run("read back untimed, with the default expiries (0006)", func(t *testing.T) {
		created := time.Date(2026, 2, 3, 4, 0, 0, 1000, time.UTC)
		updated := time.Date(2026, 2, 3, 4, 5, 6, 789012000, time.UTC)
		for _, tc := range []struct {
			id       string
			deadline time.Time
		}{
			{"waiting", created.Add(games.DefaultWaitingExpiry)},
			{"active", updated.Add(games.DefaultIdleExpiry)},
			{"against-ai", updated.Add(games.DefaultIdleExpiry)},
			{"resigned", time.Time{}},
			{"played-out", time.Time{}},
		} {
			g, err := s.Game(ctx, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if g.TimeControl != (games.TimeControl{}) || g.Clock != ([2]time.Duration{}) || !g.Deadline.Equal(tc.deadline) {
				t.Fatalf("game %s: time control %+v, clock %v, deadline %v; want untimed, deadline %v", tc.id, g.TimeControl, g.Clock, g.Deadline, tc.deadline)
			}
		}
	})
	t.Run("the new words", func(t *testing.T) {
		// An old active game can now time out, a waiting one be aborted;
		// and deleting an ended game still takes its moves and answers.
		for _, tc := range []struct {
			id   string
			end  games.End
			want games.Status
		}{
			{"active", games.End{Status: games.Finished, Result: engine.TimeoutResult(engine.South)}, games.Finished},
			{"waiting", games.End{Status: games.Aborted}, games.Aborted},
		} {
			g, err := s.Game(ctx, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			tc.end.ID, tc.end.Version, tc.end.At = g.ID, g.Version, t0
			ended, err := s.End(ctx, tc.end)
			if err != nil || ended.Status != tc.want || ended.Result != tc.end.Result {
				t.Fatalf("end %s: %s %+v (%v), want %s %+v", tc.id, ended.Status, ended.Result, err, tc.want, tc.end.Result)
			}
		}
		n, err := s.DeleteEnded(ctx, time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), 100)
		if err != nil || n != 4 {
			t.Fatalf("deleted %d ended games (%v), want 4", n, err)
		}
		var left int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM moves WHERE game_id <> 'against-ai'`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d rows of deleted games left (%v)", left, err)
		}
	})
}

// TestMigrate0005NeedsForeignKeysOff shows the danger Store.migrate guards
// against, so that the test above would see it: the same migration run in
// a transaction with foreign keys on (where PRAGMA foreign_keys = OFF would
// do nothing) deletes every move and answer with the old games table.
func TestMigrate0005NeedsForeignKeysOff(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "v4.db")
	before := buildV4(t, ctx, file)
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dsn(file)) // foreign keys on, as every connection of the store has them
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(ctx, ms[4].SQL); err != nil {
		t.Fatal(err)
	}
	var games, moves, answers int
	err = tx.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM moves),
		(SELECT count(*) FROM answers)`).Scan(&games, &moves, &answers)
	if err != nil {
		t.Fatal(err)
	}
	if games != len(before.games) || moves != 0 || answers != 0 {
		t.Fatalf("with foreign keys on: %d games, %d moves, %d answers left of %d, %d, %d; want every game and no move or answer",
			games, moves, answers, len(before.games), len(before.moves), len(before.answers))
	}
}
