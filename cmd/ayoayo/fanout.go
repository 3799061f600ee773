package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/internal/load"
)

// runFanout measures live events at scale: it opens --followers event streams
// on one game (spread over the --follow addresses, so several instances can
// share them), plays --moves moves on the --addr instance, and reports how
// long each move's POST took and how long each move took to reach every
// follower, and what an idle stream costs the following servers in memory.
// Every loop is bounded by --moves and --timeout. See load.Fanout.
func runFanout(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", "http://127.0.0.1:8080", "base URL of the instance the moves are played on")
	follow := fs.String("follow", "", "comma-separated base URLs the followers connect to, in turn (default: --addr)")
	followers := fs.Int("followers", 1000, "event streams to open on the game")
	moves := fs.Int("moves", 20, "moves to play in each round (fewer if the game ends first)")
	rounds := fs.Int("rounds", 1, "rounds, each a new game with its own followers")
	interval := fs.Duration("interval", 250*time.Millisecond, "pause between moves")
	timeout := fs.Duration("timeout", 2*time.Minute, "bound on the whole run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	follows := []string{*addr}
	if *follow != "" {
		follows = splitList(*follow)
	}
	bases, err := baseURLs(append([]string{*addr}, follows...)...)
	if err != nil {
		return err
	}
	if *followers < 1 || *moves < 1 || *rounds < 1 || *timeout <= 0 || *interval < 0 {
		return fmt.Errorf("%w: --followers and --moves must be positive, --timeout positive, --interval not negative", errUsage)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	f := load.Fanout{Players: bases[0], Follow: bases[1:], Followers: *followers, Moves: *moves, Rounds: *rounds, Interval: *interval}
	return f.Run(ctx, m.Stdout)
}
