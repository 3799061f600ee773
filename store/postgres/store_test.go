package postgres

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// allVersions lists the embedded migrations' versions.
func allVersions(t *testing.T) []int {
	t.Helper()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var vs []int
	for _, m := range ms {
		vs = append(vs, m.Version)
	}
	if len(vs) == 0 || vs[0] != 1 {
		t.Fatalf("migrations %v, want versions from 1", vs)
	}
	return vs
}

// appliedAt returns when each recorded migration was applied, by version.
func appliedAt(t *testing.T, s *Store) map[int]time.Time {
	t.Helper()
	rows, err := s.Pool().Query(t.Context(), "SELECT version, applied_at FROM schema_migrations")
	if err != nil {
		t.Fatal(err)
	}
	at := map[int]time.Time{}
	var (
		v int
		a time.Time
	)
	if _, err := pgx.ForEachRow(rows, []any{&v, &a}, func() error { at[v] = a.UTC(); return nil }); err != nil {
		t.Fatal(err)
	}
	return at
}

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	ctx := t.Context()
	dsn := freshSchema(t)
	first := time.Date(2026, 1, 2, 3, 4, 5, 678901234, time.UTC)
	s := openOn(t, dsn, Options{Now: func() time.Time { return first }})
	want := allVersions(t)
	got, err := s.Versions(ctx)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("applied %v (%v), want %v", got, err, want)
	}
	stamps := appliedAt(t, s)
	for v, at := range stamps {
		if !at.Equal(micro(first)) {
			t.Fatalf("migration %d stamped %s, want the clock's %s", v, at, micro(first))
		}
	}
	s.Close()

	// A second start, later, applies nothing again.
	s = openOn(t, dsn, Options{Now: func() time.Time { return first.AddDate(0, 1, 0) }})
	again, err := s.Versions(ctx)
	if err != nil || !slices.Equal(again, want) {
		t.Fatalf("after reopening %v (%v), want %v", again, err, want)
	}
	for v, at := range appliedAt(t, s) {
		if !at.Equal(stamps[v]) {
			t.Fatalf("after reopening migration %d is stamped %s, want %s: it ran again", v, at, stamps[v])
		}
	}
}

// TestConcurrentOpensMigrateOnce starts four instances at once on one empty
// schema, each with its own clock: every one opens, and every migration is
// recorded once, all stamped by the one instance that took the lock first.
func TestConcurrentOpensMigrateOnce(t *testing.T) {
	const instances = 4
	want := allVersions(t)
	for round := range 3 {
		dsn := freshSchema(t)
		stores := make([]*Store, instances)
		errs := make([]error, instances)
		clocks := make([]time.Time, instances)
		var wg sync.WaitGroup
		for i := range instances {
			clocks[i] = t0.Add(time.Duration(i) * time.Hour)
			wg.Go(func() {
				stores[i], errs[i] = Open(t.Context(), dsn, Options{Now: func() time.Time { return clocks[i] }})
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d: instance %d: %v", round, i, err)
			}
			t.Cleanup(func() { _ = stores[i].Close() })
		}
		var rows int
		if err := stores[0].Pool().QueryRow(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&rows); err != nil {
			t.Fatal(err)
		}
		if rows != len(want) {
			t.Fatalf("round %d: %d migration rows, want %d", round, rows, len(want))
		}
		for i, s := range stores {
			if got, err := s.Versions(t.Context()); err != nil || !slices.Equal(got, want) {
				t.Fatalf("round %d: instance %d sees %v (%v), want %v", round, i, got, err, want)
			}
		}
		stamps := appliedAt(t, stores[0])
		by := slices.IndexFunc(clocks, func(c time.Time) bool { return micro(c).Equal(stamps[1]) })
		if by < 0 {
			t.Fatalf("round %d: migration 1 stamped %s, by none of the instances' clocks", round, stamps[1])
		}
		for v, at := range stamps {
			if !at.Equal(micro(clocks[by])) {
				t.Fatalf("round %d: migration %d stamped %s, migration 1 by instance %d: applied by two", round, v, at, by)
			}
		}
		// Each instance's tables work.
		for i, s := range stores {
			newGame(t, s, "instance-"+string(rune('a'+i)))
		}
	}
}

func TestPingAndClose(t *testing.T) {
	s := openFresh(t)
	if err := s.Ping(t.Context()); err != nil {
		t.Fatalf("ping: %v", err)
	}
	s.Close()
	if err := s.Ping(t.Context()); err == nil {
		t.Fatal("ping answered after Close")
	}
	s.Close() // twice is harmless: t.Cleanup closes it again
}

// TestOpenFailures: a DSN that does not parse, or names a server that does
// not answer, is an error from Open, which never quotes the password.
func TestOpenFailures(t *testing.T) {
	tests := []struct{ name, dsn string }{
		{"no server there", "postgres://ayoayo:sekret-pw@127.0.0.1:1/ayoayo?connect_timeout=5&sslmode=disable"},
		{"not a DSN", "postgres://ayoayo:sekret-pw@127.0.0.1:notaport/ayoayo"},
		{"no schema to create tables in", ""}, // the test database, with a search_path naming none
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dsn := tc.dsn
			if dsn == "" {
				dsn = withParam(t, testDSN(t), "search_path", "no_such_schema")
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			s, err := Open(ctx, dsn, Options{})
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			t.Logf("Open: %v", err)
			if strings.Contains(err.Error(), "sekret-pw") {
				t.Fatalf("the error quotes the password: %v", err)
			}
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Open waited for its deadline instead of failing: %v", err)
			}
		})
	}
}
