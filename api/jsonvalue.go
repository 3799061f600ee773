package api

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
)

// The request validator decodes every JSON body into generic values before
// checking them against the schema; with encoding/json that decoding was a
// fifth of the API's cost per request. decodeJSONValue below gives the same
// values (those of encoding/json with UseNumber, FuzzDecodeJSONValue holds it
// to that) in one pass, without copying keys, numbers or plain strings. It is
// registered once, at start, as kin-openapi's decoder for application/json,
// the way image and database drivers register themselves.
func init() {
	openapi3filter.RegisterBodyDecoder("application/json", jsonBodyDecoder)
}

func jsonBodyDecoder(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}
	}
	v, err := decodeJSONValue(data)
	if err != nil {
		return nil, &openapi3filter.ParseError{Kind: openapi3filter.KindInvalidFormat, Cause: err}
	}
	return v, nil
}

// maxJSONDepth matches encoding/json's limit on nesting.
const maxJSONDepth = 10000

// decodeJSONValue parses one JSON document into map[string]any, []any,
// json.Number, string, bool and nil values. Only white space may follow it.
func decodeJSONValue(data []byte) (any, error) {
	d := jsonDecoder{s: string(data)}
	d.space()
	if d.i == len(d.s) {
		return nil, io.ErrUnexpectedEOF
	}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.space()
	if d.i < len(d.s) {
		return nil, d.fail("after the top-level value")
	}
	return v, nil
}

type jsonDecoder struct {
	s string
	i int
}

func (d *jsonDecoder) fail(context string) error {
	if d.i >= len(d.s) {
		return fmt.Errorf("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q %s (offset %d)", d.s[d.i], context, d.i)
}

func (d *jsonDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if d.i >= len(d.s) {
		return nil, d.fail("looking for a value")
	}
	switch c := d.s[d.i]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, d.fail("looking for the beginning of a value")
}

func (d *jsonDecoder) literal(word string) error {
	if len(d.s)-d.i >= len(word) && d.s[d.i:d.i+len(word)] == word {
		d.i += len(word)
		return nil
	}
	for k := 0; k < len(word) && d.i < len(d.s) && d.s[d.i] == word[k]; k++ {
		d.i++
	}
	return d.fail("in literal " + word)
}

func (d *jsonDecoder) object(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("exceeded max depth %d", maxJSONDepth)
	}
	d.i++ // {
	m := map[string]any{}
	d.space()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return m, nil
	}
	for {
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.fail("looking for the beginning of an object key")
		}
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.fail("after an object key")
		}
		d.i++
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
		d.space()
		if d.i >= len(d.s) {
			return nil, d.fail("after an object value")
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case '}':
			d.i++
			return m, nil
		default:
			return nil, d.fail("after an object value")
		}
	}
}

func (d *jsonDecoder) array(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("exceeded max depth %d", maxJSONDepth)
	}
	d.i++ // [
	// Room for a row of twelve pits in one allocation.
	a := make([]any, 0, 16)
	d.space()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return a, nil
	}
	for {
		d.space()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.i >= len(d.s) {
			return nil, d.fail("after an array element")
		}
		switch d.s[d.i] {
		case ',':
			d.i++
		case ']':
			d.i++
			return a, nil
		default:
			return nil, d.fail("after an array element")
		}
	}
}

// str reads a string. One without escapes that is valid UTF-8 is a slice of
// the input; anything else is left to encoding/json, so escapes and invalid
// bytes come out exactly as it makes them.
func (d *jsonDecoder) str() (string, error) {
	start := d.i
	d.i++ // opening quote
	plain := true
	for d.i < len(d.s) {
		c := d.s[d.i]
		switch {
		case c == '"':
			d.i++
			if plain {
				if s := d.s[start+1 : d.i-1]; utf8.ValidString(s) {
					return s, nil
				}
			}
			var s string
			if err := json.Unmarshal([]byte(d.s[start:d.i]), &s); err != nil {
				return "", err
			}
			return s, nil
		case c == '\\':
			plain = false
			d.i += 2
		case c < 0x20:
			return "", d.fail("in string literal")
		default:
			d.i++
		}
	}
	d.i = len(d.s)
	return "", d.fail("in string literal")
}

// number reads a number with JSON's grammar, -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?.
func (d *jsonDecoder) number() (any, error) {
	start := d.i
	if d.s[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.s) && d.s[d.i] == '0':
		d.i++
	case d.i < len(d.s) && d.s[d.i] >= '1' && d.s[d.i] <= '9':
		d.digits()
	default:
		return nil, d.fail("in numeric literal")
	}
	if d.i < len(d.s) && d.s[d.i] == '.' {
		d.i++
		if !d.digits() {
			return nil, d.fail("after decimal point in numeric literal")
		}
	}
	if d.i < len(d.s) && (d.s[d.i] == 'e' || d.s[d.i] == 'E') {
		d.i++
		if d.i < len(d.s) && (d.s[d.i] == '+' || d.s[d.i] == '-') {
			d.i++
		}
		if !d.digits() {
			return nil, d.fail("in exponent of numeric literal")
		}
	}
	return json.Number(d.s[start:d.i]), nil
}

// digits skips a run of digits and reports whether there was one.
func (d *jsonDecoder) digits() bool {
	start := d.i
	for d.i < len(d.s) && d.s[d.i] >= '0' && d.s[d.i] <= '9' {
		d.i++
	}
	return d.i > start
}
