package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/internal/progress"
)

// runTablebase is `ayoayo tablebase build|info`.
func runTablebase(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	if len(args) > 0 && args[0] == "info" {
		return tablebaseInfo(m, fs, args[1:])
	}
	// The flags are build's; help (which runs this with --help) shows them.
	f := buildFlags(fs)
	if len(args) == 0 || args[0] != "build" {
		if err := fs.Parse(args); err != nil {
			return err
		}
		return fmt.Errorf("%w: want the subcommand build or info", errUsage)
	}
	return tablebaseBuild(ctx, m, fs, f, args[1:])
}

type tablebaseFlags struct {
	seeds  *int
	scores scoreSeeds
	rules  engine.Rules
	out    *string
}

// scoreSeeds is --score-seeds: S, or unset for the default, min(N, 12).
type scoreSeeds struct {
	n   int
	set bool
}

func (s *scoreSeeds) String() string {
	if s == nil || !s.set {
		return ""
	}
	return strconv.Itoa(s.n)
}

func (s *scoreSeeds) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return errors.New("want a number of seeds, or -1")
	}
	s.n, s.set = n, true
	return nil
}

func buildFlags(fs *flag.FlagSet) *tablebaseFlags {
	f := &tablebaseFlags{}
	f.seeds = fs.Int("seeds", 12, fmt.Sprintf("build: N, the most seeds on the board the table answers for (0 to %d)", tablebase.MaxSeedsLimit))
	fs.Var(&f.scores, "score-seeds", fmt.Sprintf("build: S, the most seeds on the board with true scores, the majority stop included (0 to min(N, %d)); -1 for none, a result-only table (default min(N, %d))", tablebase.MaxScoreSeeds, tablebase.DefaultScoreSeeds))
	fs.TextVar(&f.rules.CaptureSeed, "capture-seed", engine.CaptureTaken, "build: what happens to the capturing seed, taken or left")
	fs.TextVar(&f.rules.Leftovers, "leftovers", engine.LeftoversLastMover, "build: who takes the seeds left at the end, last_mover or side_owner")
	f.out = fs.String("out", "", "build: the table file to write (required); written to a temporary file and renamed")
	return f
}

func tablebaseBuild(ctx context.Context, m *Main, fs *flag.FlagSet, f *tablebaseFlags, args []string) error {
	seeds, out := f.seeds, f.out
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case *out == "":
		return fmt.Errorf("%w: --out FILE is required", errUsage)
	case *seeds < 0 || *seeds > tablebase.MaxSeedsLimit:
		return fmt.Errorf("%w: --seeds %d, want 0 to %d", errUsage, *seeds, tablebase.MaxSeedsLimit)
	}
	scores := tablebase.DefaultScores(*seeds)
	if f.scores.set {
		scores = f.scores.n
	}
	if scores < -1 || scores > min(*seeds, tablebase.MaxScoreSeeds) {
		return fmt.Errorf("%w: --score-seeds %d, want -1 (none) to %d", errUsage, scores, min(*seeds, tablebase.MaxScoreSeeds))
	}
	start := time.Now()
	bar := progress.New(m.Stderr, "tablebase", start)
	r := f.rules
	t, err := tablebase.BuildWith(ctx, *seeds, scores, r, cores(), bar.Update, nil)
	bar.Finish()
	if err != nil {
		return err
	}
	built := time.Since(start)
	if err := writeAtomically(*out, t.WriteTo); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: N=%d, rules %s/%s, %d boards, %s, checksum %08x, built in %s\n",
		*out, *seeds, r.CaptureSeed, r.Leftovers, totalBoards(*seeds), scoresWords(t), t.Checksum(), built.Round(time.Millisecond))
	return nil
}

// scoresWords says what kind of values t holds: true scores (and up to how
// many seeds), or results only.
func scoresWords(t *tablebase.Table) string {
	switch s := t.ScoreSeeds(); {
	case s < 0:
		return "results only (no true scores)"
	case s == t.MaxSeeds():
		return fmt.Sprintf("true scores (S=%d, every position)", s)
	default:
		return fmt.Sprintf("true scores up to %d seeds (S=%d), results only above", s, s)
	}
}

func tablebaseInfo(m *Main, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one table FILE", errUsage)
	}
	t, err := tablebase.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer t.Close()
	h, err := readHeader(fs.Arg(0))
	if err != nil {
		return err
	}
	r := t.Rules()
	fmt.Fprintf(m.Stdout, "file:      %s\nformat:    version %d\nseeds:     N=%d\nrules:     captureSeed %s, leftovers %s\nboards:    %d\nvalues:    %s\nchecksum:  %08x (CRC-32C, verified)\n",
		fs.Arg(0), h.Version, t.MaxSeeds(), r.CaptureSeed, r.Leftovers, totalBoards(t.MaxSeeds()), scoresWords(t), t.Checksum())
	if t.ScoreSeeds() >= 0 {
		fmt.Fprintf(m.Stdout, "scores:    %d entries, %d with a cycle's bounds, checksum %08x (CRC-32C, verified)\n", h.Scores, h.Open, h.ScoresCRC)
	}
	return nil
}

// readHeader reads the header of the table file at path.
func readHeader(path string) (tablebase.Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return tablebase.Header{}, err
	}
	defer f.Close()
	head := make([]byte, 256)
	if _, err := io.ReadFull(f, head); err != nil {
		return tablebase.Header{}, err
	}
	return tablebase.ParseHeader(head)
}

func totalBoards(n int) int64 {
	var total int64
	for i := 0; i <= n; i++ {
		total += tablebase.LevelSize(i)
	}
	return total
}

// writeAtomically writes path through a temporary file in the same
// directory, synced and renamed over path only when complete, so a reader
// never sees half a table and a failed build leaves no file behind.
func writeAtomically(path string, write func(io.Writer) (int64, error)) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
