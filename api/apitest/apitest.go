// Package apitest holds request tables shared by the api package's tests and
// the end-to-end test of the binary, so both send the same malformed
// requests and expect the same answers.
package apitest

import (
	"fmt"
	"net/http"
	"strings"
)

// Request is one request and the problem it must get.
type Request struct {
	Name        string
	Method      string
	Path        string
	ContentType string
	Body        string
	Status      int    // expected status
	Code        string // expected problem code
}

const (
	jsonType   = "application/json"
	ndjsonType = "application/x-ndjson"
	startPos   = `{"pits":[4,4,4,4,4,4,4,4,4,4,4,4],"captured":{"south":0,"north":0},"toMove":"south"}`
)

// evaluate is a POST /v1/evaluate body with the position's parts replaced.
func evaluate(pits, captured, toMove, pit string) string {
	return fmt.Sprintf(`{"position":{"pits":%s,"captured":%s,"toMove":%s},"pit":%s}`, pits, captured, toMove, pit)
}

const (
	pits12   = `[4,4,4,4,4,4,4,4,4,4,4,4]`
	captured = `{"south":0,"north":0}`
	south    = `"south"`
)

// Malformed lists requests that break the contract, each with the 4xx
// problem it must get. bodyLimit is the server's request body limit in bytes.
func Malformed(bodyLimit int) []Request {
	post := func(name, path, body string, status int, code string) Request {
		return Request{Name: name, Method: http.MethodPost, Path: path, ContentType: jsonType, Body: body, Status: status, Code: code}
	}
	const bad, unprocessable = http.StatusBadRequest, http.StatusUnprocessableEntity
	nested := func(depth int, field string) string {
		return `{"position":{"pits":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `,"captured":` + captured + `,"toMove":"south"},"pit":` + field + `}`
	}
	padded := evaluate(pits12, captured, south, "0")
	padded = padded[:len(padded)-1] + strings.Repeat(" ", bodyLimit) + "}"
	longRecord := "[" + strings.Repeat("0,", 2000) + "0]"
	return []Request{
		post("not JSON", "/v1/evaluate", `this is not JSON`, bad, "malformed_json"),
		post("truncated JSON", "/v1/evaluate", `{"position":{"pits":[4,4`, bad, "malformed_json"),
		post("trailing comma", "/v1/evaluate", `{"pit":0,}`, bad, "malformed_json"),
		post("empty body", "/v1/evaluate", ``, bad, "invalid_request"),
		post("null body", "/v1/evaluate", `null`, bad, "invalid_request"),
		post("array body", "/v1/evaluate", `[1,2,3]`, bad, "invalid_request"),
		post("pits is a string", "/v1/evaluate", evaluate(`"444444444444"`, captured, south, "0"), bad, "invalid_request"),
		post("a pit count is a string", "/v1/evaluate", evaluate(`[4,4,4,4,4,4,4,4,4,4,4,"4"]`, captured, south, "0"), bad, "invalid_request"),
		post("pit is a string", "/v1/evaluate", evaluate(pits12, captured, south, `"0"`), bad, "invalid_request"),
		post("pit is a fraction", "/v1/evaluate", evaluate(pits12, captured, south, `1.5`), bad, "invalid_request"),
		post("pit is null", "/v1/evaluate", evaluate(pits12, captured, south, `null`), bad, "invalid_request"),
		post("captured is a number", "/v1/evaluate", evaluate(pits12, `0`, south, "0"), bad, "invalid_request"),
		post("11 pits", "/v1/evaluate", evaluate(`[4,4,4,4,4,4,4,4,4,4,4]`, `{"south":4,"north":0}`, south, "0"), bad, "invalid_request"),
		post("13 pits", "/v1/evaluate", evaluate(`[4,4,4,4,4,4,4,4,4,4,4,4,0]`, captured, south, "0"), bad, "invalid_request"),
		post("negative pit count", "/v1/evaluate", evaluate(`[-4,4,4,4,4,4,4,4,4,4,12,4]`, captured, south, "0"), bad, "invalid_request"),
		post("huge pit count", "/v1/evaluate", evaluate(`[4,4,4,4,4,4,4,4,4,4,4,1000000000000]`, captured, south, "0"), bad, "invalid_request"),
		post("pit count beyond float range", "/v1/evaluate", evaluate(`[4,4,4,4,4,4,4,4,4,4,4,1e400]`, captured, south, "0"), bad, "invalid_request"),
		post("negative captured", "/v1/evaluate", evaluate(pits12, `{"south":-1,"north":1}`, south, "0"), bad, "invalid_request"),
		post("huge captured", "/v1/evaluate", evaluate(pits12, `{"south":4294967296,"north":0}`, south, "0"), bad, "invalid_request"),
		post("total 47", "/v1/evaluate", evaluate(`[4,4,4,4,4,4,4,4,4,4,4,3]`, captured, south, "0"), unprocessable, "invalid_position"),
		post("total 49", "/v1/evaluate", evaluate(pits12, `{"south":1,"north":0}`, south, "0"), unprocessable, "invalid_position"),
		post("total 0", "/v1/evaluate", evaluate(`[0,0,0,0,0,0,0,0,0,0,0,0]`, captured, south, "0"), unprocessable, "invalid_position"),
		post("unknown side", "/v1/evaluate", evaluate(pits12, captured, `"west"`, "0"), bad, "invalid_request"),
		post("side is a number", "/v1/evaluate", evaluate(pits12, captured, `0`, "0"), bad, "invalid_request"),
		post("missing side", "/v1/evaluate", `{"position":{"pits":`+pits12+`,"captured":`+captured+`},"pit":0}`, bad, "invalid_request"),
		post("missing pit", "/v1/evaluate", `{"position":`+startPos+`}`, bad, "invalid_request"),
		post("pit -1", "/v1/evaluate", evaluate(pits12, captured, south, "-1"), bad, "invalid_request"),
		post("pit 12", "/v1/evaluate", evaluate(pits12, captured, south, "12"), bad, "invalid_request"),
		post("unknown field", "/v1/evaluate", `{"position":`+startPos+`,"pit":0,"pitt":1}`, bad, "invalid_request"),
		post("unknown rule option", "/v1/evaluate", `{"position":`+startPos+`,"pit":0,"rules":{"captureSeed":"eaten"}}`, bad, "invalid_request"),
		post("deeply nested JSON", "/v1/evaluate", nested(20000, "0"), bad, "malformed_json"),
		post("nested arrays as pits", "/v1/evaluate", nested(5000, "0"), bad, "invalid_request"),
		post("body over the limit", "/v1/evaluate", padded, http.StatusRequestEntityTooLarge, "body_too_large"),
		{Name: "not declared as JSON", Method: http.MethodPost, Path: "/v1/evaluate", ContentType: "text/plain", Body: evaluate(pits12, captured, south, "0"),
			Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type"},
		{Name: "no content type", Method: http.MethodPost, Path: "/v1/evaluate", Body: evaluate(pits12, captured, south, "0"),
			Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type"},
		{Name: "unknown route", Method: http.MethodGet, Path: "/v1/nothing", Status: http.StatusNotFound, Code: "route_not_found"},
		{Name: "unknown route, POST", Method: http.MethodPost, Path: "/v2/evaluate", ContentType: jsonType, Body: `{}`, Status: http.StatusNotFound, Code: "route_not_found"},
		{Name: "wrong method", Method: http.MethodGet, Path: "/v1/evaluate", Status: http.StatusMethodNotAllowed, Code: "method_not_allowed"},
		{Name: "wrong method on a probe", Method: http.MethodDelete, Path: "/livez", Status: http.StatusMethodNotAllowed, Code: "method_not_allowed"},

		post("moves: total 47", "/v1/moves", `{"position":{"pits":[4,4,4,4,4,4,4,4,4,4,4,3],"captured":`+captured+`,"toMove":"north"}}`, unprocessable, "invalid_position"),
		post("moves: no position", "/v1/moves", `{}`, bad, "invalid_request"),
		post("validate: record over 2000 moves", "/v1/validate", `{"moves":`+longRecord+`}`, bad, "invalid_request"),
		post("validate: pit 12 in the record", "/v1/validate", `{"moves":[0,12]}`, bad, "invalid_request"),
		post("validate: moves not a list", "/v1/validate", `{"moves":"0,6,1"}`, bad, "invalid_request"),
		post("validate: start total 47", "/v1/validate", `{"start":{"pits":[4,4,4,4,4,4,4,4,4,4,4,3],"captured":`+captured+`,"toMove":"south"},"moves":[0]}`, unprocessable, "invalid_position"),
		{Name: "validate batch: sent as JSON", Method: http.MethodPost, Path: "/v1/validate/batch", ContentType: jsonType, Body: `{"moves":[0]}`,
			Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type"},
		{Name: "validate batch: empty body", Method: http.MethodPost, Path: "/v1/validate/batch", ContentType: ndjsonType, Body: ``,
			Status: bad, Code: "invalid_request"},
		{Name: "validate batch: over 10000 lines", Method: http.MethodPost, Path: "/v1/validate/batch", ContentType: ndjsonType, Body: strings.Repeat("\n", 10001),
			Status: http.StatusRequestEntityTooLarge, Code: "too_many_lines"},
		post("analyze: depth 0", "/v1/analyze", `{"position":`+startPos+`,"depth":0}`, bad, "invalid_request"),
		post("analyze: depth 31", "/v1/analyze", `{"position":`+startPos+`,"depth":31}`, bad, "invalid_request"),
		post("analyze: timeMs 10001", "/v1/analyze", `{"position":`+startPos+`,"timeMs":10001}`, bad, "invalid_request"),
		post("analyze: finished position", "/v1/analyze", `{"position":{"pits":[0,0,0,0,0,0,0,0,0,0,0,0],"captured":{"south":24,"north":24},"toMove":"south"}}`, unprocessable, "no_legal_move"),
	}
}
