package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
	"github.com/ayoayo/ayoayo/puzzles/puzzletest"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// TestPuzzleStatsPractice: `puzzles stats --practice` reads the stock of
// --db, per stocked filter, as a table and as JSON.
func TestPuzzleStatsPractice(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "stock.db")
	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := gen.PracticeFilter{Difficulty: 3}
	for seq := range uint64(3) {
		p, err := puzzletest.MadeUpPractice(ctx, gen.PracticeVersion, f, seq)
		if err != nil {
			t.Fatal(err)
		}
		p.ID = gen.PracticeID{Version: gen.PracticeVersion, Filter: f, Seq: seq}.String()
		row := puzzles.Stocked{Filter: puzzles.FilterKey(f), Bucket: int(seq), Seq: seq, Puzzle: p}
		if _, err := st.AddStock(ctx, row, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := run(t, "puzzles", "stats", "--practice", "--json", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got stockStats
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(got.Filters) != len(puzzles.StockedFilters()) {
		t.Fatalf("%d filters, want %d", len(got.Filters), len(puzzles.StockedFilters()))
	}
	for _, fs := range got.Filters {
		want := 0
		if fs.Filter == "d3-gany-tany" {
			want = 3
		}
		if fs.Puzzles != want || fs.NonGreedy.Of != want || fs.Difficulty["3"] != want {
			t.Errorf("%s: %+v, want %d puzzles of difficulty 3", fs.Filter, fs, want)
		}
	}

	code, out, errOut = run(t, "puzzles", "stats", "--practice", "--db", db)
	if code != 0 || !strings.Contains(out, "d3-gany-tany          3        0/3 (0 %)") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
}
