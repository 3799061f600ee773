package budget_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/ayoayo/ayoayo/budget"
)

// TestPreempt: a task taken with AcquirePreemptible is asked to stop (its
// context ends with ErrPreempted) exactly when a more urgent task waits and
// cannot start without its units; the newest such task is asked first, and
// no more of them than the waiting task needs.
func TestPreempt(t *testing.T) {
	stock := budget.Request{Priority: budget.Stock, Weight: 1, Wait: -1}
	tests := []struct {
		name    string
		size    int
		held    []budget.Priority // plain tasks holding a unit before the stock tasks start
		stocks  int               // preemptible stock tasks started next, one unit each
		waiting budget.Request
		want    []bool // per stock task, in start order: asked to stop
	}{
		{"a generation waits", 2, nil, 2, budget.Request{Priority: budget.Generation, Weight: 1, Wait: -1}, []bool{false, true}},
		{"an AI reply waits for two units", 3, nil, 3, budget.Request{Priority: budget.AIReply, Weight: 2, Wait: -1}, []bool{false, true, true}},
		{"a free unit is enough", 3, nil, 2, budget.Request{Priority: budget.Analysis, Weight: 1, Wait: -1}, []bool{false, false}},
		{"another stock task does not preempt", 1, nil, 1, stock, []bool{false}},
		{"a full share waits without preempting", 2, nil, 1,
			budget.Request{Priority: budget.AIReply, Weight: 1, Wait: -1, Shares: []budget.Share{{Key: "ai", Max: 1}}}, []bool{false}},
		{"held by live work only", 2, []budget.Priority{budget.Generation}, 1, budget.Request{Priority: budget.AIReply, Weight: 1, Wait: -1}, []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				b := budget.New(tt.size)
				var releases []func()
				for _, p := range tt.held {
					release, err := b.Acquire(ctx, budget.Request{Priority: p, Wait: 0})
					if err != nil {
						t.Fatal(err)
					}
					releases = append(releases, release)
				}
				if tt.name == "a full share waits without preempting" {
					release, err := b.Acquire(ctx, budget.Request{Priority: budget.AIReply, Shares: []budget.Share{{Key: "ai", Max: 1}}})
					if err != nil {
						t.Fatal(err)
					}
					releases = append(releases, release)
				}
				var (
					ctxs  []context.Context
					stops []func()
				)
				for range tt.stocks {
					sctx, release, err := b.AcquirePreemptible(ctx, stock)
					if err != nil {
						t.Fatal(err)
					}
					ctxs, stops = append(ctxs, sctx), append(stops, release)
				}
				started := make(chan func(), 1)
				go func() {
					if release, err := b.Acquire(ctx, tt.waiting); err == nil {
						started <- release
					}
				}()
				synctest.Wait()
				for i, sctx := range ctxs {
					asked := errors.Is(context.Cause(sctx), budget.ErrPreempted)
					if asked != tt.want[i] {
						t.Errorf("stock task %d asked to stop: %v, want %v", i, asked, tt.want[i])
					}
				}
				// Stopping gives the units to the waiting task.
				for i, sctx := range ctxs {
					if sctx.Err() != nil {
						stops[i]()
					}
				}
				synctest.Wait()
				if slices.Contains(tt.want, true) {
					select {
					case release := <-started:
						release()
					default:
						t.Error("the waiting task did not start once the stock tasks stopped")
					}
				}
				cancel()
				synctest.Wait()
				for _, release := range append(releases, stops...) {
					release()
				}
			})
		})
	}
}
