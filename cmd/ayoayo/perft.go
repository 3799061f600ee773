package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ayoayo/ayoayo/engine"
)

// runPerft prints the perft count for depth N from the start position. The
// root's children are shared out among workers; the count is the last line.
func runPerft(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	workers := fs.Int("workers", 2, "goroutines that share the root's moves")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one depth N", errUsage)
	}
	depth, err := strconv.Atoi(fs.Arg(0))
	if err != nil || depth < 0 || depth > 30 {
		return fmt.Errorf("%w: depth %q is not a number from 0 to 30", errUsage, fs.Arg(0))
	}
	fmt.Fprintln(m.Stdout, perftParallel(ctx, engine.Start(), engine.Rules{}, depth, max(*workers, 1)))
	return ctx.Err()
}

// perftParallel splits the tree two plies down, where there are enough
// subtrees to keep every worker busy, and sums the workers' counts.
func perftParallel(ctx context.Context, p engine.Position, r engine.Rules, depth, workers int) uint64 {
	if depth < 3 {
		return engine.Perft(p, r, depth)
	}
	var jobs []engine.Position
	var leaves uint64 // games that end in the first two plies
	_, kids := p.Children(r)
	if len(kids) == 0 {
		return 1
	}
	for _, k := range kids {
		_, grand := k.Children(r)
		if len(grand) == 0 {
			leaves++
		}
		jobs = append(jobs, grand...)
	}
	var next atomic.Int64
	var total atomic.Uint64
	total.Add(leaves)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				total.Add(engine.Perft(jobs[i], r, depth-2))
			}
		})
	}
	wg.Wait()
	return total.Load()
}
