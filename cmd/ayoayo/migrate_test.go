package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/store/postgres"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// The upgrade an operator runs in steps, on each store: serve
// --migrate=false refuses a database that is behind, naming the command
// that mends it; ayoayo migrate applies the migrations (and says so, or
// that there was nothing to do); the server then starts without
// migrating. A database a newer binary migrated is refused by both.
func TestMigrateThenServeWithoutMigrating(t *testing.T) {
	stores := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "ayoayo.db") },
		"postgres": postgresDSN,
	}
	for name, newDB := range stores {
		t.Run(name, func(t *testing.T) {
			db := newDB(t)
			cli := func(args ...string) (int, string, string) {
				t.Helper()
				m, stdout, stderr := testMain(map[string]string{"AYOAYO_DB": db, "AYOAYO_ADDR": "127.0.0.1:0", "AYOAYO_DB_WAIT": "0s"})
				ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
				defer cancel()
				code := m.Run(ctx, args)
				return code, stdout.String(), stderr.String()
			}

			code, _, stderr := cli("serve", "--migrate=false")
			if code != 1 || !strings.Contains(stderr, "behind this binary") || !strings.Contains(stderr, "ayoayo migrate") {
				t.Fatalf("serve --migrate=false on a new database: exit %d, want 1 naming ayoayo migrate:\n%s", code, stderr)
			}
			code, stdout, stderr := cli("migrate")
			if code != 0 || !strings.Contains(stdout, ": migrated; the schema is at version ") {
				t.Fatalf("migrate: exit %d:\n%s%s", code, stdout, stderr)
			}
			if strings.Contains(stdout, "sekret") {
				t.Errorf("migrate printed the password: %s", stdout)
			}
			code, stdout, stderr = cli("migrate")
			if code != 0 || !strings.Contains(stdout, ": nothing to do; ") {
				t.Fatalf("migrate again: exit %d:\n%s%s", code, stdout, stderr)
			}

			// The migrated database serves without migrating.
			m, _, serveErr := testMain(map[string]string{"AYOAYO_DB": db, "AYOAYO_ADDR": "127.0.0.1:0", "AYOAYO_MIGRATE": "false"})
			ctx, cancel := context.WithCancel(t.Context())
			exit := make(chan int, 1)
			go func() { exit <- m.Run(ctx, []string{"serve"}) }()
			listeningAddr(t, serveErr)
			cancel()
			if code := <-exit; code != 0 {
				t.Fatalf("serve --migrate=false after migrate: exit %d:\n%s", code, serveErr)
			}

			// A newer binary's migration: both commands refuse, saying why.
			st, err := openStore(t.Context(), db, time.Now, nil)
			if err != nil {
				t.Fatal(err)
			}
			latest, err := latestVersion(t.Context(), st)
			if err != nil {
				t.Fatal(err)
			}
			ins := "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, 'from_the_future', now())"
			if name == "sqlite" {
				ins = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from_the_future', '2030-01-01T00:00:00.000000Z')"
			}
			if err := execOn(t, st, ins, latest+1); err != nil {
				t.Fatal(err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"migrate"}, {"serve"}, {"serve", "--migrate=false"}} {
				code, _, stderr := cli(args...)
				if code != 1 || !strings.Contains(stderr, "newer than this binary") {
					t.Errorf("%v on a newer schema: exit %d, want 1 saying it is newer:\n%s", args, code, stderr)
				}
			}
		})
	}
}

// execOn runs a statement on either store.
func execOn(t *testing.T, st store, query string, args ...any) error {
	t.Helper()
	switch s := st.(type) {
	case *sqlite.Store:
		_, err := s.DB().ExecContext(t.Context(), query, args...)
		return err
	case *postgres.Store:
		_, err := s.Pool().Exec(t.Context(), query, args...)
		return err
	}
	t.Fatalf("a %T", st)
	return nil
}
