package sqlite

import (
	"crypto/sha256"
	"database/sql"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/storetest"
)

// The cases every store must pass are in store/storetest (conformance_test.go
// runs them here); these tests cover what only this store has: the file,
// its migrations, the group commit and the rows it decodes.

// openTemp opens a fresh database in the test's directory, closed at the
// end of the test.
func openTemp(t testing.TB) (*Store, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "t.db")
	s, err := Open(t.Context(), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, file
}

func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// newGame stores a game between two people, South seated, North waiting.
func newGame(t *testing.T, s *Store, id string) games.Game {
	t.Helper()
	return storetest.NewGame(t, s, id, t0)
}

// joinedGame stores a game between two people and seats North.
func joinedGame(t *testing.T, s *Store, id string) games.Game {
	t.Helper()
	return storetest.JoinedGame(t, s, id, t0)
}

// playOn returns the write of pit played in g by the holder of token, the
// move worked out by the engine as the game service does.
func playOn(t *testing.T, g games.Game, pit int, token string, at time.Time) games.Play {
	t.Helper()
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		t.Fatal(err)
	}
	var out engine.Outcome
	for _, p := range g.History {
		if err := rec.Play(int(p), &out); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Play(pit, &out); err != nil {
		t.Fatalf("pit %d at %s: %v", pit, g.Position, err)
	}
	m := games.Record{Ply: g.Ply, Pit: pit, At: at, Version: g.Version + 1}
	next := g
	next.Ply, next.Position, next.Result = rec.Ply(), rec.Position(), rec.Result()
	next.History = append(slices.Clone(g.History), byte(pit))
	if next.Result.Over() {
		next.Status = games.Finished
	}
	next.UpdatedAt = at
	next.Version++
	return games.Play{GameID: g.ID, Ply: g.Ply, Moves: []games.Record{m}, At: at, Game: next}
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "t.db")
	firstStart := time.Date(2026, 1, 2, 3, 4, 5, 678901000, time.UTC)
	s, err := Open(ctx, file, Options{Now: func() time.Time { return firstStart }})
	if err != nil {
		t.Fatal(err)
	}
	want, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || !slices.IsSorted(got) {
		t.Fatalf("applied %v, want %d migrations in order", got, len(want))
	}
	var mode string
	if err := s.DB().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q (%v), want wal", mode, err)
	}
	var fk int
	if err := s.DB().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys %d (%v), want 1", fk, err)
	}
	appliedAt := func(s *Store) []string {
		t.Helper()
		rows, err := s.DB().QueryContext(ctx, "SELECT applied_at FROM schema_migrations ORDER BY version")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var at []string
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				t.Fatal(err)
			}
			at = append(at, a)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return at
	}
	stamps := appliedAt(s)
	for _, a := range stamps {
		if a != formatTime(firstStart) {
			t.Fatalf("a migration was stamped %s, want the clock's %s", a, formatTime(firstStart))
		}
	}
	s.Close()

	// A second start, later, applies nothing again.
	s, err = Open(ctx, file, Options{Now: func() time.Time { return firstStart.AddDate(0, 1, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	again, err := s.Versions(ctx)
	if err != nil || !slices.Equal(again, got) {
		t.Fatalf("after reopen %v (%v), want %v", again, err, got)
	}
	if restamped := appliedAt(s); !slices.Equal(restamped, stamps) {
		t.Fatalf("after reopen the migrations are stamped %v, want %v", restamped, stamps)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateFromVersion1 builds a database as the first release left it
// (only migration 1 applied) and opens it: the newer migrations are applied in
// place and the old data stays.
func TestMigrateFromVersion1(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", dsn(file))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Version != 1 {
		t.Fatalf("first migration is version %d", ms[0].Version)
	}
	for _, q := range []string{
		`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
		ms[0].SQL,
		`INSERT INTO schema_migrations VALUES (1, '0001_meta', '2025-01-01T00:00:00Z')`,
		`INSERT INTO meta (key, value) VALUES ('owner', 'kept')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	s, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	vs, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for _, m := range ms {
		all = append(all, m.Version)
	}
	if !slices.Equal(vs, all) {
		t.Fatalf("versions %v after upgrade, want %v", vs, all)
	}
	var owner, first string
	if err := s.DB().QueryRowContext(ctx, "SELECT value FROM meta WHERE key = 'owner'").Scan(&owner); err != nil || owner != "kept" {
		t.Fatalf("old data: %q (%v)", owner, err)
	}
	if err := s.DB().QueryRowContext(ctx, "SELECT applied_at FROM schema_migrations WHERE version = 1").Scan(&first); err != nil ||
		first != "2025-01-01T00:00:00Z" {
		t.Fatalf("migration 1 stamped %q (%v): it was applied again", first, err)
	}
	g := joinedGame(t, s, "after-upgrade")
	if err := s.ApplyPlay(ctx, playOn(t, g, 0, "after-upgrade-south", t0)); err != nil {
		t.Fatal(err)
	}
	var check string
	if err := s.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check %q (%v)", check, err)
	}
}

// TestDataSurvivesReopen: whatever was written is there, the same, after
// the database is closed and opened again.
func TestDataSurvivesReopen(t *testing.T) {
	ctx := t.Context()
	s, file := openTemp(t)
	g := joinedGame(t, s, "kept")
	tokens := [2]string{"kept-south", "kept-north"}
	var last games.Play
	for i := range 6 {
		legal := g.Position.LegalMoves(g.Rules)
		last = playOn(t, g, legal.Next(), tokens[g.Position.ToMove], t0.Add(time.Duration(i)*time.Millisecond+time.Microsecond))
		if err := s.ApplyPlay(ctx, last); err != nil {
			t.Fatal(err)
		}
		g = last.Game
	}
	date, err := gen.ParseDate("2026-02-16")
	if err != nil {
		t.Fatal(err)
	}
	p, err := gen.Daily(ctx, nil, date, 1) // version 1: no endgame table
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddPuzzle(ctx, p, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordAttempt(ctx, p.ID, true); err != nil {
		t.Fatal(err)
	}

	// read returns everything the store holds, as it reads it.
	type snapshot struct {
		Game    games.Game
		Records []games.Record
		Puzzle  puzzles.Stored
	}
	read := func(s *Store) snapshot {
		t.Helper()
		var (
			snap snapshot
			err  error
		)
		if snap.Game, err = s.Game(ctx, "kept"); err != nil {
			t.Fatal(err)
		}
		if snap.Records, err = s.Records(ctx, "kept", 0, 100); err != nil {
			t.Fatal(err)
		}
		if snap.Puzzle, err = s.PuzzleByDate(ctx, date); err != nil {
			t.Fatal(err)
		}
		return snap
	}
	before := read(s)
	if before.Game.Ply != 6 || len(before.Records) != 6 || before.Records[5].Version != last.Game.Version ||
		before.Puzzle.Stats.Solved != 1 {
		t.Fatalf("before closing: ply %d, %d records (%+v), stats %+v", before.Game.Ply, len(before.Records),
			before.Records, before.Puzzle.Stats)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if after := read(s2); !reflect.DeepEqual(after, before) {
		t.Fatalf("after reopening:\n%+v\nwant\n%+v", after, before)
	}
}
