package stored

import (
	"context"
	"errors"
	"testing"
)

var errTestClosed = errors.New("closed")

func TestQueue(t *testing.T) {
	ctx := t.Context()
	q := NewQueue[int](8)
	for i := range 5 {
		if err := q.Put(ctx, i, errTestClosed); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
	}
	if q.Len() != 5 {
		t.Fatalf("Len %d, want 5", q.Len())
	}
	batch, ok := q.Next(nil, 3)
	if !ok || len(batch) != 3 || batch[0] != 0 || batch[2] != 2 {
		t.Fatalf("first batch %v %v, want [0 1 2] true", batch, ok)
	}
	batch, ok = q.Next(batch, 3)
	if !ok || len(batch) != 2 || batch[0] != 3 || batch[1] != 4 {
		t.Fatalf("second batch %v %v, want [3 4] true", batch, ok)
	}
	if err := q.Put(ctx, 5, errTestClosed); err != nil {
		t.Fatal(err)
	}
	q.Close()
	q.Close() // twice is fine
	if err := q.Put(ctx, 6, errTestClosed); !errors.Is(err, errTestClosed) {
		t.Fatalf("put after Close: %v, want the closed error", err)
	}
	var left []int
	q.Drain(func(i int) { left = append(left, i) })
	if len(left) != 1 || left[0] != 5 {
		t.Fatalf("drained %v, want [5]", left)
	}
	if batch, ok := q.Next(nil, 3); ok || len(batch) != 0 {
		t.Fatalf("Next on a closed, empty queue: %v %v, want nothing and false", batch, ok)
	}
}

func TestQueuePutGivesUpWithContext(t *testing.T) {
	q := NewQueue[int](1)
	if err := q.Put(t.Context(), 1, errTestClosed); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := q.Put(ctx, 2, errTestClosed); !errors.Is(err, context.Canceled) {
		t.Fatalf("put on a full queue with an ended context: %v, want context.Canceled", err)
	}
}
