package httpx

import (
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// RateLimitError is ErrRateLimited with how long to wait before trying again.
type RateLimitError struct {
	What       string // what was limited: "moves", "game creations", ...
	Player     bool   // the bucket was the player's, not the client address's
	RetryAfter time.Duration
}

func (e *RateLimitError) Error() string {
	who := "client address"
	if e.Player {
		who = "player"
	}
	return fmt.Sprintf("too many %s from this %s: try again in %d s", e.What, who, e.RetrySeconds())
}

// Unwrap makes errors.Is(err, ErrRateLimited) hold, and gives the api
// package the declaration's code.
func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

// RetrySeconds is RetryAfter rounded up to whole seconds, as the Retry-After
// header wants it.
func (e *RateLimitError) RetrySeconds() int {
	return max(int(math.Ceil(e.RetryAfter.Seconds())), 1)
}

// Limiter is a token bucket per client key (an address): each key may
// spend burst requests at once, and earns rate requests per second back. Keys
// whose bucket is full again are forgotten, so memory follows the clients
// active in the last burst/rate seconds, not every client ever seen.
type Limiter struct {
	what   string  // what it limits, for RateLimitError
	player bool    // its keys are players (Keyed), not addresses
	policy string  // its name in the RateLimit headers
	rate   float64 // tokens per second
	burst  float64
	now    func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	swept   time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewLimiter allows perMinute requests of what a minute per key with
// bursts of burst; perMinute <= 0 means no limit (nil).
func NewLimiter(what string, perMinute, burst int, now func() time.Time) *Limiter {
	if perMinute <= 0 {
		return nil
	}
	if now == nil {
		now = time.Now
	}
	return &Limiter{what: what, policy: "default", rate: float64(perMinute) / 60, burst: float64(max(burst, 1)), now: now,
		buckets: map[string]*bucket{}}
}

// Named sets the policy's name in the RateLimit headers.
func (l *Limiter) Named(policy string) *Limiter {
	if l != nil {
		l.policy = policy
	}
	return l
}

// Keyed makes l's keys players: its refusals say so.
func (l *Limiter) Keyed() *Limiter {
	if l != nil {
		l.player = true
	}
	return l
}

// LimitRateByPlayer is LimitRateIf that spends, for a request whose
// player playerOf names ("" none), a token of that player's bucket in
// byPlayer instead of one of its address's in byAddr: two players behind
// one address (two bots on one host) each have their own. A nil byPlayer
// is LimitRateIf(byAddr, charged).
func LimitRateByPlayer(byAddr, byPlayer *Limiter, charged func(echo.Context) bool, playerOf func(echo.Context) string) echo.MiddlewareFunc {
	if byPlayer == nil || playerOf == nil {
		return LimitRateIf(byAddr, charged)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if charged == nil || charged(c) {
				l, key := byAddr, c.RealIP()
				if p := playerOf(c); p != "" {
					l, key = byPlayer, p
				}
				left, err := l.take(key)
				if l != nil {
					l.setHeaders(c.Response().Header(), left)
				}
				if err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// LimitRate is the middleware of one operation's limit: the request spends
// a token of its client address's bucket before anything else is done for
// it, so a refused request costs next to nothing, and so does a flood of
// invalid ones.
func LimitRate(l *Limiter) echo.MiddlewareFunc { return LimitRateIf(l, nil) }

// LimitRateIf is LimitRate for the requests charged reports true of (all
// if nil): another operation's limit spent by some requests of this one.
func LimitRateIf(l *Limiter, charged func(echo.Context) bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if charged == nil || charged(c) {
				left, err := l.take(c.RealIP())
				if l != nil {
					l.setHeaders(c.Response().Header(), left)
				}
				if err != nil {
					return err
				}
			}
			return next(c)
		}
	}
}

// setHeaders writes the IETF RateLimit headers
// (draft-ietf-httpapi-ratelimit-headers) of the bucket a request used:
// RateLimit-Policy names the policy with its quota q (the burst) and window
// w (the seconds an empty bucket takes to fill again); RateLimit says what
// is left of it, r requests now, and t, the seconds until the bucket is
// full again. A token bucket earns requests back continuously, so r grows
// before t runs out: a client that paces itself by r and t stays under the
// limit; one refused has Retry-After for the next request.
func (l *Limiter) setHeaders(h http.Header, tokens float64) {
	window := int(math.Ceil(l.burst / l.rate))
	h.Set("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", l.policy, int(l.burst), window))
	full := int(math.Ceil((l.burst - tokens) / l.rate))
	h.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", l.policy, int(math.Floor(tokens)), full))
}

// take spends one token of key's bucket and returns the tokens left, or
// returns a *RateLimitError with the tokens there are (less than one).
func (l *Limiter) take(key string) (left float64, err error) {
	if l == nil {
		return 0, nil
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
		return b.tokens, &RateLimitError{What: l.what, Player: l.player, RetryAfter: wait}
	}
	b.tokens--
	return b.tokens, nil
}

// sweep forgets full buckets, at most once per refill time.
func (l *Limiter) sweep(now time.Time) {
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
