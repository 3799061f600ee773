//go:build race

package gen

// raceDetector: the race detector slows generation about fifteenfold, so
// the year test checks four weeks under it (the full year runs without).
const raceDetector = true
