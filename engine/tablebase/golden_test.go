package tablebase

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenChecksum pins the CRC-32C of the 12-seed table's body under each
// rule combination: any change to the rules, the indexing, the byte code or
// the solution shows here. The builds take seconds, far too long under the
// race detector, where Build's concurrency is checked by the other tests.
func TestGoldenChecksum(t *testing.T) {
	if raceDetector || testing.Short() {
		t.Skip("four 12-seed builds: not under -race or -short")
	}
	var sb strings.Builder
	for _, rc := range allRules {
		tb := build(t, 12, rc.rules)
		fmt.Fprintf(&sb, "%s %08x\n", rc.name, tb.Checksum())
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
