package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// defaultTableSeeds is N of the table serve builds at start unless told
// otherwise: a few seconds on two cores, 35 MB with the true scores of
// every position it holds.
const defaultTableSeeds = 12

// tableFiles is a repeatable --tablebase flag whose default list comes
// from the environment (AYOAYO_TABLEBASE, paths separated by commas or
// colons; see bindEnv): the first flag given replaces that list.
type tableFiles struct {
	files []string
	set   bool
}

// tablesEnvHelp ends the help of every --tablebase flag.
const tablesEnvHelp = " (env AYOAYO_TABLEBASE: a list separated by commas or colons)"

// tableFilesFlag declares a repeatable --tablebase flag of table files.
func tableFilesFlag(fs *flag.FlagSet, usage string) *tableFiles {
	tf := &tableFiles{}
	fs.Var(tf, "tablebase", usage+tablesEnvHelp)
	return tf
}

// SetList sets the list from the environment, leaving the first flag free
// to replace it.
func (tf *tableFiles) SetList(v string) { tf.files = splitTableList(v) }

func (tf *tableFiles) String() string {
	if tf == nil {
		return ""
	}
	return strings.Join(tf.files, ",")
}

func (tf *tableFiles) Set(v string) error {
	if !tf.set {
		tf.files, tf.set = nil, true
	}
	if v == "" {
		return errors.New("empty file name")
	}
	tf.files = append(tf.files, v)
	return nil
}

// splitTableList reads a list of paths separated by commas or colons.
func splitTableList(s string) []string {
	var out []string
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ':' }) {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// openTables opens every file as an endgame table and returns the set of
// them, the largest for each rule options; a file not kept (a larger one
// has its rules) is closed at once. log, if not nil, gets a line per file.
// A file that does not open is an error naming it and why, and closes the
// ones opened before it.
func openTables(files []string, log *slog.Logger) (*search.Endgames, error) {
	set, err := search.NewEndgames()
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		t, err := tablebase.Open(f)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("endgame table: %w", err), set.Close())
		}
		kept, err := set.Add(t)
		if err != nil || !kept {
			err = errors.Join(err, t.Close())
		}
		if err != nil {
			return nil, errors.Join(err, set.Close())
		}
		if log != nil {
			r := t.Rules()
			log.Info("endgame table", "file", f, "seeds", t.MaxSeeds(), "captureSeed", r.CaptureSeed.String(),
				"leftovers", r.Leftovers.String(), "used", kept)
		}
	}
	return set, nil
}

// puzzleGenerator returns the generator of the puzzle feed and the practice
// pool. Their endgame puzzles are proved with a table of
// gen.EndgameSeeds seeds under the default rules: a table file the
// server has that holds them serves, else the generator builds its own,
// which buildTable then shares when it is the size asked for, on workers
// goroutines.
func puzzleGenerator(set *search.Endgames, workers int) *puzzles.Generator {
	if t, ok := set.For(engine.Rules{}).(*tablebase.Table); ok && t.MaxSeeds() >= gen.EndgameSeeds {
		if g, err := puzzles.NewGeneratorWith(t); err == nil {
			return g
		}
	}
	return puzzles.NewGenerator(workers)
}

// cpuGate admits each piece of a table build's work (a chunk of boards, a
// few milliseconds) in a unit of the CPU budget, at generation's priority,
// waiting as long as it must: the AI's moves and analyses get in between
// the pieces, and a build uses no more cores than the budget has units.
// With a ready channel, no piece starts before it is closed: serve's
// builds wait for the API to be served, so a start is not slowed by them.
func cpuGate(cpu *budget.Budget, ready <-chan struct{}) tablebase.Gate {
	return func(ctx context.Context) (func(), error) {
		if ready != nil {
			select {
			case <-ready:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return cpu.Acquire(ctx, budget.Request{Priority: budget.Generation, Weight: 1, Wait: -1})
	}
}

// buildTable builds, in the background and within the CPU budget, a table
// of up to seeds seeds under the default rules into set, unless set has one
// at least as large; the server uses it once it is ready. A table of
// gen.EndgameSeeds seeds is the puzzle generator's, built once for both.
// The WaitGroup's Wait returns once the build has finished or, after ctx
// ends, given up.
func buildTable(ctx context.Context, cpu *budget.Budget, ready <-chan struct{}, set *search.Endgames, seeds int, generator *puzzles.Generator, log *slog.Logger, wg *sync.WaitGroup) {
	var r engine.Rules
	if seeds <= 0 || (set.For(r) != nil && set.For(r).MaxSeeds() >= seeds) {
		return
	}
	wg.Go(func() {
		began := time.Now()
		log.Info("building the endgame table", "seeds", seeds, "captureSeed", r.CaptureSeed.String(), "leftovers", r.Leftovers.String())
		var t *tablebase.Table
		var err error
		if seeds == gen.EndgameSeeds {
			generator.StartEndgameTable(ctx, cpuGate(cpu, ready)) // unless serve has started it
			t, err = generator.EndgameTable(ctx)
		} else {
			t, err = tablebase.BuildGated(ctx, seeds, r, cpu.Size(), nil, cpuGate(cpu, ready))
		}
		if err != nil {
			if ctx.Err() != nil {
				log.Info("endgame table build stopped", "seeds", seeds)
				return
			}
			log.Error("endgame table build failed", "seeds", seeds, "error", err.Error())
			return
		}
		if _, err := set.Add(t); err != nil {
			log.Info("endgame table built after the shutdown began: not used", "seeds", seeds)
			return
		}
		log.Info("endgame table ready", "seeds", seeds, "took", time.Since(began).Round(time.Millisecond).String())
	})
}
