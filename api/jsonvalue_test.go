package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api/apitest"
)

// decodeReference is what encoding/json makes of data, as kin-openapi's own
// decoder would; valid reports whether data is one JSON document.
func decodeReference(data []byte) (v any, valid bool) {
	if !json.Valid(data) {
		return nil, false
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	want, valid := decodeReference(data)
	got, err := decodeJSONValue(data)
	switch {
	case valid && err != nil:
		t.Fatalf("%q: error %v, encoding/json decodes it", data, err)
	case !valid && err == nil:
		t.Fatalf("%q: decoded %#v, encoding/json refuses it", data, got)
	case valid && !reflect.DeepEqual(got, want):
		t.Fatalf("%q: decoded %#v, encoding/json %#v", data, got, want)
	}
}

func TestDecodeJSONValue(t *testing.T) {
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `0`, `-0`, `-`, `01`, `1.`, `1.5e`, `1e+5`, `-12.5E-3`, `true`, `tru`, `nul`, `null `,
		`"a"`, `"a\"b"`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", "\"a\tb\"", `"unterminated`, `"\`,
		`{"a":1,"a":2}`, `{"a" 1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a":[1,{"b":null}]}`, `{} {}`, `{}x`,
		`{"position":{"pits":[4,4,4,4,4,4,4,4,4,4,4,4]}}`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		checkDecode(t, []byte(s))
	}
}

func FuzzDecodeJSONValue(f *testing.F) {
	f.Add(`{"position":` + startJSON + `,"pit":0,"rules":{"captureSeed":"left"}}`)
	f.Add(`[1.5e3, -0, "\u00e9", true, false, null, {"": []}]`)
	for _, r := range apitest.Malformed(1 << 10) {
		if len(r.Body) < 1<<10 {
			f.Add(r.Body)
		}
	}
	f.Fuzz(func(t *testing.T, s string) { checkDecode(t, []byte(s)) })
}
