package main

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/store/postgres"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// store is what the commands need of a database.
type store interface {
	games.Store
	puzzles.Store
	Ping(ctx context.Context) error
	Close() error
}

// dbHelp describes --db for the commands that take it.
const dbHelp = "the database: a SQLite file, or a PostgreSQL URL postgres://USER:PASSWORD@HOST:PORT/DB; either is migrated at start (env AYOAYO_DB)"

// isPostgres reports whether --db names a PostgreSQL database rather than a
// SQLite file.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// openStore opens the database --db names: PostgreSQL for a postgres:// or
// postgresql:// URL, else the SQLite file at that path.
func openStore(ctx context.Context, db string, now func() time.Time) (store, error) {
	if isPostgres(db) {
		s, err := postgres.Open(ctx, db, postgres.Options{Now: now})
		if err != nil {
			return nil, err
		}
		return pgStore{s}, nil
	}
	s, err := sqlite.Open(ctx, db, sqlite.Options{Now: now})
	if err != nil {
		return nil, err // not a nil *sqlite.Store in a non-nil store
	}
	return s, nil
}

// pgStore gives the PostgreSQL store the Close the other has.
type pgStore struct{ *postgres.Store }

func (s pgStore) Close() error {
	s.Store.Close()
	return nil
}

// redactDB is --db as a log may show it: a URL's password, in its user
// part or its query, replaced.
func redactDB(db string) string {
	if !isPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "(a postgres URL that does not parse)"
	}
	if q := u.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
