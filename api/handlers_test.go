package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/record"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/search"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

func decodeAs[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("answer is not a %T: %v: %s", v, err, body)
	}
	return v
}

func TestMoves(t *testing.T) {
	ts := newTester(t, Options{})
	tests := []struct {
		name     string
		position string
		pits     []int
		legal    []bool
		reason   string // of every illegal entry
	}{
		{"start, south", startJSON, []int{0, 1, 2, 3, 4, 5}, []bool{true, true, true, true, true, true}, ""},
		{"north with two empty pits", northJSON, []int{6, 7, 8, 9, 10, 11}, []bool{true, true, false, false, true, true}, "empty_pit"},
		{"finished: no moves", finishedJSON, []int{0, 1, 2, 3, 4, 5}, []bool{false, false, false, false, false, false}, "game_over"},
		{"finished: majority", majorityJSON, []int{6, 7, 8, 9, 10, 11}, []bool{false, false, false, false, false, false}, "game_over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/moves", jsonType, `{"position":`+tt.position+`}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			ans := decodeAs[oapi.MovesAnswer](t, rec.Body.Bytes())
			if len(ans.Moves) != 6 {
				t.Fatalf("%d moves, want 6", len(ans.Moves))
			}
			for i, m := range ans.Moves {
				if m.Pit != tt.pits[i] || m.Legal != tt.legal[i] {
					t.Errorf("entry %d: pit %d legal %v, want pit %d legal %v", i, m.Pit, m.Legal, tt.pits[i], tt.legal[i])
				}
				if !m.Legal && (m.Reason == nil || string(*m.Reason) != tt.reason) {
					t.Errorf("entry %d: reason %v, want %s", i, m.Reason, tt.reason)
				}
			}
		})
	}
}

// Each entry of /v1/moves is what /v1/evaluate says of that pit.
func TestMovesAgreeWithEvaluate(t *testing.T) {
	ts := newTester(t, Options{})
	rec := ts.do(http.MethodPost, "/v1/moves", jsonType, `{"position":`+northJSON+`,"rules":{"captureSeed":"left"}}`)
	var moves struct{ Moves []map[string]any }
	if err := json.Unmarshal(rec.Body.Bytes(), &moves); err != nil {
		t.Fatal(err)
	}
	for _, m := range moves.Moves {
		pit := int(m["pit"].(float64))
		delete(m, "pit")
		one := ts.do(http.MethodPost, "/v1/evaluate", jsonType, `{"position":`+northJSON+`,"rules":{"captureSeed":"left"},"pit":`+itoa(pit)+`}`)
		want, _ := json.Marshal(m)
		if !sameJSON(t, one.Body.Bytes(), want) {
			t.Errorf("pit %d: /v1/moves says %s, /v1/evaluate %s", pit, want, one.Body)
		}
	}
}

// repetitionRecord is a game from the start position that ends when a
// position occurs for the third time (found by a seeded random search).
var repetitionRecord = []int{4, 9, 4, 10, 1, 6, 2, 7, 2, 6, 4, 9, 5, 6, 2, 7, 5, 9, 1, 8, 3, 10, 3, 7, 2, 6, 5, 6,
	3, 8, 5, 7, 1, 9, 2, 10, 5, 8, 0, 11, 5, 9, 5, 11, 0, 8, 1, 7, 3, 9, 4, 10, 5, 11, 0, 6, 1, 7, 2, 9, 3, 11, 1, 6,
	5, 6, 3, 9, 4, 10, 5, 11, 0, 6, 1, 7, 2, 9, 3, 11, 1, 6, 5, 6}

func TestValidate(t *testing.T) {
	ts := newTester(t, Options{})
	repMoves := repetitionRecord
	repMovesJSON, _ := json.Marshal(repMoves)
	overMoves, _ := json.Marshal(append(append([]int(nil), repMoves...), 0))
	tests := []struct {
		name   string
		body   string
		valid  bool
		plies  int
		pos    string // notation of the position reached
		result string // winner/reason, or "" while the game goes on
		err    *oapi.PlyError
	}{
		{"empty record", `{"moves":[]}`, true, 0, "s-444444-444444-0-0", "", nil},
		{"three moves", `{"moves":[0,6,1]}`, true, 3, "", "", nil},
		{"one move", `{"moves":[0]}`, true, 1, "n-270616-660066-2-0", "", nil},
		{"empty pit at ply 1", `{"moves":[0,8]}`, false, 1, "n-270616-660066-2-0", "", &oapi.PlyError{Ply: 1, Pit: 8, Reason: "empty_pit"}},
		{"not your pit at ply 0", `{"moves":[6]}`, false, 0, "s-444444-444444-0-0", "", &oapi.PlyError{Ply: 0, Pit: 6, Reason: "not_your_pit"}},
		{"finished start", `{"start":` + finishedJSON + `,"moves":[]}`, true, 0, "", "draw/no_moves", nil},
		{"finished start, a move", `{"start":` + finishedJSON + `,"moves":[0]}`, false, 0, "", "draw/no_moves", &oapi.PlyError{Ply: 0, Pit: 0, Reason: "game_over"}},
		{"ends by repetition", `{"rules":{"leftovers":"side_owner"},"moves":` + string(repMovesJSON) + `}`, true, len(repMoves), "", "/repetition", nil},
		{"a move after repetition", `{"moves":` + string(overMoves) + `}`, false, len(repMoves), "", "/repetition",
			&oapi.PlyError{Ply: len(repMoves), Pit: 0, Reason: "game_over"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/validate", jsonType, tt.body)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			ans := decodeAs[oapi.ValidateAnswer](t, rec.Body.Bytes())
			if ans.Valid != tt.valid || ans.Plies != tt.plies {
				t.Fatalf("valid %v plies %d, want %v %d: %s", ans.Valid, ans.Plies, tt.valid, tt.plies, rec.Body)
			}
			if tt.pos != "" {
				p, err := positionFromAPI(ans.Position)
				if err != nil || p.String() != tt.pos {
					t.Errorf("position %s (%v), want %s", p, err, tt.pos)
				}
			}
			res, resErr := ans.Result.Get()
			switch {
			case tt.result == "" && ans.Result.IsSpecified():
				t.Errorf("result %+v, want none", ans.Result)
			case tt.result != "" && resErr != nil:
				t.Errorf("no result (%v), want %s", resErr, tt.result)
			case tt.result != "":
				winner, reason, _ := strings.Cut(tt.result, "/")
				if string(res.Reason) != reason || (winner != "" && string(res.Winner) != winner) {
					t.Errorf("result %+v, want %s", res, tt.result)
				}
			}

			switch {
			case tt.err == nil && ans.Error != nil:
				t.Errorf("error %+v, want none", *ans.Error)
			case tt.err != nil && (ans.Error == nil || *ans.Error != *tt.err):
				t.Errorf("error %+v, want %+v", ans.Error, *tt.err)
			}
		})
	}
}

// An over-long record is the document's to refuse (maxItems), before any
// handler sees it.
func TestValidateRecordTooLong(t *testing.T) {
	ts := newTester(t, Options{})
	moves := strings.Repeat("0,", MaxRecordMoves) + "0"
	rec := ts.do(http.MethodPost, "/v1/validate", "application/json", `{"moves":[`+moves+`]}`)
	var p problem.Problem
	if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != http.StatusBadRequest || p.Code != "invalid_request" {
		t.Fatalf("%d %s, want 400 invalid_request", rec.Code, rec.Body)
	}
}

// fakeSearch stands in for search.Analyze: it records its limits, reports
// that it started, and waits for release or cancellation.
type fakeSearch struct {
	mu       sync.Mutex
	limits   []search.Limits
	started  chan struct{}
	release  chan struct{}
	canceled chan struct{}
}

func newFakeSearch() *fakeSearch {
	return &fakeSearch{started: make(chan struct{}, 16), release: make(chan struct{}), canceled: make(chan struct{}, 16)}
}

func (f *fakeSearch) analyze(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error) {
	f.mu.Lock()
	f.limits = append(f.limits, lim)
	f.mu.Unlock()
	f.started <- struct{}{}
	select {
	case <-f.release:
	case <-ctx.Done():
		f.canceled <- struct{}{}
		return search.Analysis{}, ctx.Err()
	}
	return search.Analysis{BestMove: 2, Score: 3, PV: []int{2, 7}, Moves: []search.MoveScore{{Pit: 2, Score: 3}}, Depth: 4, Nodes: 99, Exact: true, Result: tablebase.Win}, nil
}

func TestAnalyzeLimits(t *testing.T) {
	ts := newTester(t, Options{})
	tests := []struct {
		name  string
		extra string
		want  search.Limits
	}{
		{"defaults", ``, search.Limits{Depth: MaxAnalyzeDepth, Time: DefaultAnalyzeMs * time.Millisecond}},
		{"depth", `,"depth":7`, search.Limits{Depth: 7, Time: DefaultAnalyzeMs * time.Millisecond}},
		{"time", `,"timeMs":250`, search.Limits{Depth: MaxAnalyzeDepth, Time: 250 * time.Millisecond}},
		{"both at the maxima", `,"depth":30,"timeMs":10000`, search.Limits{Depth: 30, Time: 10 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got search.Limits
			ts.s.analyses = analysis.New(testCPU(), analysis.Options{Search: func(ctx context.Context, p engine.Position, r engine.Rules, lim search.Limits) (search.Analysis, error) {
				got = lim
				return search.Analyze(ctx, p, r, lim)
			}})
			rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, `{"position":`+startJSON+tt.extra+`}`)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if got != tt.want {
				t.Errorf("limits %+v, want %+v", got, tt.want)
			}
			ans := decodeAs[oapi.AnalyzeAnswer](t, rec.Body.Bytes())
			if !engine.Start().LegalMoves(engine.Rules{}).Has(ans.BestMove) || len(ans.Moves) != 6 || len(ans.Pv) == 0 {
				t.Errorf("implausible analysis %s", rec.Body)
			}
		})
	}
}

func TestAnalyzeAnswer(t *testing.T) {
	ts := newTester(t, Options{})
	f := newFakeSearch()
	close(f.release)
	ts.s.analyses = analysis.New(testCPU(), analysis.Options{Search: f.analyze})
	rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, `{"position":`+startJSON+`}`)
	want := `{"bestMove":2,"score":3,"pv":[2,7],"moves":[{"pit":2,"score":3}],"depth":4,"nodes":99,"exact":true,"source":"search","result":"win"}`
	if !sameJSON(t, rec.Body.Bytes(), []byte(want)) {
		t.Fatalf("answer %s, want %s", rec.Body, want)
	}
	// A proven result whose score is not exact (a result-only table's
	// values): result present, exact false.
	ts.s.analyses = analysis.New(testCPU(), analysis.Options{Search: func(context.Context, engine.Position, engine.Rules, search.Limits) (search.Analysis, error) {
		return search.Analysis{BestMove: 2, Score: -5, PV: []int{2}, Moves: []search.MoveScore{{Pit: 2, Score: -5}}, Depth: 3, Nodes: 7, Proven: true, Result: tablebase.Loss}, nil
	}})
	rec = ts.do(http.MethodPost, "/v1/analyze", jsonType, `{"position":`+startJSON+`}`)
	want = `{"bestMove":2,"score":-5,"pv":[2],"moves":[{"pit":2,"score":-5}],"depth":3,"nodes":7,"exact":false,"source":"search","result":"loss"}`
	if !sameJSON(t, rec.Body.Bytes(), []byte(want)) {
		t.Fatalf("answer %s, want %s", rec.Body, want)
	}
}

// With every unit of the budget busy, an analysis is refused (here at once)
// with 429 and Retry-After; a unit freed is usable again.
func TestAnalyzeConcurrencyLimit(t *testing.T) {
	ts := newTester(t, Options{})
	f := newFakeSearch()
	ts.s.analyses = analysis.New(budget.New(2), analysis.Options{Search: f.analyze, Concurrency: 2, Wait: -1})
	body := `{"position":` + startJSON + `}`
	var wg sync.WaitGroup
	codes := make(chan int, 2)
	for range 2 {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			ts.e.ServeHTTP(rec, postJSON("/v1/analyze", body))
			codes <- rec.Code
		})
	}
	<-f.started
	<-f.started
	rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, body)
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("third analysis: status %d Retry-After %q, want 429 and 1", rec.Code, rec.Header().Get("Retry-After"))
	}
	if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); p.Code != "too_many_analyses" {
		t.Errorf("code %q, want too_many_analyses", p.Code)
	}
	close(f.release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("a running analysis ended with %d", c)
		}
	}
	if rec := ts.do(http.MethodPost, "/v1/analyze", jsonType, body); rec.Code != http.StatusOK {
		t.Errorf("after the slots freed: status %d", rec.Code)
	}
	metrics := ts.do(http.MethodGet, "/metrics", "", "").Body.String()
	if !strings.Contains(metrics, "ayoayo_analyses_rejected_total 1") {
		t.Errorf("metrics do not count the refused analysis:\n%s", truncate(metrics))
	}
}

// Closing the request (the client going away) cancels the search.
func TestAnalyzeCancelledWithRequest(t *testing.T) {
	ts := newTester(t, Options{})
	f := newFakeSearch()
	ts.s.analyses = analysis.New(testCPU(), analysis.Options{Search: f.analyze})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		rec := httptest.NewRecorder()
		ts.e.ServeHTTP(rec, postJSON("/v1/analyze", `{"position":`+startJSON+`}`).WithContext(ctx))
		done <- rec.Code
	}()
	<-f.started
	cancel()
	select {
	case <-f.canceled:
	case <-time.After(10 * time.Second):
		t.Fatal("the search was not cancelled with the request")
	}
	if code := <-done; code != 499 {
		t.Errorf("status %d, want 499", code)
	}
}

func postJSON(path, body string) *http.Request {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("Content-Type", jsonType)
	return req
}

// The CPU budget's units, units taken and waiting tasks by priority are on
// /metrics.
func TestBudgetMetrics(t *testing.T) {
	cpu := budget.New(1)
	ts := newTester(t, Options{Budget: cpu})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	release, err := cpu.Acquire(ctx, budget.Request{Priority: budget.AIReply})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	go func() { _, _ = cpu.Acquire(ctx, budget.Request{Priority: budget.Generation, Wait: -1}) }()
	for cpu.Stats().Waiting[budget.Generation] == 0 {
		time.Sleep(time.Millisecond)
	}
	metrics := ts.do(http.MethodGet, "/metrics", "", "").Body.String()
	for _, want := range []string{
		"ayoayo_cpu_budget_units 1\n",
		"ayoayo_cpu_budget_used 1\n",
		`ayoayo_cpu_budget_waiting{priority="ai_reply"} 0` + "\n",
		`ayoayo_cpu_budget_waiting{priority="generation"} 1` + "\n",
		`ayoayo_cpu_budget_waiting{priority="review"} 0` + "\n",
		`ayoayo_cpu_budget_waiting{priority="stock"} 0` + "\n",
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q:\n%s", want, truncate(metrics))
		}
	}
}

// The handlers of the callerless operations, which get no caller in their
// context, never ask for one; each lives in a file of such handlers.
func TestCallerlessHandlers(t *testing.T) {
	files := []string{"handlers.go", "batch.go", "ops.go"}
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, asks := range []string{"callerOf(", "callerPlayer(", "s.actor("} {
			if strings.Contains(string(b), asks) {
				t.Errorf("%s calls %s, but its operations get no caller", f, asks)
			}
		}
		src.Write(b)
	}
	for op := range callerless {
		if !strings.Contains(src.String(), ") "+op+"(") {
			t.Errorf("callerless operation %s has no handler in %v", op, files)
		}
	}
}

// TestValidateNotation: /v1/validate reads a record in the text notation as
// the JSON record it stands for (the same answer, byte for byte), and
// answers text that is not a record, or that contradicts its moves, with a
// problem naming the move and what is wrong.
func TestValidateNotation(t *testing.T) {
	ts := newTester(t, Options{})
	finished, err := positionFromAPI(decodeAs[oapi.Position](t, []byte(finishedJSON)))
	if err != nil {
		t.Fatal(err)
	}
	same := []struct {
		name  string
		rules engine.Rules
		start *engine.Position
		moves []int
	}{
		{"empty record", engine.Rules{}, nil, nil},
		{"three moves", engine.Rules{}, nil, []int{0, 6, 1}},
		{"empty pit at ply 1", engine.Rules{}, nil, []int{0, 8}},
		{"not your pit at ply 0", engine.Rules{}, nil, []int{6}},
		{"finished start, a move", engine.Rules{}, &finished, []int{0}},
		{"ends by repetition", engine.Rules{Leftovers: engine.LeftoversSideOwner}, nil, repetitionRecord},
	}
	for _, tt := range same {
		t.Run(tt.name, func(t *testing.T) {
			rec := &record.Record{Tags: []record.Tag{{Name: record.TagRules, Value: record.RulesTag(tt.rules)}}}
			req := oapi.ValidateRequest{Moves: tt.moves}
			rr := rulesToAPI(tt.rules)
			req.Rules = &rr
			if tt.start != nil {
				rec.Set(record.TagStart, tt.start.String())
				sp := positionToAPI(*tt.start)
				req.Start = &sp
			}
			for _, pit := range tt.moves {
				rec.Moves = append(rec.Moves, record.Move{Pit: pit})
			}
			if req.Moves == nil {
				req.Moves = []int{}
			}
			body, _ := json.Marshal(req)
			fromJSON := ts.do(http.MethodPost, "/v1/validate", jsonType, string(body))
			fromText := ts.do(http.MethodPost, "/v1/validate", record.MediaType, rec.String())
			if fromText.Code != http.StatusOK || fromText.Code != fromJSON.Code || fromText.Body.String() != fromJSON.Body.String() {
				t.Fatalf("text %d %s\njson %d %s\n%s", fromText.Code, fromText.Body, fromJSON.Code, fromJSON.Body, rec.String())
			}
		})
	}
	bad := []struct {
		name, text string
		status     int
		code       string
		detail     string
	}{
		{"unknown pit letter", "1. a F 2. g *", 400, "invalid_record", `line 1, move 2.: "g": unknown pit letter 'g'`},
		{"broken tag", "[Event \"x\"\n\n1. a *", 400, "invalid_record", "line 1: a tag ends with ] on its line"},
		{"move number out of turn", "1. a\n3. b", 400, "invalid_record", `line 2, move 1...: move number "3." out of turn`},
		{"wrong capture", "1. ax3", 422, "record_mismatch", "move 1. a captures 2 seeds, the record says 3"},
		{"wrong result", "[Termination \"agreement\"]\n[Result \"0-0\"]\n\n1. a 0-0", 422, "record_mismatch", "the moves leave the captures at 2-0"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/validate", record.MediaType, tt.text)
			var p problem.Problem
			if err := json.Unmarshal(rec.Body.Bytes(), &p); err != nil || rec.Code != tt.status || p.Code != tt.code || !strings.Contains(p.Detail, tt.detail) {
				t.Fatalf("%d %s, want %d %s with %q", rec.Code, rec.Body, tt.status, tt.code, tt.detail)
			}
		})
	}
	if rec := ts.do(http.MethodPost, "/v1/validate", "text/plain", "1. a"); rec.Code != http.StatusUnsupportedMediaType {
		t.Fatalf("text/plain: %d %s", rec.Code, rec.Body)
	}
}
