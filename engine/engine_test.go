package engine

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

type vecPosition struct {
	Pits     []int `json:"pits"`
	Captured struct {
		South int `json:"south"`
		North int `json:"north"`
	} `json:"captured"`
	ToMove string `json:"toMove"`
}

type vector struct {
	Name     string      `json:"name"`
	Position vecPosition `json:"position"`
	Rules    struct {
		CaptureSeed string `json:"captureSeed"`
		Leftovers   string `json:"leftovers"`
	} `json:"rules"`
	Pit    int `json:"pit"`
	Expect struct {
		Legal  bool   `json:"legal"`
		Reason string `json:"reason"`
		Legs   []struct {
			From int   `json:"from"`
			Sown []int `json:"sown"`
		} `json:"legs"`
		Capture *struct {
			Pit   int `json:"pit"`
			Seeds int `json:"seeds"`
		} `json:"capture"`
		Position *vecPosition `json:"position"`
		Result   *struct {
			Winner string `json:"winner"`
			Reason string `json:"reason"`
		} `json:"result"`
	} `json:"expect"`
}

func (v vecPosition) position(t testing.TB) Position {
	t.Helper()
	side, err := ParseSide(v.ToMove)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPosition(v.Pits, v.Captured.South, v.Captured.North, side)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	f, err := os.Open("testdata/vectors.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []vector
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v vector
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

func TestVectors(t *testing.T) {
	var out Outcome
	for _, v := range loadVectors(t) {
		t.Run(v.Name, func(t *testing.T) {
			p := v.Position.position(t)
			r, err := ParseRules(v.Rules.CaptureSeed, v.Rules.Leftovers)
			if err != nil {
				t.Fatal(err)
			}
			Play(p, v.Pit, r, &out)
			e := v.Expect
			if out.Legal() != e.Legal {
				t.Fatalf("%s pit %d: legal=%v (%s), want %v (%s)", p, v.Pit, out.Legal(), out.Reason, e.Legal, e.Reason)
			}
			if !e.Legal {
				if out.Reason.String() != e.Reason {
					t.Fatalf("%s pit %d: reason %s, want %s", p, v.Pit, out.Reason, e.Reason)
				}
				if out.Position != p || len(out.Legs) != 0 {
					t.Fatalf("illegal move changed the position or reported legs: %v", out.String())
				}
				return
			}
			if len(out.Legs) != len(e.Legs) {
				t.Fatalf("%d legs, want %d", len(out.Legs), len(e.Legs))
			}
			for i, l := range out.Legs {
				if int(l.From) != e.Legs[i].From || !slices.Equal(l.AppendSown(nil), e.Legs[i].Sown) {
					t.Fatalf("leg %d: from %d sown %v, want from %d sown %v", i, l.From, l.AppendSown(nil), e.Legs[i].From, e.Legs[i].Sown)
				}
			}
			switch {
			case e.Capture == nil && !out.Capture.None():
				t.Fatalf("captured %+v, want nothing", out.Capture)
			case e.Capture != nil && (int(out.Capture.Pit) != e.Capture.Pit || int(out.Capture.Seeds) != e.Capture.Seeds):
				t.Fatalf("captured %+v, want %+v", out.Capture, *e.Capture)
			}
			if want := e.Position.position(t); out.Position != want {
				t.Fatalf("position %s, want %s", out.Position, want)
			}
			gotRes := out.Result.Winner.String() + "/" + out.Result.Reason.String()
			wantRes := "/"
			if e.Result != nil {
				wantRes = e.Result.Winner + "/" + e.Result.Reason
			}
			if gotRes != wantRes {
				t.Fatalf("result %s, want %s", gotRes, wantRes)
			}
		})
	}
}

func TestPerft(t *testing.T) {
	want := []uint64{1, 6, 28, 132, 624, 2870, 13047, 58600, 261423}
	for depth, n := range want {
		if testing.Short() && depth > 6 {
			break
		}
		if got := Perft(Start(), Rules{}, depth); got != n {
			t.Errorf("perft(%d) = %d, want %d", depth, got, n)
		}
	}
}
