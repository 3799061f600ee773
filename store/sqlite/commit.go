package sqlite

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// Group commit. SQLite commits one transaction at a time, and a commit costs
// more than the small writes of a move (it takes the locks and appends every
// page it changed to the WAL). Game writes therefore go through one committer
// goroutine: the writes that arrive while a commit is in progress wait
// together and go into the next transaction, each inside its own savepoint,
// so one write that fails (a stale ply, say) is undone alone. Every caller is
// answered only after the commit that holds its write, so an answer still
// means the write is in the database; writes in one batch see each other in
// order, so two moves for the same ply still make exactly one.

// ErrClosed: the store was closed before a write could be made.
var ErrClosed = errors.New("store closed")

// maxBatch bounds the writes in one transaction, so the first of them does
// not wait long behind the others.
const maxBatch = 64

type pendingWrite struct {
	ctx  context.Context
	fn   func(ctx context.Context, r runner) error
	done chan error
}

// committer runs the batches. It starts with the first write and stops at
// Close.
type committer struct {
	writes  *stored.Queue[*pendingWrite]
	stopped chan struct{}
}

// write runs fn in a write transaction shared with whatever other writes are
// waiting, and returns fn's error, or the commit's, named when the database
// failed (see kindOf). SQLite undoes a transaction whose commit fails, so a
// failed write is never one that may have been stored. fn must do all its
// work through r and use the ctx it is given (its caller's may be cancelled
// while others' writes share the transaction).
func (s *Store) write(ctx context.Context, fn func(ctx context.Context, r runner) error) error {
	err := s.queueWrite(ctx, fn)
	return s.failures.Write(err, kindOf(err), false)
}

func (s *Store) queueWrite(ctx context.Context, fn func(ctx context.Context, r runner) error) error {
	s.startOnce.Do(func() {
		s.commit = &committer{writes: stored.NewQueue[*pendingWrite](maxBatch), stopped: make(chan struct{})}
		go s.commitLoop(s.commit)
	})
	w := &pendingWrite{ctx: ctx, fn: fn, done: make(chan error, 1)}
	if err := s.commit.writes.Put(ctx, w, ErrClosed); err != nil {
		return err
	}
	// Once queued, the write may already be in a batch: wait for its verdict
	// even if ctx ends, so the caller never reports a failure for a write
	// that was committed.
	return <-w.done
}

// stopCommitter ends the committer, if it ever started, after the batch it is
// running; writes still queued get ErrClosed.
func (s *Store) stopCommitter() {
	s.startOnce.Do(func() {}) // a write arriving from now on must not start one
	if s.commit == nil {
		return
	}
	c := s.commit
	c.writes.Close()
	<-c.stopped
	c.writes.Drain(func(w *pendingWrite) { w.done <- ErrClosed })
}

func (s *Store) commitLoop(c *committer) {
	defer close(c.stopped)
	batch := make([]*pendingWrite, 0, maxBatch)
	for {
		var ok bool
		if batch, ok = c.writes.Next(batch, maxBatch); !ok {
			return
		}
		errs := s.commitBatch(batch)
		for i, w := range batch {
			w.done <- errs[i]
		}
	}
}

// commitBatch runs the batch's writes in one transaction and returns each
// one's error.
func (s *Store) commitBatch(batch []*pendingWrite) []error {
	errs := make([]error, len(batch))
	fail := func(err error) []error {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return errs
	}
	// The batch's statements run under their own context: one caller giving
	// up must not break the transaction the others share.
	ctx := context.Background()
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(err)
	}
	r := runner{s, tx}
	single := len(batch) == 1
	for i, w := range batch {
		if err := w.ctx.Err(); err != nil {
			errs[i] = err // given up before its turn: not written
			continue
		}
		if single {
			if errs[i] = run(ctx, w.fn, r); errs[i] != nil {
				_ = tx.Rollback()
				return errs
			}
			continue
		}
		if _, err := r.exec(ctx, "SAVEPOINT write"); err != nil {
			_ = tx.Rollback()
			return fail(err)
		}
		if errs[i] = run(ctx, w.fn, r); errs[i] != nil {
			if _, err := r.exec(ctx, "ROLLBACK TO write"); err != nil {
				_ = tx.Rollback()
				return fail(err)
			}
		}
		if _, err := r.exec(ctx, "RELEASE write"); err != nil {
			_ = tx.Rollback()
			return fail(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	return errs
}

// errWritePanicked: a write's function panicked; its work is undone and the
// other writes of its batch go on.
var errWritePanicked = errors.New("write panicked")

// run calls fn, turning a panic into an error for this write alone, so one
// faulty write neither kills the committer nor fails the writes it shares a
// transaction with.
func run(ctx context.Context, fn func(context.Context, runner) error, r runner) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: %v\n%s", errWritePanicked, v, debug.Stack())
		}
	}()
	return fn(ctx, r)
}
