package engine

import (
	"errors"
	"slices"
	"testing"
)

// TestWorkedExample is RULES.md's worked example: South sows pit 0 from the
// start position through five legs and captures 2.
func TestWorkedExample(t *testing.T) {
	var out Outcome
	Play(Start(), 0, Rules{}, &out)
	if !out.Legal() {
		t.Fatalf("illegal: %s", out.Reason)
	}
	wantLegs := []struct {
		from int
		sown []int
	}{
		{0, []int{1, 2, 3, 4}},
		{4, []int{5, 6, 7, 8, 9}},
		{9, []int{10, 11, 0, 1, 2}},
		{2, []int{3, 4, 5, 6, 7, 8}},
		{8, []int{9, 10, 11, 0, 1, 2}},
	}
	if len(out.Legs) != len(wantLegs) {
		t.Fatalf("%d legs, want %d", len(out.Legs), len(wantLegs))
	}
	for i, w := range wantLegs {
		l := out.Legs[i]
		if int(l.From) != w.from || !slices.Equal(l.AppendSown(nil), w.sown) {
			t.Errorf("leg %d: from %d sown %v, want from %d sown %v", i+1, l.From, l.AppendSown(nil), w.from, w.sown)
		}
	}
	if out.Capture != (Capture{Pit: 9, Seeds: 2}) {
		t.Errorf("capture %+v, want 2 seeds from pit 9", out.Capture)
	}
	want, _ := NewPosition([]int{2, 7, 0, 6, 1, 6, 6, 6, 0, 0, 6, 6}, 2, 0, North)
	if out.Position != want {
		t.Errorf("position %s, want %s", out.Position, want)
	}
}

// TestEndlessRelay is RULES.md's example of a relay that never ends.
func TestEndlessRelay(t *testing.T) {
	p, err := NewPosition([]int{1, 0, 1, 0, 1, 0, 1, 0, 2, 1, 2, 0}, 24, 15, North)
	if err != nil {
		t.Fatal(err)
	}
	var out Outcome
	Play(p, 10, Rules{}, &out)
	if out.Reason != InfiniteRelay || len(out.Legs) != 0 || out.Position != p {
		t.Fatalf("pit 10: %s, want infinite_relay with nothing changed", out.String())
	}
	if _, why := p.Apply(10, Rules{}); why != InfiniteRelay {
		t.Fatalf("Apply: %s, want infinite_relay", why)
	}
	if p.LegalMoves(Rules{}).Has(10) {
		t.Fatal("pit 10 listed among the legal moves")
	}
}

// TestLongRelay plays a move whose relay is long and ends: every leg is
// reported and no cap cuts it short.
func TestLongRelay(t *testing.T) {
	// Find, among seeded random positions, the longest relay that ends, and
	// check that it is reported whole: replaying its legs by hand reaches the
	// same board before the capture.
	best := Outcome{}
	var out Outcome
	for _, c := range gameCorpus(300) {
		Play(c.pos, c.pit, Rules{}, &out)
		if out.Legal() && len(out.Legs) > len(best.Legs) {
			best = out
			best.Legs = slices.Clone(out.Legs)
		}
	}
	if len(best.Legs) < 40 {
		t.Fatalf("longest relay in the corpus has %d legs; expected a long one", len(best.Legs))
	}
	pits := best.Before.Pits
	for i, l := range best.Legs {
		if pits[l.From] != l.Seeds {
			t.Fatalf("leg %d lifts %d seeds from pit %d, which holds %d", i, l.Seeds, l.From, pits[l.From])
		}
		pits[l.From] = 0
		for _, s := range l.AppendSown(nil) {
			pits[s]++
		}
	}
	if !best.Capture.None() {
		pits[best.Capture.Pit] = 0
		if best.Rules.CaptureSeed == CaptureTaken {
			pits[best.Legs[len(best.Legs)-1].Last()] = 0
		}
	}
	if !best.Result.Over() && pits != best.Position.Pits {
		t.Fatalf("replayed legs give %v, want %v", pits, best.Position.Pits)
	}
}

func TestIllegalReasonsInOrder(t *testing.T) {
	tests := []struct {
		name string
		pos  string
		pit  int
		want Reason
	}{
		{"start south pit 0 is legal", "s-444444-444444-0-0", 0, Legal},
		{"north pit on south's turn", "s-444444-444444-0-0", 6, NotYourPit},
		{"pit out of range low", "s-444444-444444-0-0", -1, NotYourPit},
		{"pit out of range high", "s-444444-444444-0-0", 12, NotYourPit},
		{"empty pit", "s-044444-444448-0-0", 0, EmptyPit},
		{"majority already won, even an empty pit", "s-000011-000000-25-21", 0, GameOver},
		{"no legal move: game over before not your pit", "s-000000-000001-24-23", 11, GameOver},
		{"must feed: north row empty stays empty", "s-100001-000000-23-23", 0, MustFeed},
		{"feeding move is legal", "s-100001-000000-23-23", 5, Legal},
		{"endless relay", "n-101010-102120-24-15", 10, InfiniteRelay},
	}
	var out Outcome
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustParse(tc.pos)
			Play(p, tc.pit, Rules{}, &out)
			if out.Reason != tc.want {
				t.Fatalf("%s pit %d: %q, want %q", tc.pos, tc.pit, out.Reason, tc.want)
			}
		})
	}
}

func TestCaptureSeedOption(t *testing.T) {
	// South's pit 4 (1 seed) lands in empty pit 5; the opposite pit 6 holds 3.
	p := MustParse("s-000010-300000-22-22")
	tests := []struct {
		name  string
		rules Rules
		seeds uint8
	}{
		{"taken", Rules{CaptureSeed: CaptureTaken}, 4},
		{"left", Rules{CaptureSeed: CaptureLeft}, 3},
	}
	var out Outcome
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			Play(p, 4, tc.rules, &out)
			if out.Capture != (Capture{Pit: 6, Seeds: tc.seeds}) {
				t.Fatalf("capture %+v, want %d from pit 6", out.Capture, tc.seeds)
			}
			if out.Position.Captured[South] != 22+tc.seeds {
				t.Fatalf("south captured %d, want %d", out.Position.Captured[South], 22+tc.seeds)
			}
		})
	}
}

func TestLeftoversOption(t *testing.T) {
	// South cannot feed North (pit 0's two seeds stay in South's row), so
	// South has no legal move and the game is over. The last mover is North.
	p := MustParse("s-200000-000000-23-23")
	tests := []struct {
		name         string
		rules        Rules
		south, north uint8
		winner       Winner
	}{
		{"last mover takes all", Rules{Leftovers: LeftoversLastMover}, 23, 25, NorthWins},
		{"each takes own row", Rules{Leftovers: LeftoversSideOwner}, 25, 23, SouthWins},
	}
	var out Outcome
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			Play(p, 0, tc.rules, &out)
			if out.Reason != GameOver {
				t.Fatalf("%s: %s, want game_over", p, out.String())
			}
			final, res := p.Finish(tc.rules)
			if res != p.Status(tc.rules) || res.Reason != ByNoMoves || final.BoardSeeds() != 0 ||
				final.Captured[South] != tc.south || final.Captured[North] != tc.north || res.Winner != tc.winner {
				t.Fatalf("finish %s %+v, want %d-%d %s", final, res, tc.south, tc.north, tc.winner)
			}
		})
	}
}

func TestValidation(t *testing.T) {
	tests := []struct {
		name  string
		pits  []int
		south int
		north int
		side  Side
	}{
		{"11 pits", make([]int, 11), 24, 24, South},
		{"13 pits", make([]int, 13), 24, 24, South},
		{"negative pit", []int{-1, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 0, 0, South},
		{"huge pit", []int{1 << 40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0, 0, South},
		{"total 47", []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3}, 0, 0, South},
		{"total 49", []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5}, 0, 0, South},
		{"negative captured", []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 8}, -4, 0, South},
		{"bad side", []int{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4}, 0, 0, Side(2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewPosition(tc.pits, tc.south, tc.north, tc.side); !errors.Is(err, ErrInvalidPosition) {
				t.Fatalf("err %v, want ErrInvalidPosition", err)
			}
		})
	}
	if err := Start().Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseRules("kept", ""); !errors.Is(err, ErrInvalidRules) {
		t.Fatalf("ParseRules(kept): %v", err)
	}
}
