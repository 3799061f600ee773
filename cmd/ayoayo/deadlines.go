package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/internal/load"
)

// runDeadlines measures how soon the server ends games whose time runs out,
// with nobody calling. It sets up --games two-person games with live clocks,
// each with one follower's event stream (game i's on the i-th --addr, so
// several instances share them), plays both first moves so that South's
// clock runs, and takes each game's deadline from the second move's answer.
// The clocks are chosen so that the deadlines fall evenly over --spread,
// starting --lead after the run starts. It then waits, within --timeout, for
// every stream's end event and reports how many each game had (exactly one,
// or the run fails) and the delay from the deadline to the event's arrival.
// The deadlines and the arrivals are read on this machine's clock, which is
// the server's when both run on it.
//
// With --idle it sets up the games with clocks of hours instead, follows
// none, and measures the CPU each instance uses over --sample while nothing
// happens: what waiting for the deadlines of that many games costs.
func runDeadlines(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "http://127.0.0.1:8080", "base `URLs` of the server's instances, comma-separated; requests go to each in turn, and game i's follower to the i-th (env AYOAYO_LOADTEST_ADDR)")
	n := fs.Int("games", 2000, "games to set up")
	spread := fs.Duration("spread", time.Minute, "the window the deadlines fall evenly over")
	lead := fs.Duration("lead", 20*time.Second, "from the start of the run to the first deadline: the time the set-up has")
	concurrency := fs.Int("concurrency", 32, "games being set up at once")
	timeout := fs.Duration("timeout", 0, "bound on the whole run; 0: --lead + --spread + 1m (with --idle: 10m + --sample)")
	retryWait := fs.Duration("retry-wait", 10*time.Second, "longest one request waits in all, as Retry-After asks, before it counts as refused")
	idle := fs.Bool("idle", false, "set up the games with 3-hour clocks and no followers, then measure each instance's CPU over --sample")
	sample := fs.Duration("sample", time.Minute, "with --idle: how long to measure the CPU, after a pause of 5 s for the set-up's aftermath")
	if err := m.parse(fs, args, envPrefix+"LOADTEST_", "addr"); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	bases, err := baseURLs(splitList(*addr)...)
	if err != nil {
		return err
	}
	if *n < 1 || *concurrency < 1 || *spread < 0 || *lead < 0 || *timeout < 0 || *retryWait < 0 || *sample <= 0 {
		return fmt.Errorf("%w: --games and --concurrency must be positive, --sample positive, the other durations not negative", errUsage)
	}
	if *timeout == 0 {
		*timeout = *lead + *spread + time.Minute
		if *idle {
			*timeout = 10*time.Minute + *sample
		}
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	d := load.Deadlines{Bases: bases, Games: *n, Lead: *lead, Spread: *spread, Concurrency: *concurrency, RetryWait: *retryWait}
	if *idle {
		return d.Idle(ctx, m.Stdout, *sample)
	}
	return d.Run(ctx, m.Stdout)
}
