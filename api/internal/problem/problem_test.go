package problem

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Write sends the problem as the whole answer: its status, the problem
// media type, no sniffing, and the members a client reads, the empty
// optional ones left out.
func TestWrite(t *testing.T) {
	ply := 3
	for _, tt := range []struct {
		name string
		p    Problem
		want map[string]any
	}{
		{"plain", New(http.StatusNotFound, RouteNotFoundCode, RouteNotFoundTitle, "no file /x"),
			map[string]any{"type": TypeBase + RouteNotFoundCode, "title": RouteNotFoundTitle, "status": 404.0, "detail": "no file /x", "code": RouteNotFoundCode}},
		{"with members", Problem{Type: TypeBase + "stale_ply", Title: "Stale ply", Status: 409, Code: "stale_ply", Instance: "/v1/games/x/moves", RequestID: "r1", CurrentPly: &ply},
			map[string]any{"type": TypeBase + "stale_ply", "title": "Stale ply", "status": 409.0, "code": "stale_ply", "instance": "/v1/games/x/moves", "requestId": "r1", "currentPly": 3.0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			Write(rec, tt.p)
			if rec.Code != tt.p.Status || rec.Header().Get("Content-Type") != MediaType || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
				t.Fatalf("status %d, headers %v", rec.Code, rec.Header())
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Errorf("members %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s: %v, want %v", k, got[k], v)
				}
			}
		})
	}
}
