package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/internal/load"
)

// runLoadtest plays many two-person games at once against a running server
// and reports the move rate and the latency of move requests (see
// load.Tester.Play). A refusal that says when to come back (429 or 503 with
// Retry-After) is waited out and the request sent again, up to --retry-wait
// in all; every refusal is reported by status, and a run that could not set
// up or keep its games fails. With --flood it runs the flood benchmark
// instead (see load.Flood).
func runLoadtest(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "http://127.0.0.1:8080", "base `URLs` of the server's instances, comma-separated; requests go to each in turn (env AYOAYO_LOADTEST_ADDR)")
	games := fs.Int("games", 200, "games in play at once")
	duration := fs.Duration("duration", 10*time.Second, "how long to send moves")
	concurrency := fs.Int("concurrency", 32, "requests in flight at once")
	seed := fs.Uint64("seed", 1, "seed of the random moves")
	retryWait := fs.Duration("retry-wait", 10*time.Second, "longest one request waits in all, as Retry-After asks, before it counts as refused")
	flood := fs.Bool("flood", false, "measure cheap requests (one loop of evaluations, one of moves between people) for --duration alone, then for --duration under a flood of heavy ones, and print the ratio of their p99s; --games and --concurrency do not apply")
	floodAnalyses := fs.Int("flood-analyses", 6, "with --flood: loops of /v1/analyze at the longest timeMs")
	floodPractice := fs.Int("flood-practice", 4, "with --flood: loops of practice puzzles of difficulty 5")
	floodAI := fs.Int("flood-ai", 4, "with --flood: loops of moves in games against AI level 8")
	floodReviews := fs.Int("flood-reviews", 0, "with --flood: loops of POST /v1/review of an 80-ply record (--flood-analyses 0 --flood-practice 0 --flood-ai 0 --flood-reviews 4 floods with reviews alone)")
	floodWarmUp := fs.Duration("flood-warm-up", 3*time.Second, "with --flood: how long the flood runs before the cheap requests are measured under it")
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
	if *games < 1 || *concurrency < 1 || *duration <= 0 || *retryWait < 0 {
		return fmt.Errorf("%w: --games, --concurrency and --duration must be positive, --retry-wait not negative", errUsage)
	}
	lt, err := load.NewTester(*concurrency, *retryWait, bases...)
	if err != nil {
		return err
	}
	if *flood {
		if min(*floodAnalyses, *floodPractice, *floodAI, *floodReviews) < 0 || *floodWarmUp < 0 {
			return fmt.Errorf("%w: the --flood-* counts and --flood-warm-up cannot be negative", errUsage)
		}
		if err := loopbackOnly(bases); err != nil {
			return err
		}
		fl := load.Flood{Analyses: *floodAnalyses, Practice: *floodPractice, AIGames: *floodAI, Reviews: *floodReviews, WarmUp: *floodWarmUp}
		return fl.Run(ctx, m.Stdout, lt, *duration, *seed)
	}
	rep, err := lt.Play(ctx, *games, *concurrency, *duration, *seed)
	rep.Print(m.Stdout)
	switch {
	case err != nil:
	case rep.Lost > 0:
		err = fmt.Errorf("could not keep %d games in play: %d lost, their replacements refused", *games, rep.Lost)
	case rep.Moves == 0:
		err = errors.New("no move was answered")
	default:
		if rep.RateLimited() {
			fmt.Fprintf(m.Stdout, "note: the server limited this client address (429), so these figures are its limits; for a load test, start it with %s\n", load.ServeFlags)
		}
		return nil
	}
	if rep.RateLimited() {
		err = fmt.Errorf("%w; the server limits requests per client address (429): for a load test, start it with %s", err, load.ServeFlags)
	}
	return err
}

// baseURLs checks that each address is an http(s) URL and returns them
// without a trailing slash.
func baseURLs(list ...string) ([]string, error) {
	if len(list) == 0 {
		return nil, fmt.Errorf("%w: no address", errUsage)
	}
	for i, a := range list {
		u, err := url.Parse(a)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: %q is not an http(s) URL", errUsage, a)
		}
		list[i] = strings.TrimRight(u.String(), "/")
	}
	return list, nil
}

// loopbackOnly refuses a flood of anything but this machine: it is a
// benchmark of a server under test, never a load to send elsewhere.
func loopbackOnly(bases []string) error {
	for _, b := range bases {
		u, err := url.Parse(b)
		if err != nil {
			return fmt.Errorf("%w: %q: %v", errUsage, b, err)
		}
		host := u.Hostname()
		if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
			return fmt.Errorf("%w: --flood only runs against a server on this machine (127.0.0.1, ::1, localhost), not %s", errUsage, host)
		}
	}
	return nil
}
