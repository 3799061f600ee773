package tablebase

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenChecksum pins the CRC-32C of the 12-seed table's body and of
// its score section under each rule combination: any change to the rules, the indexing, the byte code or
// the solution shows here. The builds take seconds, far too long under the
// race detector, where Build's concurrency is checked by the other tests.
func TestGoldenChecksum(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("four 12-seed builds: not under -race or -short")
	}
	var sb strings.Builder
	for _, rc := range allRules {
		tb := build(t, 12, rc.rules)
		fmt.Fprintf(&sb, "%s %08x scores %08x\n", rc.name, tb.Checksum(), tb.scoresCRC)
	}
	path := filepath.Join("testdata", "checksum12.txt")
	if *update {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if sb.String() != string(want) {
		t.Fatalf("%s differs; run go test -update and review the diff\ngot:\n%s", path, sb.String())
	}
}

// TestBuildGated: a build whose gate admits one chunk at a time gives the
// same table as one run freely, asks the gate for every piece of work, and
// stops with the gate's error when the gate fails.
func TestBuildGated(t *testing.T) {
	const seeds = 9
	ctx := t.Context()
	free, err := Build(ctx, seeds, engine.Rules{}, testWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	var one sync.Mutex // one chunk at a time, as a budget of one unit would
	var admitted, running, most atomic.Int64
	gate := func(context.Context) (func(), error) {
		one.Lock()
		admitted.Add(1)
		most.Store(max(most.Load(), running.Add(1)))
		return func() { running.Add(-1); one.Unlock() }, nil
	}
	gated, err := BuildGated(ctx, seeds, engine.Rules{}, testWorkers, nil, gate)
	if err != nil {
		t.Fatal(err)
	}
	if gated.Checksum() != free.Checksum() || gated.scoresCRC != free.scoresCRC {
		t.Errorf("gated build checksums %08x %08x, the free one's %08x %08x", gated.Checksum(), gated.scoresCRC, free.Checksum(), free.scoresCRC)
	}
	if admitted.Load() < seeds || most.Load() != 1 {
		t.Errorf("the gate admitted %d pieces, at most %d at once; want one per chunk, one at a time", admitted.Load(), most.Load())
	}
	refused := errors.New("no room")
	var calls atomic.Int64
	_, err = BuildGated(ctx, seeds, engine.Rules{}, testWorkers, nil, func(context.Context) (func(), error) {
		if calls.Add(1) > 3 {
			return nil, refused
		}
		return func() {}, nil
	})
	if !errors.Is(err, refused) {
		t.Errorf("a gate that fails: build error %v, want %v", err, refused)
	}
}
