package apitest

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// Vector is one line of the shared rule vectors (engine/testdata/vectors.jsonl)
// with its parts kept as raw JSON: the request is built from them and the
// answer compared with Expect.
type Vector struct {
	Name     string          `json:"name"`
	Position json.RawMessage `json:"position"`
	Rules    json.RawMessage `json:"rules"`
	Pit      int             `json:"pit"`
	Expect   json.RawMessage `json:"expect"`
}

// EvaluateBody is the POST /v1/evaluate request of the vector.
func (v Vector) EvaluateBody() string {
	b, _ := json.Marshal(map[string]any{"position": v.Position, "rules": v.Rules, "pit": v.Pit})
	return string(b)
}

// LoadVectors reads the vectors file and checks there are all 600.
func LoadVectors(t testing.TB, file string) []Vector {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []Vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v Vector
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(vs) != 600 {
		t.Fatalf("read %d vectors, want 600", len(vs))
	}
	return vs
}

// SameJSON reports whether two JSON texts hold the same value; text that is
// not JSON is never the same.
func SameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
