package games

import (
	"context"
	"slices"
	"sync"
	"time"
)

// aiSlots shares the AI's search slots among client addresses. The rule:
// one address holds at most perAddr of them at once (half, and at least
// one), so however many games one client plays, the other half stays for
// everyone else; and a move that has to wait is served in order of arrival,
// skipping only the waiters whose address already holds its share. A waiter
// that gives up (its bound or its context) leaves the queue.
type aiSlots struct {
	mu      sync.Mutex
	size    int // slots in all
	free    int
	perAddr int
	held    map[string]int // slots lent, by address
	queue   []*aiWaiter    // in order of arrival
}

// aiWaiter is a move waiting for a slot.
type aiWaiter struct {
	addr    string
	granted chan struct{} // closed when the slot is lent to it
}

func newAISlots(n int) *aiSlots {
	return &aiSlots{size: n, free: n, perAddr: max(1, n/2), held: make(map[string]int)}
}

// acquire takes a slot for addr, waiting at most wait. It reports false when
// none came in time, and ctx's error when ctx ended first; a slot taken is
// given back with release.
func (q *aiSlots) acquire(ctx context.Context, addr string, wait time.Duration) (bool, error) {
	q.mu.Lock()
	if q.free > 0 && q.held[addr] < q.perAddr {
		// A free slot is never left to a waiter who may take it (release
		// lends it at once), so taking it jumps nobody.
		q.lend(addr)
		q.mu.Unlock()
		return true, nil
	}
	w := &aiWaiter{addr: addr, granted: make(chan struct{})}
	q.queue = append(q.queue, w)
	q.mu.Unlock()

	timer := time.NewTimer(wait)
	defer timer.Stop()
	var err error
	select {
	case <-w.granted:
		return true, nil
	case <-timer.C:
	case <-ctx.Done():
		err = ctx.Err()
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if i := slices.Index(q.queue, w); i >= 0 {
		q.queue = slices.Delete(q.queue, i, i+1)
		return false, err
	}
	// Lent while giving up: a move that timed out uses it all the same, one
	// whose client has gone gives it back.
	if err != nil {
		q.giveBack(addr)
		return false, err
	}
	return true, nil
}

// release gives back a slot addr took.
func (q *aiSlots) release(addr string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.giveBack(addr)
}

func (q *aiSlots) lend(addr string) {
	q.free--
	q.held[addr]++
}

// giveBack frees addr's slot and lends the free slots to the first waiters
// whose address holds less than its share. q.mu is held.
func (q *aiSlots) giveBack(addr string) {
	q.free++
	if q.held[addr]--; q.held[addr] <= 0 {
		delete(q.held, addr)
	}
	for i := 0; i < len(q.queue) && q.free > 0; {
		w := q.queue[i]
		if q.held[w.addr] >= q.perAddr {
			i++
			continue
		}
		q.lend(w.addr)
		q.queue = slices.Delete(q.queue, i, i+1)
		close(w.granted)
	}
}

// counts returns the slots lent and the moves waiting.
func (q *aiSlots) counts() (lent, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, n := range q.held {
		lent += n
	}
	return lent, len(q.queue)
}
