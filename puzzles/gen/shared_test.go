package gen

import (
	"context"
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/engine/tablebase"
	"github.com/ayoayo/ayoayo/engine/tablebase/tabletest"
)

// sharedTable is the endgame table the package's tests and benchmarks
// share: it takes seconds to build, and about a minute under the race
// detector, so each test binary builds it once, on first need, or opens
// the file AYOAYO_TEST_ENDGAME_TABLE names (package tabletest; .ci/run's
// race step does). Tests that are about a fresh table build their own.
var sharedTable = sync.OnceValues(func() (*tablebase.Table, error) {
	return tabletest.Endgame(context.Background(), EndgameSeeds, testWorkers)
})

// testTable returns sharedTable, failing t if it cannot be built.
func testTable(t testing.TB) *tablebase.Table {
	t.Helper()
	tb, err := sharedTable()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}
