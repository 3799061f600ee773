package puzzles

// testGenerator is the one Generator the package's external tests (package
// puzzles_test, through SharedGenerator) share: its endgame table takes
// seconds to build, and about a minute under the race detector, so each
// test binary builds it once. Tests that are about a fresh generator make
// their own.
var testGenerator = NewGenerator(testWorkers)

// SharedGenerator returns testGenerator to the external tests.
func SharedGenerator() *Generator { return testGenerator }

// testWorkers is the goroutines the package's own tests' table builds run
// on (puzzles_test has its own).
const testWorkers = 2
