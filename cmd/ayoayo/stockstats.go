package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// stockStats is what `ayoayo puzzles stats --practice` reports of the
// practice stock of a database: per stocked filter, its puzzles, the share
// whose key is not the biggest capture, and their grades and goals.
type stockStats struct {
	Version int           `json:"version"` // the practice generator version the stock is of
	Filters []filterStats `json:"filters"`
}

type filterStats struct {
	Filter     string         `json:"filter"` // its part of a practice id, d3-gany-tany
	Puzzles    int            `json:"puzzles"`
	NonGreedy  share          `json:"nonGreedy"`
	Difficulty map[string]int `json:"difficulty"`
	Goals      map[string]int `json:"goals"`
}

// practiceStats prints the figures of db's practice stock.
func practiceStats(ctx context.Context, m *Main, db string, asJSON bool) error {
	// A report changes nothing: no migration, and no new empty SQLite
	// file for a mistyped path.
	if !isPostgres(db) {
		if _, err := os.Stat(db); err != nil {
			return fmt.Errorf("%w: --db: %w", errUsage, err)
		}
	}
	st, err := openStoreWith(ctx, db, time.Now, nil, false)
	if err != nil {
		return err
	}
	defer st.Close()
	out := stockStats{Version: gen.PracticeVersion}
	for _, f := range puzzles.StockedFilters() {
		key := puzzles.FilterKey(f)
		rows, err := st.Stock(ctx, out.Version, key)
		if err != nil {
			return fmt.Errorf("the stock of %s: %w", key, err)
		}
		fs := filterStats{Filter: key, Puzzles: len(rows), NonGreedy: share{Of: len(rows)},
			Difficulty: map[string]int{}, Goals: map[string]int{}}
		for _, r := range rows {
			if gen.NonGreedy(r.Puzzle) {
				fs.NonGreedy.Count++
			}
			fs.Difficulty[fmt.Sprint(r.Puzzle.Difficulty)]++
			fs.Goals[string(r.Puzzle.Goal)]++
		}
		out.Filters = append(out.Filters, fs)
	}
	if asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	out.write(m.Stdout)
	return nil
}

// write prints st as a plain-text table.
func (st stockStats) write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "practice stock, generator version %d\n\n", st.Version)
	fmt.Fprintln(tw, "filter\tpuzzles\tnon-greedy keys\tdifficulty\tgoals")
	for _, f := range st.Filters {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", f.Filter, f.Puzzles, f.NonGreedy,
			counts(f.Difficulty, []string{"1", "2", "3", "4", "5"}),
			counts(f.Goals, []string{"max_capture", "win", "defend", "endgame"}))
	}
	tw.Flush()
}
