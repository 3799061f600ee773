//go:build race

package tablebase

// refSeeds: the race detector slows the reference solver about tenfold, so
// it checks fewer levels under it (and cannot insist on boards where cycles
// matter: under some rules the first have 9 or 10 seeds).
const refSeeds = 7

const raceDetector = true
