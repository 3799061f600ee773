package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPanickingWriteFailsAlone: a write whose function panics fails with
// errWritePanicked and leaves nothing behind, while the writes it shares a
// transaction with commit, and the committer goes on taking writes.
func TestPanickingWriteFailsAlone(t *testing.T) {
	tests := []struct {
		name string
		// queue is the order the writes are queued in behind a write that
		// holds the committer: "p" the panicking one, "k" one to keep. The
		// writes queued together run as one batch.
		queue string
	}{
		{"alone in its batch", "p"},
		{"first of a batch", "pk"},
		{"last of a batch", "kp"},
		{"between two others", "kpk"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s, _ := openTemp(t)
			// The blocker holds the committer inside its batch until the
			// others are queued.
			started, release := make(chan struct{}), make(chan struct{})
			blocked := make(chan error, 1)
			go func() {
				blocked <- s.write(ctx, func(context.Context, runner) error {
					close(started)
					<-release
					return nil
				})
			}()
			<-started
			txs := make([]*sql.Tx, len(tc.queue))
			results := make([]chan error, len(tc.queue))
			for i, kind := range tc.queue {
				results[i] = make(chan error, 1)
				key := "write " + string(rune('0'+i))
				go func() {
					results[i] <- s.write(ctx, func(ctx context.Context, r runner) error {
						txs[i] = r.tx
						if _, err := r.exec(ctx, "INSERT INTO meta (key, value) VALUES (?, 'x')", key); err != nil {
							return err
						}
						if kind == 'p' {
							panic("boom")
						}
						return nil
					})
				}()
				waitQueued(t, s, i+1)
			}
			close(release)
			if err := <-blocked; err != nil {
				t.Fatalf("the blocking write: %v", err)
			}
			for i, kind := range tc.queue {
				err := <-results[i]
				key := "write " + string(rune('0'+i))
				var n int
				if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM meta WHERE key = ?", key).Scan(&n); err != nil {
					t.Fatal(err)
				}
				switch kind {
				case 'p':
					if !errors.Is(err, errWritePanicked) || !strings.Contains(err.Error(), "boom") {
						t.Fatalf("the panicking write: %v, want errWritePanicked with the panic's value", err)
					}
					if n != 0 {
						t.Fatal("the panicking write's insert was committed")
					}
				default:
					if err != nil || n != 1 {
						t.Fatalf("write %d beside the panic: %v, %d rows; want it committed", i, err, n)
					}
				}
				if txs[i] != txs[0] {
					t.Fatalf("writes 0 and %d ran in different transactions: not one batch", i)
				}
			}
			// The committer survived.
			err := s.write(ctx, func(ctx context.Context, r runner) error {
				_, err := r.exec(ctx, "INSERT INTO meta (key, value) VALUES ('after', 'x')")
				return err
			})
			if err != nil {
				t.Fatalf("a write after the panic: %v", err)
			}
		})
	}
}

// waitQueued waits until n writes wait in the committer's queue.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for s.commit.writes.Len() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued after 10 s, want %d", s.commit.writes.Len(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
