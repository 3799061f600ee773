//go:build race

package tablebase

// refSeeds: the race detector slows the reference solver about tenfold, so
// it checks fewer levels under it.
const refSeeds = 6
