package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

func TestTablebaseCommands(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t6.ayotb")
	code, out, errOut := run(t, "tablebase", "build", "--seeds", "6", "--capture-seed", "left", "--leftovers", "side_owner", "--out", path)
	if code != 0 || !strings.Contains(out, "N=6") {
		t.Fatalf("build: exit %d, %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "100%") || strings.Contains(errOut, "\r") {
		t.Fatalf("progress on a non-terminal should be plain lines up to 100%%: %q", errOut)
	}
	tb, err := tablebase.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	want := engine.Rules{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}
	if tb.MaxSeeds() != 6 || tb.Rules() != want {
		t.Fatalf("file holds N=%d %+v", tb.MaxSeeds(), tb.Rules())
	}
	_ = tb.Close()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the build left %d files in its directory, want the table alone", len(entries))
	}

	code, out, errOut = run(t, "tablebase", "info", path)
	if code != 0 || !strings.Contains(out, "N=6") || !strings.Contains(out, "side_owner") || !strings.Contains(out, "verified") {
		t.Fatalf("info: exit %d, %q, stderr %q", code, out, errOut)
	}
	bad := filepath.Join(dir, "bad.ayotb")
	if err := os.WriteFile(bad, []byte("not a table"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, "tablebase", "info", bad); code != 1 || !strings.Contains(errOut, "wrong magic") {
		t.Fatalf("info on a bad file: exit %d, stderr %q", code, errOut)
	}
}

func TestTablebaseMistakes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t.ayotb")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no subcommand", []string{"tablebase"}},
		{"unknown subcommand", []string{"tablebase", "probe"}},
		{"no out", []string{"tablebase", "build", "--seeds", "3"}},
		{"too many seeds", []string{"tablebase", "build", "--seeds", "21", "--out", out}},
		{"negative seeds", []string{"tablebase", "build", "--seeds", "-1", "--out", out}},
		{"unknown rule", []string{"tablebase", "build", "--leftovers", "nobody", "--out", out}},
		{"extra argument", []string{"tablebase", "build", "--out", out, "more"}},
		{"info without file", []string{"tablebase", "info"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, _ := run(t, tc.args...); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused build wrote %s", out)
	}
}
