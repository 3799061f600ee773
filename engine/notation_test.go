package engine

import (
	"errors"
	"testing"
)

func TestNotation(t *testing.T) {
	tests := []struct {
		name string
		text string
		want Position
	}{
		{"start", "s-444444-444444-0-0", Start()},
		{"worked example after pit 0", "n-270616-660066-2-0",
			Position{Pits: [12]uint8{2, 7, 0, 6, 1, 6, 6, 6, 0, 0, 6, 6}, Captured: [2]uint8{2, 0}, ToMove: North}},
		{"big pits use letters", "s-M00000-000000-0-0", Position{Pits: [12]uint8{48}}},
		{"ten and thirty-five", "n-az0000-000000-3-0", Position{Pits: [12]uint8{10, 35}, Captured: [2]uint8{3, 0}, ToMove: North}},
		{"all captured", "n-000000-000000-24-24", Position{Captured: [2]uint8{24, 24}, ToMove: North}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tc.text, got, tc.want)
			}
			if s := got.String(); s != tc.text {
				t.Fatalf("String() = %q, want %q", s, tc.text)
			}
		})
	}
}

func TestNotationErrors(t *testing.T) {
	for _, text := range []string{
		"",
		"s",
		"x-444444-444444-0-0",
		"s-44444-4444444-0-0",
		"s-444444-444444-0",
		"s-444444-444444-0-0-0",
		"s-444444-44444!-0-0",
		"s-444444-444444-00-0",
		"s-444444-444444-+0-0",
		"s-444444-444444-1-0",
		"s-N00000-000000-0-0",
		"s-444444-444444-0-99999999999999999999",
		"s-444444-444444-0-0 ",
	} {
		t.Run(text, func(t *testing.T) {
			if p, err := Parse(text); !errors.Is(err, ErrInvalidNotation) {
				t.Fatalf("Parse(%q) = %v, %v; want ErrInvalidNotation", text, p, err)
			}
		})
	}
}

// FuzzParse: any string either fails to parse or parses to a valid position
// whose String is the same string: the notation has one spelling per position.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"s-444444-444444-0-0", "n-270616-660066-2-0", "s-M00000-000000-0-0", "n-000000-000000-24-24", "s-4-4-4-4", "--------"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidNotation) {
				t.Fatalf("error %v does not wrap ErrInvalidNotation", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("Parse(%q) gave an invalid position: %v", s, err)
		}
		if p.String() != s {
			t.Fatalf("Parse(%q).String() = %q", s, p.String())
		}
	})
}

// positionFrom builds a valid position from arbitrary fuzz bytes: twelve pit
// weights and a split of the remaining seeds, scaled to a total of 48.
func positionFrom(data []byte) Position {
	var p Position
	left := SeedCount
	for i := range NumPits {
		var w byte
		if i < len(data) {
			w = data[i]
		}
		n := min(int(w%13), left)
		p.Pits[i] = uint8(n)
		left -= n
	}
	var split, side byte
	if len(data) > NumPits {
		split = data[NumPits]
	}
	if len(data) > NumPits+1 {
		side = data[NumPits+1]
	}
	south := min(left*int(split)/255, Majority-1)
	north := left - south
	if north >= Majority { // keep most fuzzed positions in play
		p.Pits[0] += uint8(north - (Majority - 1))
		north = Majority - 1
	}
	p.Captured = [2]uint8{uint8(south), uint8(north)}
	p.ToMove = Side(side & 1)
	return p
}

// FuzzPositionRoundTrip: every valid position survives String and Parse.
func FuzzPositionRoundTrip(f *testing.F) {
	f.Add([]byte{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0})
	f.Add([]byte{12, 0, 12, 0, 12, 0, 12, 0, 0, 0, 0, 0, 128, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := positionFrom(data)
		if err := p.Validate(); err != nil {
			t.Fatalf("fuzz helper built an invalid position %v: %v", p, err)
		}
		q, err := Parse(p.String())
		if err != nil || q != p {
			t.Fatalf("round trip of %+v: %+v, %v", p, q, err)
		}
	})
}

// FuzzPlay checks the rules' invariants for any valid position and pit: Play
// returns (every relay ends or is found endless); seeds are conserved; an
// illegal move changes nothing; the legs account for every seed moved; the
// fast path agrees with the full one.
func FuzzPlay(f *testing.F) {
	f.Add([]byte{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 0, 0}, 0, false, false)
	f.Add([]byte{1, 0, 1, 0, 1, 0, 1, 0, 2, 1, 2, 0, 100, 1}, 10, false, false)
	f.Add([]byte{0, 1, 1, 3, 11, 3, 0, 1, 0, 3, 3, 0, 160, 0}, 4, true, true)
	f.Fuzz(func(t *testing.T, data []byte, pit int, left, sideOwner bool) {
		p := positionFrom(data)
		var r Rules
		if left {
			r.CaptureSeed = CaptureLeft
		}
		if sideOwner {
			r.Leftovers = LeftoversSideOwner
		}
		var out Outcome
		Play(p, pit, r, &out)
		q := out.Position
		if total := int(q.Captured[South]) + int(q.Captured[North]) + q.BoardSeeds(); total != SeedCount {
			t.Fatalf("%s pit %d: %d seeds after the move", p, pit, total)
		}
		if !out.Legal() {
			if q != p || len(out.Legs) != 0 || !out.Capture.None() || out.Result.Over() {
				t.Fatalf("%s pit %d: illegal move (%s) changed something: %s", p, pit, out.Reason, out.String())
			}
			if p.LegalMoves(r).Has(pit) {
				t.Fatalf("%s pit %d: refused (%s) but listed as legal", p, pit, out.Reason)
			}
			return
		}
		if !p.LegalMoves(r).Has(pit) {
			t.Fatalf("%s pit %d: played but not listed as legal", p, pit)
		}
		if q.ToMove != p.ToMove.Other() {
			t.Fatalf("%s pit %d: turn did not pass", p, pit)
		}
		sown := 0
		for _, l := range out.Legs {
			sown += int(l.Seeds)
		}
		if int(out.Legs[0].From) != pit || int(out.Legs[0].Seeds) != int(p.Pits[pit]) || sown < int(p.Pits[pit]) {
			t.Fatalf("%s pit %d: legs %v do not start from the pit", p, pit, out.Legs)
		}
		fast, why := p.Apply(pit, r)
		if why != Legal {
			t.Fatalf("%s pit %d: Apply says %s, Play says legal", p, pit, why)
		}
		if final, res := fast.Finish(r); final != q || res != out.Result {
			t.Fatalf("%s pit %d: Apply+Finish %s %+v, Play %s %+v", p, pit, final, res, q, out.Result)
		}
		// The end the move brought agrees with the pieces the search and the
		// puzzles use to score it.
		m := q.Margin(South)
		switch res := out.Result; res.Reason {
		case ByMajority:
			if q.MajorityResult() != res {
				t.Fatalf("%s pit %d: %+v, but MajorityResult says %+v", p, pit, res, q.MajorityResult())
			}
		case ByNoMoves:
			if !q.RowEmpty(South) || !q.RowEmpty(North) || (m > 0) != (res.Winner == SouthWins) || (m == 0) != (res.Winner == Draw) {
				t.Fatalf("%s pit %d: %+v with the board %s settled to a margin of %+d", p, pit, res, q, m)
			}
		}
	})
}
