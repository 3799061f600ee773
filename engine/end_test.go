package engine

import "testing"

// The end of the game is decided by four exported pieces that the engine's own
// Play, Status and Finish are built from, and that the search and the puzzle
// solver call instead of re-implementing them: MajorityResult, RowEmpty,
// Settle and Margin.

func TestMajorityResult(t *testing.T) {
	tests := []struct {
		name string
		pos  string
		want Result
	}{
		{"start", "s-444444-444444-0-0", Result{}},
		{"24 is not enough", "s-000010-000001-24-22", Result{}},
		{"24-24 with the board empty is no majority", "n-000000-000000-24-24", Result{}},
		{"south reaches 25", "n-000030-010010-25-18", Result{Reason: ByMajority, Winner: SouthWins}},
		{"north reaches 25, south to move", "s-200000-000001-20-25", Result{Reason: ByMajority, Winner: NorthWins}},
		{"the side to move may be the winner", "n-100000-000000-22-25", Result{Reason: ByMajority, Winner: NorthWins}},
		{"everything captured", "s-000000-000000-48-0", Result{Reason: ByMajority, Winner: SouthWins}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustParse(tc.pos)
			if got := p.MajorityResult(); got != tc.want {
				t.Fatalf("%s: %+v, want %+v", tc.pos, got, tc.want)
			}
			// Status checks the majority first, so it must agree whenever
			// there is one.
			if tc.want.Over() && p.Status(Rules{}) != tc.want {
				t.Fatalf("%s: Status %+v, MajorityResult %+v", tc.pos, p.Status(Rules{}), tc.want)
			}
		})
	}
}

func TestRowEmpty(t *testing.T) {
	tests := []struct {
		name         string
		pos          string
		south, north bool
	}{
		{"start", "s-444444-444444-0-0", false, false},
		{"south empty", "s-000000-444444-12-12", true, false},
		{"north empty", "n-444444-000000-12-12", false, true},
		{"both empty", "n-000000-000000-24-24", true, true},
		{"only south's last pit", "s-000001-000000-24-23", false, true},
		{"only north's first pit", "s-000000-100000-24-23", true, false},
		{"only north's last pit, in the second word", "s-000000-000001-24-23", true, false},
		{"pits 6 and 7 share south's word", "s-000000-110000-23-23", true, false},
		{"one big pit", "n-000000-00000M-0-0", true, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustParse(tc.pos)
			if got := p.RowEmpty(South); got != tc.south {
				t.Errorf("%s: RowEmpty(South) = %v, want %v", tc.pos, got, tc.south)
			}
			if got := p.RowEmpty(North); got != tc.north {
				t.Errorf("%s: RowEmpty(North) = %v, want %v", tc.pos, got, tc.north)
			}
			for _, s := range []Side{South, North} {
				if got, want := p.RowEmpty(s), p.RowSeeds(s) == 0; got != want {
					t.Errorf("%s: RowEmpty(%s) = %v, but the row holds %d", tc.pos, s, got, p.RowSeeds(s))
				}
			}
		})
	}
}

func TestMargin(t *testing.T) {
	tests := []struct {
		name         string
		pos          string
		south, north int
	}{
		{"start", "s-444444-444444-0-0", 0, 0},
		{"south ahead", "n-270616-660066-2-0", 2, -2},
		{"seeds on the board do not count", "s-M00000-000000-0-0", 0, 0},
		{"a draw at 24", "n-000000-000000-24-24", 0, 0},
		{"a whitewash", "s-000000-000000-0-48", -48, 48},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustParse(tc.pos)
			if got := p.Margin(South); got != tc.south {
				t.Errorf("%s: Margin(South) = %d, want %d", tc.pos, got, tc.south)
			}
			if got := p.Margin(North); got != tc.north {
				t.Errorf("%s: Margin(North) = %d, want %d", tc.pos, got, tc.north)
			}
		})
	}
}

func TestSettle(t *testing.T) {
	lastMover := Rules{Leftovers: LeftoversLastMover}
	sideOwner := Rules{Leftovers: LeftoversSideOwner}
	tests := []struct {
		name   string
		pos    string
		rules  Rules
		want   string
		winner Winner
	}{
		// South to move with an empty row: North made the last move.
		{"north moved last and takes all", "s-000000-000301-20-24", lastMover, "s-000000-000000-20-28", NorthWins},
		{"north's row goes to north", "s-000000-000301-20-24", sideOwner, "s-000000-000000-20-28", NorthWins},
		// South cannot feed an empty North (RULES.md's leftovers example).
		{"south cannot feed: north takes south's seeds", "s-200000-000000-23-23", lastMover, "s-000000-000000-23-25", NorthWins},
		{"south cannot feed: south keeps its row", "s-200000-000000-23-23", sideOwner, "s-000000-000000-25-23", SouthWins},
		{"north cannot feed: south moved last and takes them", "n-000000-200000-22-24", lastMover, "n-000000-000000-24-24", Draw},
		{"north cannot feed: north keeps its row", "n-000000-200000-22-24", sideOwner, "n-000000-000000-22-26", NorthWins},
		{"the last seed makes a draw", "s-000000-000100-24-23", lastMover, "s-000000-000000-24-24", Draw},
		{"an empty board settles to itself", "n-000000-000000-24-24", lastMover, "n-000000-000000-24-24", Draw},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := MustParse(tc.pos)
			got := p.Settle(tc.rules)
			if got.String() != tc.want {
				t.Fatalf("%s settled under %+v: %s, want %s", tc.pos, tc.rules, got, tc.want)
			}
			// Each of these positions has no legal move, so Finish settles
			// it the same way and names the winner by the settled margin.
			final, res := p.Finish(tc.rules)
			if final != got || res.Reason != ByNoMoves || res.Winner != tc.winner {
				t.Fatalf("%s: Finish gives %s %+v, want %s won by %s by no_moves", tc.pos, final, res, got, tc.winner)
			}
			if m := got.Margin(South); (m > 0) != (tc.winner == SouthWins) || (m == 0) != (tc.winner == Draw) {
				t.Fatalf("%s: settled margin %+d for South, winner %s", tc.pos, m, tc.winner)
			}
		})
	}
}
