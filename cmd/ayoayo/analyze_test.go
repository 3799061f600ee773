package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// searchCLI runs the program with args and returns its exit code and output.
func searchCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	m := &Main{Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code := m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestAnalyzeCommand(t *testing.T) {
	tests := map[string]struct {
		args []string
		code int
		want []string // lines or fragments expected on stdout (stderr for errors)
	}{
		"proven": {
			args: []string{"analyze", "s-200010-300200-22-18", "--depth", "3"},
			want: []string{"bestMove  4\n", "score     +8\n", "pv        4\n", "moves     0:+7! 4:+8!", "depth     1\n", "exact     true\n"},
		},
		"flags before the position": {
			args: []string{"analyze", "--depth", "4", "--time", "0", "s-444444-444444-0-0"},
			want: []string{"depth     4\n", "exact     false\n", "moves     0:"},
		},
		"rule options": {
			args: []string{"analyze", "s-000001-001100-22-23", "--leftovers", "side_owner"},
			want: []string{"bestMove  5\n", "score     -4\n", "exact     true\n"},
		},
		"best only": {
			args: []string{"analyze", "s-444444-444444-0-0", "--depth", "3", "--best-only"},
			want: []string{"<="},
		},
		"no position":       {args: []string{"analyze", "--depth", "3"}, code: 2, want: []string{"want one POSITION"}},
		"bad notation":      {args: []string{"analyze", "x-444444-444444-0-0"}, code: 2, want: []string{"invalid position notation"}},
		"bad rule":          {args: []string{"analyze", "s-444444-444444-0-0", "--leftovers", "nobody"}, code: 2, want: []string{"invalid rule option"}},
		"no limit":          {args: []string{"analyze", "s-444444-444444-0-0", "--time", "0"}, code: 2, want: []string{"at least one of"}},
		"finished position": {args: []string{"analyze", "n-000030-010010-25-18"}, code: 1, want: []string{"no legal move"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, out, errOut := searchCLI(t, tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errOut)
			}
			text := out
			if tc.code != 0 {
				text = errOut
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("output lacks %q:\n%s", w, text)
				}
			}
		})
	}
}

func TestMatchCommand(t *testing.T) {
	code, out, errOut := searchCLI(t, "match", "--a", "4", "--b", "1", "--games", "6", "--seed", "2", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "A = level 4, B = level 1, seed 2") || !strings.Contains(out, "6 games:") || !strings.Contains(out, "% for A") {
		t.Fatalf("output:\n%s", out)
	}
	// The same command gives the same games.
	if _, again, _ := searchCLI(t, "match", "--a", "4", "--b", "1", "--games", "6", "--seed", "2", "--quiet", "--workers", "1"); again != out {
		t.Fatalf("second run differs:\n%s\nvs\n%s", again, out)
	}
	for _, args := range [][]string{
		{"match", "--a", "0", "--b", "1"},
		{"match", "--a", "3", "--b", "9"},
		{"match", "--a", "3", "--b", "1", "--games", "1"},
		{"match", "--a", "3", "--b", "1", "extra"},
	} {
		if code, _, _ := searchCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestHelpListsAnalyzeAndMatchFlags(t *testing.T) {
	_, out, _ := searchCLI(t, "help")
	for _, flag := range []string{"-time duration", "-depth int", "-nodes uint", "-best-only", "-leftovers string", "-a int", "-b int", "-games int", "-seed uint", "-balance int", "-clock"} {
		if !strings.Contains(out, flag) {
			t.Errorf("help lacks %q", flag)
		}
	}
}
