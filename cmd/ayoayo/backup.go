package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/ayoayo/ayoayo/store/sqlite"
)

// runBackup copies a live SQLite database to a file: consistent (one
// snapshot) while the server goes on writing, checked, and put in place
// whole. PostgreSQL has its own tools.
func runBackup(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	db := fs.String("db", "./ayoayo.db", "the SQLite database `file` to copy, which a server may be using (env AYOAYO_DB)")
	out := fs.String("out", "", "the `file` to write the copy to, replaced if it exists (required)")
	if err := m.parse(fs, args, envPrefix, "db"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *out == "" {
		return fmt.Errorf("%w: --out is required", errUsage)
	}
	if isPostgres(*db) {
		return fmt.Errorf("%w: --db is a PostgreSQL database: back it up with pg_dump (see docs/operations.md, Back up)", errUsage)
	}
	info, err := sqlite.Backup(ctx, *db, *out)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "backed up %s to %s: %d bytes, schema version %d, integrity_check ok\n", *db, *out, info.Bytes, info.Version)
	return nil
}
