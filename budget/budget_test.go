package budget_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ayoayo/ayoayo/budget"
)

// recorder is the order in which tasks started.
type recorder struct {
	mu    sync.Mutex
	order []string
}

func (r *recorder) add(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.order = append(r.order, name)
}

func (r *recorder) got() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return fmt.Sprint(r.order)
}

// task is one Acquire of a table test: it queues in the order of the
// table, then the units held at the start are given back one by one.
type task struct {
	name   string
	req    budget.Request
	holdOn bool // keeps its units once it starts (the rest give them back at once)
}

// TestOrder: waiting tasks start by priority, then by arrival; a task whose
// share is full is passed over; a heavy task at the head of the queue is
// not passed over by lighter ones of its priority.
func TestOrder(t *testing.T) {
	forever := time.Duration(-1)
	ai := func(weight int, shares ...budget.Share) budget.Request {
		return budget.Request{Priority: budget.AIReply, Weight: weight, Wait: forever, Shares: shares}
	}
	an := budget.Request{Priority: budget.Analysis, Weight: 1, Wait: forever}
	gen := func(weight int) budget.Request {
		return budget.Request{Priority: budget.Generation, Weight: weight, Wait: forever}
	}
	tests := []struct {
		name  string
		size  int
		held  int // units taken before the tasks queue, given back one at a time
		tasks []task
		want  string
	}{
		{
			name: "priority before arrival",
			size: 1, held: 1,
			tasks: []task{{name: "gen", req: gen(1)}, {name: "analysis", req: an}, {name: "ai", req: ai(1)}},
			want:  "[ai analysis gen]",
		},
		{
			name: "a review after generation, before the stock",
			size: 1, held: 1,
			tasks: []task{
				{name: "stock", req: budget.Request{Priority: budget.Stock, Wait: forever}},
				{name: "review", req: budget.Request{Priority: budget.Review, Wait: forever}},
				{name: "gen", req: gen(1)},
				{name: "analysis", req: an},
			},
			want: "[analysis gen review stock]",
		},
		{
			name: "arrival within a priority",
			size: 1, held: 1,
			tasks: []task{{name: "a1", req: an}, {name: "a2", req: an}, {name: "a3", req: an}},
			want:  "[a1 a2 a3]",
		},
		{
			name: "a full share is passed over",
			size: 2, held: 2,
			tasks: []task{
				{name: "x1", req: ai(1, budget.Share{Key: "x", Max: 1}), holdOn: true},
				{name: "x2", req: ai(1, budget.Share{Key: "x", Max: 1})},
				{name: "y1", req: ai(1, budget.Share{Key: "y", Max: 1})},
			},
			// x1 starts on the first unit and keeps it; x2 may not start
			// beside it, so y1 takes the second.
			want: "[x1 y1]",
		},
		{
			name: "a heavy task holds its place",
			size: 2, held: 2,
			tasks: []task{{name: "build", req: gen(2)}, {name: "g1", req: gen(1)}},
			// One unit back is not enough for the build, and g1 waits behind
			// it rather than taking it; the second unit starts the build.
			want: "[build g1]",
		},
		{
			name: "a weight beyond the size is the size",
			size: 2, held: 1,
			tasks: []task{{name: "build", req: gen(5)}},
			want:  "[build]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := budget.New(tt.size)
				ctx := context.Background()
				var held []func()
				for range tt.held {
					release, err := b.Acquire(ctx, budget.Request{Priority: budget.Generation, Wait: 0})
					if err != nil {
						t.Fatal(err)
					}
					held = append(held, release)
				}
				var rec recorder
				var kept []func()
				for _, tk := range tt.tasks {
					go func() {
						release, err := b.Acquire(ctx, tk.req)
						if err != nil {
							t.Errorf("%s: %v", tk.name, err)
							return
						}
						rec.add(tk.name)
						if tk.holdOn {
							rec.mu.Lock()
							kept = append(kept, release)
							rec.mu.Unlock()
							return
						}
						release()
					}()
					synctest.Wait() // queued before the next arrives
				}
				if got := b.Stats().Waiting; got == (budget.Stats{}).Waiting {
					t.Fatalf("no task is waiting: %v", got)
				}
				for _, release := range held {
					release()
					synctest.Wait()
				}
				if got := rec.got(); got != tt.want {
					t.Errorf("started %s, want %s", got, tt.want)
				}
				for _, release := range kept {
					release() // the tasks passed over start now
				}
			})
		})
	}
}

// TestBoundedWait: a task that finds no unit within its wait is refused
// with ErrBusy and leaves the queue; a zero wait is refused at once; a task
// whose units come within the wait runs.
func TestBoundedWait(t *testing.T) {
	tests := []struct {
		name     string
		wait     time.Duration
		freeIn   time.Duration // when the unit held is given back
		wantBusy bool
	}{
		{"no wait", 0, time.Second, true},
		{"wait runs out", 100 * time.Millisecond, time.Second, true},
		{"unit comes in time", time.Second, 100 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := budget.New(1)
				ctx := context.Background()
				release, err := b.Acquire(ctx, budget.Request{Priority: budget.Generation})
				if err != nil {
					t.Fatal(err)
				}
				time.AfterFunc(tt.freeIn, release)
				start := time.Now()
				got, err := b.Acquire(ctx, budget.Request{Priority: budget.AIReply, Wait: tt.wait})
				if busy := errors.Is(err, budget.ErrBusy); busy != tt.wantBusy {
					t.Fatalf("err %v, want busy %v", err, tt.wantBusy)
				}
				if tt.wantBusy {
					if waited := time.Since(start); waited != tt.wait {
						t.Errorf("refused after %v, want %v", waited, tt.wait)
					}
				} else {
					got()
				}
				time.Sleep(tt.freeIn) // the bubble's clock: no real wait
				synctest.Wait()
				if st := b.Stats(); st.Used != 0 || st.Waiting != (budget.Stats{}).Waiting {
					t.Errorf("left behind %+v", st)
				}
			})
		})
	}
}

// TestCancel: a waiter whose context ends leaves the queue with its error,
// and the task behind it is not held up by it.
func TestCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := budget.New(2)
		bg := context.Background()
		one, err := b.Acquire(bg, budget.Request{Priority: budget.Generation})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(bg)
		heavy := make(chan error, 1)
		go func() {
			_, err := b.Acquire(ctx, budget.Request{Priority: budget.Generation, Weight: 2, Wait: -1})
			heavy <- err
		}()
		synctest.Wait()
		light := make(chan error, 1)
		go func() {
			release, err := b.Acquire(bg, budget.Request{Priority: budget.Generation, Wait: -1})
			if err == nil {
				release()
			}
			light <- err
		}()
		synctest.Wait()
		select {
		case err := <-light:
			t.Fatalf("the light task passed the heavy one at the head of the queue: %v", err)
		default:
		}
		cancel()
		if err := <-heavy; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled waiter: %v, want context.Canceled", err)
		}
		if err := <-light; err != nil {
			t.Errorf("the task behind the cancelled one: %v", err)
		}
		one()
		if _, err := b.Acquire(ctx, budget.Request{}); !errors.Is(err, context.Canceled) {
			t.Errorf("an ended context: %v, want context.Canceled", err)
		}
		if st := b.Stats(); st.Used != 0 || st.Waiting != (budget.Stats{}).Waiting {
			t.Errorf("left behind %+v", st)
		}
	})
}

// TestReleaseOnce: giving units back twice gives them back once.
func TestReleaseOnce(t *testing.T) {
	b := budget.New(2)
	r1, err := b.Acquire(context.Background(), budget.Request{})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := b.Acquire(context.Background(), budget.Request{})
	if err != nil {
		t.Fatal(err)
	}
	r1()
	r1()
	if got := b.Stats().Used; got != 1 {
		t.Errorf("used %d after one task gave back twice, want 1", got)
	}
	r2()
}

func TestSizeFor(t *testing.T) {
	for procs, want := range map[int]int{1: 1, 2: 1, 4: 3, 16: 15} {
		if got := budget.SizeFor(procs); got != want {
			t.Errorf("SizeFor(%d) = %d, want %d", procs, got, want)
		}
	}
}

// BenchmarkAcquire is what the budget adds to every heavy task: an Acquire
// and a release with units free, and with tasks of every priority
// contending for one unit.
func BenchmarkAcquire(b *testing.B) {
	ctx := context.Background()
	b.Run("free", func(b *testing.B) {
		bg := budget.New(4)
		for b.Loop() {
			release, err := bg.Acquire(ctx, budget.Request{Priority: budget.Analysis})
			if err != nil {
				b.Fatal(err)
			}
			release()
		}
	})
	b.Run("contended", func(b *testing.B) {
		bg := budget.New(1)
		var mu sync.Mutex
		var waited time.Duration
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			var i int
			for pb.Next() {
				i++
				start := time.Now()
				release, err := bg.Acquire(ctx, budget.Request{Priority: budget.Priority(i % 3), Wait: -1})
				if err != nil {
					b.Error(err)
					return
				}
				w := time.Since(start)
				release()
				mu.Lock()
				waited += w
				mu.Unlock()
			}
		})
		b.ReportMetric(float64(waited.Nanoseconds())/float64(b.N), "ns-waited/op")
	})
}

// TestOutranked: a task is outranked by a more urgent one that waits and
// could start, not by a less urgent one, nor by one whose share is full.
func TestOutranked(t *testing.T) {
	tests := []struct {
		name    string
		waiting budget.Request
		at      budget.Priority
		want    bool
	}{
		{"an AI move waits", budget.Request{Priority: budget.AIReply, Wait: -1}, budget.Analysis, true},
		{"a generation waits", budget.Request{Priority: budget.Generation, Wait: -1}, budget.Analysis, false},
		{"an analysis waits, for an analysis", budget.Request{Priority: budget.Analysis, Wait: -1}, budget.Analysis, false},
		{"an analysis waits, for a generation", budget.Request{Priority: budget.Analysis, Wait: -1}, budget.Generation, true},
		{"an analysis waits, for a review", budget.Request{Priority: budget.Analysis, Wait: -1}, budget.Review, true},
		{"a stock piece waits, for a review", budget.Request{Priority: budget.Stock, Wait: -1}, budget.Review, false},
		{"an AI move whose share is full", budget.Request{Priority: budget.AIReply, Wait: -1, Shares: []budget.Share{{Key: "full", Max: 1}}}, budget.Analysis, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				b := budget.New(2)
				held, err := b.Acquire(ctx, budget.Request{Priority: tt.at})
				if err != nil {
					t.Fatal(err)
				}
				full, err := b.Acquire(ctx, budget.Request{Priority: budget.AIReply, Shares: []budget.Share{{Key: "full", Max: 1}}})
				if err != nil {
					t.Fatal(err)
				}
				if b.Outranked(tt.at) {
					t.Fatal("outranked with nobody waiting")
				}
				go func() { _, _ = b.Acquire(ctx, tt.waiting) }()
				synctest.Wait()
				if got := b.Outranked(tt.at); got != tt.want {
					t.Errorf("outranked %v, want %v", got, tt.want)
				}
				cancel()
				synctest.Wait()
				held()
				full()
			})
		})
	}
}
