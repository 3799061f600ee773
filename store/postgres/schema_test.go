package postgres

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// The schema's version decides what Open does: with NoMigrate it only
// checks (an empty schema, or one missing a migration, is behind, and is
// left as it was); a schema a newer binary migrated is refused either way,
// with a message that says what to do.
func TestSchemaVersionChecks(t *testing.T) {
	ctx := t.Context()
	vs := allVersions(t)
	latest := vs[len(vs)-1]

	t.Run("an empty schema is behind until migrated", func(t *testing.T) {
		dsn := freshSchema(t)
		_, err := Open(ctx, dsn, Options{NoMigrate: true})
		if !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), "ayoayo migrate") {
			t.Fatalf("Open(NoMigrate) on an empty schema: %v, want ErrSchemaBehind naming ayoayo migrate", err)
		}
		s := openOn(t, dsn, Options{})
		got, err := s.Versions(ctx)
		if err != nil || len(got) != len(vs) {
			t.Fatalf("versions after migrating %v (%v), want %v", got, err, vs)
		}
		openOn(t, dsn, Options{NoMigrate: true})
	})

	t.Run("a schema missing the last migration is behind", func(t *testing.T) {
		dsn := freshSchema(t)
		s := openOn(t, dsn, Options{})
		// Only its record is removed: enough for the check, which reads
		// the records.
		if _, err := s.Pool().Exec(ctx, "DELETE FROM schema_migrations WHERE version = $1", latest); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, dsn, Options{NoMigrate: true})
		if !errors.Is(err, ErrSchemaBehind) || !strings.Contains(err.Error(), "needs "+strconv.Itoa(latest)) {
			t.Fatalf("Open(NoMigrate) a version behind: %v, want ErrSchemaBehind", err)
		}
	})

	t.Run("a newer schema is refused", func(t *testing.T) {
		dsn := freshSchema(t)
		s := openOn(t, dsn, Options{})
		newer := latest + 1
		if _, err := s.Pool().Exec(ctx, "INSERT INTO schema_migrations VALUES ($1, 'from_the_future', now())", newer); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {NoMigrate: true}} {
			_, err := Open(ctx, dsn, opts)
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
