package puzzles

import (
	"context"

	"golang.org/x/sync/singleflight"
)

// flight runs at most one call per key at a time: callers asking for a key
// while its call runs wait for that call's result instead of starting
// another. It is golang.org/x/sync/singleflight's DoChan, typed, with a
// caller's wait bounded by its ctx, which singleflight leaves out: the call
// runs on a goroutine of its own, detached from the callers, so a caller
// leaving fails neither the call nor the other callers; whoever needs the
// result after the call ends finds it where the call left it (a store, a
// cache). The zero value is ready to use.
type flight[V any] struct{ group singleflight.Group }

// do returns key's result: run's, started now unless a call for key is
// running already, or ctx's error if ctx is done first.
func (fl *flight[V]) do(ctx context.Context, key string, run func() (V, error)) (V, error) {
	ch := fl.group.DoChan(key, func() (any, error) { return run() })
	select {
	case r := <-ch:
		v, _ := r.Val.(V) // a failed call may leave no value
		return v, r.Err
	case <-ctx.Done():
		var zero V
		return zero, ctx.Err()
	}
}
