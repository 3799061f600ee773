// Package ahead ships puzzles made ahead inside the binary: the daily
// puzzles of a span of days and the first buckets of each stocked filter's
// practice stock (see puzzles.AheadSet), so that a server on a fresh
// database answers the daily puzzle and every stocked practice filter at
// once. The file is made by `ayoayo puzzles ahead --out
// puzzles/ahead/ahead.gob.gz` and checked against the generator by this
// package's test (a sample) and in CI, all of it once: the days of 2026 and
// 2027 by puzzles/gen's year tests (TestFeedYearShipped), the rest by
// `ayoayo puzzles ahead --check shipped --except-days ...`. See
// docs/puzzles.md and docs/practice-stock.md.
package ahead

import (
	"bytes"
	_ "embed"

	"github.com/ayoayo/ayoayo/puzzles"
)

// File is where the file lives in the repository, for the command that
// writes it.
const File = "puzzles/ahead/ahead.gob.gz"

//go:embed ahead.gob.gz
var data []byte

// Set decodes the shipped set.
func Set() (puzzles.AheadSet, error) {
	return puzzles.DecodeAhead(bytes.NewReader(data))
}

// Load decodes and indexes the shipped set, for puzzles.FeedOptions.Ahead.
func Load() (*puzzles.Ahead, error) {
	s, err := Set()
	if err != nil {
		return nil, err
	}
	return puzzles.NewAhead(s)
}
