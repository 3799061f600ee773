package sqlite

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ayoayo/ayoayo/fault"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/tournaments"
)

// TestFullDatabase: a write that finds no room is fault.ErrStorageFull
// (not an outage), not an unnamed error; reads go on; Ping fails, though reads
// work, until its own write can be made again, whatever other writes
// commit meanwhile; and the failures are counted.
// SQLite's max_page_count stands in for a full disk: past it, SQLite fails
// a write with SQLITE_FULL, as it does on ENOSPC.
func TestFullDatabase(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	kept := newGame(t, s, "kept")
	// Prepared while the pool may still open a connection for it: inside
	// the committer's transaction, on the one connection below, it could not.
	for _, q := range []string{probeInsert, probeDelete} {
		if _, err := s.prepared(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// One connection, so the page limit applies to every statement.
	s.db.SetMaxOpenConns(1)
	var pages int
	if err := s.db.QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf("PRAGMA max_page_count = %d", pages)); err != nil {
		t.Fatal(err)
	}
	var err error
	for i := 0; err == nil && i < 10000; i++ {
		g := kept
		g.ID = fmt.Sprintf("g%05d", i)
		err = s.CreateGame(ctx, g, nil)
	}
	if !errors.Is(err, fault.ErrStorageFull) || errors.Is(err, fault.ErrUnavailable) {
		t.Fatalf("a write to a full database: %v, want ErrStorageFull", err)
	}
	if _, err := s.Game(ctx, kept.ID); err != nil {
		t.Fatalf("a read from a full database: %v", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, fault.ErrStorageFull) {
		t.Fatalf("Ping after a write found no room: %v, want ErrStorageFull", err)
	}
	// A write that changes nothing (a sweep that ends no game) commits on a
	// full disk: it proves nothing, and Ping still fails.
	if err := s.write(ctx, func(context.Context, runner) error { return nil }); err != nil {
		t.Fatalf("a write of nothing to a full database: %v", err)
	}
	if err := s.Ping(ctx); !errors.Is(err, fault.ErrStorageFull) {
		t.Fatalf("Ping after a write of nothing succeeded on a full database: %v, want ErrStorageFull", err)
	}
	if c := s.Failures(); c.Full < 3 || c.Unavailable != 0 {
		t.Fatalf("failures %+v, want the write's and the pings' as full", c)
	}
	if _, err := s.db.Exec("PRAGMA max_page_count = 1000000"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping once there is room: %v", err)
	}
	if s.failures.WritesFailing() {
		t.Fatal("the ping's write succeeded, yet writes are still failing")
	}
	g := kept
	g.ID = "after"
	if err := s.CreateGame(ctx, g, nil); err != nil {
		t.Fatalf("a write once there is room: %v", err)
	}
}

// TestClosedStoreIsUnavailable: a write after Close (a request still
// running at shutdown) is fault.ErrUnavailable, answered 503, not a fault.
func TestClosedStoreIsUnavailable(t *testing.T) {
	s, _ := openTemp(t)
	g := newGame(t, s, "g")
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	g.ID = "late"
	if err := s.CreateGame(t.Context(), g, nil); !errors.Is(err, fault.ErrUnavailable) {
		t.Fatalf("a write after Close: %v, want ErrUnavailable", err)
	}
	// The tournaments' writes go through the same committer.
	ctx := t.Context()
	for what, err := range map[string]error{
		"CreateTournament": s.CreateTournament(ctx, tournaments.Tournament{ID: "t", Kind: tournaments.Arena, Status: tournaments.Upcoming}),
		"JoinTournament":   s.JoinTournament(ctx, "t", tournaments.Entrant{PlayerID: "ann"}),
		"PairTournament":   s.PairTournament(ctx, tournaments.Pairing{Tournament: "t", Sessions: []games.Game{g}}),
		"RecordResult":     s.RecordResult(ctx, "late", tournaments.Result{}),
		"Finish":           s.Finish(ctx, "t", g.CreatedAt),
		"CreateBulk":       s.CreateBulk(ctx, tournaments.Bulk{ID: "b"}, []games.Game{g}),
	} {
		if !errors.Is(err, fault.ErrUnavailable) {
			t.Errorf("%s after Close: %v, want ErrUnavailable", what, err)
		}
	}
}
