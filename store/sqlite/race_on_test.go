//go:build race

package sqlite

// raceDetector: the race detector slows SQLite (modernc.org's translation
// of C to Go, every memory access of which it instruments) many times
// over, so TestLobbyRace races fewer players under it (the full test runs
// without it, in .ci/run's step after the race steps).
const raceDetector = true
