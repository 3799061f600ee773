//go:build !race

package search

// testTableSeeds is N of the tables the tests build: a fraction of a
// second, and large enough for endings with some play.
const (
	testTableSeeds = 8
	raceDetector   = false
)
