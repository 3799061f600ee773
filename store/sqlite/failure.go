package sqlite

import (
	"context"
	"errors"

	sqlitedrv "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// kindOf reads what the driver's error means, by SQLite's result code. A
// full disk is SQLITE_FULL (SQLite turns ENOSPC into it); a file system
// turned read-only, or one whose disk fails, is SQLITE_READONLY or
// SQLITE_IOERR; a lock that another process held beyond BusyTimeout is
// SQLITE_BUSY. None of them is the request's fault or the server's bug, and
// each may pass: the service answers 503 and the client comes back.
// Corruption (SQLITE_CORRUPT, SQLITE_NOTADB) is not one: it does not pass.
func kindOf(err error) stored.Kind {
	if errors.Is(err, ErrClosed) {
		return stored.Unavailable // shutting down
	}
	se, ok := errors.AsType[*sqlitedrv.Error](err)
	if !ok {
		return stored.NotAFailure
	}
	// The low byte is the primary code; extended codes add detail above it.
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_FULL:
		return stored.Full
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN,
		sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_PROTOCOL:
		return stored.Unavailable
	}
	return stored.NotAFailure
}

// read names a read's error (see stored.Failures).
func (s *Store) read(err error) error { return s.failures.Read(err, kindOf(err)) }

// Failures returns the store's failures since it opened, for metrics.
func (s *Store) Failures() FailureCounts { return s.failures.Counts() }

// The readiness check's write (see Ping) adds a row that needs new pages,
// probeBytes of them, and removes it in the same transaction: it leaves
// nothing behind, but it needs room on disk as the writes that failed did.
// A write that only rewrote a page already there could succeed on a full
// disk, in WAL space already allocated, and say the store is whole when a
// move would still fail.
const (
	probeBytes  = 64 << 10
	probeInsert = `INSERT INTO schema_migrations (version, name, applied_at) VALUES (-1, zeroblob(?), '')`
	probeDelete = `DELETE FROM schema_migrations WHERE version = -1`
)

// probeWrite is the readiness check's write.
func probeWrite(ctx context.Context, r runner) error {
	if _, err := r.exec(ctx, probeInsert, probeBytes); err != nil {
		return err
	}
	_, err := r.exec(ctx, probeDelete)
	return err
}

// FailureCounts are the store's failures since it opened (see Failures).
type FailureCounts = stored.FailureCounts
