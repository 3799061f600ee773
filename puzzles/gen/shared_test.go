package gen

import (
	"context"
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// sharedTable is the endgame table the package's tests and benchmarks
// share: it takes seconds to build, and about a minute under the race
// detector, so each test binary builds it once, on first need. Tests that
// are about a fresh table build their own.
var sharedTable = sync.OnceValues(func() (*tablebase.Table, error) {
	return tablebase.Build(context.Background(), EndgameSeeds, engine.Rules{}, testWorkers, nil)
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
