package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine/search"
)

// runMatch plays paired games between two AI levels and prints A's score.
func runMatch(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	a := fs.Int("a", 0, fmt.Sprintf("level of player A (%d-%d)", search.MinLevel, search.MaxLevel))
	b := fs.Int("b", 0, fmt.Sprintf("level of player B (%d-%d)", search.MinLevel, search.MaxLevel))
	games := fs.Int("games", 200, "games in all (each opening is played twice, sides swapped)")
	seed := fs.Uint64("seed", 1, "seed for the openings and the levels' choices")
	workers := fs.Int("workers", 2, "games played in parallel (the result does not depend on it)")
	clock := fs.Bool("clock", false, "apply the levels' wall-clock bounds (the games then depend on the machine's speed)")
	balance := fs.Int("balance", search.DefaultBalance, fmt.Sprintf("redraw openings a depth-%d search scores more than this many seeds from even (negative: keep all)", search.OpeningDepth))
	quiet := fs.Bool("quiet", false, "do not report progress on stderr")
	aTable := fs.String("a-tablebase", "", "endgame table `FILE` player A's level uses (levels 7-8); it also judges the match: the moves each side makes in a position it calls won, and those that throw the win away")
	bTable := fs.String("b-tablebase", "", "endgame table `FILE` player B's level uses (levels 7-8); it judges the match if A has none")
	rules := rulesFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	r, err := rules()
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	for _, l := range []int{*a, *b} {
		if _, err := search.LevelOf(l); err != nil {
			return fmt.Errorf("%w: --a and --b: %v", errUsage, err)
		}
	}
	if *games < 2 || *games > 1_000_000 || *workers < 1 || *workers > 64 {
		return fmt.Errorf("%w: --games is 2 to 1000000, --workers 1 to 64", errUsage)
	}
	cfg := search.MatchConfig{
		A: search.Player{Level: *a}, B: search.Player{Level: *b},
		Games: *games, Seed: *seed, Rules: r, Workers: *workers, Clock: *clock, Balance: *balance,
	}
	// Each side's table, and the judge: A's, else B's.
	for _, side := range []struct {
		file   string
		player *search.Player
	}{{*bTable, &cfg.B}, {*aTable, &cfg.A}} {
		if side.file == "" {
			continue
		}
		set, err := openTables([]string{side.file}, nil)
		if err != nil {
			return err
		}
		defer set.Close()
		if cfg.Judge = set.For(r); cfg.Judge == nil {
			return fmt.Errorf("%w: %s is a table for other rules than the match's", errUsage, side.file)
		}
		side.player.Endgames = set
	}
	began := time.Now()
	step := max(cfg.Games/10, 1)
	if !*quiet {
		cfg.Progress = func(done int, s search.MatchResult) {
			if done%step == 0 {
				fmt.Fprintf(m.Stderr, "  %d/%d games: %.1f%% for A (%v)\n", done, cfg.Games, 100*s.Score(), time.Since(began).Round(time.Second))
			}
		}
	}
	res, err := search.PlayMatch(ctx, cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "A = level %d%s, B = level %d%s, seed %d\n", *a, withTable(*aTable), *b, withTable(*bTable), *seed)
	fmt.Fprintf(m.Stdout, "wins %d draws %d losses %d: %.1f%% for A\n", res.Wins, res.Draws, res.Losses, 100*res.Score())
	fmt.Fprintln(m.Stdout, res)
	return nil
}

// withTable says which table a player of the match uses, if any.
func withTable(file string) string {
	if file == "" {
		return ""
	}
	return " with the endgame table " + file
}
