package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"
)

// runMigrate applies the database's missing migrations and says where its
// schema stands: the step of an upgrade an operator runs on its own (once,
// before the new binaries start with --migrate=false), rather than leaving
// it to whichever instance starts first.
func runMigrate(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	db := fs.String("db", "./ayoayo.db", "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST:PORT/DB (env AYOAYO_DB)")
	if err := m.parse(fs, args, envPrefix, "db"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	// Checked first, so the answer says whether there was anything to do.
	st, err := openStoreWith(ctx, *db, time.Now, nil, false)
	did := "nothing to do"
	if errors.Is(err, errSchemaBehind) {
		st, err = openStore(ctx, *db, time.Now, nil)
		did = "migrated"
	}
	if err != nil {
		return err
	}
	v, err := latestVersion(ctx, st)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: %s; the schema is at version %d, the latest this binary knows\n", redactDB(*db), did, v)
	return nil
}

// latestVersion is the newest migration the store records.
func latestVersion(ctx context.Context, st store) (int, error) {
	vs, err := st.(versioned).Versions(ctx)
	if err != nil {
		return 0, err
	}
	if len(vs) == 0 {
		return 0, nil
	}
	return vs[len(vs)-1], nil
}
