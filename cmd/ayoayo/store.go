package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/idempotency"
	"github.com/ayoayo/ayoayo/lobby"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/review"
	"github.com/ayoayo/ayoayo/review/explorer"
	"github.com/ayoayo/ayoayo/store/postgres"
	"github.com/ayoayo/ayoayo/store/sqlite"
	"github.com/ayoayo/ayoayo/tournaments"
)

// store is what the commands need of a database.
type store interface {
	games.Store
	puzzles.Store
	puzzles.StockStore
	players.Store
	idempotency.Store
	lobby.Store
	games.ExportStore
	review.Store
	explorer.Store
	tournaments.Store
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
// postgresql:// URL, else the SQLite file at that path. log gets what the
// store reports of its own (nil: nothing).
func openStore(ctx context.Context, db string, now func() time.Time, log *slog.Logger) (store, error) {
	return openStoreWith(ctx, db, now, log, true)
}

// openStoreWith is openStore that, unless migrate, applies no migration and
// fails with errSchemaBehind when one is missing. Either way a database
// that a newer binary migrated is refused (sqlite.ErrSchemaNewer, the same
// value as postgres.ErrSchemaNewer).
func openStoreWith(ctx context.Context, db string, now func() time.Time, log *slog.Logger, migrate bool) (store, error) {
	if isPostgres(db) {
		s, err := postgres.Open(ctx, db, postgres.Options{Now: now, NoMigrate: !migrate})
		if err != nil {
			return nil, err // not a nil *postgres.Store in a non-nil store
		}
		return s, nil
	}
	s, err := sqlite.Open(ctx, db, sqlite.Options{Now: now, Logger: log, NoMigrate: !migrate})
	if err != nil {
		return nil, err // not a nil *sqlite.Store in a non-nil store
	}
	return s, nil
}

// errSchemaBehind is both stores' (the same value): a migration is missing
// and the open was told not to apply it.
var errSchemaBehind = sqlite.ErrSchemaBehind

// versioned is a store that lists the migrations it has recorded (both).
type versioned interface {
	Versions(ctx context.Context) ([]int, error)
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

// Pauses between tries to open the database at start: short at first, for
// a database starting beside the server, then doubling up to the longest.
const (
	firstOpenRetry = 250 * time.Millisecond
	lastOpenRetry  = 5 * time.Second
)

// dbWait is how a start waits for its database: for up to wait in all,
// logging each failed try. now and after are the clock (time.Now and
// time.After in the server; tests pass their own).
type dbWait struct {
	wait  time.Duration
	now   func() time.Time
	after func(time.Duration) <-chan time.Time
	log   *slog.Logger
}

// open opens the store with open, trying again after a pause while the
// database is unavailable or full (the failures a store names, which pass),
// until w.wait has gone by. A failure that waiting cannot mend (a password
// refused, a file that is not a database) ends it at once, as does ctx.
func (w dbWait) open(ctx context.Context, open func(context.Context) (store, error)) (store, error) {
	deadline := w.now().Add(w.wait)
	pause := firstOpenRetry
	for try := 1; ; try++ {
		st, err := open(ctx)
		if err == nil {
			if try > 1 {
				w.log.Info("the database is available", "tries", try)
			}
			return st, nil
		}
		if !errors.Is(err, fault.ErrUnavailable) && !errors.Is(err, fault.ErrStorageFull) {
			return nil, err
		}
		left := deadline.Sub(w.now())
		if left <= 0 {
			return nil, fmt.Errorf("the database was not available within --db-wait %s (%d tries); the last try: %w", w.wait, try, err)
		}
		pause = min(pause, left)
		w.log.Warn("the database is not available; waiting for it", "try", try, "retryIn", pause.String(), "waitLeft", left.Round(time.Millisecond).String(), "error", err.Error())
		select {
		case <-w.after(pause):
		case <-ctx.Done():
			return nil, fmt.Errorf("stopped while waiting for the database: %w", err)
		}
		pause = min(2*pause, lastOpenRetry)
	}
}

// failureCounter is a store that counts its failures (both stores do).
type failureCounter interface {
	Failures() sqlite.FailureCounts // postgres.FailureCounts is the same type
}

// walSizer is a store with a write-ahead log file of its own (SQLite).
type walSizer interface {
	WALSize() (int64, error)
}

// registerStoreMetrics adds the store's failures, by kind, and its WAL's
// size (SQLite) to reg, read when /metrics is scraped.
// batchCounter is a store that groups plays into batches (PostgreSQL).
type batchCounter interface {
	BatchCounts() (batches, plays int64)
}

func registerStoreMetrics(reg prometheus.Registerer, st store) error {
	var cs []prometheus.Collector
	if fc, ok := st.(failureCounter); ok {
		for _, k := range []struct {
			kind  string
			count func(sqlite.FailureCounts) uint64
		}{
			{"unavailable", func(c sqlite.FailureCounts) uint64 { return c.Unavailable }},
			{"full", func(c sqlite.FailureCounts) uint64 { return c.Full }},
			{"uncertain_write", func(c sqlite.FailureCounts) uint64 { return c.Uncertain }},
		} {
			cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name:        "ayoayo_store_failures_total",
				Help:        "Database operations that failed for the database's sake, by kind: unavailable (refused, lost, starting or stopping, read-only; answered 503 store_unavailable), full (no room for a write; 503 storage_full), uncertain_write (of unavailable, writes that may have been stored).",
				ConstLabels: prometheus.Labels{"kind": k.kind},
			}, func() float64 { return float64(k.count(fc.Failures())) }))
		}
	}
	if ws, ok := st.(walSizer); ok {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "ayoayo_store_wal_bytes",
			Help: "Size of the SQLite write-ahead log file, which the database needs on disk beyond its own file; it grows while checkpoints fail.",
		}, func() float64 {
			n, err := ws.WALSize()
			if err != nil {
				return math.NaN()
			}
			return float64(n)
		}))
	}
	if read, ok := storePool(st); ok {
		cs = append(cs, poolCollectors(read)...)
	}
	if bc, ok := st.(batchCounter); ok {
		cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "ayoayo_store_commit_batches_total",
			Help: "Transactions in which the PostgreSQL store committed moves together (group commit).",
		}, func() float64 { b, _ := bc.BatchCounts(); return float64(b) }),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Name: "ayoayo_store_commit_batched_moves_total",
				Help: "Plays (a move, with the AI's reply if any) those transactions carried: divided by ayoayo_store_commit_batches_total, the plays per commit.",
			}, func() float64 { _, p := bc.BatchCounts(); return float64(p) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
