package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

func TestPuzzlesGenerate(t *testing.T) {
	db := filepath.Join(t.TempDir(), "feed.db")
	code, out, errOut := run(t, "puzzles", "generate", "--from", "2026-01-05", "--days", "3", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "2026-01-05 p20260105 Mon") || !strings.Contains(lines[2], "generated") {
		t.Fatalf("output:\n%s", out)
	}

	// A second run over an overlapping range stores only the new day.
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
		if k == "AYOAYO_DB" {
			return db
		}
		return ""
	}}
	if code := m.Run(context.Background(), []string{"puzzles", "generate", "--from", "2026-01-07", "--days", "2"}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines = strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], "already stored") || !strings.Contains(lines[1], "generated") {
		t.Fatalf("second run (AYOAYO_DB):\n%s", stdout.String())
	}

	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, _ := gen.ParseDate("2026-01-08")
	stored, err := st.PuzzlesBefore(context.Background(), d.AddDate(0, 0, 1), 10)
	if err != nil || len(stored) != 4 || stored[0].Puzzle.ID != "p20260108" {
		t.Fatalf("stored %d puzzles (%v), want 4 ending with p20260108", len(stored), err)
	}
}

func TestServeReadsPuzzlesFromEnv(t *testing.T) {
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
		if k == "AYOAYO_PUZZLES_FROM" {
			return "first of May"
		}
		return ""
	}}
	db := filepath.Join(t.TempDir(), "feed.db")
	if code := m.Run(context.Background(), []string{"serve", "--db", db}); code != 2 || !strings.Contains(stderr.String(), "puzzles-from") {
		t.Fatalf("exit %d, stderr %q; want 2 naming --puzzles-from", code, stderr.String())
	}
}

func TestPuzzlesCommandMistakes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "feed.db")
	tests := []struct {
		name string
		args []string
	}{
		{"no subcommand", []string{"puzzles"}},
		{"unknown subcommand", []string{"puzzles", "delete"}},
		{"bad date", []string{"puzzles", "generate", "--from", "2026-13-01", "--db", db}},
		{"no days", []string{"puzzles", "generate", "--days", "0", "--db", db}},
		{"too many days", []string{"puzzles", "generate", "--days", "99999", "--db", db}},
		{"stray argument", []string{"puzzles", "generate", "now", "--db", db}},
		{"serve with a bad feed start", []string{"serve", "--puzzles-from", "2026-02-30", "--db", db}},
		{"serve with a bad cutover", []string{"serve", "--puzzle-cutover", "2027-1-1", "--db", db}},
		{"generate with a bad cutover", []string{"puzzles", "generate", "--puzzle-cutover", "soon", "--db", db}},
		{"stats with no days", []string{"puzzles", "stats", "--days", "0"}},
		{"stats with a bad date", []string{"puzzles", "stats", "--from", "2027-02-29"}},
		{"ahead --until without --info", []string{"puzzles", "ahead", "--check", "shipped", "--until", "2027-06-01"}},
		{"ahead --info with --check", []string{"puzzles", "ahead", "--info", "shipped", "--check", "shipped"}},
		{"ahead --info with a bad --until", []string{"puzzles", "ahead", "--info", "shipped", "--until", "June"}},
		{"ahead --except-days without --check", []string{"puzzles", "ahead", "--out", "x.gob.gz", "--except-days", "2026-01-01:2026-12-31"}},
		{"ahead --except-days out of order", []string{"puzzles", "ahead", "--check", "shipped", "--except-days", "2026-12-31:2026-01-01"}},
		{"ahead --except-days one day", []string{"puzzles", "ahead", "--check", "shipped", "--except-days", "2026-12-31"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, _ := run(t, tc.args...); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
		})
	}
}

// TestPuzzlesStats: the stats of a run of days across the cutover count
// each version, goal, grade and non-greedy key, in tables or in JSON.
// Version 2's days need the 12-seed endgame table, which the command
// builds: like the other tests that build one, it skips under the race
// detector (115 s of the 149 s cmd/ayoayo took under it with -short, at a
// load of 5-8) and with -short; .ci/run's step without the detector runs it.
func TestPuzzlesStats(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("builds a 12-seed table: seconds, over a minute under the race detector")
	}
	code, out, errOut := run(t, "puzzles", "stats", "--from", "2026-12-30", "--days", "4", "--puzzle-cutover", "2027-01-01")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"4 days from 2026-12-30; generator versions 1 2, 2 2", "goals ", "difficulty ", "key legs ", "themes ", "non-greedy keys", "  Fri ", "  all "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}

	// The same days from the environment's cutover, as JSON: all version 1.
	var stdout, stderr bytes.Buffer
	m := &Main{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
		if k == "AYOAYO_PUZZLE_CUTOVER" {
			return "2027-06-01"
		}
		return ""
	}}
	if code := m.Run(context.Background(), []string{"puzzles", "stats", "--from", "2026-12-30", "--days", "4", "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var st stats
	if err := json.Unmarshal(stdout.Bytes(), &st); err != nil {
		t.Fatalf("%v in %s", err, stdout.String())
	}
	total := 0
	for _, n := range st.Goals {
		total += n
	}
	if st.Days != 4 || st.Versions["1"] != 4 || total != 4 || st.NonGreedyAll.Of != 4 || len(st.NonGreedy) != 7 {
		t.Fatalf("stats %+v", st)
	}
}

// aheadFile writes a file of puzzles made ahead holding the version 1
// daily puzzles of days (no table needed) and no practice puzzle.
func aheadFile(t *testing.T, days ...string) string {
	t.Helper()
	return writeAhead(t, aheadDays(t, days...))
}

func aheadDays(t *testing.T, days ...string) puzzles.AheadSet {
	t.Helper()
	var set puzzles.AheadSet
	for _, s := range days {
		d, err := gen.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		p, err := gen.Daily(context.Background(), nil, d, 1)
		if err != nil {
			t.Fatal(err)
		}
		set.Days = append(set.Days, p)
	}
	return set
}

func writeAhead(t *testing.T, set puzzles.AheadSet) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "ahead.gob.gz")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Encode(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestPuzzlesAheadInfo: --info says what a file holds; with --until it
// fails (exit 1, as release/release.sh needs) unless the days run without a
// gap to that day. The shipped file reaches the end of 2027.
func TestPuzzlesAheadInfo(t *testing.T) {
	gapless := aheadFile(t, "2026-01-05", "2026-01-06", "2026-01-07")
	gapped := aheadFile(t, "2026-01-05", "2026-01-07")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a file", []string{"--info", gapless}, 0, "3 days, 2026-01-05 to 2026-01-07"},
		{"until its last day", []string{"--info", gapless, "--until", "2026-01-07"}, 0, "daily puzzles until 2026-01-07: yes (0 days to spare)"},
		{"until after its last day", []string{"--info", gapless, "--until", "2026-01-08"}, 1, "end on 2026-01-07, want them until 2026-01-08"},
		{"with a gap", []string{"--info", gapped, "--until", "2026-01-06"}, 1, "have gaps between 2026-01-05 and 2026-01-07"},
		{"the shipped file", []string{"--info", "shipped", "--until", "2027-12-31"}, 0, "practice puzzles: d0-gany-tany "},
		{"the shipped file past its days", []string{"--info", "shipped", "--until", "2099-01-01"}, 1, "want them until 2099-01-01"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"puzzles", "ahead"}, tc.args...)...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Fatalf("exit %d, output %q %q; want exit %d and %q", code, out, errOut, tc.code, tc.want)
			}
		})
	}
}

// TestPuzzlesAheadCheckExcept: --check leaves out the days of
// --except-days (compared by the year tests in CI) and checks the others
// (version 1 days: no endgame table is built).
func TestPuzzlesAheadCheckExcept(t *testing.T) {
	file := aheadFile(t, "2026-01-05", "2026-01-06", "2026-01-07")
	code, out, errOut := run(t, "puzzles", "ahead", "--check", file, "--except-days", "2026-01-01:2026-01-07")
	if want := ": 0 days and 0 practice puzzles are what the generator makes (3 days left out, those of --except-days 2026-01-01:2026-01-07)"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, output %q %q; want %q", code, out, errOut, want)
	}
	code, out, errOut = run(t, "puzzles", "ahead", "--check", file, "--except-days", "2026-01-06:2026-01-09", "--workers", "1")
	if want := ": 1 days and 0 practice puzzles are what the generator makes (2 days left out, those of --except-days 2026-01-06:2026-01-09)"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, output %q %q; want %q", code, out, errOut, want)
	}

	// A day that is not the generator's fails the check, unless left out.
	set := aheadDays(t, "2026-01-05", "2026-01-06")
	set.Days[1].Prompt += " (edited)"
	bad := writeAhead(t, set)
	code, out, errOut = run(t, "puzzles", "ahead", "--check", bad, "--workers", "1")
	if want := "p20260106: the generator makes another puzzle for this day"; code != 1 || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, output %q %q; want exit 1 and %q", code, out, errOut, want)
	}
	if code, out, errOut = run(t, "puzzles", "ahead", "--check", bad, "--except-days", "2026-01-06:2026-01-06"); code != 0 {
		t.Fatalf("exit %d, output %q %q; want 0 with the edited day left out", code, out, errOut)
	}
}
