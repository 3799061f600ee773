package gen_test

import (
	"errors"
	"testing"

	"github.com/ayoayo/ayoayo/puzzles/gen"
)

func TestParsePracticeID(t *testing.T) {
	good := map[string]gen.PracticeID{
		"x1-d0-gany-tany-0":                           {Version: 1},
		"x2-d3-gwin-tany-4127":                        {Version: 2, Filter: gen.PracticeFilter{Difficulty: 3, Goal: gen.GoalWin}, Seq: 4127},
		"x1-d5-gmax_capture-tgreed_trap-42":           {Version: 1, Filter: gen.PracticeFilter{Difficulty: 5, Goal: gen.GoalMaxCapture, Theme: "greed_trap"}, Seq: 42},
		"x99-d1-gdefend-tlong_relay-9007199254740991": {Version: 99, Filter: gen.PracticeFilter{Difficulty: 1, Goal: gen.GoalDefend, Theme: "long_relay"}, Seq: gen.MaxPracticeSeq},
	}
	for s, want := range good {
		t.Run(s, func(t *testing.T) {
			got, err := gen.ParsePracticeID(s)
			if err != nil || got != want || got.String() != s {
				t.Fatalf("ParsePracticeID(%q) = %+v (%v), want %+v", s, got, err, want)
			}
		})
	}
	bad := map[string]string{
		"empty":                 "",
		"daily id":              "p20260302",
		"no seq":                "x1-d0-gany-tany",
		"extra part":            "x1-d0-gany-tany-1-2",
		"version 0":             "x0-d0-gany-tany-1",
		"version 100":           "x100-d0-gany-tany-1",
		"leading zero version":  "x01-d0-gany-tany-1",
		"difficulty 6":          "x1-d6-gany-tany-1",
		"difficulty -1":         "x1-d-1-gany-tany-1",
		"difficulty +1":         "x1-d+1-gany-tany-1",
		"unknown goal":          "x1-d0-gchess-tany-1",
		"empty goal":            "x1-d0-g-tany-1",
		"unknown theme":         "x1-d0-gany-tfun-1",
		"goal in theme's place": "x1-d0-tany-gany-1",
		"leading zero seq":      "x1-d0-gany-tany-01",
		"plus seq":              "x1-d0-gany-tany-+1",
		"seq too big":           "x1-d0-gany-tany-9007199254740992",
		"seq overflows":         "x1-d0-gany-tany-99999999999999999999",
		"upper case":            "X1-D0-GANY-TANY-1",
		"space":                 "x1-d0-gany-tany- 1",
		"too long":              "x1-d0-gany-tany-1" + string(make([]byte, 60)),
	}
	for name, s := range bad {
		t.Run(name, func(t *testing.T) {
			if got, err := gen.ParsePracticeID(s); !errors.Is(err, gen.ErrInvalidPractice) {
				t.Fatalf("ParsePracticeID(%q) = %+v (%v), want ErrInvalidPractice", s, got, err)
			}
		})
	}
}

// FuzzParsePracticeID: whatever parses is spelled the one way String
// spells it, parses back to itself, and is never a daily id too.
func FuzzParsePracticeID(f *testing.F) {
	for _, s := range []string{"x1-d0-gany-tany-0", "x2-d3-gwin-tany-4127", "x1-d5-gmax_capture-tgreed_trap-42",
		"p20260302", "x1-d0-gany-tany-01", "x1-d9-g-t-", "-----", "x1-d0-gany-tany-9007199254740991"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := gen.ParsePracticeID(s)
		if _, derr := gen.DateOfID(s); derr == nil && err == nil {
			t.Fatalf("%q parses as a daily and a practice id", s)
		}
		if err != nil {
			if !errors.Is(err, gen.ErrInvalidPractice) {
				t.Fatalf("%q: %v, want ErrInvalidPractice", s, err)
			}
			return
		}
		if id.String() != s || !gen.IsPracticeID(s) {
			t.Fatalf("%q parses to %+v, spelled %q", s, id, id.String())
		}
		again, err := gen.ParsePracticeID(id.String())
		if err != nil || again != id {
			t.Fatalf("%q: parsed again %+v (%v)", s, again, err)
		}
	})
}
