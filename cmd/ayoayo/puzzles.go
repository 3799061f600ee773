package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
)

// maxFillDays bounds one `puzzles generate` run: ten years ahead is plenty.
const maxFillDays = 3660

// runPuzzles is `ayoayo puzzles generate`: it fills the feed ahead of time,
// so the first request of a day reads a stored puzzle instead of generating
// it. Days already stored are left as they are (a stored puzzle never
// changes), and the run can be repeated or interrupted safely.
func runPuzzles(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	from := fs.String("from", "", "first date to fill, YYYY-MM-DD (default today, UTC)")
	days := fs.Int("days", 7, fmt.Sprintf("how many days to fill, 1 to %d", maxFillDays))
	db := fs.String("db", m.env("AYOAYO_DB", "./ayoayo.db"), dbHelp)
	if len(args) == 0 || args[0] != "generate" {
		if err := fs.Parse(args); err != nil {
			return err
		}
		return fmt.Errorf("%w: want the subcommand generate", errUsage)
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	first := puzzles.Day(time.Now())
	if *from != "" {
		d, err := puzzles.ParseDate(*from)
		if err != nil {
			return fmt.Errorf("%w: --from: %v", errUsage, err)
		}
		first = d
	}
	if *days < 1 || *days > maxFillDays {
		return fmt.Errorf("%w: --days %d, want 1 to %d", errUsage, *days, maxFillDays)
	}

	st, err := openStore(ctx, *db, time.Now)
	if err != nil {
		return err
	}
	defer st.Close()
	feed := puzzles.NewFeed(st, puzzles.FeedOptions{})
	for i := range *days {
		d := first.AddDate(0, 0, i)
		start := time.Now()
		sp, generated, err := feed.Prepare(ctx, d)
		if err != nil {
			return fmt.Errorf("%s: %w", d.Format(puzzles.DateLayout), err)
		}
		what := "already stored"
		if generated {
			what = fmt.Sprintf("generated in %d ms", time.Since(start).Milliseconds())
		}
		p := sp.Puzzle
		fmt.Fprintf(m.Stdout, "%s %s %-3s %-11s depth %d  difficulty %d  key legs %2d  %s\n",
			p.Date.Format(puzzles.DateLayout), p.ID, p.Date.Weekday().String()[:3], p.Goal, p.Depth, p.Difficulty, p.KeyLegs, what)
	}
	return nil
}
