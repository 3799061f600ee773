package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
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
	seeds *int
	rules engine.Rules
	out   *string
}

func buildFlags(fs *flag.FlagSet) *tablebaseFlags {
	f := &tablebaseFlags{}
	f.seeds = fs.Int("seeds", 12, fmt.Sprintf("build: N, the most seeds on the board the table answers for (0 to %d)", tablebase.MaxSeedsLimit))
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
	start := time.Now()
	bar := newProgressBar(m.Stderr, start)
	r := f.rules
	t, err := tablebase.Build(ctx, *seeds, r, bar.update)
	bar.finish()
	if err != nil {
		return err
	}
	built := time.Since(start)
	if err := writeAtomically(*out, t.WriteTo); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: N=%d, rules %s/%s, %d boards, checksum %08x, built in %s\n",
		*out, *seeds, r.CaptureSeed, r.Leftovers, totalBoards(*seeds), t.Checksum(), built.Round(time.Millisecond))
	return nil
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
	r := t.Rules()
	fmt.Fprintf(m.Stdout, "file:      %s\nformat:    version 1\nseeds:     N=%d\nrules:     captureSeed %s, leftovers %s\nboards:    %d\nchecksum:  %08x (CRC-32C, verified)\n",
		fs.Arg(0), t.MaxSeeds(), r.CaptureSeed, r.Leftovers, totalBoards(t.MaxSeeds()), t.Checksum())
	return nil
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

// progressBar draws Build's progress on w: one line redrawn in place on a
// terminal, or a plain line every tenth of the way otherwise (a log file).
type progressBar struct {
	w     io.Writer
	tty   bool
	start time.Time
	last  time.Time // last redraw on a terminal
	tenth int64     // tenths written as plain lines
	drawn bool
}

func newProgressBar(w io.Writer, start time.Time) *progressBar {
	b := &progressBar{w: w, start: start}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty = true
		}
	}
	return b
}

func (b *progressBar) update(done, total int64) {
	if total <= 0 {
		return
	}
	elapsed := time.Since(b.start).Round(time.Second)
	if !b.tty {
		if t := done * 10 / total; t > b.tenth {
			b.tenth = t
			fmt.Fprintf(b.w, "tablebase: %3d%%, %s\n", t*10, elapsed)
		}
		return
	}
	if now := time.Now(); now.Sub(b.last) >= 100*time.Millisecond || done == total {
		b.last = now
		const width = 40
		fill := int(done * width / total)
		bar := make([]byte, width)
		for i := range bar {
			bar[i] = '.'
			if i < fill {
				bar[i] = '#'
			}
		}
		fmt.Fprintf(b.w, "\r[%s] %5.1f%% %s ", bar, float64(done)*100/float64(total), elapsed)
		b.drawn = true
	}
}

// finish ends the redrawn line, so what follows starts on its own.
func (b *progressBar) finish() {
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
