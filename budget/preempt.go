package budget

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// ErrPreempted is the cause (context.Cause) of the context of a task taken
// with AcquirePreemptible when more urgent work needed its units: the task
// stops, gives them back, and may queue again later.
var ErrPreempted = errors.New("cpu budget: preempted by more urgent work")

// yielder is a running task that gives its units back when asked.
type yielder struct {
	w      *waiter
	cancel context.CancelCauseFunc
	asked  bool // cancelled already: its units are as good as free
}

// AcquirePreemptible is Acquire for work that can stop at any moment and be
// made again later (work made ahead, at priority Stock): the context it
// returns, derived from ctx, is cancelled with cause ErrPreempted as soon as
// a waiting task of a more urgent priority cannot start for want of the
// units it holds. The task then stops and calls release as usual. A long
// task at a low priority so never delays live work by more than the time it
// takes to notice its context (a generation checks it every game).
func (b *Budget) AcquirePreemptible(ctx context.Context, req Request) (context.Context, func(), error) {
	w, err := b.acquire(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	pctx, cancel := context.WithCancelCause(ctx)
	y := &yielder{w: w, cancel: cancel}
	b.mu.Lock()
	b.yielding = append(b.yielding, y)
	// A more urgent task may have queued while this one was being lent
	// its units: it is the one to ask now.
	b.grant()
	b.mu.Unlock()
	var once sync.Once
	release := func() {
		once.Do(func() {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.yielding = slices.DeleteFunc(b.yielding, func(o *yielder) bool { return o == y })
			b.giveBack(w)
			cancel(nil)
		})
	}
	return pctx, release, nil
}

// preempt asks running preemptible tasks less urgent than w, the newest
// first, to give their units back, until the units free and those asked for
// would let w start. b.mu is held.
func (b *Budget) preempt(w *waiter) {
	free := b.size - b.used
	for _, y := range b.yielding {
		if y.asked {
			free += y.w.req.Weight
		}
	}
	for _, y := range slices.Backward(b.yielding) {
		if free >= w.req.Weight {
			return
		}
		if y.asked || y.w.req.Priority <= w.req.Priority {
			continue
		}
		y.asked = true
		y.cancel(ErrPreempted)
		free += y.w.req.Weight
	}
}
