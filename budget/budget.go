// Package budget shares the server's CPU among its heavy work: AI replies,
// analyses, puzzle generation, endgame table builds and game reviews. Each of them is
// CPU-bound and never waits on anything else, so running more of them at
// once than there are cores only makes every one slower, and makes the cheap
// requests (a move between people, an evaluation) queue behind their time
// slices. One Budget, made once for the process and handed to every service,
// bounds them all together.
//
// A Budget holds a number of units, about one per core. A task asks for a
// weight in units (one for a search on one goroutine, more for work that runs
// on several) at a priority. Tasks that cannot start at once wait in a queue
// ordered by priority, then by arrival: nothing running is ever stopped, but
// a waiting AI reply is served before a waiting analysis, and an analysis
// before a generation. Each task bounds its wait; one that runs out is told
// ErrBusy, so every request is answered or refused, never left waiting for
// ever behind a stream of more urgent ones.
package budget

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Priority orders the waiting tasks: a lower value is served first.
type Priority int

// The priorities, most urgent first.
const (
	// AIReply: the AI's move in a live game, which a person is watching
	// the clock for.
	AIReply Priority = iota
	// Analysis: a search asked for over the API.
	Analysis
	// Generation: puzzles and endgame tables that someone asked for.
	Generation
	// Review: the engine's review of a finished game, ply by ply, which
	// someone will read later: it runs behind everything a person waits
	// for now, and before the practice stock.
	Review
	// Stock: work nobody waits for (the practice stock, made ahead), which
	// runs only in idle time: taken with AcquirePreemptible, it gives its
	// units back as soon as more urgent work cannot start without them.
	Stock

	numPriorities
)

func (p Priority) String() string {
	switch p {
	case AIReply:
		return "ai_reply"
	case Analysis:
		return "analysis"
	case Generation:
		return "generation"
	case Review:
		return "review"
	case Stock:
		return "stock"
	}
	return fmt.Sprintf("priority(%d)", int(p))
}

// ErrBusy: no units came free within the task's wait. The caller answers
// "try again shortly".
var ErrBusy = errors.New("cpu budget busy")

// SizeFor is the default size of a budget for procs cores (GOMAXPROCS): one
// unit per core but one, and at least one. The core left over is the cheap
// requests': with every core running a search, an evaluation waits for a
// time slice (up to 10 ms in Go's scheduler) however often the searches
// yield.
func SizeFor(procs int) int { return max(1, procs-1) }

// A Share caps the units the tasks with one key may hold at once, whatever
// else is free: a client address's share of the AI, or the analyses' share of
// the whole.
type Share struct {
	Key string
	Max int // at least 1
}

// Request is what a task asks for.
type Request struct {
	Priority Priority
	// Weight is the units the task holds while it runs: the cores it keeps
	// busy. Below 1 counts as 1, above the budget's size as its size.
	Weight int
	// Wait bounds the time the task waits in the queue; past it, ErrBusy.
	// Zero: it starts at once or not at all. Negative: it waits as long as
	// ctx lets it (for background work, whose ctx is the bound).
	Wait time.Duration
	// Shares the task counts against; a waiting task whose share is full is
	// passed over (it could not start anyway) until its key frees a unit.
	Shares []Share
}

// Budget is a weighted CPU budget with a priority queue. Its methods are
// safe for concurrent use.
type Budget struct {
	size int

	mu     sync.Mutex
	used   int
	held   map[string]int           // units held, by share key
	queues [numPriorities][]*waiter // by priority, in order of arrival
	// yielding are the running tasks that give their units back when
	// asked (AcquirePreemptible), in order of start.
	yielding []*yielder
}

// waiter is a task in the queue.
type waiter struct {
	req     Request
	granted chan struct{} // closed when the units are lent to it
}

// New returns a budget of size units (at least one).
func New(size int) *Budget {
	return &Budget{size: max(size, 1), held: make(map[string]int)}
}

// Size returns the budget's units.
func (b *Budget) Size() int { return b.size }

// Stats is a snapshot of a budget, for metrics and tests.
type Stats struct {
	Size, Used int
	Waiting    [numPriorities]int // tasks in the queue, by priority
}

// Stats returns the budget's state now.
func (b *Budget) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := Stats{Size: b.size, Used: b.used}
	for p, q := range b.queues {
		st.Waiting[p] = len(q)
	}
	return st
}

// Held returns the units the tasks of a share's key hold now.
func (b *Budget) Held(key string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held[key]
}

// Outranked says whether a task waits at a priority more urgent than p that
// could start were units given back: the question a long task at p asks
// now and then, to give its units back and queue again behind it.
func (b *Budget) Outranked(p Priority) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, q := range b.queues[:max(min(p, numPriorities), 0)] {
		for _, w := range q {
			if !b.shareFull(w) {
				return true
			}
		}
	}
	return false
}

// Acquire takes req's units, waiting in the queue as req.Wait and ctx allow.
// It returns the function that gives them back (call it exactly once, when
// the work is done), ErrBusy (wrapped) when the wait ran out, or ctx's error
// when ctx ended first.
func (b *Budget) Acquire(ctx context.Context, req Request) (release func(), err error) {
	w, err := b.acquire(ctx, req)
	if err != nil {
		return nil, err
	}
	return b.releaser(w), nil
}

// acquire is Acquire, answering with the waiter its units were lent to.
func (b *Budget) acquire(ctx context.Context, req Request) (*waiter, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	req.Weight = min(max(req.Weight, 1), b.size)
	if req.Priority < 0 || req.Priority >= numPriorities {
		return nil, fmt.Errorf("budget: no priority %d", req.Priority)
	}
	w := &waiter{req: req, granted: make(chan struct{})}
	b.mu.Lock()
	// Joining the queue and serving it at once lets a task start straight
	// away exactly when nobody before it in the queue's order could.
	b.queues[req.Priority] = append(b.queues[req.Priority], w)
	b.grant()
	if isClosed(w.granted) {
		b.mu.Unlock()
		return w, nil
	}
	if req.Wait == 0 {
		b.leave(w)
		b.mu.Unlock()
		return nil, b.busy(req)
	}
	b.mu.Unlock()

	var timeout <-chan time.Time
	if req.Wait > 0 {
		t := time.NewTimer(req.Wait)
		defer t.Stop()
		timeout = t.C
	}
	var err error
	select {
	case <-w.granted:
		return w, nil
	case <-timeout:
	case <-ctx.Done():
		err = ctx.Err()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !isClosed(w.granted) {
		b.leave(w)
		if err == nil {
			err = b.busy(req)
		}
		return nil, err
	}
	// Lent while giving up: a task whose wait ran out uses the units all
	// the same; one whose caller has gone gives them back.
	if err != nil {
		b.giveBack(w)
		return nil, err
	}
	return w, nil
}

// busy is the ErrBusy of a wait that ran out.
func (b *Budget) busy(req Request) error {
	if req.Wait <= 0 {
		return fmt.Errorf("%w: all %d units are taken", ErrBusy, b.size)
	}
	return fmt.Errorf("%w: no unit of %d came free for %s work within %v", ErrBusy, b.size, req.Priority, req.Wait)
}

// releaser is the function that gives w's units back, once however often
// it is called.
func (b *Budget) releaser(w *waiter) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.giveBack(w)
		})
	}
}

// fits says whether w may start now. b.mu is held.
func (b *Budget) fits(w *waiter) bool {
	if w.req.Weight > b.size-b.used {
		return false
	}
	for _, s := range w.req.Shares {
		if b.held[s.Key]+w.req.Weight > max(s.Max, 1) {
			return false
		}
	}
	return true
}

// shareFull says whether one of w's shares keeps it from starting whatever
// else is free. b.mu is held.
func (b *Budget) shareFull(w *waiter) bool {
	for _, s := range w.req.Shares {
		if b.held[s.Key]+w.req.Weight > max(s.Max, 1) {
			return true
		}
	}
	return false
}

// grant lends free units to the waiters in queue order: by priority, then
// by arrival. A waiter whose share is full is passed over; the first one
// that is too heavy for the units free stops the lending, so the units that
// free next are its and a heavy task is not passed over by light ones for
// ever. b.mu is held.
func (b *Budget) grant() {
	for p := range b.queues {
		for i := 0; i < len(b.queues[p]); {
			w := b.queues[p][i]
			if b.shareFull(w) {
				i++
				continue
			}
			if !b.fits(w) {
				b.preempt(w)
				return
			}
			b.used += w.req.Weight
			for _, s := range w.req.Shares {
				b.held[s.Key] += w.req.Weight
			}
			b.queues[p] = slices.Delete(b.queues[p], i, i+1)
			close(w.granted)
		}
	}
}

// leave takes w, not granted, out of the queue; the waiters it held up may
// start. b.mu is held.
func (b *Budget) leave(w *waiter) {
	q := b.queues[w.req.Priority]
	if i := slices.Index(q, w); i >= 0 {
		b.queues[w.req.Priority] = slices.Delete(q, i, i+1)
	}
	b.grant()
}

// giveBack returns w's units and lends them on. b.mu is held.
func (b *Budget) giveBack(w *waiter) {
	b.used -= w.req.Weight
	for _, s := range w.req.Shares {
		if b.held[s.Key] -= w.req.Weight; b.held[s.Key] <= 0 {
			delete(b.held, s.Key)
		}
	}
	b.grant()
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
