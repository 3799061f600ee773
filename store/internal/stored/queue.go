package stored

import (
	"context"
	"runtime"
	"sync"
)

// Queue is a group commit's queue, the same for every store: writers put
// their requests in and wait for their own answer; a committer takes the
// requests a batch at a time; closing it turns writers away, and what is
// left once the committers have stopped is handed back to be answered.
type Queue[T any] struct {
	items    chan T
	closing  chan struct{}
	stopOnce sync.Once
	// sending is held (shared) by writers while they queue, and taken by
	// Close, so that no request lands in the queue after Close returns.
	sending sync.RWMutex
	closed  bool
}

// NewQueue returns a queue that holds up to size requests.
func NewQueue[T any](size int) *Queue[T] {
	return &Queue[T]{items: make(chan T, size), closing: make(chan struct{})}
}

// Put queues item, or returns closed when the queue is closed, or ctx's
// error when it ends first.
func (q *Queue[T]) Put(ctx context.Context, item T, closed error) error {
	q.sending.RLock()
	defer q.sending.RUnlock()
	if q.closed {
		return closed
	}
	select {
	case q.items <- item:
		return nil
	case <-q.closing:
		return closed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Next waits for a request and returns it in batch[:0], with those queued
// right behind it, max in all; false once the queue is closed. Before it
// closes the batch it lets the handlers about to queue a request do so: on
// a busy server that takes several times the requests per commit, and on an
// idle one it costs nothing.
func (q *Queue[T]) Next(batch []T, max int) ([]T, bool) {
	select {
	case item := <-q.items:
		batch = append(batch[:0], item)
	case <-q.closing:
		return batch[:0], false
	}
	runtime.Gosched()
	for len(batch) < max {
		select {
		case item := <-q.items:
			batch = append(batch, item)
		default:
			return batch, true
		}
	}
	return batch, true
}

// Len is how many requests wait in the queue.
func (q *Queue[T]) Len() int { return len(q.items) }

// Close turns writers away and ends the committers' Next.
func (q *Queue[T]) Close() {
	q.stopOnce.Do(func() { close(q.closing) })
	q.sending.Lock()
	q.closed = true
	q.sending.Unlock()
}

// Drain hands each request still queued to fail; call it after Close,
// once the committers have stopped.
func (q *Queue[T]) Drain(fail func(T)) {
	for {
		select {
		case item := <-q.items:
			fail(item)
		default:
			return
		}
	}
}
