package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/apitest"
	"github.com/ayoayo/ayoayo/api/internal/problem"
)

// tester drives a server in process and checks every answer it gets
// against the OpenAPI document: the declared status, content type and
// schema, and for errors the problem+json shape.
type tester struct {
	t      *testing.T
	s      *Server
	e      *echo.Echo
	router routers.Router
}

func newTester(t *testing.T, opts Options) *tester {
	t.Helper()
	if opts.Analyses == nil {
		opts.Analyses = analysis.New(testCPU(), analysis.Options{})
	}
	s, e, err := testNewServer(t, opts)
	if err != nil {
		t.Fatal(err)
	}
	return &tester{t: t, s: s, e: e, router: specRouter(t)}
}

// testDocument is the embedded document, loaded once for the package's
// tests: a load took 3.6-4.3 s of wall clock under the race detector at a
// load average of 17, and the servers and answer checkers of over a
// hundred tests took one or two each. Nothing changes it: New reads
// Options.Document as it is, and specRouter takes a copy.
var testDocument = sync.OnceValues(LoadDocument)

// sharedDocument is testDocument, failing t if it does not load.
func sharedDocument(t testing.TB) *openapi3.T {
	t.Helper()
	doc, err := testDocument()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// testNew is New with the package's loaded document (Options.Document),
// unless opts has one. TestRateLimitsTable ("unknown name") and the benchmarks call New
// itself, which loads its own.
func testNew(t testing.TB, opts Options) (*echo.Echo, error) {
	t.Helper()
	if opts.Document == nil {
		opts.Document = sharedDocument(t)
	}
	return New(opts)
}

// testNewServer is newServer with the package's loaded document, as
// testNew is New.
func testNewServer(t testing.TB, opts Options) (*Server, *echo.Echo, error) {
	t.Helper()
	if opts.Document == nil {
		opts.Document = sharedDocument(t)
	}
	return newServer(opts)
}

// specRouter finds the operation of a request in the embedded document, so
// tests can check each answer against the operation's declared responses.
func specRouter(t *testing.T) routers.Router {
	t.Helper()
	spec := *sharedDocument(t) // the document without its servers: match paths, not hosts
	spec.Servers = nil
	router, err := gorillamux.NewRouter(&spec)
	if err != nil {
		t.Fatal(err)
	}
	return router
}

const jsonType = "application/json"

// do sends one request and checks the answer against the document.
func (ts *tester) do(method, path, contentType, body string) *httptest.ResponseRecorder {
	ts.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set(echo.HeaderContentType, contentType)
	}
	return ts.send(req)
}

func (ts *tester) send(req *http.Request) *httptest.ResponseRecorder {
	ts.t.Helper()
	rec := httptest.NewRecorder()
	ts.e.ServeHTTP(rec, req)
	if rec.Code >= 400 {
		checkProblem(ts.t, rec.Code, rec.Header(), rec.Body.Bytes())
	}
	if rec.Header().Get(echo.HeaderXRequestID) == "" {
		ts.t.Errorf("%s %s: no X-Request-ID in the answer", req.Method, req.URL.Path)
	}
	if rec.Code == http.StatusMethodNotAllowed || rec.Code == http.StatusNotFound {
		return rec // not an operation of the document, most often: see conform
	}
	if _, _, err := ts.router.FindRoute(req); err != nil {
		return rec // not an operation of the document: nothing declared to check
	}
	if err := ts.conform(req, rec); err != nil {
		ts.t.Errorf("%s %s: the answer (%d %s) does not match the document: %v", req.Method, req.URL.Path, rec.Code, truncate(rec.Body.String()), err)
	}
	return rec
}

// conform checks an answer to an operation of the document against what
// the document declares for it: its status among the responses, its
// headers and its body. send calls it for every answer but a 404 or 405,
// which are mostly paths or methods the document has no operation for; a
// test of an operation that declares its 404 calls it itself.
func (ts *tester) conform(req *http.Request, rec *httptest.ResponseRecorder) error {
	route, params, err := ts.router.FindRoute(req)
	if err != nil {
		return fmt.Errorf("no operation of the document: %w", err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if ct := rec.Header().Get(echo.HeaderContentType); !strings.Contains(ct, "json") {
		in.Options.ExcludeResponseBody = true // HTML, YAML: not a schema's business
	}
	return openapi3filter.ValidateResponse(context.Background(), in)
}

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkProblem asserts an RFC 9457 body with every member this API promises.
func checkProblem(t *testing.T, status int, h http.Header, body []byte) problem.Problem {
	t.Helper()
	if ct := h.Get(echo.HeaderContentType); ct != "application/problem+json" {
		t.Errorf("status %d: Content-Type %q, want application/problem+json", status, ct)
	}
	var p problem.Problem
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatalf("status %d: body is not a problem: %v: %s", status, err, body)
	}
	if p.Status != status || p.Title == "" || p.Detail == "" || !snakeCase.MatchString(p.Code) || p.Type != problem.TypeBase+p.Code {
		t.Errorf("status %d: incomplete problem %+v", status, p)
	}
	return p
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}

// The start position and a few others, as JSON.
const (
	startJSON    = `{"pits":[4,4,4,4,4,4,4,4,4,4,4,4],"captured":{"south":0,"north":0},"toMove":"south"}`
	northJSON    = `{"pits":[2,7,0,6,1,6,6,6,0,0,6,6],"captured":{"south":2,"north":0},"toMove":"north"}`
	finishedJSON = `{"pits":[0,0,0,0,0,0,0,0,0,0,0,0],"captured":{"south":24,"north":24},"toMove":"south"}`
	majorityJSON = `{"pits":[1,1,1,1,1,1,1,1,1,1,1,0],"captured":{"south":26,"north":11},"toMove":"north"}`
)

func loadVectors(t testing.TB) []apitest.Vector {
	t.Helper()
	return apitest.LoadVectors(t, "../engine/testdata/vectors.jsonl")
}

// sameJSON compares two JSON texts as values.
func sameJSON(t *testing.T, got, want []byte) bool {
	t.Helper()
	return apitest.SameJSON(got, want)
}

func TestEvaluateVectors(t *testing.T) {
	ts := newTester(t, Options{})
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/evaluate", jsonType, v.EvaluateBody())
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			if !sameJSON(t, rec.Body.Bytes(), v.Expect) {
				t.Fatalf("answer\n%s\nwant\n%s", rec.Body, v.Expect)
			}
		})
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestMalformedRequests(t *testing.T) {
	ts := newTester(t, Options{})
	for _, r := range apitest.Malformed(DefaultBodyLimit) {
		t.Run(r.Name, func(t *testing.T) {
			rec := ts.do(r.Method, r.Path, r.ContentType, r.Body)
			if rec.Code != r.Status {
				t.Fatalf("status %d, want %d: %s", rec.Code, r.Status, truncate(rec.Body.String()))
			}
			if p := checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes()); p.Code != r.Code {
				t.Errorf("code %q, want %q (detail %q)", p.Code, r.Code, p.Detail)
			}
		})
	}
}

// serve runs one request without the document checks, for fuzzing and
// benchmarks.
func serve(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
