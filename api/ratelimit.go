package api

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// RateLimitError is ErrRateLimited with how long to wait before trying again.
type RateLimitError struct {
	What       string // what was limited: "moves", "game creations", ...
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("too many %s from this client address: try again in %d s", e.What, e.RetrySeconds())
}

// Is makes errors.Is(err, ErrRateLimited) hold.
func (e *RateLimitError) Is(target error) bool { return target == ErrRateLimited }

// RetrySeconds is RetryAfter rounded up to whole seconds, as the Retry-After
// header wants it.
func (e *RateLimitError) RetrySeconds() int {
	return max(int(math.Ceil(e.RetryAfter.Seconds())), 1)
}

// rateLimiter is a token bucket per client key (an address): each key may
// spend burst requests at once, and earns rate requests per second back. Keys
// whose bucket is full again are forgotten, so memory follows the clients
// active in the last burst/rate seconds, not every client ever seen.
type rateLimiter struct {
	what  string  // what it limits, for RateLimitError
	rate  float64 // tokens per second
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// newRateLimiter allows perMinute requests of what a minute per key with
// bursts of burst; perMinute <= 0 means no limit (nil).
func newRateLimiter(what string, perMinute, burst int, now func() time.Time) *rateLimiter {
	if perMinute <= 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	return &rateLimiter{what: what, rate: float64(perMinute) / 60, burst: float64(max(burst, 1)), now: now,
		buckets: map[string]*bucket{}}
}

// limitRate is the middleware of one operation's limit: the request spends
// a token of its client address's bucket before anything else is done for
// it, so a refused request costs next to nothing, and so does a flood of
// invalid ones.
func limitRate(l *rateLimiter) echo.MiddlewareFunc { return limitRateIf(l, nil) }

// limitRateIf is limitRate for the requests charged reports true of (all
// if nil): another operation's limit spent by some requests of this one.
func limitRateIf(l *rateLimiter, charged func(echo.Context) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if charged == nil || charged(c) {
				if err := l.allow(c.RealIP()); err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// allow spends one token of key's bucket, or returns a *RateLimitError.
func (l *rateLimiter) allow(key string) error {
	if l == nil {
		return nil
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		wait := time.Duration((1 - b.tokens) / l.rate * float64(time.Second))
		return &RateLimitError{What: l.what, RetryAfter: wait}
	}
	b.tokens--
	return nil
}

// sweep forgets full buckets, at most once per refill time.
func (l *rateLimiter) sweep(now time.Time) {
	full := time.Duration(l.burst / l.rate * float64(time.Second))
	if now.Sub(l.swept) < full {
		return
	}
	l.swept = now
	for k, b := range l.buckets {
		if now.Sub(b.at) >= full {
			delete(l.buckets, k)
		}
	}
}
