// Package problem writes RFC 9457 problem details, the one error body of
// every part of the server: the API's handlers (through the api package's
// table of codes) and the embedded web client's file server alike. It knows
// the body's shape and how it goes on the wire, not which error is which.
package problem

import (
	"encoding/json"
	"net/http"
)

// MediaType is the Content-Type of every problem.
const MediaType = "application/problem+json"

// TypeBase prefixes a problem's code to make its type URI: the /docs page
// has a row for every code, whose id is Anchor followed by the code, so the
// type resolves to its documentation.
const (
	Anchor   = "problem-"
	TypeBase = "/docs#" + Anchor
)

// The problem of a path no route serves. Both the API's router and the web
// client's file server answer it, so its words live here, in one place.
const (
	RouteNotFoundCode  = "route_not_found"
	RouteNotFoundTitle = "No such route"
)

// Problem is the RFC 9457 body. Field order is the order clients read it in.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail,omitempty"`
	Code      string `json:"code"`
	Instance  string `json:"instance,omitempty"`
	RequestID string `json:"requestId,omitempty"`
	// Extension members some problems add, so a client can recover without
	// parsing the detail: the game's current ply of a stale move, the
	// rules' reason of an illegal one.
	CurrentPly *int   `json:"currentPly,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// Scope is the scope a token lacks (missing_scope).
	Scope string `json:"scope,omitempty"`
}

// New is the problem of a code with its type URI filled in.
func New(status int, code, title, detail string) Problem {
	return Problem{Type: TypeBase + code, Title: title, Status: status, Detail: detail, Code: code}
}

// fallback is the body written when a problem cannot be encoded, which a
// problem of strings and ints never is.
var fallback = []byte(`{"type":"` + TypeBase + `internal_error","title":"Internal server error","status":500,"code":"internal_error"}`)

// Write sends p as the whole answer, with p.Status. Headers the problem
// needs besides its media type (Retry-After, say) are the caller's to set
// before. The body is written to a HEAD request too: net/http drops it and
// keeps its Content-Length, so the headers are those of the GET.
func Write(w http.ResponseWriter, p Problem) {
	body, err := json.Marshal(p)
	status := p.Status
	if err != nil {
		body, status = fallback, http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("Content-Type", MediaType)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
