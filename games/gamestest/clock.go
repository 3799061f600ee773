// Package gamestest has helpers for tests of game sessions in any package.
package gamestest

import (
	"sync"
	"time"
)

// Clock is an injected clock (games.Options.Now) that moves only when a
// test moves it, so tests drive time and never sleep. It is safe for
// concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock at a fixed instant in UTC.
func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d (back, for a negative d).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
