//go:build !race

package tablebase

// refSeeds is the largest level the reference solver checks in full.
const refSeeds = 10

const raceDetector = false
