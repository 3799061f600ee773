package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/storetest"
)

// pruneGame is a game of the prune tests: how it stands and since when.
type pruneGame struct {
	id     string
	ended  bool // resigned at at; else left active, joined at at
	at     time.Time
	pruned bool // whether `prune --before 2026-03-10` deletes it
}

var pruneGames = []pruneGame{
	{"ended-in-february", true, time.Date(2026, 2, 20, 10, 0, 0, 0, time.UTC), true},
	{"ended-the-day-before", true, time.Date(2026, 3, 9, 23, 59, 59, 999999000, time.UTC), true},
	{"ended-at-midnight", true, time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), false},
	{"ended-after", true, time.Date(2026, 3, 11, 8, 0, 0, 0, time.UTC), false},
	{"active-since-january", false, time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), false},
}

// storePruneGames stores pruneGames (and, to make more than one batch,
// extra games that ended in February) in the database db names.
func storePruneGames(t *testing.T, db string, extra int) {
	t.Helper()
	ctx := t.Context()
	st, err := openStore(ctx, db, time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	resign := func(id string, at time.Time) {
		t.Helper()
		storetest.JoinedGame(t, st, id, at)
		if _, err := st.Resign(ctx, id, engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}, at, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range pruneGames {
		if g.ended {
			resign(g.id, g.at)
		} else {
			storetest.JoinedGame(t, st, g.id, g.at)
		}
	}
	for i := range extra {
		resign(fmt.Sprint("extra-", i), time.Date(2026, 2, 1, 0, 0, i, 0, time.UTC))
	}
}

// checkPruned opens db and checks which of pruneGames are left.
func checkPruned(t *testing.T, db string) {
	t.Helper()
	st, err := openStore(t.Context(), db, time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, g := range pruneGames {
		_, err := st.Game(t.Context(), g.id)
		switch {
		case g.pruned && !errors.Is(err, games.ErrNotFound):
			t.Errorf("game %s: %v, want it deleted", g.id, err)
		case !g.pruned && err != nil:
			t.Errorf("game %s: %v, want it kept", g.id, err)
		}
	}
}

func TestPrune(t *testing.T) {
	db := filepath.Join(t.TempDir(), "prune.db")
	// 60 more than a batch of deletions: the command goes on to the end.
	storePruneGames(t, db, 60)
	code, out, errOut := run(t, "prune", "--db", db, "--before", "2026-03-10")
	if code != 0 || out != "deleted 62 finished or aborted games that ended before 2026-03-10T00:00:00Z\n" {
		t.Fatalf("exit %d, output %q (%s); want 62 deleted", code, out, errOut)
	}
	checkPruned(t, db)
	code, out, errOut = run(t, "prune", "--db", db, "--before", "2026-03-10T00:00:00Z")
	if code != 0 || !strings.HasPrefix(out, "deleted 0 ") {
		t.Fatalf("a second run: exit %d, output %q (%s); want none deleted", code, out, errOut)
	}
	checkPruned(t, db)
}

func TestPruneOnPostgres(t *testing.T) {
	dsn := postgresDSN(t)
	storePruneGames(t, dsn, 0)
	code, out, errOut := run(t, "prune", "--db", dsn, "--before", "2026-03-10")
	if code != 0 || !strings.HasPrefix(out, "deleted 2 ") {
		t.Fatalf("exit %d, output %q (%s); want 2 deleted", code, out, errOut)
	}
	checkPruned(t, dsn)
}

func TestPruneMistakes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "prune.db")
	tests := []struct {
		name string
		args []string
	}{
		{"no --before", []string{"prune", "--db", db}},
		{"a date that is not one", []string{"prune", "--db", db, "--before", "2026-02-30"}},
		{"a time with no zone", []string{"prune", "--db", db, "--before", "2026-02-03T10:00:00"}},
		{"a stray argument", []string{"prune", "--db", db, "--before", "2026-03-10", "now"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, out, _ := run(t, tc.args...); code != 2 || out != "" {
				t.Fatalf("exit %d, output %q; want 2 and nothing deleted", code, out)
			}
		})
	}
}

// The prune command is in the help, with its flag.
func TestPruneHelp(t *testing.T) {
	code, out, _ := run(t, "help", "prune")
	if code != 0 || !strings.Contains(out, "prune --before DATE") || !strings.Contains(out, "-before date") {
		t.Fatalf("exit %d, help:\n%s", code, out)
	}
}

// FuzzParseBefore: --before never panics, and what it accepts is an instant
// in UTC that reads back as itself, so a prune never deletes up to a time
// other than the one given.
func FuzzParseBefore(f *testing.F) {
	for _, s := range []string{"2026-03-01", "2026-03-01T12:00:00Z", "2026-03-01T12:00:00.123456+02:00", "2026-02-30", "yesterday", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseBefore(s)
		if err != nil {
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("parseBefore(%q) = %v, not in UTC", s, got)
		}
		again, err := parseBefore(got.Format(time.RFC3339Nano))
		if err != nil || !again.Equal(got) {
			t.Fatalf("parseBefore(%q) = %v, which reads back as %v (%v)", s, got, again, err)
		}
	})
}
