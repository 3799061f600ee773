package httpx

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestRateLimiter(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLimiter("moves", 60, 3, func() time.Time { return now }) // one a second, bursts of 3
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
			_, err := l.take(st.key)
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
	if _, err := NewLimiter("moves", 0, 10, nil).take("x"); err != nil {
		t.Fatal("a zero rate must mean no limit")
	}
}

// The RateLimit headers follow the bucket: r the requests left now, t the
// seconds until it is full again, the policy its burst and refill time.
func TestRateLimitHeaderValues(t *testing.T) {
	now := time.Unix(1000, 0)
	l := NewLimiter("moves", 60, 3, func() time.Time { return now }).Named("move") // one a second, bursts of 3
	steps := []struct {
		advance time.Duration
		ok      bool
		want    string
	}{
		{0, true, `"move";r=2;t=1`},
		{0, true, `"move";r=1;t=2`},
		{0, true, `"move";r=0;t=3`},
		{0, false, `"move";r=0;t=3`},
		{1500 * time.Millisecond, true, `"move";r=0;t=3`}, // 1.5 earned, one spent: 0.5 left
		{2500 * time.Millisecond, true, `"move";r=2;t=1`}, // full again, one spent
	}
	for i, st := range steps {
		now = now.Add(st.advance)
		left, err := l.take("a")
		if (err == nil) != st.ok {
			t.Fatalf("step %d: %v, want ok %v", i, err, st.ok)
		}
		h := http.Header{}
		l.setHeaders(h, left)
		if got := h.Get("RateLimit"); got != st.want {
			t.Errorf("step %d: RateLimit %s, want %s", i, got, st.want)
		}
		if got := h.Get("RateLimit-Policy"); got != `"move";q=3;w=3` {
			t.Errorf("step %d: RateLimit-Policy %s", i, got)
		}
	}
}
