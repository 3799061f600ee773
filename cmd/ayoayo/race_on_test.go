//go:build race

package main

// raceDetector: the race detector slows a table build about twentyfold, so
// the tests that build a 12-seed table skip under it.
const raceDetector = true
