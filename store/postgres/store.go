// Package postgres keeps games and puzzles in PostgreSQL through
// github.com/jackc/pgx/v5, for several server instances sharing one
// database. The schema lives in numbered migrations embedded in the binary
// and applied at Open, all in one transaction under an advisory lock, so
// instances starting together apply each migration once; each is recorded,
// so a database written by an older version upgrades in place.
//
// Every write is a single SQL statement: PostgreSQL runs it as one
// transaction, holds its row locks only while it runs (not across round
// trips), and re-checks a conditional UPDATE's WHERE clause against the row
// it waited for, which is what makes concurrent writes for one ply store
// exactly one (see ApplyPlay).
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Store is the database. Its methods are safe for concurrent use, also by
// several processes sharing the database.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// Options configure a Store; the zero value is ready to use.
type Options struct {
	// Now is the clock that stamps what the store records of its own (when
	// a migration was applied). Nil: time.Now.
	Now func() time.Time
}

// Open connects to the database dsn names (a postgres:// URL or a
// "key=value ..." string, as libpq reads them; pool_max_conns and the other
// pgxpool settings may be given in it) and applies every migration it has not
// seen. The tables go into the first schema of the connection's search_path.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message quotes no password, but keep the DSN out of it anyway.
		return nil, fmt.Errorf("postgres: the connection string does not parse: %w", err)
	}
	// The writes rely on READ COMMITTED (see ApplyPlay): under a stricter
	// level a play that lost its race would fail with a serialization error
	// instead of reporting games.ErrConflict. Whatever the server's or the
	// DSN's default, the store's sessions use it.
	cfg.ConnConfig.RuntimeParams["default_transaction_isolation"] = "read committed"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool, now: opts.Now}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: migrate: %w", err)
	}
	return s, nil
}

// Close closes every connection, waiting for those in use to be returned.
func (s *Store) Close() { s.pool.Close() }

// Ping checks that the database answers a query, for readiness checks.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	return s.pool.QueryRow(ctx, "SELECT 1").Scan(&one)
}

// Pool returns the connection pool, for tests and maintenance commands.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

type migration struct {
	version int
	name    string
	sql     string
}

// migrations reads the embedded files, named NNNN_what.sql, in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version and '_'", base)
		}
		body, err := migrationFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: v, name: strings.TrimSuffix(base, ".sql"), sql: string(body)})
	}
	slices.SortFunc(ms, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

// migrateLock names the advisory lock that migrations take: one per schema,
// so instances sharing a schema take turns, and databases holding several
// schemas (the tests') do not make unrelated ones wait.
const migrateLock = `SELECT pg_advisory_xact_lock(hashtextextended('ayoayo migrate ' || coalesce(current_schema(), ''), 0))`

// migrate applies the migrations not yet recorded in schema_migrations, all
// in one transaction that first takes the advisory lock: an instance that
// starts while another migrates waits for it, then finds the work done.
// DDL is transactional in PostgreSQL, so a failed migration leaves nothing
// behind. READ COMMITTED (asked for, not assumed from the server's default)
// makes each statement after the lock see what the previous holder committed.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, migrateLock); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			name       text NOT NULL,
			applied_at timestamptz NOT NULL
		)`)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT version FROM schema_migrations")
		if err != nil {
			return err
		}
		applied, err := pgx.CollectRows(rows, pgx.RowTo[int])
		if err != nil {
			return err
		}
		for _, m := range ms {
			if slices.Contains(applied, m.version) {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil { // no arguments: sent as one script
				return fmt.Errorf("%s: %w", m.name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
				m.version, m.name, stamp(s.now()))
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
		}
		return nil
	})
}

// Versions returns the migration versions recorded in the database.
func (s *Store) Versions(ctx context.Context) ([]int, error) {
	rows, err := s.pool.Query(ctx, "SELECT version FROM schema_migrations ORDER BY version")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int])
}

// stamp is a time as the store keeps it: UTC, to the microsecond (what
// timestamptz holds), cut rather than rounded, as the SQLite store does.
func stamp(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// undecodable reports a row that does not decode. Its cause is kept as text
// only: a stored value that does not parse is the server's fault, and must
// never be matched as the client's bad notation or position.
func undecodable(what string, cause error) error {
	return fmt.Errorf("stored %s does not decode: %s", what, cause.Error())
}

// noRows reports whether err says a query returned no row.
func noRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }
