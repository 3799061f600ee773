// Package sqlite keeps games, players and puzzles in SQLite through
// modernc.org/sqlite (pure Go, no cgo). The schema lives in numbered
// migrations embedded in the binary and applied in order at Open; each is
// recorded, so a database written by an older version upgrades in place.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Store is the database. Its methods are safe for concurrent use.
type Store struct {
	db   *sql.DB
	file string
	now  func() time.Time
	log  *slog.Logger
	// failures names the driver's errors and counts them (failure.go).
	failures stored.Failures
	// writeMu is held by the committer (commit.go), the only writer, while
	// a transaction is open, and by a checkpoint that must hold writers off
	// for a moment.
	writeMu sync.Mutex
	// stmts caches prepared statements by their text: parsing a statement
	// costs SQLite about as much as running it. database/sql prepares each
	// one once per pooled connection and reuses it there.
	stmts sync.Map // string -> *sql.Stmt
	// The group committer of game writes (commit.go), started by the first.
	startOnce sync.Once
	commit    *committer
	// The checkpointer, stopped by Close.
	stopCheckpoints chan struct{}
	checkpointsDone chan struct{}
	closeOnce       sync.Once
}

// poolSize is how many connections the pool keeps open (and idle). SQLite
// runs one writer at a time and readers in parallel; a handful of
// connections keeps every core busy, and keeping them idle instead of closing
// them keeps their prepared statements and page cache.
const poolSize = 16

// BusyTimeout is how long a connection waits for another's write lock before
// SQLite gives up with SQLITE_BUSY.
const BusyTimeout = 10 * time.Second

// dsn builds the connection string. Pragmas go in the DSN, not in one-off
// statements, so that every connection the pool opens has them:
//   - WAL lets readers go on while one writer commits;
//   - synchronous=NORMAL in WAL mode: a commit survives a crash of this
//     process, and the database is never corrupted; a power cut or OS crash may
//     lose the last commits that were not yet checkpointed to the main file;
//   - foreign keys on, and a busy timeout instead of immediate SQLITE_BUSY;
//   - _txlock=immediate: every transaction takes the write lock when it
//     begins, so two writers never both read and then deadlock on upgrade;
//   - no automatic checkpoints: SQLite would run one inside whichever commit
//     crosses the threshold, copying pages and syncing files while every
//     writer waits (measured: p99 of a move 106 ms with them, 25 ms without,
//     at 32 clients). checkpoints (below) runs them beside the writers
//     instead, and journal_size_limit keeps the WAL file from staying large.
//
// Durability, then: a crash of the process loses no commit (the WAL is in
// the operating system's hands at commit); a power cut or an OS crash may
// lose the commits since the last checkpoint (about CheckpointInterval) but
// never corrupts the database.
func dsn(file string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "wal_autocheckpoint(0)")
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walSizeLimit))
	q.Add("_pragma", "foreign_keys(ON)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds()))
	q.Set("_txlock", "immediate")
	return "file:" + file + "?" + q.Encode()
}

// Options configure a Store; the zero value is ready to use.
type Options struct {
	// Now is the clock that stamps what the store records of its own (when
	// a migration was applied). Nil: time.Now.
	Now func() time.Time
	// Logger gets what the store cannot report to a caller: a checkpoint
	// that fails, and recovers. Nil discards it.
	Logger *slog.Logger
	// NoMigrate makes Open check that every migration is applied, failing
	// with ErrSchemaBehind if not, instead of applying them: for servers
	// whose operator runs `ayoayo migrate` as a step of its own.
	NoMigrate bool
}

// ErrSchemaNewer: the database was migrated by a newer binary (Open fails
// with it whatever the options); ErrSchemaBehind: Options.NoMigrate was
// set and a migration is missing.
var (
	ErrSchemaNewer  = stored.ErrSchemaNewer
	ErrSchemaBehind = stored.ErrSchemaBehind
)

// Open opens (creating if needed) the database at file and applies every
// migration it has not seen, or with NoMigrate checks that none is missing.
// A database that records a migration this binary does not know is refused
// (ErrSchemaNewer) before anything is written.
func Open(ctx context.Context, file string, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	db, err := sql.Open("sqlite", dsn(file))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", file, err)
	}
	db.SetMaxOpenConns(poolSize)
	db.SetMaxIdleConns(poolSize)
	s := &Store{db: db, file: file, now: opts.Now, log: opts.Logger,
		stopCheckpoints: make(chan struct{}), checkpointsDone: make(chan struct{})}
	migrate, doing := s.migrate, "migrate"
	if opts.NoMigrate {
		migrate, doing = s.checkSchema, "check the schema of"
	}
	if err := migrate(ctx); err != nil {
		db.Close()
		// A file that cannot be opened or written is named as such, so a
		// start can wait for it (a volume not mounted yet) or say why not.
		return nil, fmt.Errorf("%s %s: %w", doing, file, s.read(err))
	}
	go s.checkpoints(CheckpointInterval)
	return s, nil
}

// CheckpointInterval is how often the WAL is copied into the main database
// file (and synced). It bounds what a power cut or an OS crash can lose:
// the commits of about the last interval. A crash of the process loses
// nothing that was committed.
const CheckpointInterval = time.Second

// walSizeLimit is the size the WAL file is cut back to once it has been
// checkpointed.
const walSizeLimit = 64 << 20

// restartFrames is the WAL length, in pages (SQLite's default 4 KiB), beyond
// which a checkpoint also makes sure the WAL starts over (see checkpoint): the
// size the file is cut back to anyway.
const restartFrames = walSizeLimit / 4096

// checkpoints runs checkpoint every interval until Close. A checkpoint that
// fails is logged once, and again when one succeeds: on a full disk the WAL
// cannot be copied into the database file and only grows, which is the
// operator's to see, but not once a second.
func (s *Store) checkpoints(interval time.Duration) {
	defer close(s.checkpointsDone)
	t := time.NewTicker(interval)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-t.C:
			err := s.checkpoint()
			switch {
			case err != nil && !failing:
				s.log.Error("checkpoint failed; the WAL grows until one succeeds", "db", s.file, "error", err.Error())
			case err == nil && failing:
				s.log.Info("checkpoint succeeded again", "db", s.file)
			}
			failing = err != nil
		case <-s.stopCheckpoints:
			return
		}
	}
}

// checkpoint copies the WAL into the database file. The bulk is copied by a
// passive checkpoint beside the writers, which neither waits for nor blocks
// them. But the WAL only starts over from its beginning once every page of
// it has been copied, and under a steady load writers always add pages while
// the copy runs; so when the WAL has grown long, a second pass copies most of
// what was added meanwhile, and the last few pages are copied with the
// writers held off (measured: 35-50 ms every 2-3 s at 3,000 moves/s, most of
// it the two syncs the copy needs), after which the next write starts the
// WAL over. A failure (SQLITE_BUSY while another process checkpoints,
// SQLITE_FULL when the database file cannot grow) loses nothing: the WAL
// keeps the commits, and the next tick tries again.
func (s *Store) checkpoint() error {
	pages, err := s.passiveCheckpoint()
	if err != nil || pages < restartFrames {
		return err
	}
	if _, err := s.passiveCheckpoint(); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err = s.passiveCheckpoint()
	return err
}

// passiveCheckpoint runs one and returns the WAL's length in pages.
func (s *Store) passiveCheckpoint() (pages int, err error) {
	var busy, copied int
	err = s.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &pages, &copied)
	return pages, err
}

// Close checkpoints the whole WAL into the database file and closes the
// database. The final checkpoint is made here rather than left to SQLite's
// close, which would keep its failure to itself; when it fails (a full disk)
// nothing is lost, since the WAL keeps every commit and the next Open reads
// it, but the WAL stays as large as it grew, so Close reports it.
func (s *Store) Close() error {
	s.stopCommitter()
	s.closeOnce.Do(func() { close(s.stopCheckpoints) })
	<-s.checkpointsDone
	s.stmts.Range(func(_, v any) bool {
		_ = v.(*sql.Stmt).Close()
		return true
	})
	var busy, pages, copied int
	err := s.db.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &pages, &copied)
	if err == nil && busy != 0 {
		// Another process (a backup, say) still reads: its pages are copied
		// by whoever checkpoints next.
		err = fmt.Errorf("the final checkpoint copied %d of %d WAL pages: another connection was using the database", copied, pages)
	}
	if err != nil {
		err = fmt.Errorf("final checkpoint of %s: %w", s.file, err)
	}
	return errors.Join(err, s.db.Close())
}

// WALSize is the size of the write-ahead log file in bytes (0 when there
// is none): what the database needs on disk beyond its own file, for
// metrics.
func (s *Store) WALSize() (int64, error) {
	fi, err := os.Stat(s.file + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// prepared returns the cached prepared statement for query, preparing it on
// first use.
func (s *Store) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := s.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := s.stmts.LoadOrStore(query, st); loaded {
		_ = st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// Ping checks that the database answers a query, for readiness checks;
// after a write failed for the database's sake, that it takes a write
// needing new room (a full disk still answers reads), and only that
// write's success makes the store ready again (see stored.Failures.Write).
func (s *Store) Ping(ctx context.Context) error {
	if mark := s.failures.Failing(); mark != 0 {
		if err := s.write(ctx, probeWrite); err != nil {
			return err
		}
		s.failures.Proved(mark)
		return nil
	}
	var one int
	return s.read(s.db.QueryRowContext(ctx, "SELECT 1").Scan(&one))
}

// DB returns the handle, for tests and maintenance commands.
func (s *Store) DB() *sql.DB { return s.db }

// migrate applies, each in its own transaction, the migrations not yet
// recorded in schema_migrations.
//
// They run on a connection of their own with foreign keys off, as SQLite's
// procedure for changing a table's schema asks (the pragma does nothing
// inside a transaction, so it is set before): a migration that builds a
// table anew drops the old one, and with foreign keys on that drop would
// first delete its rows and, through ON DELETE CASCADE, every row that
// refers to them. Each transaction commits only if PRAGMA foreign_key_check
// then finds no row without its parent, and the connection is closed after,
// never handed back to the pool with the checks off. Migrations run at Open,
// before any other write of this Store; the write lock each transaction
// takes at its start (_txlock=immediate) keeps other processes out, and the
// version is looked up again inside it, so a migration another process has
// applied meanwhile is not applied twice.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() {
		// A connection whose foreign keys are off must not serve anyone
		// else: told it is bad, database/sql closes it.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		_ = conn.Close()
	}()
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	inTx := func(fn func(tx *sql.Tx) error) error {
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	err = inTx(func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at TEXT NOT NULL
		)`)
		return err
	})
	if err != nil {
		return err
	}
	// A newer binary's migrations are not undone or built upon: refused
	// before any of ours runs.
	applied, err := appliedVersions(ctx, conn)
	if err != nil {
		return err
	}
	if err := stored.CheckSchema(applied, ms, false); err != nil {
		return err
	}
	for _, m := range ms {
		err := inTx(func(tx *sql.Tx) error {
			var seen int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM schema_migrations WHERE version = ?", m.Version).Scan(&seen); err != nil {
				return err
			}
			if seen > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			if err := foreignKeysHold(ctx, tx); err != nil {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.Version, m.Name, formatTime(s.now()))
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// checkSchema is migrate's stand-in under Options.NoMigrate: it writes
// nothing, and fails unless every migration this binary has, and none it
// lacks, is recorded.
func (s *Store) checkSchema(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	applied, err := appliedVersions(ctx, conn)
	if err != nil {
		return err
	}
	return stored.CheckSchema(applied, ms, true)
}

// appliedVersions reads the versions schema_migrations records; none when
// the table is not there (a new, empty database).
func appliedVersions(ctx context.Context, conn *sql.Conn) ([]int, error) {
	var tables int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").Scan(&tables); err != nil {
		return nil, err
	}
	if tables == 0 {
		return nil, nil
	}
	return versions(conn.QueryContext(ctx, "SELECT version FROM schema_migrations"))
}

// versions reads the rows of a query of schema_migrations' versions, and
// closes them.
func versions(rows *sql.Rows, err error) ([]int, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var vs []int
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, rows.Err()
}

// errForeignKeys: after a migration, a row refers to a row that is not
// there; the migration is undone.
var errForeignKeys = errors.New("a row lost the row it refers to")

// foreignKeysHold runs PRAGMA foreign_key_check in tx and reports the first
// row it finds, wrapping errForeignKeys.
func foreignKeysHold(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "PRAGMA foreign_key_check")
	if err != nil {
		return err
	}
	defer rows.Close()
	if rows.Next() {
		var (
			table, parent string
			rowid         sql.NullInt64
			fk            int
		)
		if err := rows.Scan(&table, &rowid, &parent, &fk); err != nil {
			return err
		}
		return fmt.Errorf("%w: a row of %s (rowid %v) has no row in %s", errForeignKeys, table, rowid.Int64, parent)
	}
	return rows.Err()
}

// Versions returns the migration versions recorded in the database.
func (s *Store) Versions(ctx context.Context) ([]int, error) {
	return versions(s.db.QueryContext(ctx, "SELECT version FROM schema_migrations ORDER BY version"))
}

// migrations reads the embedded migrations in version order.
func migrations() ([]stored.Migration, error) {
	return stored.Migrations(migrationFiles, "migrations/*.sql")
}
