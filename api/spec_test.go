package api

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api/apitest"
	"github.com/ayoayo/ayoayo/api/oapi"
	"github.com/ayoayo/ayoayo/api/web"
)

func loadSpecFile(t *testing.T) *openapi3.T {
	t.Helper()
	spec, err := openapi3.NewLoader().LoadFromFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// The document is valid OpenAPI 3.0.3, examples included, and the copy
// embedded in the generated code is the file as it is now.
func TestSpecValidAndEmbedded(t *testing.T) {
	file := loadSpecFile(t)
	if err := file.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.yaml is not valid: %v", err)
	}
	if file.OpenAPI != "3.0.3" {
		t.Errorf("openapi %q, want 3.0.3", file.OpenAPI)
	}
	embedded, err := oapi.GetSwagger()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := file.MarshalJSON()
	b, _ := embedded.MarshalJSON()
	if !sameJSON(t, a, b) {
		t.Error("the embedded document differs from openapi.yaml: run go generate ./...")
	}
}

// X-Request-ID, which the middleware reads and writes for every request, is
// declared on every operation (an optional request header) and every answer,
// so generated clients can send and read it.
func TestSpecRequestID(t *testing.T) {
	spec := loadSpecFile(t)
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if p := op.Parameters.GetByInAndName(openapi3.ParameterInHeader, "X-Request-ID"); p == nil || p.Required {
				t.Errorf("%s: no optional X-Request-ID request header", where)
			}
			for status, r := range op.Responses.Map() {
				if r.Value.Headers["X-Request-ID"] == nil {
					t.Errorf("%s: answer %s declares no X-Request-ID header", where, status)
				}
			}
		}
	}
}

// Every operation, response, schema and property is described for a
// reader new to the game, with an example.
func TestSpecDocumented(t *testing.T) {
	spec := loadSpecFile(t)
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" || op.Summary == "" || len(op.Description) < 40 || len(op.Tags) == 0 {
				t.Errorf("%s: needs an operationId, a summary, a description and a tag", where)
			}
			if op.OperationID != "" && strings.ToUpper(op.OperationID[:1]) != op.OperationID[:1] {
				t.Errorf("%s: operationId %q is not PascalCase", where, op.OperationID)
			}
			if rb := op.RequestBody; rb != nil {
				for mt, m := range rb.Value.Content {
					if m.Example == nil && len(m.Examples) == 0 {
						t.Errorf("%s: request %s has no example", where, mt)
					}
				}
			}
			for code, r := range op.Responses.Map() {
				if r.Value.Description == nil || *r.Value.Description == "" {
					t.Errorf("%s %s: no description", where, code)
				}
				for mt, m := range r.Value.Content {
					hasSchemaExample := m.Schema != nil && m.Schema.Value != nil && m.Schema.Value.Example != nil
					if m.Example == nil && len(m.Examples) == 0 && !hasSchemaExample {
						t.Errorf("%s %s %s: no example", where, code, mt)
					}
				}
			}
		}
	}
	for name, ref := range spec.Components.Schemas {
		s := ref.Value
		if len(s.Description) < 20 || s.Example == nil {
			t.Errorf("schema %s: needs a description and an example", name)
		}
		for prop, p := range s.Properties {
			if p.Ref == "" && (p.Value.Description == "" || (p.Value.Example == nil && len(p.Value.AllOf) == 0)) {
				t.Errorf("schema %s, property %s: needs a description and an example", name, prop)
			}
		}
	}
	for _, tag := range spec.Tags {
		if tag.Description == "" {
			t.Errorf("tag %s: no description", tag.Name)
		}
	}
}

// The limits the document states are the ones the code enforces.
func TestSpecLimits(t *testing.T) {
	spec := loadSpecFile(t)
	schemas := spec.Components.Schemas
	if got := schemas["ValidateRequest"].Value.Properties["moves"].Value.MaxItems; got == nil || *got != MaxRecordMoves {
		t.Errorf("ValidateRequest.moves maxItems %v, want %d", got, MaxRecordMoves)
	}
	analyze := schemas["AnalyzeRequest"].Value.Properties
	if got := analyze["depth"].Value.Max; got == nil || *got != MaxAnalyzeDepth {
		t.Errorf("AnalyzeRequest.depth maximum %v, want %d", got, MaxAnalyzeDepth)
	}
	if got := analyze["timeMs"].Value.Max; got == nil || *got != MaxAnalyzeTimeMs {
		t.Errorf("AnalyzeRequest.timeMs maximum %v, want %d", got, MaxAnalyzeTimeMs)
	}
	text, err := os.ReadFile("../openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"64 KiB", "1-30, default 30", "1-10000, default 1000", "at most 2000",
		fmt.Sprintf("at most %d MiB", DefaultBatchBodyLimit>>20), fmt.Sprintf("at most %d lines", DefaultBatchMaxLines)} {
		if !strings.Contains(string(text), want) {
			t.Errorf("openapi.yaml no longer says %q; keep the prose in step with the limits", want)
		}
	}
}

// Echo serves exactly the operations of the document, each GET for HEAD
// too, besides the browser client and the OAuth endpoints.
func TestRoutesMatchSpec(t *testing.T) {
	_, e, err := testNewServer(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	var want, got []string
	for path, item := range loadSpecFile(t).Paths.Map() {
		for method := range item.Operations() {
			want = append(want, method+" "+param.ReplaceAllString(path, ":$1"))
			if method == http.MethodGet {
				want = append(want, http.MethodHead+" "+param.ReplaceAllString(path, ":$1"))
			}
		}
	}
	for _, r := range e.Routes() {
		// The browser client's page and files (api/web) are not operations.
		client := (r.Method == http.MethodGet || r.Method == http.MethodHead) && slices.Contains(web.Routes, r.Path)
		// Nor are OAuth's endpoints, whose wire format is the RFCs'.
		oauth := slices.Contains(oauthRoutes, r.Method+" "+r.Path)
		if r.Method != "echo_route_not_found" && !client && !oauth {
			got = append(got, r.Method+" "+r.Path)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("routes %v\nwant %v", got, want)
	}
}

// Whatever the body, the answer is never a 5xx and an error is a problem.
func FuzzEvaluate(f *testing.F) {
	f.Add(`{"position":` + startJSON + `,"pit":0}`)
	f.Add(`{"position":` + majorityJSON + `,"pit":7,"rules":{"captureSeed":"left","leftovers":"side_owner"}}`)
	for _, r := range apitest.Malformed(1 << 10) {
		if r.Path == "/v1/evaluate" && len(r.Body) < 1<<10 {
			f.Add(r.Body)
		}
	}
	// The fuzzed bodies reach /v1/analyze too: a real analysis service.
	_, e, err := testNewServer(f, Options{Analyses: analysis.New(testCPU(), analysis.Options{})})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"/v1/evaluate", "/v1/moves", "/v1/validate", "/v1/analyze"} {
			rec := serve(e, postJSON(path, body))
			if rec.Code >= 500 {
				t.Fatalf("%s: status %d for %q: %s", path, rec.Code, body, rec.Body)
			}
			if rec.Code >= 400 {
				checkProblem(t, rec.Code, rec.Header(), rec.Body.Bytes())
			} else if rec.Code != http.StatusOK {
				t.Fatalf("%s: status %d", path, rec.Code)
			}
		}
	})
}
