package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// TestKindOf: the driver's errors an outage brings are named by their type
// and SQLSTATE, and whether a write failing with one may have been stored.
func TestKindOf(t *testing.T) {
	pg := func(code string) error {
		return fmt.Errorf("apply play: %w", &pgconn.PgError{Severity: "FATAL", Code: code})
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	tests := []struct {
		name      string
		err       error
		kind      stored.Kind
		uncertain bool
	}{
		{"server shutting down", pg("57P01"), stored.Unavailable, true},
		{"server starting up", pg("57P03"), stored.Unavailable, false},
		{"connection failure", pg("08006"), stored.Unavailable, true},
		{"too many connections", pg("53300"), stored.Unavailable, false},
		{"read-only server", pg("25006"), stored.Unavailable, false},
		{"disk full", pg("53100"), stored.Full, false},
		{"a unique key", pg("23505"), stored.NotAFailure, false},
		{"a password refused", pg("28P01"), stored.NotAFailure, false},
		{"no connection made", &pgconn.ConnectError{}, stored.Unavailable, false},
		{"reset under a statement", fmt.Errorf("read: %w", refused), stored.Unavailable, true},
		{"closed under a statement", fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), stored.Unavailable, true},
		{"a connection already closed", fmt.Errorf("x: %w", pgconn.ErrConnClosed), stored.Unavailable, true},
		{"the request's deadline", fmt.Errorf("x: %w", context.DeadlineExceeded), stored.NotAFailure, false},
		{"the request cancelled", context.Canceled, stored.NotAFailure, false},
		{"no row", games.ErrNotFound, stored.NotAFailure, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			kind := kindOf(tc.err)
			if kind != tc.kind {
				t.Fatalf("kind %d, want %d", kind, tc.kind)
			}
			if kind == stored.Unavailable && uncertain(tc.err) != tc.uncertain {
				t.Fatalf("uncertain %v, want %v", !tc.uncertain, tc.uncertain)
			}
		})
	}
}

// TestOpenWithNoServer: a server that refuses the connection is
// fault.ErrUnavailable from Open, which a start waits for.
func TestOpenWithNoServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err = Open(ctx, "postgres://nobody@"+addr+"/none?sslmode=disable&connect_timeout=5", Options{})
	if !errors.Is(err, fault.ErrUnavailable) {
		t.Fatalf("open with nothing listening: %v, want ErrUnavailable", err)
	}
}
