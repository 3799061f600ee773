package api

import (
	"errors"
	"testing"
	"time"
)

func TestRateLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := newRateLimiter(60, 3, func() time.Time { return now }) // one a second, bursts of 3
	steps := []struct {
		name    string
		advance time.Duration
		key     string
		ok      bool
		retry   int
	}{
		{"burst 1", 0, "a", true, 0},
		{"burst 2", 0, "a", true, 0},
		{"burst 3", 0, "a", true, 0},
		{"over", 0, "a", false, 1},
		{"other client", 0, "b", true, 0},
		{"half refilled", 500 * time.Millisecond, "a", false, 1},
		{"refilled one", 500 * time.Millisecond, "a", true, 0},
		{"empty again", 0, "a", false, 1},
		{"long idle", time.Hour, "a", true, 0},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			now = now.Add(st.advance)
			err := l.allow(st.key)
			var rl *RateLimitError
			switch {
			case st.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !st.ok && (!errors.As(err, &rl) || !errors.Is(err, ErrRateLimited) || rl.RetrySeconds() != st.retry):
				t.Fatalf("%v, want a rate limit with Retry-After %d", err, st.retry)
			}
		})
	}
	if len(l.buckets) > 1 {
		t.Fatalf("%d buckets kept after an hour idle, want the idle ones forgotten", len(l.buckets))
	}
	if newRateLimiter(0, 10, nil).allow("x") != nil {
		t.Fatal("a zero rate must mean no limit")
	}
}
