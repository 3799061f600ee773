//go:build !race

package puzzles

const raceDetector = false
