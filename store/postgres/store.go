// Package postgres keeps games, players and puzzles in PostgreSQL through
// github.com/jackc/pgx/v5, for several server instances sharing one
// database. The schema lives in numbered migrations embedded in the binary
// and applied at Open, all in one transaction under an advisory lock, so
// instances starting together apply each migration once; each is recorded,
// so a database written by an older version upgrades in place.
//
// Every write of a game is a single SQL statement: PostgreSQL runs it as
// one transaction, holds its row locks only while it runs (not across
// round trips), and re-checks a conditional UPDATE's WHERE clause against
// the row it waited for, which is what makes concurrent writes for one ply
// store exactly one (see ApplyPlay). The writes that move ratings (the end
// of a game with players, a first attempt at a puzzle, the deletion of a
// player) are short transactions of a few statements instead, which lock
// the players' rows first (see players.go).
package postgres

import (
	"context"
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Store is the database. Its methods are safe for concurrent use, also by
// several processes sharing the database.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
	// failures names the driver's errors and counts them (failure.go).
	failures stored.Failures
	// listener is the one connection that listens for the games' and the
	// lobby's notifications (changes.go).
	listener listener
	// commit groups the plays' writes into batches (commit.go).
	commitOnce sync.Once
	commit     *committer
	// pids holds the server process ids of the pool's connections (keys
	// uint32), so that the listener tells this Store's own notifications
	// from other instances' (changes.go).
	pids *sync.Map
	// instance names this Store in the listeners table while it listens
	// (changes.go): random, so that two Stores never share one.
	instance string
	// announcing says that the committer's batches carry their plays'
	// news: another instance listened when this one last looked (its
	// registration), or a batch without them was refused since. Until
	// then they go without (sendBatch). quietBatches counts the batches
	// that went without, resent those sent again with their news because
	// another instance listened after all.
	announcing           atomic.Bool
	quietBatches, resent atomic.Int64
}

// Options configure a Store; the zero value is ready to use.
type Options struct {
	// Now is the clock that stamps what the store records of its own (when
	// a migration was applied). Nil: time.Now.
	Now func() time.Time
	// NoMigrate makes Open check that every migration is applied, failing
	// with ErrSchemaBehind if not, instead of applying them: for servers
	// whose operator runs `ayoayo migrate` as a step of its own.
	NoMigrate bool
	// Tracer, if not nil, sees every query, batch and prepare the store's
	// connections send (the tests count round trips with it).
	Tracer pgx.QueryTracer
}

// DefaultStatementTimeout is the statement_timeout of the store's sessions
// when the DSN gives none.
const DefaultStatementTimeout = "30s"

// ErrSchemaNewer: the database was migrated by a newer binary (Open fails
// with it whatever the options); ErrSchemaBehind: Options.NoMigrate was
// set and a migration is missing.
var (
	ErrSchemaNewer  = stored.ErrSchemaNewer
	ErrSchemaBehind = stored.ErrSchemaBehind
)

// Open connects to the database dsn names (a postgres:// URL or a
// "key=value ..." string, as libpq reads them; pool_max_conns and the other
// pgxpool settings may be given in it) and applies every migration it has not
// seen, or with NoMigrate checks that none is missing. A database that
// records a migration this binary does not know is refused (ErrSchemaNewer)
// before anything is written. The tables go into the first schema of the
// connection's search_path.
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
	// A statement that runs longer than this holds its connection, and its
	// request, for nothing: the server cancels it. The DSN may say otherwise;
	// migrations are exempt (see migrate).
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = DefaultStatementTimeout
	}
	if opts.Tracer != nil {
		cfg.ConnConfig.Tracer = opts.Tracer
	}
	pids := &sync.Map{}
	cfg.AfterConnect = func(_ context.Context, c *pgx.Conn) error {
		pids.Store(c.PgConn().PID(), struct{}{})
		return nil
	}
	cfg.BeforeClose = func(c *pgx.Conn) { pids.Delete(c.PgConn().PID()) }
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool, now: opts.Now, pids: pids, instance: rand.Text()}
	migrate, doing := s.migrate, "migrate"
	if opts.NoMigrate {
		migrate, doing = s.checkSchema, "check the schema"
	}
	if err := migrate(ctx); err != nil {
		pool.Close()
		// Named, so that a start can tell a database not up yet (wait for
		// it) from one that refuses us (say why and stop).
		return nil, fmt.Errorf("postgres: %s: %w", doing, s.read(err))
	}
	return s, nil
}

// Close closes every connection, waiting for those in use to be returned.
// It returns an error, always nil, so that every store closes alike and a
// caller holds any of them behind one interface.
func (s *Store) Close() error {
	s.stopCommitters()
	s.pool.Close()
	return nil
}

// Ping checks that the database answers a query, for readiness checks;
// after a write failed for the database's sake, that it takes a write, and
// only that write's success makes the store ready again (see
// stored.Failures.Write).
func (s *Store) Ping(ctx context.Context) error {
	if mark := s.failures.Failing(); mark != 0 {
		if _, err := s.pool.Exec(ctx, probeWrite); err != nil {
			return s.wrote(err)
		}
		s.failures.Proved(mark)
		return nil
	}
	var one int
	return s.read(s.pool.QueryRow(ctx, "SELECT 1").Scan(&one))
}

// Pool returns the connection pool, for tests and maintenance commands.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

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
		// A migration rewrites tables as large as they are, and waits for
		// the lock as long as another instance migrates: no timeout.
		if _, err := tx.Exec(ctx, "SET LOCAL statement_timeout = 0"); err != nil {
			return err
		}
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
		// A newer binary's migrations are not undone or built upon:
		// refused, under the lock, before any of ours runs.
		if err := stored.CheckSchema(applied, ms, false); err != nil {
			return err
		}
		for _, m := range ms {
			if slices.Contains(applied, m.Version) {
				continue
			}
			if _, err := tx.Exec(ctx, m.SQL); err != nil { // no arguments: sent as one script
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
				m.Version, m.Name, stamp(s.now()))
			if err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
		}
		return nil
	})
}

// checkSchema is migrate's stand-in under Options.NoMigrate: it writes
// nothing, and fails unless every migration this binary has, and none it
// lacks, is recorded.
func (s *Store) checkSchema(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	var exists bool
	if err := s.pool.QueryRow(ctx, "SELECT to_regclass('schema_migrations') IS NOT NULL").Scan(&exists); err != nil {
		return err
	}
	var applied []int
	if exists {
		if applied, err = s.Versions(ctx); err != nil {
			return err
		}
	}
	return stored.CheckSchema(applied, ms, true)
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

// noRows reports whether err says a query returned no row.
func noRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// migrations reads the embedded migrations in version order.
func migrations() ([]stored.Migration, error) {
	return stored.Migrations(migrationFiles, "migrations/*.sql")
}
