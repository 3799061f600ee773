package api

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/ayoayo/ayoayo/api/internal/problem"
	"github.com/ayoayo/ayoayo/games"
)

// The validator decodes a body as kin-openapi's own decoder does, except
// that the body must be one JSON value and nothing else.
func TestJSONBodyDecoder(t *testing.T) {
	tests := []struct {
		name, body string
		ok         bool
	}{
		{"numbers as written", `{"a":[0,-0,2.50,1e400,12345678901234567890]}`, true},
		{"every kind of value", `{"s":"\u00e9\n","t":true,"f":false,"n":null,"o":{},"a":[]}`, true},
		{"white space after", "{}\n \t\r", true},
		{"a second value", `{} {}`, false},
		{"junk after", `{"pit":0} junk`, false},
		{"a closing brace too many", `{}}`, false},
		{"truncated", `{"a":[1`, false},
		{"trailing comma", `[1,]`, false},
		{"not JSON", `pit=0`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonBodyDecoder(strings.NewReader(tt.body), nil, nil, nil)
			if !tt.ok {
				var pe *openapi3filter.ParseError
				if !errors.As(err, &pe) {
					t.Fatalf("decoded %#v, %v; want a ParseError", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := openapi3filter.JSONBodyDecoder(strings.NewReader(tt.body), nil, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded %#v, kin-openapi %#v", got, want)
			}
		})
	}
}

func TestDataAfterTheBody(t *testing.T) {
	ts := newTester(t, Options{})
	body := `{"position":` + startJSON + `,"pit":0}`
	tests := []struct {
		name, body string
		status     int
		code       string
	}{
		{"a newline after", body + "\n", http.StatusOK, ""},
		{"junk after", body + " junk", http.StatusBadRequest, "malformed_json"},
		{"the body twice", body + body, http.StatusBadRequest, "malformed_json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := ts.do(http.MethodPost, "/v1/evaluate", jsonType, tt.body)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.code == "" {
				return
			}
			if p := decodeAs[problem.Problem](t, rec.Body.Bytes()); p.Code != tt.code || !strings.Contains(p.Detail, "after top-level value") {
				t.Errorf("code %q detail %q, want %s about what follows the value", p.Code, p.Detail, tt.code)
			}
		})
	}
}

// TestParameterErrorsTrimmed: a parameter the document refuses is answered
// like a body it refuses: the parameter and the reason, never the schema or
// the value (which may be as long as a header line). A parameter sent twice
// is refused in the same words, not as malformed JSON.
func TestParameterErrorsTrimmed(t *testing.T) {
	gs := newGamesServer(t, Options{}, games.Options{}, nil)
	g, _ := gs.twoSeats()
	events := "/v1/games/" + g.Id + "/events"
	long := strings.Repeat("A", 64<<10)
	tests := []struct {
		name, path string
		header     http.Header
		want       string // the detail, exactly
	}{
		{"id too long", "/v1/games/" + strings.Repeat("A", 65), nil, "path parameter id: maximum string length is 64"},
		{"Last-Event-ID negative", events, http.Header{"Last-Event-Id": {"-1"}}, "header parameter Last-Event-ID: number must be at least 0"},
		{"Last-Event-ID not a number", events, http.Header{"Last-Event-Id": {"abc"}}, "header parameter Last-Event-ID: an invalid integer"},
		{"Last-Event-ID long", events, http.Header{"Last-Event-Id": {long}}, "header parameter Last-Event-ID: an invalid integer"},
		{"Last-Event-ID out of range", events, http.Header{"Last-Event-Id": {"99999999999999999999999"}}, "header parameter Last-Event-ID: an invalid integer: out of range"},
		{"Last-Event-ID twice", events, http.Header{"Last-Event-Id": {"0", "1"}}, "header parameter Last-Event-ID: sent 2 times, at most once"},
		{"from not a number", "/v1/games/" + g.Id + "/moves?from=x" + long, nil, "query parameter from: an invalid integer"},
		{"limit twice", "/v1/puzzles?limit=1&limit=2", nil, "query parameter limit: sent 2 times, at most once"},
		{"If-None-Match twice", "/v1/games/" + g.Id, http.Header{"If-None-Match": {`"1"`, `"2"`}}, "header parameter If-None-Match: sent 2 times, at most once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, gs.ts.URL+tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			maps.Copy(req.Header, tt.header)
			resp, err := gs.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			a := answer{status: resp.StatusCode, header: resp.Header, body: body}
			if err := gs.conforms(req, a); err != nil {
				t.Error(err)
			}
			members := gs.expect(a, http.StatusBadRequest, "invalid_request")
			if members["detail"] != tt.want {
				t.Errorf("detail %q, want %q", members["detail"], tt.want)
			}
		})
	}
}

// bindingError hides the generated wrapper's own words, which may quote a
// value, and passes every other error through.
func TestBindingError(t *testing.T) {
	wrapper := echo.NewHTTPError(http.StatusBadRequest, "Invalid format for parameter id: parsing \"AAAA\"")
	err := bindingError(wrapper)
	if !errors.Is(err, ErrInvalidRequest) || strings.Contains(err.Error(), "AAAA") {
		t.Errorf("the wrapper's error became %v", err)
	}
	for _, other := range []error{games.ErrNotFound, echo.ErrNotFound, echo.NewHTTPError(http.StatusBadRequest, "x").SetInternal(ErrMalformedJSON)} {
		if got := bindingError(other); got != other { //nolint:errorlint // the very error, unchanged
			t.Errorf("%v became %v", other, got)
		}
	}
}
