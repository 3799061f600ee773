package sqlite

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

func TestOpenMigratesOnceAndReopens(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "t.db")
	s, err := Open(ctx, file)
	if err != nil {
		t.Fatal(err)
	}
	want, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Versions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || !slices.IsSorted(got) {
		t.Fatalf("applied %v, want %d migrations in order", got, len(want))
	}
	var mode string
	if err := s.DB().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode %q (%v), want wal", mode, err)
	}
	var fk int
	if err := s.DB().QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign_keys %d (%v), want 1", fk, err)
	}
	s.Close()

	s, err = Open(ctx, file) // a second start applies nothing again
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	again, err := s.Versions(ctx)
	if err != nil || !slices.Equal(again, got) {
		t.Fatalf("after reopen %v (%v), want %v", again, err, got)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}
