package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api/apitest"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/engine"
)

// The records of one text batch, each with the answer it must get: the
// problem code for a record that is not one, "valid" or "invalid" for one
// that is. Each text ends with a newline; the batch puts a blank line
// between them.
var textBatchCases = []struct {
	name, text, want string
}{
	{"valid game", "[Event \"first\"]\n\n1. ax2 A 2. b *\n", "valid"},
	{"bare movetext", "1. c *\n", "valid"},
	{"illegal move", "1. a C *\n", "invalid"},
	{"rules tag", "[Rules \"captureSeed=left leftovers=side_owner\"]\n\n1. a *\n", "valid"},
	{"unknown pit letter", "[Event \"third\"]\n\n1. ax2 A 2. b C\n3. g *\n", "invalid_record"},
	{"broken tag", "[Event \"no end]\n\n1. a *\n", "invalid_record"},
	{"move number out of turn", "1. a 1... H\n", "invalid_record"},
	{"stated capture the move does not make", "1. ax3 *\n", "record_mismatch"},
	{"result the moves do not leave", "[Result \"2-0\"]\n\n1. ax2 A\n", "record_mismatch"},
	{"comment over lines", "1. ax2 {a comment\n\n[%emt 0:00:02] over lines} A *\n", "valid"},
	{"CRLF line ends", "[Event \"crlf\"]\r\n\r\n1. ax2 A *\r\n", "valid"},
	{"start tag not a position", "[Start \"x\"]\n\n1. a *\n", "invalid_record"},
}

func textBatchBody() (body string, firsts []int) {
	var b strings.Builder
	line := 1
	for i, c := range textBatchCases {
		if i > 0 {
			b.WriteString("\n")
			line++
		}
		firsts = append(firsts, line)
		b.WriteString(c.text)
		line += strings.Count(c.text, "\n")
	}
	return b.String(), firsts
}

var detailLine = regexp.MustCompile(`^line (\d+)`)

// atLine is a single request's problem detail as a batch gives it for a
// record that begins on line first: a syntax error's line counts from the
// body's first line, not the record's.
func atLine(detail string, first int) string {
	return detailLine.ReplaceAllStringFunc(detail, func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		return fmt.Sprintf("line %d", n+first-1)
	})
}

// TestValidateBatchTexts: records in the text notation sent to
// /v1/validate/batch get, each on the line it begins on, the answer a single
// /v1/validate request with the record as its body gets, with a syntax
// error's line counted in the whole body.
func TestValidateBatchTexts(t *testing.T) {
	ts := newTester(t, Options{})
	body, firsts := textBatchBody()
	rec := ts.do(http.MethodPost, "/v1/validate/batch", record.MediaType, body)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != ndjsonType {
		t.Fatalf("status %d, Content-Type %q: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	got := answerLines(t, rec.Body.Bytes())
	if len(got) != len(textBatchCases) {
		t.Fatalf("%d answers for %d records:\n%s", len(got), len(textBatchCases), rec.Body)
	}
	for i, c := range textBatchCases {
		t.Run(c.name, func(t *testing.T) {
			a := got[i]
			if a.Line != firsts[i] {
				t.Errorf("line %d, want %d", a.Line, firsts[i])
			}
			single := ts.do(http.MethodPost, "/v1/validate", record.MediaType, c.text)
			switch c.want {
			case "valid", "invalid":
				if a.Valid == nil || *a.Valid != (c.want == "valid") || a.Problem != nil {
					t.Fatalf("answer %+v, want %s", a, c.want)
				}
				if single.Code != http.StatusOK {
					t.Fatalf("/v1/validate answers %d %s", single.Code, single.Body)
				}
				var want batchLine
				_ = json.Unmarshal(single.Body.Bytes(), &want)
				if want.Plies != a.Plies || *want.Valid != *a.Valid || (want.Error == nil) != (a.Error == nil) || (a.Error != nil && *a.Error != *want.Error) {
					t.Errorf("answer %+v, /v1/validate's %s", a, single.Body)
				}
			default:
				if a.Problem == nil || a.Problem.Code != c.want || a.Valid != nil {
					t.Fatalf("answer %+v, want problem %s", a, c.want)
				}
				want := checkProblem(t, single.Code, single.Header(), single.Body.Bytes())
				if a.Problem.Status != want.Status || a.Problem.Code != want.Code || a.Problem.Title != want.Title {
					t.Errorf("problem %+v, /v1/validate's %+v", *a.Problem, want)
				}
				if wd := atLine(want.Detail, firsts[i]); a.Problem.Detail != wd {
					t.Errorf("detail %q, want %q", a.Problem.Detail, wd)
				}
				if a.Problem.Instance != "" || a.Problem.RequestID != "" {
					t.Errorf("problem has the request's members: %+v", *a.Problem)
				}
			}
		})
	}
	// The unknown pit letter is named with its line in the body and its
	// move number, as the issue asks.
	if d := got[4].Problem.Detail; !strings.HasPrefix(d, fmt.Sprintf("line %d, move 3.:", firsts[4]+3)) || !strings.Contains(d, "unknown pit letter 'g'") {
		t.Errorf("unknown pit letter: detail %q", d)
	}
}

// exportedRecords writes n random games as GET /v1/players/{id}/games/export
// writes records: in the export form, a blank line between them, every move
// with its clock and some with a comment, so that the writer wraps comments
// and some lines begin with a [%emt] command.
func exportedRecords(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	var out engine.Outcome
	for i, line := range bytes.Split(bytes.TrimSpace(apitest.Records(n, 7)), []byte("\n")) {
		var req struct{ Moves []int }
		if err := json.Unmarshal(line, &req); err != nil {
			t.Fatal(err)
		}
		g, err := engine.NewGame(engine.Start(), engine.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		rec := &record.Record{Tags: []record.Tag{{Name: record.TagEvent, Value: "Casual game"}, {Name: record.TagTimeControl, Value: "300+5"}, {Name: record.TagRules, Value: record.RulesTag(engine.Rules{})}}}
		for j, pit := range req.Moves {
			if err := g.Play(pit, &out); err != nil {
				t.Fatal(err)
			}
			m := record.Move{Pit: pit, Captured: int(out.Capture.Seeds), Clock: time.Duration(300-j) * time.Second, HasClock: true, Elapsed: time.Duration(1000+j*37) * time.Millisecond, HasElapsed: true}
			if j%7 == 3 {
				m.Comment = "mistake; best a/c; loss 4; score +3 to -1"
			}
			rec.Moves = append(rec.Moves, m)
		}
		if r := g.Result(); r.Over() {
			rec.Set(record.TagTermination, record.TermNormal)
			rec.Set(record.TagWinner, r.Winner.String())
			rec.Set(record.TagResult, record.ResultTag(g.Position()))
		} else {
			rec.Set(record.TagResult, record.Unfinished)
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(rec.String())
	}
	return b.String()
}

// An export read back as a batch: one valid answer a record, on the line
// each begins, whatever lines its comments wrap onto.
func TestValidateBatchExported(t *testing.T) {
	ts := newTester(t, Options{})
	body := exportedRecords(t, 40)
	if !regexp.MustCompile(`(?m)^\[%emt`).MatchString(body) {
		t.Fatal("no line of the export begins with a command: the test checks nothing")
	}
	var firsts []int
	for i, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "[Event ") {
			firsts = append(firsts, i+1)
		}
	}
	rec := ts.do(http.MethodPost, "/v1/validate/batch", record.MediaType, body)
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	got := answerLines(t, rec.Body.Bytes())
	if len(got) != 40 {
		t.Fatalf("%d answers for 40 records", len(got))
	}
	for i, a := range got {
		if a.Line != firsts[i] || a.Valid == nil || !*a.Valid {
			t.Errorf("record %d at line %d: answer %+v", i+1, firsts[i], a)
		}
	}
}

func TestValidateBatchTextLimits(t *testing.T) {
	ts := newTester(t, Options{BatchMaxLines: 8, BatchBodyLimit: 400, BodyLimit: 40})
	for _, c := range []struct {
		name, body string
		status     int
		code       string
		answers    []string // per record: "valid", "invalid" or a problem code
	}{
		{"two records", "1. ax2 A *\n\n1. c *\n", 200, "", []string{"valid", "valid"}},
		{"eight lines", "1. a *\n\n\n\n\n\n\n1. c *", 200, "", []string{"valid", "valid"}},
		{"nine lines", "1. a *\n\n\n\n\n\n\n\n1. c *", 413, "too_many_lines", nil},
		{"over the bytes", "1. a *\n" + strings.Repeat(" ", 400), 413, "body_too_large", nil},
		{"a record over the line limit", "1. a *\n\n[Event \"" + strings.Repeat("x", 30) + "\"]\n\n1. a *\n\n1. c *\n", 200, "", []string{"valid", "body_too_large", "valid"}},
		{"a line over the line limit", "1. a *\n\n1. a {" + strings.Repeat("x", 60) + "} *\n\n1. c *\n", 200, "", []string{"valid", "body_too_large", "valid"}},
		{"empty", "", 400, "invalid_request", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/validate/batch", record.MediaType, c.body)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, c.status, rec.Body)
			}
			if c.code != "" {
				if p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes()); p.Code != c.code {
					t.Errorf("code %s, want %s", p.Code, c.code)
				}
				return
			}
			got := answerLines(t, rec.Body.Bytes())
			if len(got) != len(c.answers) {
				t.Fatalf("answers %+v, want %v", got, c.answers)
			}
			for i, w := range c.answers {
				a := got[i]
				switch {
				case w == "valid" || w == "invalid":
					if a.Valid == nil || *a.Valid != (w == "valid") {
						t.Errorf("answer %d: %+v, want %s", i, a, w)
					}
				case a.Problem == nil || a.Problem.Code != w:
					t.Errorf("answer %d: %+v, want %s", i, a, w)
				}
			}
		})
	}
}

// Whatever the text, ValidateTexts answers in order of the lines, each
// answer at a line that is not blank, with a line of the document's shapes,
// never a server fault; and the records of an export each get one answer.
func FuzzValidateTexts(f *testing.F) {
	body, _ := textBatchBody()
	f.Add(body)
	f.Add("1. ax2 {[%clk 0:05:00]\n[%emt 0:00:01]} A *\n\n[Event \"x\"]\n1. a *")
	f.Add("{\n\n[Event \"not a tag\"]}\n")
	f.Add("[Event \"a\"]\n[Event \"b\"]\n\n\n")
	f.Fuzz(func(t *testing.T, body string) {
		var out bytes.Buffer
		if _, err := ValidateTexts(strings.NewReader(body), &out, 256); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(body, "\n")
		last := 0
		for _, a := range answerLines(t, out.Bytes()) {
			if a.Line <= last || a.Line > len(lines) {
				t.Fatalf("answer at line %d after %d, of %d lines", a.Line, last, len(lines))
			}
			last = a.Line
			if strings.TrimSpace(lines[a.Line-1]) == "" {
				t.Fatalf("answer at blank line %d", a.Line)
			}
			if a.Problem != nil && a.Problem.Status >= 500 {
				t.Fatalf("line %d: %+v", a.Line, *a.Problem)
			}
		}
	})
}

// The document's example of a text batch gets the document's example
// answer, byte for byte.
func TestValidateBatchTextExample(t *testing.T) {
	spec, err := answerSpec()
	if err != nil {
		t.Fatal(err)
	}
	op := spec.Paths.Find("/v1/validate/batch").Post
	body, _ := op.RequestBody.Value.Content[record.MediaType].Examples["records"].Value.Value.(string)
	want, _ := op.Responses.Status(http.StatusOK).Value.Content[ndjsonType].Examples["records"].Value.Value.(string)
	if body == "" || want == "" {
		t.Fatal("the document has no records example for /v1/validate/batch")
	}
	ts := newTester(t, Options{})
	rec := ts.do(http.MethodPost, "/v1/validate/batch", record.MediaType, body)
	if rec.Code != http.StatusOK || rec.Body.String() != want {
		t.Errorf("status %d, answer\n%s\nthe document's\n%s", rec.Code, rec.Body, want)
	}
}
