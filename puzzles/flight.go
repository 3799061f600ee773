package puzzles

import (
	"context"
	"sync"
)

// flight runs at most one call per key at a time: callers asking for a key
// while its call runs wait for that call's result instead of starting
// another. The call runs on its own goroutine, detached from the callers, so
// a caller leaving (its context done) fails neither the call nor the other
// callers; whoever needs the result after the call ends finds it where the
// call left it (a store, a cache).
type flight[K comparable, V any] struct {
	mu    sync.Mutex
	calls map[K]*call[V]
}

type call[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// do returns key's result: run's, started now unless a call for key is
// running already, or ctx's error if ctx is done first.
func (fl *flight[K, V]) do(ctx context.Context, key K, run func() (V, error)) (V, error) {
	fl.mu.Lock()
	if fl.calls == nil {
		fl.calls = map[K]*call[V]{}
	}
	c, running := fl.calls[key]
	if !running {
		c = &call[V]{done: make(chan struct{})}
		fl.calls[key] = c
		go func() {
			defer func() {
				fl.mu.Lock()
				delete(fl.calls, key)
				fl.mu.Unlock()
				close(c.done)
			}()
			c.v, c.err = run()
		}()
	}
	fl.mu.Unlock()
	select {
	case <-c.done:
		return c.v, c.err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}
