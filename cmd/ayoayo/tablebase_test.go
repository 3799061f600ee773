package main

import (
	"encoding/binary"
	"hash/crc32"
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
	if code != 0 || !strings.Contains(out, "N=6") || !strings.Contains(out, "side_owner") || !strings.Contains(out, "verified") ||
		!strings.Contains(out, "version 2") || !strings.Contains(out, "true scores (S=6, every position)") {
		t.Fatalf("info: exit %d, %q, stderr %q", code, out, errOut)
	}
	// A result-only table, and one with true scores for its small boards.
	for _, tc := range []struct{ scores, want string }{
		{"-1", "results only"},
		{"4", "true scores up to 4 seeds (S=4), results only above"},
	} {
		p := filepath.Join(dir, "t"+tc.scores+".ayotb")
		if code, out, errOut := run(t, "tablebase", "build", "--seeds", "6", "--score-seeds", tc.scores, "--out", p); code != 0 || !strings.Contains(out, tc.want) {
			t.Fatalf("build --score-seeds %s: exit %d, %q, stderr %q", tc.scores, code, out, errOut)
		}
		if code, out, errOut := run(t, "tablebase", "info", p); code != 0 || !strings.Contains(out, "values:    "+tc.want) {
			t.Fatalf("info --score-seeds %s: exit %d, %q, stderr %q", tc.scores, code, out, errOut)
		}
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	// A version 1 file, as builds wrote before true scores: it opens, as a
	// result-only table.
	v1 := filepath.Join(dir, "v1.ayotb")
	if code, _, errOut := run(t, "tablebase", "build", "--seeds", "5", "--score-seeds", "-1", "--out", v1); code != 0 {
		t.Fatalf("build: exit %d, stderr %q", code, errOut)
	}
	data, err := os.ReadFile(v1)
	if err != nil {
		t.Fatal(err)
	}
	data[8] = 1
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	binary.LittleEndian.PutUint32(data[28:], crc32.Update(crc32.Checksum(data[:28], castagnoli), castagnoli, data[32:256]))
	if err := os.WriteFile(v1, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, "tablebase", "info", v1); code != 0 || !strings.Contains(out, "version 1") || !strings.Contains(out, "results only") {
		t.Fatalf("info on a version 1 file: exit %d, %q, stderr %q", code, out, errOut)
	}
	if err := os.Remove(v1); err != nil {
		t.Fatal(err)
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
		{"score seeds beyond N", []string{"tablebase", "build", "--seeds", "3", "--score-seeds", "4", "--out", out}},
		{"score seeds beyond the limit", []string{"tablebase", "build", "--seeds", "16", "--score-seeds", "15", "--out", out}},
		{"score seeds below -1", []string{"tablebase", "build", "--seeds", "3", "--score-seeds", "-2", "--out", out}},
		{"score seeds not a number", []string{"tablebase", "build", "--seeds", "3", "--score-seeds", "all", "--out", out}},
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
