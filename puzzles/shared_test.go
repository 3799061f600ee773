package puzzles

// testGenerator is the one Generator the package's external tests (package
// puzzles_test, through SharedGenerator) share: its endgame table takes
// seconds to build, and about a minute under the race detector, so each
// test binary builds it once. Tests that are about a fresh generator make
// their own.
var testGenerator = NewGenerator()

// SharedGenerator returns testGenerator to the external tests.
func SharedGenerator() *Generator { return testGenerator }
