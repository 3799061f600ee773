package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/api/docs"
	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/fault"
)

type pinger struct{ err error }

func (p pinger) Ping(context.Context) error { return p.err }

func TestProbes(t *testing.T) {
	tests := []struct {
		name  string
		db    Pinger
		path  string
		code  int
		probl string
	}{
		{"live", nil, "/livez", http.StatusOK, ""},
		{"live with a dead database", pinger{errors.New("disk gone")}, "/livez", http.StatusOK, ""},
		{"ready without a database", nil, "/readyz", http.StatusOK, ""},
		{"ready", pinger{}, "/readyz", http.StatusOK, ""},
		{"not ready", pinger{errors.New("disk gone")}, "/readyz", http.StatusServiceUnavailable, "not_ready"},
		{"database unavailable", pinger{fmt.Errorf("disk gone: %w", fault.ErrUnavailable)}, "/readyz", http.StatusServiceUnavailable, "store_unavailable"},
		{"database full", pinger{fmt.Errorf("disk gone: %w", fault.ErrStorageFull)}, "/readyz", http.StatusServiceUnavailable, "storage_full"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTester(t, Options{DB: tt.db})
			rec := ts.do(http.MethodGet, tt.path, "", "")
			if rec.Code != tt.code {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if tt.probl != "" {
				p := decodeAs[problem.Problem](t, rec.Body.Bytes())
				if p.Code != tt.probl || strings.Contains(p.Detail, "disk gone") {
					t.Errorf("problem %+v, want code %s and no internal detail", p, tt.probl)
				}
				if rec.Header().Get("Retry-After") == "" {
					t.Error("a 503 without Retry-After")
				}
			} else if !sameJSON(t, rec.Body.Bytes(), []byte(`{"status":"ok"}`)) {
				t.Errorf("body %s", rec.Body)
			}
		})
	}
}

// TestReadyzStopping: /readyz is 503 from the moment shutdown begins,
// though the database answers.
func TestReadyzStopping(t *testing.T) {
	stopping := make(chan struct{})
	ts := newTester(t, Options{DB: pinger{}, Stopping: stopping})
	if rec := ts.do(http.MethodGet, "/readyz", "", ""); rec.Code != http.StatusOK {
		t.Fatalf("before: %d", rec.Code)
	}
	close(stopping)
	rec := ts.do(http.MethodGet, "/readyz", "", "")
	if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); rec.Code != http.StatusServiceUnavailable || p.Code != "not_ready" || rec.Header().Get("Retry-After") == "" {
		t.Fatalf("stopping: %d %+v, Retry-After %q", rec.Code, p, rec.Header().Get("Retry-After"))
	}
}

// TestStarting: while the database is not open yet, the process is alive
// and everything else is 503 not_ready with Retry-After.
func TestStarting(t *testing.T) {
	h := Starting()
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{http.MethodGet, "/livez", http.StatusOK},
		{http.MethodHead, "/livez", http.StatusOK},
		{http.MethodGet, "/readyz", http.StatusServiceUnavailable},
		{http.MethodPost, "/v1/games", http.StatusServiceUnavailable},
		{http.MethodGet, "/", http.StatusServiceUnavailable},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		if rec.Code != tc.status {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.status)
			continue
		}
		if tc.status == http.StatusServiceUnavailable {
			if p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes()); p.Code != "not_ready" || rec.Header().Get("Retry-After") == "" {
				t.Errorf("%s %s: %+v, Retry-After %q", tc.method, tc.path, p, rec.Header().Get("Retry-After"))
			}
		}
	}
}

func TestMetrics(t *testing.T) {
	ts := newTester(t, Options{})
	ts.do(http.MethodPost, "/v1/evaluate", jsonType, `{"position":`+startJSON+`,"pit":0}`)
	ts.do(http.MethodGet, "/no/such/route/42", "", "")
	rec := ts.do(http.MethodGet, "/metrics", "", "")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	body := rec.Body.String()
	for _, want := range []string{
		`ayoayo_http_requests_total{code="200",method="POST",route="/v1/evaluate"} 1`,
		`ayoayo_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`ayoayo_http_request_duration_seconds_bucket{code="200",method="POST",route="/v1/evaluate",le="+Inf"} 1`,
		"ayoayo_analyses_running 0",
		"go_goroutines",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// A client must not be able to create series at will.
	if strings.Contains(body, "/no/such/route/42") {
		t.Error("an unknown path became a metric label")
	}
	for line := range strings.Lines(body) {
		if strings.HasPrefix(line, "ayoayo_") && strings.Contains(line, `=""`) {
			t.Errorf("an empty label: %s", line)
		}
	}
}

// TestMetricsAnswersMatchSpec: GET /metrics is 200 with the metrics when
// the public port serves them, else 404 route_not_found, and either answer
// is one the document declares for the operation, so that a validating
// proxy in front of the server lets both through.
func TestMetricsAnswersMatchSpec(t *testing.T) {
	for _, tc := range []struct {
		name      string
		elsewhere bool
		status    int
		code      string
	}{
		{"public", false, http.StatusOK, ""},
		{"on the admin port only", true, http.StatusNotFound, "route_not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTester(t, Options{MetricsElsewhere: tc.elsewhere})
			req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
			rec := ts.send(req)
			if rec.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.status, truncate(rec.Body.String()))
			}
			if tc.code != "" {
				if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); p.Code != tc.code {
					t.Errorf("code %q, want %q", p.Code, tc.code)
				}
			}
			if err := ts.conform(req, rec); err != nil {
				t.Errorf("the answer %d does not match the document: %v", rec.Code, err)
			}
		})
	}
}

func TestOpenAPIDocument(t *testing.T) {
	ts := newTester(t, Options{})
	rec := ts.do(http.MethodGet, "/openapi.yaml", "", "")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/yaml" {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	if !strings.HasPrefix(rec.Body.String(), "openapi: 3.0.3\ninfo:\n") {
		t.Errorf("document starts %q", truncate(rec.Body.String()))
	}
	served, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
	if err != nil {
		t.Fatalf("served document does not load: %v", err)
	}
	if err := served.Validate(context.Background()); err != nil {
		t.Fatalf("served document is not valid: %v", err)
	}
	embedded, _ := oapi.GetSwagger()
	if got, want := served.Paths.Len(), embedded.Paths.Len(); got != want {
		t.Errorf("served %d paths, embedded %d", got, want)
	}
	if got, want := len(served.Components.Schemas), len(embedded.Components.Schemas); got != want {
		t.Errorf("served %d schemas, embedded %d", got, want)
	}
	ex := served.Paths.Find("/v1/evaluate").Post.RequestBody.Value.Content["application/json"].Examples["opening"].Value.Value
	if ex == nil {
		t.Error("examples lost in the served document")
	}
}

func TestDocsPage(t *testing.T) {
	ts := newTester(t, Options{})
	rec := ts.do(http.MethodGet, "/docs", "", "")
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("status %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	page := rec.Body.String()
	spec, _ := oapi.GetSwagger()
	var want []string
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			want = append(want, `id="op-`+op.OperationID+`"`, method+`</span> <code>`+path+`</code>`)
		}
	}
	for name, s := range spec.Components.Schemas {
		want = append(want, `id="schema-`+name+`"`)
		if len(s.Value.Description) > 20 {
			want = append(want, strings.Fields(s.Value.Description)[0])
		}
	}
	for _, p := range ProblemCodes() {
		want = append(want, `id="problem-`+p.Code+`"`)
	}
	want = append(want, "South opens with pit 0", "captureSeed")
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("the page lacks %q", w)
		}
	}
	// Offline: nothing is loaded from anywhere, not even this server.
	for _, bad := range []string{"<script", "<link", " src=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("the page loads something: %q", bad)
		}
	}
}

// A panic in a handler is a 500 problem that says nothing about it, and the
// log has the details.
func TestPanicIsInternalError(t *testing.T) {
	var logs bytes.Buffer
	ts := newTester(t, Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	ts.e.GET("/boom", func(echo.Context) error { panic("secret internals 0xdeadbeef") })
	rec := ts.do(http.MethodGet, "/boom", "", "")
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", rec.Code)
	}
	if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); p.Code != "internal_error" {
		t.Errorf("code %q", p.Code)
	}
	if strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "goroutine") {
		t.Errorf("the answer leaks internals: %s", rec.Body)
	}
	if !strings.Contains(logs.String(), "secret internals 0xdeadbeef") || !strings.Contains(logs.String(), `"status":500`) {
		t.Errorf("the log lacks the panic or the request line:\n%s", logs.String())
	}
}

func TestRequestID(t *testing.T) {
	ts := newTester(t, Options{})
	req := httptest.NewRequest(http.MethodGet, "/livez", nil)
	req.Header.Set(echo.HeaderXRequestID, "client-chosen-id")
	if got := ts.send(req).Header().Get(echo.HeaderXRequestID); got != "client-chosen-id" {
		t.Errorf("X-Request-ID %q, want the client's", got)
	}
	// Sent twice, as a proxy might: the first is kept, nothing is refused.
	req = httptest.NewRequest(http.MethodGet, "/livez", nil)
	req.Header.Add(echo.HeaderXRequestID, "first-id")
	req.Header.Add(echo.HeaderXRequestID, "second-id")
	if rec := ts.send(req); rec.Code != http.StatusOK || rec.Header().Get(echo.HeaderXRequestID) != "first-id" {
		t.Errorf("X-Request-ID twice: %d, %q; want 200 and the first", rec.Code, rec.Header().Get(echo.HeaderXRequestID))
	}
	a := ts.do(http.MethodGet, "/livez", "", "").Header().Get(echo.HeaderXRequestID)
	b := ts.do(http.MethodGet, "/livez", "", "").Header().Get(echo.HeaderXRequestID)
	if len(a) != 32 || a == b {
		t.Errorf("generated IDs %q and %q, want distinct 32-digit hex", a, b)
	}
	rec := ts.do(http.MethodGet, "/nowhere", "", "")
	if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); p.RequestID != rec.Header().Get(echo.HeaderXRequestID) {
		t.Errorf("problem requestId %q, header %q", p.RequestID, rec.Header().Get(echo.HeaderXRequestID))
	}
}

// TestRequestIDFromClient: over real HTTP, a client's X-Request-ID is
// echoed only when it is at most 64 of [A-Za-z0-9._-]; any other is
// replaced by a new one before the answer or the log line carries it.
func TestRequestIDFromClient(t *testing.T) {
	var logs syncBuffer
	e, err := testNew(t, Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	huge := strings.Repeat("x", 200<<10)
	tests := []struct {
		name, id string
		kept     bool
	}{
		{"words and punctuation", "client-chosen_id.7", true},
		{"a UUID", "3f2504e0-4f89-11d3-9a0c-0305e82c3301", true},
		{"64 characters", strings.Repeat("a", 64), true},
		{"65 characters", strings.Repeat("a", 65), false},
		{"200 KB", huge, false},
		{"a space", "two words", false},
		{"a comma", "a,b", false},
		{"markup", "<script>", false},
		{"not ASCII", "idé", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs.Reset()
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/nowhere", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(echo.HeaderXRequestID, tt.id)
			res, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			got := res.Header.Get(echo.HeaderXRequestID)
			p := checkProblem(t, res.StatusCode, res.Header, body)
			switch {
			case tt.kept && got != tt.id:
				t.Errorf("X-Request-ID %q, want the client's", got)
			case !tt.kept && (got == tt.id || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(got)):
				t.Errorf("X-Request-ID %.80q, want a new one", got)
			case p.RequestID != got:
				t.Errorf("problem requestId %q, header %q", p.RequestID, got)
			case len(body) > 1024 || logs.Len() > 1024:
				t.Errorf("%d bytes of answer, %d of log for one request", len(body), logs.Len())
			case !strings.Contains(logs.String(), `"requestId":"`+got+`"`):
				t.Errorf("the log line lacks the request's ID %q:\n%s", got, logs.String())
			}
		})
	}
}

// syncBuffer is a log the server writes and the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Reset()
}

func TestCORS(t *testing.T) {
	tests := []struct {
		name    string
		origins []string
		origin  string
		allowed string
	}{
		{"any origin by default", nil, "https://play.example", "*"},
		{"a listed origin", []string{"https://play.example"}, "https://play.example", "https://play.example"},
		{"an unlisted origin", []string{"https://play.example"}, "https://evil.example", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTester(t, Options{CORSOrigins: tt.origins})
			req := httptest.NewRequest(http.MethodOptions, "/v1/evaluate", nil)
			req.Header.Set("Origin", tt.origin)
			req.Header.Set("Access-Control-Request-Method", http.MethodPost)
			req.Header.Set("Access-Control-Request-Headers", "content-type")
			rec := ts.send(req)
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != tt.allowed {
				t.Errorf("preflight Allow-Origin %q, want %q", got, tt.allowed)
			}
			if tt.allowed != "" && !strings.Contains(rec.Header().Get("Access-Control-Allow-Methods"), http.MethodPost) {
				t.Errorf("preflight Allow-Methods %q", rec.Header().Get("Access-Control-Allow-Methods"))
			}
			req = postJSON("/v1/evaluate", `{"position":`+startJSON+`,"pit":0}`)
			req.Header.Set("Origin", tt.origin)
			rec = ts.send(req)
			if got := rec.Header().Get("Access-Control-Allow-Origin"); got != tt.allowed {
				t.Errorf("Allow-Origin %q, want %q", got, tt.allowed)
			}
			if tt.allowed != "" && !strings.Contains(rec.Header().Get("Access-Control-Expose-Headers"), echo.HeaderXRequestID) {
				t.Errorf("Expose-Headers %q lacks X-Request-ID", rec.Header().Get("Access-Control-Expose-Headers"))
			}
		})
	}
}

func TestBodyLimitOption(t *testing.T) {
	ts := newTester(t, Options{BodyLimit: 64})
	body := `{"position":` + startJSON + `,"pit":0}`
	rec := ts.do(http.MethodPost, "/v1/evaluate", jsonType, body)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d for %d bytes over a 64-byte limit", rec.Code, len(body))
	}
	// Without a declared length (chunked), the limit still holds.
	req := postJSON("/v1/evaluate", body)
	req.ContentLength = -1
	if rec := ts.send(req); rec.Code != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d for an undeclared length", rec.Code)
	}
}

// The error table: every code a stable snake_case word with one status and
// title, every status an error, and sentinels answered as the table says;
// the generic rows share no code with the table unless they mean the same
// (not_found, method_not_allowed).
func TestProblemTable(t *testing.T) {
	byCode := map[string]problemRow{}
	for _, row := range slices.Concat(firstRows, answeredRows(), lastRows, statusRows) {
		if (row.Err == nil) != slices.Contains(statusRows, row) || !snakeCase.MatchString(row.Code) || row.Title == "" || row.Status < 400 || row.Status > 599 {
			t.Errorf("bad row %+v", row)
		}
		if prev, ok := byCode[row.Code]; ok && (prev.Status != row.Status || prev.Title != row.Title) {
			t.Errorf("code %s has two statuses or titles: %+v and %+v", row.Code, prev, row)
		}
		byCode[row.Code] = row
		if row.Err == nil {
			continue
		}
		if got := rowFor(row.Err); got.Code != row.Code {
			t.Errorf("%v answers as %s, want %s (shadowed by an earlier row?)", row.Err, got.Code, row.Code)
		}
	}
	if got := rowFor(errors.New("something unforeseen")); got.Status != 500 || got.Code != "internal_error" {
		t.Errorf("an unknown error answers %+v", got)
	}
	if got := rowFor(newError(ErrInvalidRequest, "x")); got.Code != "invalid_request" {
		t.Errorf("a wrapped sentinel answers %+v", got)
	}
	if _, ok := byCode[clientErrorRow.Code]; ok || !snakeCase.MatchString(clientErrorRow.Code) || clientErrorRow.Err != nil {
		t.Errorf("bad client_error row %+v", clientErrorRow)
	}
	for _, want := range []docs.Problem{{Code: "invalid_position", Status: "422", Title: "Invalid position"}, {Code: "client_error", Status: "4xx", Title: "Client error"}} {
		if !slices.Contains(ProblemCodes(), want) {
			t.Errorf("ProblemCodes lacks %+v", want)
		}
	}
}
