//go:build race

package search

// Under the race detector, which slows building a table and searching about
// tenfold, the table tests use a smaller table and fewer positions.
const (
	testTableSeeds = 6
	raceDetector   = true
)
