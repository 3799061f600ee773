package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
)

// runAnalyze searches one position and prints what the API's analyze answers:
// the best move, the score, the principal variation, every move's score, the
// depth, the nodes and whether the score is proven.
func runAnalyze(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	limit := fs.Duration("time", time.Second, "wall-clock limit (0: none)")
	depth := fs.Int("depth", 0, "depth limit in plies (0: none)")
	nodes := fs.Uint64("nodes", 0, "node limit (0: none)")
	hash := fs.Int("hash", 16, "transposition table size in MiB")
	bestOnly := fs.Bool("best-only", false, "score only the best move exactly (faster; other moves get upper bounds)")
	tables := tableFilesFlag(fs, "endgame table `FILE` (from ayoayo tablebase build): a position in it is answered from it, and the search uses it; repeatable")
	rules := rulesFlags(fs)
	if err := m.bindEnv(fs, envPrefix, "tablebase"); err != nil {
		return err
	}
	rest, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return fmt.Errorf("%w: want one POSITION in the text notation, e.g. s-444444-444444-0-0", errUsage)
	}
	p, err := engine.Parse(rest[0])
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	r, err := rules()
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *depth < 0 || *depth > search.MaxDepth || *limit < 0 || *hash < 1 || *hash > 4096 {
		return fmt.Errorf("%w: --depth is 0 to %d, --time at least 0, --hash 1 to 4096", errUsage, search.MaxDepth)
	}
	if *depth == 0 && *limit == 0 && *nodes == 0 {
		return fmt.Errorf("%w: give at least one of --time, --depth and --nodes", errUsage)
	}
	endgames, err := openTables(tables.files, nil)
	if err != nil {
		return err
	}
	defer endgames.Close()
	s := search.NewSearcher(*hash<<20, search.WithEndgames(endgames))
	a, err := s.Analyze(ctx, p, r, nil, search.Limits{Depth: *depth, Time: *limit, Nodes: *nodes, BestOnly: *bestOnly})
	if err != nil && len(a.Moves) == 0 {
		return err
	}
	w := m.Stdout
	fmt.Fprintf(w, "position  %s (%s to move)\n", p, p.ToMove)
	fmt.Fprintf(w, "bestMove  %d\n", a.BestMove)
	fmt.Fprintf(w, "score     %+d\n", a.Score)
	fmt.Fprintf(w, "pv        %s\n", joinInts(a.PV))
	var moves []string
	for _, ms := range a.Moves {
		s := fmt.Sprintf("%d:%+d", ms.Pit, ms.Score)
		switch {
		case ms.Exact:
			s += "!"
		case ms.Upper:
			s += "<="
		}
		moves = append(moves, s)
	}
	fmt.Fprintf(w, "moves     %s   (! proven, <= upper bound)\n", strings.Join(moves, " "))
	fmt.Fprintf(w, "depth     %d\n", a.Depth)
	fmt.Fprintf(w, "nodes     %d (%.2fM/s in %v)\n", a.Nodes, float64(a.Nodes)/max(a.Elapsed.Seconds(), 1e-9)/1e6, a.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "exact     %v\n", a.Exact)
	fmt.Fprintf(w, "source    %s\n", a.Source)
	if a.Proven { // exact or not: a result-only table proves the result alone
		fmt.Fprintf(w, "result    %s (with perfect play, for %s)\n", a.Result, p.ToMove)
	}
	return err
}

// rulesFlags declares the rule options as flags and returns a function that
// reads them once parsed.
func rulesFlags(fs *flag.FlagSet) func() (engine.Rules, error) {
	captureSeed := fs.String("capture-seed", "taken", "rule option: taken or left")
	leftovers := fs.String("leftovers", "last_mover", "rule option: last_mover or side_owner")
	return func() (engine.Rules, error) { return engine.ParseRules(*captureSeed, *leftovers) }
}

// parseInterleaved parses flags that may come before or after the positional
// arguments (the flag package stops at the first positional one) and returns
// the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}
