package puzzles

import (
	"context"
	"os"

	"github.com/ayoayo/ayoayo/engine/tablebase/tabletest"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// testGenerator is the one Generator the package's external tests (package
// puzzles_test, through SharedGenerator) share: its endgame table takes
// seconds to build, and about a minute under the race detector, so each
// test binary builds it once, or opens the file AYOAYO_TEST_ENDGAME_TABLE
// names (package tabletest; .ci/run's race step does). Tests that are about
// a fresh generator make their own.
var testGenerator = newTestGenerator()

// newTestGenerator returns a generator on testWorkers goroutines that builds
// its table on first need or, when tabletest.Env names a file, holds that
// table already (as NewGeneratorWith, which runs on one goroutine).
func newTestGenerator() *Generator {
	g := NewGenerator(testWorkers)
	if os.Getenv(tabletest.Env) == "" {
		return g
	}
	tb, err := tabletest.Endgame(context.Background(), gen.EndgameSeeds, testWorkers)
	if err == nil {
		err = gen.CheckTable(tb)
	}
	if err != nil {
		panic(err) // the test run named a file it cannot have
	}
	g.once.Do(func() {
		g.table = tb
		g.building.Store(true)
		close(g.done)
	})
	return g
}

// SharedGenerator returns testGenerator to the external tests.
func SharedGenerator() *Generator { return testGenerator }

// testWorkers is the goroutines the package's own tests' table builds run
// on (puzzles_test has its own).
const testWorkers = 2
