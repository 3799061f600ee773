package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// oldMove is a row of the moves table as migrations 2 and 3 left it: the
// whole outcome and position, the time as text, and for a person's move the
// token hash and the answer.
type oldMove struct {
	pit       int
	createdAt string // as formatTime wrote it
	at        time.Time
	token     string // "" for the AI's moves
	answer    []byte // nil with no token
}

// oldGame is a game of an older file and its moves, played from the start
// through the engine.
type oldGame struct {
	id    string
	ai    *games.AI
	moves []oldMove
}

// TestMigrate0004LeanMoves builds a file at schema version 3 (migrations 1-3
// only) with moves in the old shape, opens it, which applies 0004, and reads
// it back through the store: every move keeps its ply, pit, author and time
// to the microsecond. (0004 also kept each seat's latest answer; 0009,
// which applies too, reads from those the version their moves keep, and
// drops them: store/retrytest holds the retries of such answers to their
// bytes.)
func TestMigrate0004LeanMoves(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "v3.db")
	db, exec := schemaAt(t, ctx, file, 3, "lean_moves")
	defer db.Close()

	// answer is a body as an older server stored it: JSON with text beyond
	// ASCII, a byte that is not UTF-8 and a trailing newline, different for
	// every move.
	answer := func(id string, ply int) []byte {
		return fmt.Appendf(nil, "{\"game\":%q,\"ply\":%d,\"note\":\"Ayò \xff\"}\n", id, ply)
	}
	// at is the time a created_at text stands for, written out by hand.
	at := func(y int, mo time.Month, d, h, mi, s, us int) time.Time {
		return time.Date(y, mo, d, h, mi, s, us*1000, time.UTC)
	}
	people := oldGame{id: "people", moves: []oldMove{
		{createdAt: "2026-03-04T05:06:07.123456Z", at: at(2026, 3, 4, 5, 6, 7, 123456), token: "people-south"},
		{createdAt: "2026-03-04T05:06:08.000001Z", at: at(2026, 3, 4, 5, 6, 8, 1), token: "people-north"},
		{createdAt: "2026-03-04T05:06:09.999999Z", at: at(2026, 3, 4, 5, 6, 9, 999999), token: "people-south"},
		{createdAt: "2026-03-04T23:59:59.000000Z", at: at(2026, 3, 4, 23, 59, 59, 0), token: "people-north"},
		{createdAt: "2026-03-05T00:00:00.000010Z", at: at(2026, 3, 5, 0, 0, 0, 10), token: "people-south"},
	}}
	// Against the AI, which opened: its moves carry no token and no answer.
	againstAI := oldGame{id: "against-ai", ai: &games.AI{Side: engine.South, Level: 2}, moves: []oldMove{
		{createdAt: "2024-02-29T23:59:59.999999Z", at: at(2024, 2, 29, 23, 59, 59, 999999)},
		{createdAt: "2024-03-01T00:00:00.500000Z", at: at(2024, 3, 1, 0, 0, 0, 500000), token: "against-ai-north"},
		{createdAt: "2024-03-01T00:00:00.500000Z", at: at(2024, 3, 1, 0, 0, 0, 500000)},
		{createdAt: "1999-12-31T23:59:59.654321Z", at: at(1999, 12, 31, 23, 59, 59, 654321), token: "against-ai-north"},
		{createdAt: "1999-12-31T23:59:59.654321Z", at: at(1999, 12, 31, 23, 59, 59, 654321)},
	}}
	waiting := oldGame{id: "waiting"}
	olds := []*oldGame{&people, &againstAI, &waiting}
	for _, og := range olds {
		rec, err := engine.NewGame(engine.Start(), engine.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		var (
			out  engine.Outcome
			rows [][]any
		)
		for i := range og.moves {
			m := &og.moves[i]
			var pits []int
			for legal := rec.Position().LegalMoves(rec.Rules()); legal != 0; {
				pits = append(pits, legal.Next())
			}
			m.pit = pits[i%len(pits)] // not always the first legal pit
			if err := rec.Play(m.pit, &out); err != nil {
				t.Fatal(err)
			}
			var tok any
			if m.token != "" {
				m.answer = answer(og.id, i)
				tok = hashOf(m.token)
			}
			rows = append(rows, []any{og.id, i, out.Before.ToMove.String(), m.pit, og.ai != nil && m.token == "",
				fmt.Sprintf(`{"legs":[{"from":%d,"seeds":%d}],"capture":null,"result":null}`, out.Legs[0].From, out.Legs[0].Seeds),
				out.Position.String(), m.createdAt, tok, m.answer})
		}
		status, south, north := "active", any(hashOf(og.id+"-south")), any(hashOf(og.id+"-north"))
		var aiSide, aiLevel any
		switch {
		case og.ai != nil:
			aiSide, aiLevel, south = og.ai.Side.String(), og.ai.Level, nil
		case len(og.moves) == 0:
			status, north = "waiting", nil
		}
		history := make([]byte, 0, rec.Ply())
		for _, p := range rec.Moves() {
			history = append(history, byte(p))
		}
		exec(`INSERT INTO games (id, created_at, updated_at, capture_seed, leftovers, start, ply, position,
			history, status, ai_side, ai_level, south_token, north_token, version)
			VALUES (?, '2023-06-01T10:00:00.000000Z', '2026-03-05T00:00:00.000010Z', 'taken', 'last_mover', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			og.id, engine.Start().String(), rec.Ply(), rec.Position().String(), stored.EncodeHistory(history), status,
			aiSide, aiLevel, south, north, 1+len(og.moves))
		for _, row := range rows {
			exec(`INSERT INTO moves (game_id, ply, side, pit, by_ai, outcome, position, created_at, token_hash, answer)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, row...)
		}
	}
	var oldRows int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM moves").Scan(&oldRows); err != nil || oldRows != 10 {
		t.Fatalf("%d old move rows (%v), want 10", oldRows, err)
	}
	db.Close()

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

	t.Run("records", func(t *testing.T) {
		for _, og := range olds {
			var want []games.Record
			for i, m := range og.moves {
				want = append(want, games.Record{Ply: i, Pit: m.pit, ByAI: og.ai != nil && m.token == "", At: m.at})
			}
			got, err := s.Records(ctx, og.id, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("game %s: %d records, want %d", og.id, len(got), len(want))
			}
			for i := range got {
				g, w := got[i], want[i]
				if g.Ply != w.Ply || g.Pit != w.Pit || g.ByAI != w.ByAI || !g.At.Equal(w.At) {
					t.Fatalf("game %s, record %d: %+v at %s, want %+v at %s (from %q)", og.id, i, g,
						g.At.Format(time.RFC3339Nano), w, w.At.Format(time.RFC3339Nano), og.moves[i].createdAt)
				}
			}
		}
	})
	t.Run("the first time in microseconds", func(t *testing.T) {
		// 2026-03-04T05:06:07.123456Z, counted by hand: 20516 days, then
		// 5 h 6 min 7 s.
		const want = (20516*86400+5*3600+6*60+7)*1_000_000 + 123456
		var got int64
		if err := s.DB().QueryRowContext(ctx, "SELECT at FROM moves WHERE game_id = 'people' AND ply = 0").Scan(&got); err != nil || got != want {
			t.Fatalf("at %d (%v), want %d", got, err, want)
		}
	})
	t.Run("answers", func(t *testing.T) {
		// 0004 kept each seat's latest answer; 0009 read from each the
		// version its move keeps, and dropped them. These answers are no
		// API's JSON (no game, and a byte that is not UTF-8), so they give
		// none: the moves keep version 0, and a retry of them is refused
		// as any other request.
		var n int
		if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'answers'").Scan(&n); err != nil || n != 0 {
			t.Fatalf("the answers table is still there (%d, %v)", n, err)
		}
		if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM moves WHERE version <> 0").Scan(&n); err != nil || n != 0 {
			t.Fatalf("%d moves with a version (%v), want none", n, err)
		}
	})
	t.Run("schema", func(t *testing.T) {
		for table, want := range map[string][]string{
			// version from 0009, draw_offer from 0016.
			"moves": {"game_id", "ply", "pit", "by_ai", "at", "version", "draw_offer"},
		} {
			rows, err := s.DB().QueryContext(ctx, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
			if err != nil {
				t.Fatal(err)
			}
			var cols []string
			for rows.Next() {
				var c string
				if err := rows.Scan(&c); err != nil {
					t.Fatal(err)
				}
				cols = append(cols, c)
			}
			rows.Close()
			if !slices.Equal(cols, want) {
				t.Fatalf("table %s has columns %v, want %v", table, cols, want)
			}
		}
		var leftover int
		if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'moves_lean'").Scan(&leftover); err != nil || leftover != 0 {
			t.Fatalf("moves_lean left behind (%d, %v)", leftover, err)
		}
		var check string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check %q (%v)", check, err)
		}
		var orphan string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA foreign_key_check").Scan(&orphan); !errors.Is(err, sql.ErrNoRows) {
			t.Fatalf("foreign_key_check found %q (%v)", orphan, err)
		}
	})
	t.Run("plays on", func(t *testing.T) {
		// The next request of a seat stores its version, and a game
		// deleted takes its records with it.
		g, err := s.Game(ctx, "people")
		if err != nil {
			t.Fatal(err)
		}
		legal := g.Position.LegalMoves(g.Rules)
		p := playOn(t, g, legal.Next(), "people-north", t0)
		if err := s.ApplyPlay(ctx, p); err != nil {
			t.Fatal(err)
		}
		if rs, err := s.Records(ctx, "people", 5, 10); err != nil || len(rs) != 1 || rs[0].Pit != p.Moves[0].Pit || rs[0].Version != g.Version+1 {
			t.Fatalf("the new record: %+v (%v)", rs, err)
		}
		if _, err := s.DB().ExecContext(ctx, "DELETE FROM games WHERE id = 'people'"); err != nil {
			t.Fatal(err)
		}
		var left int
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM moves WHERE game_id = 'people'`).Scan(&left); err != nil || left != 0 {
			t.Fatalf("%d rows of a deleted game left (%v)", left, err)
		}
	})
}

// schemaAt makes file a database at schema version (the migrations up to it
// applied, as an older server left it), checking that the next migration is
// the one named next, and returns it with a helper that runs a statement on
// it or fails the test.
func schemaAt(t *testing.T, ctx context.Context, file string, version int, next string) (*sql.DB, func(q string, args ...any)) {
	t.Helper()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	// version counts migrations: the numbers may skip one that a branch
	// merged later fills.
	if len(ms) <= version || !strings.Contains(ms[version].Name, next) {
		t.Fatalf("migration %d of the list is not %s: %+v", version+1, next, ms)
	}
	db, err := sql.Open("sqlite", dsn(file))
	if err != nil {
		t.Fatal(err)
	}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
	for _, m := range ms[:version] {
		exec(m.SQL)
		exec(`INSERT INTO schema_migrations VALUES (?, ?, '2026-01-01T00:00:00.000000Z')`, m.Version, m.Name)
	}
	return db, exec
}
