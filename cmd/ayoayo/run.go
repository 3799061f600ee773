package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Main is the program with its surroundings passed in, so tests run it end to
// end without a process: its input and output streams and its environment.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// command is one subcommand: its name, a one-line summary, and a function that
// declares its flags on fs, parses args and runs.
type command struct {
	name    string
	args    string
	summary string
	run     func(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error
}

// commands lists the subcommands, in the order help shows them.
func commands() []command {
	return []command{
		{"serve", "[flags]", "serve the HTTP API", runServe},
		{"perft", "N", "count the move sequences of length N from the start position", runPerft},
		{"validate", "[flags] FILE|-", "check NDJSON game records (one /v1/validate body a line) offline and write NDJSON answers", runValidate},
		{"analyze", "POSITION [flags]", "search a position (text notation) and print the best move", runAnalyze},
		{"match", "[flags]", "play paired games between two AI levels and print the score", runMatch},
		{"puzzles", "generate|stats|ahead [flags]", "generate and store daily puzzles ahead of time, report what a run of days holds, or make (ahead --out FILE) or check (ahead --check FILE) the puzzles the binary ships", runPuzzles},
		{"loadtest", "[flags]", "play concurrent games against a server and report moves/s and latency", runLoadtest},
		{"tablebase", "build|info [flags] [FILE]", "build an endgame table (build --seeds N --out FILE) or check one (info FILE)", runTablebase},
		{"fanout", "[flags]", "follow one game with many event streams and report move and delivery latency", runFanout},
		{"deadlines", "[flags]", "set up timed games whose clocks run out over a window and report the delay from each deadline to its end event; or, with --idle, the CPU that waiting costs", runDeadlines},
		{"prune", "--before DATE [flags]", "delete the finished and aborted games that ended before DATE, with their moves, in small batches", runPrune},
		{"migrate", "[--db DB]", "apply the database's missing migrations and stop (for serve --migrate=false); a database a newer binary migrated is refused", runMigrate},
		{"backup", "--out FILE [--db FILE]", "copy a SQLite database, live, to FILE: one consistent snapshot while the server writes, checked with integrity_check", runBackup},
		{"healthcheck", "[--addr ADDR]", "exit 0 when the server at ADDR (env AYOAYO_ADDR, default :8080) answers /readyz with 200, else 1: the image's health check", runHealthcheck},
		{"version", "", "print the version, commit and build date (also: ayoayo --version)", runVersion},
	}
}

// errUsage marks a mistake in the command line: Run prints usage and exits 2.
var errUsage = errors.New("usage")

// Run runs the subcommand named by args[0] and returns the exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		m.help(args)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	if args[0] == "--version" || args[0] == "-version" {
		fmt.Fprintln(m.Stdout, readBuildInfo())
		return 0
	}
	i := slices.IndexFunc(commands(), func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(m.Stderr, "ayoayo: unknown command %q; run 'ayoayo help'\n", args[0])
		return 2
	}
	c := commands()[i]
	fs, usageShown := m.flagSet(c)
	err := c.run(ctx, m, fs, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case *usageShown:
		// The flag package has printed the mistake and the usage already.
		return 2
	case errors.Is(err, errUsage):
		fmt.Fprintf(m.Stderr, "ayoayo %s: %v\n", c.name, err)
		fs.Usage()
		return 2
	default:
		fmt.Fprintf(m.Stderr, "ayoayo %s: %v\n", c.name, err)
		return 1
	}
}

// flagSet makes c's flag set. The flag package calls Usage when parsing
// fails, so usageShown tells Run that the mistake was in the flags (exit 2).
func (m *Main) flagSet(c command) (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	shown := new(bool)
	fs.Usage = func() {
		*shown = true
		fmt.Fprintf(fs.Output(), "usage: ayoayo %s %s\n  %s\n", c.name, c.args, c.summary)
		fs.PrintDefaults()
	}
	return fs, shown
}

// help prints every subcommand with its flags, or one subcommand's.
func (m *Main) help(args []string) {
	w := m.Stdout
	fmt.Fprintln(w, "ayoayo: the Ayoayo rules engine, AI, puzzle feed and HTTP API")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: ayoayo COMMAND [flags] [args]")
	for _, c := range commands() {
		if len(args) > 1 && args[1] != c.name {
			continue
		}
		fmt.Fprintf(w, "\n  %s %s\n      %s\n", c.name, c.args, c.summary)
		fs, _ := m.flagSet(c)
		var flags strings.Builder
		fs.SetOutput(&flags)
		// Declaring the flags without running: a command given --help declares
		// them all and returns flag.ErrHelp before it does anything.
		_ = c.run(context.Background(), m, fs, []string{"--help"})
		for line := range strings.Lines(flags.String()) {
			if strings.HasPrefix(line, "usage:") || strings.HasPrefix(line, "  "+c.summary) {
				continue
			}
			fmt.Fprint(w, "    "+line)
		}
	}
}
