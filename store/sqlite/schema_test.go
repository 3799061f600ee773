package sqlite

import (
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The schema's version decides what Open does: with NoMigrate it only
// checks (a new file, or one at an older version, is behind, and is left
// as it was); a file a newer binary migrated is refused either way, with a
// message that says what to do, and nothing is written to it.
func TestSchemaVersionChecks(t *testing.T) {
	ctx := t.Context()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	latest := ms[len(ms)-1].Version

	t.Run("a new file is behind", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "new.db")
		_, err := Open(ctx, file, Options{NoMigrate: true})
		if !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), "ayoayo migrate") {
			t.Fatalf("Open(NoMigrate) on a new file: %v, want ErrSchemaBehind naming ayoayo migrate", err)
		}
		// Checked, not migrated: migrating now applies every migration.
		s, err := Open(ctx, file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if vs, err := s.Versions(ctx); err != nil || len(vs) != len(ms) {
			t.Fatalf("versions after migrating %v (%v), want %d", vs, err, len(ms))
		}
	})

	t.Run("an older file is behind until migrated", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "old.db")
		db, _ := schemaAt(t, ctx, file, len(ms)-1, ms[len(ms)-1].Name)
		db.Close()
		_, err := Open(ctx, file, Options{NoMigrate: true})
		if !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), ms[len(ms)-1].Name) {
			t.Fatalf("Open(NoMigrate) one version behind: %v, want ErrSchemaBehind naming %s", err, ms[len(ms)-1].Name)
		}
		s, err := Open(ctx, file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		s, err = Open(ctx, file, Options{NoMigrate: true})
		if err != nil {
			t.Fatalf("Open(NoMigrate) after migrating: %v", err)
		}
		s.Close()
	})

	t.Run("a newer file is refused", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "newer.db")
		s, err := Open(ctx, file, Options{})
		if err != nil {
			t.Fatal(err)
		}
		newer := latest + 1
		if _, err := s.DB().ExecContext(ctx, "INSERT INTO schema_migrations VALUES (?, 'from_the_future', '2030-01-01T00:00:00.000000Z')", newer); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {NoMigrate: true}} {
			_, err := Open(ctx, file, opts)
			if !errors.Is(err, ErrSchemaNewer) {
				t.Fatalf("Open(%+v) on a newer schema: %v, want ErrSchemaNewer", opts, err)
			}
			for _, want := range []string{"newer than this binary", "version " + strconv.Itoa(newer), "up to " + strconv.Itoa(latest)} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q lacks %q", err, want)
				}
			}
		}
	})
}
