package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/api/apitest"
)

// The lines of a batch: a valid game, a blank line, an illegal move, a line
// that is not JSON, one of the wrong shape, a start that is no position.
const validateInput = `{"moves":[0,6,1]}

{"moves":[0,8]}
{"moves":[0,
{"moves":"0 6 1"}
{"start":{"pits":[4,4,4,4,4,4,4,4,4,4,4,3],"captured":{"south":0,"north":0},"toMove":"south"},"moves":[0]}
`

func validateMain(stdin string) (*Main, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	return &Main{Stdin: strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}, &stdout, &stderr
}

// postBatch sends body to /v1/validate/batch at url and returns the answer.
func postBatch(tb testing.TB, c *http.Client, url string, body []byte) []byte {
	tb.Helper()
	res, err := c.Post(url+"/v1/validate/batch", api.MIMEApplicationNDJSON, bytes.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		tb.Fatalf("status %d, %v: %s", res.StatusCode, err, out)
	}
	return out
}

// ayoayo validate answers, line for line, what the server answers; the exit
// status says whether every non-blank line was a record.
func TestValidateCommand(t *testing.T) {
	e, err := api.New(api.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()

	dir := t.TempDir()
	mixed := filepath.Join(dir, "mixed.ndjson")
	games := filepath.Join(dir, "games.ndjson")
	records := apitest.Records(300, 2)
	if err := os.WriteFile(mixed, []byte(validateInput), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(games, records, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, stdin string
		args        []string
		input       []byte // the same lines, sent to the server for comparison
		code, lines int
		stderr      string
	}{
		{"mixed file", "", []string{mixed}, []byte(validateInput), 1, 5, "3 of 5 lines are not records"},
		{"mixed on stdin", validateInput, []string{"-"}, []byte(validateInput), 1, 5, "3 of 5 lines are not records"},
		{"games", "", []string{games}, records, 0, 300, ""},
		{"games on stdin", string(records), []string{"-"}, records, 0, 300, ""},
		{"empty", "", []string{"-"}, nil, 0, 0, ""},
		{"no such file", "", []string{filepath.Join(dir, "none")}, nil, 1, 0, "no such file"},
		{"no argument", "", nil, nil, 2, 0, "want one FILE"},
		{"long lines", validateInput, []string{"--max-line", "15", "-"}, nil, 1, 5, "4 of 5 lines are not records"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, stdout, stderr := validateMain(c.stdin)
			code := m.Run(context.Background(), append([]string{"validate"}, c.args...))
			if code != c.code || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("exit %d, want %d; stderr %q, want %q", code, c.code, stderr, c.stderr)
			}
			if n := bytes.Count(stdout.Bytes(), []byte("\n")); n != c.lines {
				t.Errorf("%d answer lines, want %d: %s", n, c.lines, stdout)
			}
			if c.input != nil {
				if want := postBatch(t, srv.Client(), srv.URL, c.input); !bytes.Equal(stdout.Bytes(), want) {
					t.Errorf("offline answers differ from the server's:\n%s\nserver:\n%s", stdout, want)
				}
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

// A failure to write is an error, not a silent stop.
func TestValidateCommandWriteError(t *testing.T) {
	m, _, stderr := validateMain(string(apitest.Records(1000, 3)))
	m.Stdout = failingWriter{}
	if code := m.Run(context.Background(), []string{"validate", "-"}); code != 1 || !strings.Contains(stderr.String(), "disk full") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// The speed of bulk validation on 10,000 recorded games (apitest.Records:
// random legal play, 25-60 plies), in records/s: offline, the command's own
// function on one goroutine (the target: 100,000 records/s on one core),
// and over loopback HTTP, the whole file in one request at a time. On a
// shared machine the wall clock says as much of the others' load as of
// the command: records per second of this process's CPU (records/cpu-s)
// says what one core does. api's BenchmarkValidateLines sets the typed
// path beside the schema path it replaced for the common line.
//
//	go test ./cmd/ayoayo -run '^$' -bench ValidateRecords -cpu 1 -count 3
func BenchmarkValidateRecords(b *testing.B) {
	const n = 10000
	records := apitest.Records(n, 1)
	b.Run("offline", func(b *testing.B) {
		b.SetBytes(int64(len(records)))
		cpu0 := cpuTime(b)
		for b.Loop() {
			counts, err := validateRecords(bytes.NewReader(records), io.Discard, api.DefaultBodyLimit)
			if err != nil || counts.Valid != n {
				b.Fatalf("%+v, %v", counts, err)
			}
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric(float64(b.N*n)/(cpuTime(b)-cpu0).Seconds(), "records/cpu-s")
	})
	b.Run("http", func(b *testing.B) {
		e, err := api.New(api.Options{})
		if err != nil {
			b.Fatal(err)
		}
		srv := httptest.NewServer(e)
		defer srv.Close()
		b.SetBytes(int64(len(records)))
		for b.Loop() {
			if got := bytes.Count(postBatch(b, srv.Client(), srv.URL, records), []byte("\n")); got != n {
				b.Fatalf("%d answers", got)
			}
		}
		b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
	})
}

// ayoayo validate reads game records in the text notation too: each is
// answered with the line it begins on.
func TestValidateCommandNotation(t *testing.T) {
	input := "\n[Event \"one\"]\n\n1. ax2 A 2. b *\n\n[Event \"two\"]\n\n1. a G *\n"
	m, stdout, stderr := validateMain(input)
	code := m.Run(context.Background(), []string{"validate", "-"})
	if code != 1 || !strings.Contains(stderr.String(), "1 of 2 lines are not records") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"line":2,`) || !strings.Contains(lines[0], `"valid":true`) ||
		!strings.HasPrefix(lines[1], `{"line":6,`) || !strings.Contains(lines[1], `"code":"invalid_record"`) {
		t.Errorf("answers:\n%s", stdout)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestValidateGolden: the command's answers to a mixed batch, byte for
// byte: valid games (some ended), illegal moves, rule options, start
// positions good and bad, and lines that are not records in every way the
// decoder and the schema refuse one (not JSON, trailing data, duplicate or
// unknown members, nulls, numbers that are not pits, too many moves,
// invalid UTF-8). Any change to the decoding path must leave them as they
// are; go test ./cmd/ayoayo -run TestValidateGolden -update rewrites the
// golden files when an answer is meant to change. Both were written by the
// path before the typed one, the second by ayoayo validate --max-line 200.
func TestValidateGolden(t *testing.T) {
	in, err := os.ReadFile(filepath.Join("testdata", "validate-mixed.ndjson"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		maxLine int
		golden  string
	}{
		{"default line limit", api.DefaultBodyLimit, "validate-mixed.golden"},
		{"lines of 200 bytes at most", 200, "validate-mixed-200.golden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			golden := filepath.Join("testdata", tc.golden)
			var out bytes.Buffer
			counts, err := validateRecords(bytes.NewReader(in), &out, tc.maxLine)
			if err != nil {
				t.Fatal(err)
			}
			if counts.Valid == 0 || counts.Invalid == 0 || counts.Problems == 0 {
				t.Errorf("counts %+v: the input is meant to hold every kind of answer", counts)
			}
			if *update {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				got := strings.Split(out.String(), "\n")
				wl := strings.Split(string(want), "\n")
				for i := range max(len(got), len(wl)) {
					var g, w string
					if i < len(got) {
						g = got[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("answer line %d differs from %s:\ngot:  %s\nwant: %s", i+1, golden, g, w)
					}
				}
			}
		})
	}
}
