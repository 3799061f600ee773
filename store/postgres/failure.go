package postgres

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// FailureCounts are the store's failures since it opened (see Failures).
type FailureCounts = stored.FailureCounts

// kindOf reads what the driver's error means: by SQLSTATE when the server
// answered, else by the kind of error pgx reports for a connection that
// could not be made or was lost. A cancelled or timed-out request is the
// request's own business, not the database's.
func kindOf(err error) stored.Kind {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return stored.NotAFailure
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return kindOfState(pe.Code)
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return stored.Unavailable // refused, or no route: nothing was sent
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return stored.Unavailable // reset or refused under a statement
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, pgconn.ErrConnClosed) {
		return stored.Unavailable // the server closed the connection
	}
	return stored.NotAFailure
}

// kindOfState reads a SQLSTATE. The outages: the connection exception class
// (08), the server shutting down or starting up (57P01-57P03), too many
// connections and out of memory (53300, 53200), an I/O error (58030), a
// server that takes no writes (25006: a standby, or a read-only default).
// A full disk is 53100. Anything else (a constraint, a syntax error, a
// password refused) will not pass by waiting.
func kindOfState(code string) stored.Kind {
	switch {
	case code == "53100":
		return stored.Full
	case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03",
		code == "53300", code == "53200", code == "58030", code == "25006":
		return stored.Unavailable
	}
	return stored.NotAFailure
}

// uncertain reports whether a write that failed with err may have been
// stored: its statement may have reached the server before the connection
// was lost, or before the server was told to shut down. Not when pgx says
// nothing was sent, nor when no connection was made, nor when the server
// refused the statement itself.
func uncertain(err error) bool {
	if pgconn.SafeToRetry(err) {
		return false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return false
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02"
	}
	return true
}

// read names a read's error (see stored.Failures).
func (s *Store) read(err error) error { return s.failures.Read(err, kindOf(err)) }

// wrote names a write's error, saying whether it may have been stored.
func (s *Store) wrote(err error) error {
	kind := kindOf(err)
	return s.failures.Write(err, kind, kind == stored.Unavailable && uncertain(err))
}

// Failures returns the store's failures since it opened, for metrics.
func (s *Store) Failures() FailureCounts { return s.failures.Counts() }

// probeWrite changes nothing but is a write all the same (a new row
// version, a WAL record), which a full disk refuses: the readiness check's
// write (see Ping).
const probeWrite = `UPDATE schema_migrations SET name = name
	WHERE version = (SELECT max(version) FROM schema_migrations)`
