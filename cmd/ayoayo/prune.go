package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/games"
)

// runPrune is `ayoayo prune --before DATE`: it deletes the finished and
// aborted games that ended before DATE, with their moves, as
// the server's --retain-finished does by itself: in small batches, each a
// short write, with a pause between them, so a server running on the same
// database keeps storing moves meanwhile.
func runPrune(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	db := fs.String("db", "./ayoayo.db", dbHelp)
	beforeFlag := fs.String("before", "", "delete the games that ended before this `date` (YYYY-MM-DD, midnight UTC) or instant (RFC 3339); required")
	if err := m.parse(fs, args, envPrefix, "db"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *beforeFlag == "" {
		return fmt.Errorf("%w: --before is required", errUsage)
	}
	before, err := parseBefore(*beforeFlag)
	if err != nil {
		return fmt.Errorf("%w: --before: %v", errUsage, err)
	}
	st, err := openStore(ctx, *db, time.Now, nil)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := games.NewSweeper(games.NewService(st, newBudget(0), games.Options{}), games.SweepOptions{}).Prune(ctx, before)
	fmt.Fprintf(m.Stdout, "deleted %d finished or aborted games that ended before %s\n", n, before.Format(time.RFC3339Nano))
	return err
}

// parseBefore reads --before: a day (its first instant, UTC) or an instant.
func parseBefore(s string) (time.Time, error) {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date YYYY-MM-DD nor an RFC 3339 instant", s)
	}
	return t.UTC(), nil
}
