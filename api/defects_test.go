package api

import (
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestProblemDetails: the refusals a bot's author met, each saying what
// to fix: the field at fault, the header a token belongs in, the form a
// value must have (never a regular expression).
func TestProblemDetails(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	game, tokens := gs.twoSeats()
	_, player := gs.newPlayer("Ann")
	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		code                      string
		names, never              []string // what the detail says, and must not
	}{
		{"a draw offer without a body", http.MethodPost, "/v1/games/" + game.Id + "/draw", tokens[0], nil,
			400, "invalid_request", []string{"`offer`"}, nil},
		{"a draw offer without offer", http.MethodPost, "/v1/games/" + game.Id + "/draw", tokens[0], map[string]any{},
			400, "invalid_request", []string{"offer"}, nil},
		{"a daily puzzle's date", http.MethodGet, "/v1/puzzles/daily/2026-1-1", "", nil,
			400, "invalid_request", []string{"date", "YYYY-MM-DD"}, []string{"[0-9]", "^"}},
		{"a clock with daysPerMove", http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"},
			"timeControl": map[string]any{"kind": "clock", "daysPerMove": 2}}, 422, "invalid_time_control", []string{"daysPerMove"}, []string{"initialSeconds"}},
		{"correspondence with initialSeconds", http.MethodPost, "/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"},
			"timeControl": map[string]any{"kind": "correspondence", "initialSeconds": 60}}, 422, "invalid_time_control", []string{"initialSeconds"}, []string{"daysPerMove"}},
		{"a Player-Token as a bearer token", http.MethodPost, "/v1/games/" + game.Id + "/moves", player, map[string]int{"pit": 0, "ply": 0},
			401, "unauthorized", []string{"Player-Token header"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			members := gs.expect(gs.must(tc.method, tc.path, tc.token, tc.body, nil), tc.status, tc.code)
			detail, _ := members["detail"].(string)
			for _, w := range tc.names {
				if !strings.Contains(detail, w) {
					t.Errorf("detail %q does not name %s", detail, w)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(detail, w) {
					t.Errorf("detail %q says %s", detail, w)
				}
			}
		})
	}
}

// TestPatternsNamed: every pattern of the document has words for a
// refusal's detail.
func TestPatternsNamed(t *testing.T) {
	spec := loadSpecFile(t)
	seen := map[*openapi3.Schema]bool{}
	var walk func(where string, s *openapi3.SchemaRef)
	walk = func(where string, s *openapi3.SchemaRef) {
		if s == nil || s.Value == nil || seen[s.Value] {
			return
		}
		seen[s.Value] = true
		if p := s.Value.Pattern; p != "" {
			if _, ok := patternNames[p]; !ok {
				t.Errorf("%s: pattern %q has no words in patternNames", where, p)
			}
		}
		for name, p := range s.Value.Properties {
			walk(where+"."+name, p)
		}
		walk(where+"[]", s.Value.Items)
		for _, of := range [][]*openapi3.SchemaRef{s.Value.AllOf, s.Value.OneOf, s.Value.AnyOf} {
			for _, o := range of {
				walk(where, o)
			}
		}
	}
	for name, s := range spec.Components.Schemas {
		walk(name, s)
	}
	for name, p := range spec.Components.Parameters {
		walk("parameter "+name, p.Value.Schema)
	}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			for _, p := range op.Parameters {
				walk(method+" "+path+" "+p.Value.Name, p.Value.Schema)
			}
		}
	}
}

// TestGameNotFoundCode: an unknown game is 404 not_found, as the
// document's GameNotFound says (the code is stable; the docs once said
// game_not_found).
func TestGameNotFoundCode(t *testing.T) {
	gs := newPlayersServer(t, playersClock(), Options{}, false)
	ex, _ := loadSpecFile(t).Components.Responses["GameNotFound"].Value.Content.Get("application/problem+json").Example.(map[string]any)
	want, _ := ex["code"].(string)
	if want != "not_found" {
		t.Fatalf("the document's GameNotFound code %q", want)
	}
	gs.expect(gs.must(http.MethodGet, "/v1/games/Xq3v9w0bHk2mP1aZ", "", nil, nil), http.StatusNotFound, want)
}
