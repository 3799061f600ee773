package api

import (
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
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
			if p := decodeAs[problem](t, rec.Body.Bytes()); p.Code != tt.code || !strings.Contains(p.Detail, "after top-level value") {
				t.Errorf("code %q detail %q, want %s about what follows the value", p.Code, p.Detail, tt.code)
			}
		})
	}
}
