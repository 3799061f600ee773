package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

func TestTableFilesFlag(t *testing.T) {
	tests := []struct {
		name string
		env  string
		args []string
		want []string
	}{
		{"none", "", nil, nil},
		{"env, colons and commas", "a.ayotb:b.ayotb, c.ayotb", nil, []string{"a.ayotb", "b.ayotb", "c.ayotb"}},
		{"flags replace env", "a.ayotb", []string{"--tablebase", "x", "--tablebase", "y"}, []string{"x", "y"}},
		{"one flag", "", []string{"--tablebase", "x"}, []string{"x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, _ := testMain(map[string]string{"AYOAYO_TABLEBASE": tt.env})
			fs, _ := m.flagSet(command{name: "test"})
			tf := tableFilesFlag(fs, "table")
			if err := m.parse(fs, tt.args, envPrefix); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(tf.files, tt.want) {
				t.Fatalf("files %q, want %q", tf.files, tt.want)
			}
		})
	}
}

// buildTestTable writes a small table file with the tablebase command.
func buildTestTable(t *testing.T, seeds string, rules ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "t"+seeds+".ayotb")
	m, _, stderr := testMain(nil)
	if code := m.Run(context.Background(), append([]string{"tablebase", "build", "--seeds", seeds, "--out", out}, rules...)); code != 0 {
		t.Fatalf("tablebase build: exit status %d\n%s", code, stderr)
	}
	return out
}

// A table that does not open stops the server before it listens, with an
// error that names the file and says why.
func TestServeTablebaseErrors(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.ayotb")
	if err := os.WriteFile(garbage, []byte("not a table at all, not even close to one"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := buildTestTable(t, "4")
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string
		code int
	}{
		{"not a table", nil, []string{"--tablebase", garbage}, []string{garbage, "wrong magic"}, 1},
		{"no such file", nil, []string{"--tablebase", good, "--tablebase", filepath.Join(dir, "missing.ayotb")}, []string{"missing.ayotb", "no such file"}, 1},
		{"from the environment", map[string]string{"AYOAYO_TABLEBASE": good + ":" + garbage}, nil, []string{garbage, "wrong magic"}, 1},
		{"a build too large", nil, []string{"--tablebase-build", "21"}, []string{"--tablebase-build 21"}, 2},
		{"a build that is not a number", map[string]string{"AYOAYO_TABLEBASE_BUILD": "big"}, nil, []string{"AYOAYO_TABLEBASE_BUILD"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"AYOAYO_ADDR": "127.0.0.1:0", "AYOAYO_DB": filepath.Join(t.TempDir(), "x.db")}
			for k, v := range tt.env {
				env[k] = v
			}
			m, _, stderr := testMain(env)
			if code := m.Run(context.Background(), append([]string{"serve"}, tt.args...)); code != tt.code {
				t.Errorf("exit status %d, want %d:\n%s", code, tt.code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if strings.Contains(stderr.String(), `"msg":"listening"`) {
				t.Errorf("the server listened:\n%s", stderr)
			}
		})
	}
}

// listeningAddr waits for the server's listening line in its log.
func listeningAddr(t *testing.T, stderr *syncBuffer) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for line := range strings.Lines(stderr.String()) {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				return l.Addr
			}
		}
	}
	t.Fatalf("no listening line:\n%s", stderr)
	return ""
}

// analyzeSource posts a position (text notation, JSON of the API) to
// /v1/analyze and returns the answer's source and result.
func analyzeSource(t *testing.T, url, position, rules string) (source, result string) {
	t.Helper()
	res, err := http.Post(url+"/v1/analyze", "application/json", strings.NewReader(`{"position":`+position+rules+`,"depth":2}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var ans struct{ Source, Result string }
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &ans) != nil {
		t.Fatalf("analyze: %d %s", res.StatusCode, body)
	}
	return ans.Source, ans.Result
}

// An endgame inside table files given to serve (one per rules) is answered
// from the table for its rules; the server shuts down cleanly after.
func TestServeWithTablebaseFiles(t *testing.T) {
	def := buildTestTable(t, "6")
	other := buildTestTable(t, "4", "--leftovers", "side_owner")
	m, _, stderr := testMain(map[string]string{
		"AYOAYO_ADDR":      "127.0.0.1:0",
		"AYOAYO_DB":        filepath.Join(t.TempDir(), "serve.db"),
		"AYOAYO_TABLEBASE": other,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- m.Run(ctx, []string{"serve", "--analyze-concurrency", "1", "--tablebase", def, "--tablebase", other})
	}()
	url := "http://" + listeningAddr(t, stderr)
	ending := `{"pits":[0,2,1,0,1,1,1,0,0,0,0,0],"captured":{"south":22,"north":20},"toMove":"south"}` // 6 seeds
	if src, res := analyzeSource(t, url, ending, ""); src != "tablebase" || res == "" {
		t.Errorf("an ending in the default rules' table: source %q result %q", src, res)
	}
	if src, _ := analyzeSource(t, url, ending, `,"rules":{"leftovers":"side_owner"}`); src != "search" {
		t.Errorf("an ending beyond the side_owner table: source %q", src)
	}
	small := `{"pits":[0,2,1,0,0,0,1,0,0,0,0,0],"captured":{"south":22,"north":22},"toMove":"south"}` // 4 seeds
	if src, _ := analyzeSource(t, url, small, `,"rules":{"leftovers":"side_owner"}`); src != "tablebase" {
		t.Errorf("an ending in the side_owner table: source %q", src)
	}
	if src, _ := analyzeSource(t, url, small, `,"rules":{"captureSeed":"left"}`); src != "search" {
		t.Errorf("rules with no table: source %q", src)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit status %d:\n%s", c, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return after cancellation")
	}
	for _, want := range []string{`"msg":"endgame table"`, `"file":"` + def + `","seeds":6`, `"msg":"stopped"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("the log lacks %s:\n%s", want, stderr)
		}
	}
}

func TestAnalyzeAndMatchWithTablebase(t *testing.T) {
	table := buildTestTable(t, "6")
	other := buildTestTable(t, "2", "--capture-seed", "left")
	code, out, errOut := searchCLI(t, "analyze", "s-021010-100010-22-20", "--tablebase", table)
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errOut)
	}
	for _, w := range []string{"source    tablebase\n", "depth     0\n", "exact     true\n", "result    "} {
		if !strings.Contains(out, w) {
			t.Errorf("analyze output lacks %q:\n%s", w, out)
		}
	}
	if code, out, _ := searchCLI(t, "analyze", "s-021010-100010-22-20", "--depth", "2"); code != 0 || !strings.Contains(out, "source    search\n") {
		t.Errorf("analyze without a table: exit %d:\n%s", code, out)
	}
	if code, _, errOut := searchCLI(t, "analyze", "s-021010-100010-22-20", "--tablebase", table+".missing"); code != 1 || !strings.Contains(errOut, ".missing") {
		t.Errorf("analyze with a missing table: exit %d: %s", code, errOut)
	}

	code, out, errOut = searchCLI(t, "match", "--a", "7", "--b", "7", "--a-tablebase", table, "--games", "2", "--quiet")
	if code != 0 || !strings.Contains(out, "A = level 7 with the endgame table "+table+", B = level 7,") {
		t.Fatalf("match: exit %d:\n%s%s", code, out, errOut)
	}
	if code, _, errOut := searchCLI(t, "match", "--a", "7", "--b", "7", "--b-tablebase", other, "--games", "2", "--quiet"); code != 2 || !strings.Contains(errOut, "other rules") {
		t.Errorf("match with a table for other rules: exit %d: %s", code, errOut)
	}
}

// TestPuzzlesShareTheEndgameTable: serve builds the 12-seed table once, for
// the analyses and the puzzle generator alike, and a generator made when
// the server already has such a table proves with it.
func TestPuzzlesShareTheEndgameTable(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("builds a 12-seed table: seconds, a minute under the race detector")
	}
	ctx := t.Context()
	set, err := search.NewEndgames()
	if err != nil {
		t.Fatal(err)
	}
	generator := puzzleGenerator(set, testWorkers) // no table yet: the generator will build one
	var building sync.WaitGroup
	buildTable(ctx, budget.New(1), nil, set, gen.EndgameSeeds, generator, slog.New(slog.DiscardHandler), &building)
	building.Wait()
	built, err := generator.EndgameTable(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := set.For(engine.Rules{}); got != search.Endgame(built) {
		t.Fatalf("the analyses use %v, the puzzle generator %p: two builds", got, built)
	}
	again, err := puzzleGenerator(set, testWorkers).EndgameTable(ctx)
	if err != nil || again != built {
		t.Fatalf("a generator made after the build has %p (%v), want the server's %p", again, err, built)
	}
}

// TestTableBuildWaitsForTheBudget: each piece of a table build at start
// waits, at generation's priority, for the heavy work holding the CPU
// budget, and the build goes on once it is given back.
func TestTableBuildWaitsForTheBudget(t *testing.T) {
	ctx := t.Context()
	set, err := search.NewEndgames()
	if err != nil {
		t.Fatal(err)
	}
	cpu := budget.New(1)
	release, err := cpu.Acquire(ctx, budget.Request{Priority: budget.AIReply})
	if err != nil {
		t.Fatal(err)
	}
	var building sync.WaitGroup
	buildTable(ctx, cpu, nil, set, 4, puzzles.NewGenerator(testWorkers), slog.New(slog.DiscardHandler), &building)
	for deadline := time.Now().Add(10 * time.Second); cpu.Stats().Waiting[budget.Generation] == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the build never asked the budget")
		}
	}
	if set.For(engine.Rules{}) != nil {
		t.Fatal("the table was built while the budget was taken")
	}
	release()
	building.Wait()
	if tb := set.For(engine.Rules{}); tb == nil || tb.MaxSeeds() != 4 {
		t.Fatalf("after the budget came free: table %v, want one of 4 seeds", tb)
	}
	if st := cpu.Stats(); st.Used != 0 {
		t.Errorf("the build kept %d units", st.Used)
	}
}
