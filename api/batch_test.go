package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/ayoayo/ayoayo/api/apitest"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
)

const ndjsonType = MIMEApplicationNDJSON

// batchLine is an answer line of either kind, as a client reads it.
type batchLine struct {
	Line    int              `json:"line"`
	Valid   *bool            `json:"valid"`
	Plies   int              `json:"plies"`
	Error   *oapi.PlyError   `json:"error"`
	Problem *problem.Problem `json:"problem"`
}

// answerSpec is the package's one loaded document (testDocument).
var answerSpec = testDocument

// answerLines splits an NDJSON answer, checking every line against the
// schema the document gives it: ValidateBatchAnswer or ValidateBatchProblem.
func answerLines(t *testing.T, body []byte) []batchLine {
	t.Helper()
	spec, err := answerSpec()
	if err != nil {
		t.Fatal(err)
	}
	var out []batchLine
	for raw := range bytes.Lines(body) {
		var l batchLine
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("answer line %q: %v", raw, err)
		}
		schema := "ValidateBatchAnswer"
		if l.Problem != nil {
			schema = "ValidateBatchProblem"
		}
		var v any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&v)
		if err := spec.Components.Schemas[schema].Value.VisitJSON(v, openapi3.VisitAsResponse()); err != nil {
			t.Errorf("answer line %s is not a %s: %v", bytes.TrimSpace(raw), schema, err)
		}
		out = append(out, l)
	}
	return out
}

// The lines of one batch, each with the answer it must get. want is the
// problem code for a bad line, "valid" or "invalid" for a record, "" for a
// line with no answer.
var batchCases = []struct {
	name, line, want string
}{
	{"valid game", `{"moves":[0,6,1]}`, "valid"},
	{"blank line", ``, ""},
	{"illegal move", `{"moves":[0,8]}`, "invalid"},
	{"white space only", " \t\r", ""},
	{"malformed JSON", `{"moves":[0,`, "malformed_json"},
	{"two values on a line", `{"moves":[0]} {"moves":[0]}`, "malformed_json"},
	{"wrong shape", `{"moves":"0,6,1"}`, "invalid_request"},
	{"pit out of range", `{"moves":[12]}`, "invalid_request"},
	{"unknown member", `{"moves":[0],"comment":"x"}`, "invalid_request"},
	{"not an object", `[0,6,1]`, "invalid_request"},
	{"seeds do not add up", `{"start":{"pits":[4,4,4,4,4,4,4,4,4,4,4,3],"captured":{"south":0,"north":0},"toMove":"south"},"moves":[0]}`, "invalid_position"},
	{"finished game", `{"start":` + finishedJSON + `,"moves":[]}`, "valid"},
	{"move after the end", `{"start":` + finishedJSON + `,"moves":[0]}`, "invalid"},
	{"CRLF line end", "{\"moves\":[0]}\r", "valid"},
}

// checkBatch checks the answer to the lines of batchCases, in order, with
// the verdict and detail a single /v1/validate request gets for each line.
func checkBatch(t *testing.T, ts *tester, body []byte) {
	t.Helper()
	got := answerLines(t, body)
	i := 0
	for n, c := range batchCases {
		if c.want == "" {
			continue
		}
		if i >= len(got) {
			t.Fatalf("%d answer lines, want more: %s", len(got), body)
		}
		a := got[i]
		i++
		if a.Line != n+1 {
			t.Errorf("%s: line %d, want %d", c.name, a.Line, n+1)
		}
		single := ts.do(http.MethodPost, "/v1/validate", jsonType, c.line)
		switch c.want {
		case "valid", "invalid":
			if a.Valid == nil || *a.Valid != (c.want == "valid") || a.Problem != nil {
				t.Errorf("%s: answer %+v, want %s", c.name, a, c.want)
			}
			var want oapi.ValidateAnswer
			_ = json.Unmarshal(single.Body.Bytes(), &want)
			if single.Code != http.StatusOK || want.Plies != a.Plies || want.Valid != *a.Valid {
				t.Errorf("%s: /v1/validate answers %d %s", c.name, single.Code, single.Body)
			}
		default:
			if a.Problem == nil || a.Problem.Code != c.want || a.Valid != nil {
				t.Errorf("%s: answer %+v, want problem %s", c.name, a, c.want)
				continue
			}
			want := checkProblem(t, single.Code, single.Header(), single.Body.Bytes())
			if a.Problem.Status != want.Status || a.Problem.Code != want.Code || a.Problem.Detail != want.Detail || a.Problem.Title != want.Title {
				t.Errorf("%s: line problem %+v, /v1/validate's %+v", c.name, *a.Problem, want)
			}
			if a.Problem.Instance != "" || a.Problem.RequestID != "" {
				t.Errorf("%s: line problem has the request's members: %+v", c.name, *a.Problem)
			}
		}
	}
	if i != len(got) {
		t.Errorf("%d answer lines, want %d: %s", len(got), i, body)
	}
}

func batchBody(trailingNewline bool) string {
	var b strings.Builder
	for i, c := range batchCases {
		b.WriteString(c.line)
		if trailingNewline || i < len(batchCases)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestValidateBatch(t *testing.T) {
	ts := newTester(t, Options{})
	for _, nl := range []bool{true, false} {
		t.Run(fmt.Sprintf("final newline %v", nl), func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/validate/batch", ndjsonType, batchBody(nl))
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != ndjsonType {
				t.Fatalf("status %d, Content-Type %q: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
			}
			checkBatch(t, ts, rec.Body.Bytes())
		})
	}
}

func TestValidateLinesOffline(t *testing.T) {
	ts := newTester(t, Options{})
	var out bytes.Buffer
	counts, err := ValidateLines(strings.NewReader(batchBody(true)), &out, DefaultBodyLimit)
	if err != nil {
		t.Fatal(err)
	}
	checkBatch(t, ts, out.Bytes())
	if counts != (BatchCounts{Valid: 3, Invalid: 2, Problems: 7}) {
		t.Errorf("counts %+v", counts)
	}
}

// Many records come back in order, each with its line.
func TestValidateBatchOrder(t *testing.T) {
	ts := newTester(t, Options{})
	body := apitest.Records(2000, 1)
	rec := ts.do(http.MethodPost, "/v1/validate/batch", ndjsonType, string(body))
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	sc := bufio.NewScanner(rec.Body)
	n := 0
	for sc.Scan() {
		n++
		var l batchLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Line != n || l.Valid == nil || !*l.Valid {
			t.Fatalf("answer %d: %s (%v)", n, sc.Bytes(), err)
		}
	}
	if n != 2000 {
		t.Errorf("%d answers, want 2000", n)
	}
}

func TestValidateBatchLimits(t *testing.T) {
	ts := newTester(t, Options{BatchMaxLines: 3, BatchBodyLimit: 100, BodyLimit: 40})
	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"three lines", "{\"moves\":[0]}\n\n{\"moves\":[1]}\n", 200, ""},
		{"three lines, no final newline", "{\"moves\":[0]}\n\n{\"moves\":[1]}", 200, ""},
		{"four lines", "{\"moves\":[0]}\n\n\n{\"moves\":[1]}", 413, "too_many_lines"},
		{"three lines and a newline", "\n\n\n\n", 413, "too_many_lines"},
		{"over the bytes", strings.Repeat(" ", 101), 413, "body_too_large"},
		{"at the bytes", `{"moves":[0]}` + strings.Repeat(" ", 87), 200, ""},
		{"empty", "", 400, "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/validate/batch", ndjsonType, c.body)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			if c.code != "" {
				if p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes()); p.Code != c.code {
					t.Errorf("code %s, want %s", p.Code, c.code)
				}
			}
		})
	}

	// A line over the body limit of a single request is a problem on its
	// line; the lines after it are answered.
	rec := ts.do(http.MethodPost, "/v1/validate/batch", ndjsonType, "{\"moves\":[0]}\n{\"moves\":[0,6,1,"+strings.Repeat(" ", 40)+"]}\n{\"moves\":[1]}")
	got := answerLines(t, rec.Body.Bytes())
	if len(got) != 3 || got[1].Line != 2 || got[1].Problem == nil || got[1].Problem.Code != "body_too_large" || got[2].Line != 3 || got[2].Valid == nil {
		t.Errorf("answers %+v", got)
	}
	// Exactly the line limit (40 bytes, CR included, newline not) is a line.
	line := `{"moves":[0]}` + strings.Repeat(" ", 26) + "\r"
	rec = ts.do(http.MethodPost, "/v1/validate/batch", ndjsonType, line+"\n"+line)
	if got := answerLines(t, rec.Body.Bytes()); len(got) != 2 || got[0].Valid == nil || got[1].Valid == nil {
		t.Errorf("answers %+v", got)
	}
}

func TestValidateBatchMediaType(t *testing.T) {
	ts := newTester(t, Options{})
	for _, ct := range []string{jsonType, "text/plain", ""} {
		rec := ts.do(http.MethodPost, "/v1/validate/batch", ct, `{"moves":[0]}`)
		if p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes()); rec.Code != http.StatusUnsupportedMediaType || p.Code != "unsupported_media_type" {
			t.Errorf("Content-Type %q: status %d %s", ct, rec.Code, p.Code)
		}
	}
	if rec := ts.do(http.MethodPost, "/v1/validate/batch", "Application/X-NDJSON; charset=utf-8", `{"moves":[0]}`); rec.Code != http.StatusOK {
		t.Errorf("status %d with parameters: %s", rec.Code, rec.Body)
	}
	// The text notation, with parameters and in any case, is read as records.
	rec := ts.do(http.MethodPost, "/v1/validate/batch", "Application/X-Ayoayo-Record; charset=utf-8", "1. a *\n")
	if got := answerLines(t, rec.Body.Bytes()); rec.Code != http.StatusOK || len(got) != 1 || got[0].Valid == nil || !*got[0].Valid {
		t.Errorf("the text notation with parameters: status %d %s", rec.Code, rec.Body)
	}
	// NDJSON sent as the text notation is not read as NDJSON.
	rec = ts.do(http.MethodPost, "/v1/validate/batch", "application/x-ayoayo-record", `{"moves":[0]}`)
	if got := answerLines(t, rec.Body.Bytes()); rec.Code != http.StatusOK || len(got) != 1 || got[0].Problem == nil || got[0].Problem.Code != "invalid_record" {
		t.Errorf("NDJSON as the text notation: status %d %s", rec.Code, rec.Body)
	}
	// The other operations still take JSON only.
	if rec := ts.do(http.MethodPost, "/v1/validate", ndjsonType, `{"moves":[0]}`); rec.Code != http.StatusUnsupportedMediaType {
		t.Errorf("/v1/validate with NDJSON: status %d", rec.Code)
	}
}

// Whatever the lines, ValidateLines answers each non-blank one, in order,
// with a line of the document's shapes, and says for each what a single
// /v1/validate request with that line as its body would.
func FuzzValidateLines(f *testing.F) {
	f.Add(batchBody(true))
	f.Add(string(apitest.Records(3, 1)))
	for _, r := range apitest.Malformed(1 << 10) {
		if r.Path == "/v1/validate" && len(r.Body) < 1<<10 {
			f.Add(r.Body)
		}
	}
	_, e, err := testNewServer(f, Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		var out bytes.Buffer
		if _, err := ValidateLines(strings.NewReader(body), &out, 256); err != nil {
			t.Fatal(err)
		}
		got := answerLines(t, out.Bytes())
		i := 0
		for n, line := range strings.Split(body, "\n") {
			if len(line) <= 256 && strings.TrimLeft(line, " \t\r\n") == "" {
				continue // blank; a long line is answered whatever it holds
			}
			if i >= len(got) {
				t.Fatalf("line %d: no answer", n+1)
			}
			a := got[i]
			i++
			if a.Line != n+1 {
				t.Fatalf("answer for line %d says %d", n+1, a.Line)
			}
			if len(line) > 256 {
				if a.Problem == nil || a.Problem.Code != "body_too_large" {
					t.Fatalf("line %d: long line answered %+v", n+1, a)
				}
				continue
			}
			rec := serve(e, postJSON("/v1/validate", line))
			if rec.Code >= 500 {
				t.Fatalf("line %d: status %d", n+1, rec.Code)
			}
			if (rec.Code == http.StatusOK) != (a.Problem == nil) {
				t.Fatalf("line %d %q: /v1/validate %d %s, batch %+v", n+1, line, rec.Code, rec.Body, a)
			}
			if a.Problem != nil && a.Problem.Status != rec.Code {
				t.Fatalf("line %d %q: /v1/validate %d %s, batch %+v", n+1, line, rec.Code, rec.Body, *a.Problem)
			}
		}
		if i != len(got) {
			t.Fatalf("%d answers for %d lines", len(got), i)
		}
	})
}

// TestValidateTexts: records in the text notation one after another, each
// answered as /v1/validate answers it, with the line it begins on.
func TestValidateTexts(t *testing.T) {
	input := `[Event "first"]

1. ax2 A 2. b *

[Event "second"]

1. a C *

1. a 1... H
[Event "fourth"]
1. ax3
`
	var out bytes.Buffer
	counts, err := ValidateTexts(strings.NewReader(input), &out, DefaultBodyLimit)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		line        int
		valid, prob bool
		code        string
	}{
		{1, true, false, ""},
		{5, false, false, ""},
		{9, false, true, "invalid_record"},
		{10, false, true, "record_mismatch"},
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != len(want) || counts != (BatchCounts{Valid: 1, Invalid: 1, Problems: 2}) {
		t.Fatalf("counts %+v, answers:\n%s", counts, out.String())
	}
	for i, w := range want {
		var a struct {
			Line    int              `json:"line"`
			Valid   bool             `json:"valid"`
			Problem *problem.Problem `json:"problem"`
		}
		if err := json.Unmarshal([]byte(lines[i]), &a); err != nil {
			t.Fatal(err)
		}
		if a.Line != w.line || a.Valid != w.valid || (a.Problem != nil) != w.prob || (a.Problem != nil && a.Problem.Code != w.code) {
			t.Errorf("answer %d: %s, want line %d valid %v code %q", i, lines[i], w.line, w.valid, w.code)
		}
	}
}

// typedLines are lines for the typed path of ValidateLines: typed says
// whether it is meant to vouch for the line (the common records), or to
// leave it to the schema path (all the others); -0 may go either way.
var typedLines = []struct {
	name, line string
	typed      bool
}{
	{"moves", `{"moves":[0,6,1]}`, true},
	{"spaces and CRLF", " { \"moves\" : [ 0 , 6 ] }\r\n", true},
	{"rules", `{"moves":[0,6,1],"rules":{"captureSeed":"left","leftovers":"side_owner"}}`, true},
	{"empty rules", `{"moves":[0],"rules":{}}`, true},
	{"escaped rule", `{"moves":[0],"rules":{"captureSeed":"\u006ceft"}}`, true},
	{"start", `{"start":{"pits":[4,4,4,4,4,4,4,4,4,4,4,4],"captured":{"south":0,"north":0},"toMove":"north"},"moves":[6,0]}`, true},
	{"start that does not add up", `{"start":{"pits":[4,4,4,4,4,4,4,4,4,4,4,3],"captured":{"south":0,"north":0},"toMove":"south"},"moves":[0]}`, true},
	{"illegal move", `{"moves":[0,0]}`, true},
	{"2000 moves", `{"moves":[` + strings.Repeat("0,", 1999) + `0]}`, true},
	{"2001 moves", `{"moves":[` + strings.Repeat("0,", 2000) + `0]}`, false},
	{"no moves", `{"moves":[]}`, false},
	{"null moves", `{"moves":null}`, false},
	{"moves missing", `{"rules":{}}`, false},
	{"pit 12", `{"moves":[12]}`, false},
	{"pit -1", `{"moves":[-1]}`, false},
	{"pit 1.0", `{"moves":[1.0]}`, false},
	{"pit 1e0", `{"moves":[1e0]}`, false},
	{"pit a string", `{"moves":["0"]}`, false},
	{"duplicate member", `{"moves":[0],"moves":[1]}`, false},
	{"duplicate rule", `{"moves":[0],"rules":{"captureSeed":"left","captureSeed":"taken"}}`, false},
	{"unknown member", `{"moves":[0],"x":1}`, false},
	{"member in other case", `{"Moves":[0]}`, false},
	{"unknown rule", `{"moves":[0],"rules":{"x":1}}`, false},
	{"rule not allowed", `{"moves":[0],"rules":{"captureSeed":"kept"}}`, false},
	{"null start", `{"moves":[0],"start":null}`, false},
	{"null rules", `{"moves":[0],"rules":null}`, false},
	{"start of 11 pits", `{"start":{"pits":[4,4,4,4,4,4,4,4,4,4,4],"captured":{"south":0,"north":4},"toMove":"south"},"moves":[0]}`, false},
	{"trailing data", `{"moves":[0]} x`, false},
	{"two values", `{"moves":[0]}{"moves":[1]}`, false},
	{"invalid UTF-8", "{\"moves\":[0],\"rules\":{\"captureSeed\":\"\xff\"}}", false},
	{"not an object", `[0]`, false},
	{"null", `null`, false},
	{"not JSON", `{"moves":[0,`, false},
}

// typedAgrees fails unless the schema path answers line as the typed path
// does, whenever the typed path vouches for it (an answer, or the problem
// of a record the replay refuses); it reports whether it did.
func typedAgrees(t *testing.T, c *lineChecker, line []byte) bool {
	t.Helper()
	if _, ok := c.typed(line); !ok {
		return false
	}
	got, gerr := c.check(line) // the typed path, in the replay the checker reuses
	want, werr := checkLine(c.schema, line)
	if !reflect.DeepEqual(got, want) || (gerr != nil) != (werr != nil) {
		t.Fatalf("%q: the typed path answers %+v (%v), the schema path %+v (%v)", line, got, gerr, want, werr)
	}
	if gerr != nil {
		gp, _ := problemOf(gerr)
		wp, _ := problemOf(werr)
		if gp != wp {
			t.Fatalf("%q: the typed path's problem %+v, the schema path's %+v", line, gp, wp)
		}
	}
	return true
}

// TestTypedPathAgreesWithSchemaPath: a line the typed path vouches for
// is one the schema path reads without an error, with the same answer;
// it vouches for the common records, moves with rules or a start, and
// leaves every line the schema refuses, or reads otherwise, to the schema.
func TestTypedPathAgreesWithSchemaPath(t *testing.T) {
	schema, err := recordSchema()
	if err != nil {
		t.Fatal(err)
	}
	c := newLineChecker(schema)
	for _, tc := range typedLines {
		t.Run(tc.name, func(t *testing.T) {
			if got := typedAgrees(t, c, []byte(tc.line)); got != tc.typed {
				t.Errorf("typed path taken: %v, want %v", got, tc.typed)
			}
		})
	}
	t.Run("records", func(t *testing.T) {
		for line := range bytes.Lines(apitest.Records(300, 6)) {
			if !typedAgrees(t, c, line) {
				t.Fatalf("the typed path does not vouch for %s", line)
			}
		}
	})
}

// Whatever the line, the typed path vouches for it only when the schema
// path reads it without an error and answers it alike.
func FuzzTypedPath(f *testing.F) {
	for _, tc := range typedLines {
		f.Add([]byte(tc.line))
	}
	schema, err := recordSchema()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := newLineChecker(schema)
		typedAgrees(t, c, []byte(`{"moves":[0,6,1]}`)) // a replay to reuse
		typedAgrees(t, c, line)
	})
}

// BenchmarkValidateLines sets the typed path beside the schema path, the
// one every line took before, on 10,000 recorded games (apitest.Records),
// in records/s and in records per second of the process's CPU, one core
// being what the figure is for:
//
//	go test ./api -run '^$' -bench ValidateLines -cpu 1 -count 3
func BenchmarkValidateLines(b *testing.B) {
	const n = 10000
	records := apitest.Records(n, 1)
	for _, path := range []struct {
		name  string
		typed bool
	}{{"schema", false}, {"typed", true}} {
		b.Run(path.name, func(b *testing.B) {
			b.SetBytes(int64(len(records)))
			cpu0 := processCPU(b)
			for b.Loop() {
				counts, err := validateLines(bytes.NewReader(records), io.Discard, DefaultBodyLimit, path.typed)
				if err != nil || counts.Valid != n {
					b.Fatalf("%+v, %v", counts, err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(b.N*n)/(processCPU(b)-cpu0).Seconds(), "records/cpu-s")
		})
	}
}

// processCPU is the CPU time (user and system) this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
