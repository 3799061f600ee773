package sqlite

import (
	"context"
	"testing"
)

// Every pooled connection leaves checkpoints to the store's own checkpointer,
// so no commit pays for one.
func TestNoCheckpointInsideCommits(t *testing.T) {
	ctx := context.Background()
	s, _ := openTemp(t)
	conns := make([]interface{ Close() error }, 0, 3)
	for range 3 { // several connections, not just the first the pool made
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var n, limit int
		if err := c.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&n); err != nil || n != 0 {
			t.Fatalf("wal_autocheckpoint %d (%v), want 0", n, err)
		}
		if err := c.QueryRowContext(ctx, "PRAGMA journal_size_limit").Scan(&limit); err != nil || limit != walSizeLimit {
			t.Fatalf("journal_size_limit %d (%v), want %d", limit, err, walSizeLimit)
		}
	}
	for _, c := range conns {
		c.Close()
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_ = s.Close() // a second Close must not hang or panic on the stopped checkpointer
}
