package engine

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from the golden file; run go test -update and review the diff\ngot:\n%s", path, got)
	}
}

// TestGoldenOpening pins every move of the first two plies from the start:
// its legs, capture and result, one line each.
func TestGoldenOpening(t *testing.T) {
	var sb strings.Builder
	var out Outcome
	for _, pit := range []int{0, 1, 2, 3, 4, 5} {
		Play(Start(), pit, Rules{}, &out)
		first := out.Position
		writeOutcome(&sb, &out)
		for reply := 6; reply < 12; reply++ {
			Play(first, reply, Rules{}, &out)
			writeOutcome(&sb, &out)
		}
	}
	golden(t, "opening.golden", sb.String())
}

func writeOutcome(sb *strings.Builder, o *Outcome) {
	fmt.Fprintf(sb, "%s %d:", o.Before, o.Pit)
	if !o.Legal() {
		fmt.Fprintf(sb, " illegal %s\n", o.Reason)
		return
	}
	for _, l := range o.Legs {
		fmt.Fprintf(sb, " %d>%v", l.From, l.AppendSown(nil))
	}
	if !o.Capture.None() {
		fmt.Fprintf(sb, " capture %d from %d", o.Capture.Seeds, o.Capture.Pit)
	}
	fmt.Fprintf(sb, " = %s", o.Position)
	if o.Result.Over() {
		fmt.Fprintf(sb, " %s by %s", o.Result.Winner, o.Result.Reason)
	}
	sb.WriteByte('\n')
}
