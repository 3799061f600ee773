package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// run runs the program with args and returns its exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	code := m.Run(context.Background(), args)
	return code, stdout.String(), stderr.String()
}

func TestPerftCommand(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"perft", "1"}, "6"},
		{[]string{"perft", "5"}, "2870"},
		{[]string{"perft", "--workers", "1", "7"}, "58600"},
		{[]string{"perft", "--workers", "3", "8"}, "261423"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, out, errOut := run(t, tc.args...)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || lines[len(lines)-1] != tc.want {
				t.Fatalf("exit %d, last line %q (stderr %q), want %s", code, lines[len(lines)-1], errOut, tc.want)
			}
		})
	}
}

func TestCommandLineMistakes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no command", nil, 2},
		{"unknown command", []string{"fly"}, 2},
		{"perft without depth", []string{"perft"}, 2},
		{"perft with a word", []string{"perft", "deep"}, 2},
		{"perft too deep", []string{"perft", "99"}, 2},
		{"unknown flag", []string{"perft", "--fast", "3"}, 2},
		{"help", []string{"help"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, _ := run(t, tc.args...); code != tc.code {
				t.Fatalf("exit %d, want %d", code, tc.code)
			}
		})
	}
}

func TestHelpListsEveryCommand(t *testing.T) {
	_, out, _ := run(t, "help")
	for _, c := range commands() {
		if !strings.Contains(out, "\n  "+c.name+" ") {
			t.Errorf("help does not list %s", c.name)
		}
	}
	if !strings.Contains(out, "-workers") {
		t.Error("help does not list perft's flags")
	}
}

// BenchmarkPerft11 times the command's parallel perft 11 (22,370,466 leaves);
// the target is 1.5 s on this machine's two cores.
func BenchmarkPerft11(b *testing.B) {
	for b.Loop() {
		if n := perftParallel(context.Background(), engine.Start(), engine.Rules{}, 11, 2); n != 22370466 {
			b.Fatalf("perft 11 = %d", n)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/perft11")
}
