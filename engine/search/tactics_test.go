package search

import (
	"context"
	"slices"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

// tactic is a position worked out by hand: the move(s) that win the most, and
// the exact final difference when every line was followed to the end.
type tactic struct {
	pos     string
	rules   engine.Rules
	history []string // earlier positions, oldest first
	best    []int
	exact   *int // nil: the value was not worked out to the end
}

func seedsPtr(n int) *int { return &n }

var (
	sideOwner = engine.Rules{Leftovers: engine.LeftoversSideOwner}
	leftSeed  = engine.Rules{CaptureSeed: engine.CaptureLeft}
)

// tactics are keyed by name; the comments give the hand analysis. "S" and "N"
// are South and North, "x:n" is pit x holding n seeds, scores are for the side
// to move in the position.
var tactics = map[string]tactic{
	// S 0:2 4:1, N 6:3 9:2, 22-18. Pit 0 sows 1,2 and lands in empty 2
	// facing 9 (2): takes 3, 25 by majority, +7. Pit 4 lands in empty 5
	// facing 6 (3): takes 4, 26, +8.
	"larger-majority-capture": {pos: "s-200010-300200-22-18", best: []int{4}, exact: seedsPtr(8)},
	// North's twin: pit 7 lands in 8 facing 3 (3): 25, +7; pit 10 lands in
	// 11 facing 0 (4): 26, +8.
	"larger-majority-capture-north": {pos: "n-400300-010010-18-21", best: []int{10}, exact: seedsPtr(8)},
	// Pit 1 drops into 2 (2 -> 3): relay 3,4,5, ends in empty 5 facing 6 (5):
	// takes 6, 29-16, +13. Pit 2 ends in empty 4 facing 7 (1): 25-16, +9.
	"relay-then-capture": {pos: "s-012000-510000-23-16", best: []int{1}, exact: seedsPtr(13)},
	// The mirror image, North to move: pit 7 relays from 8 and takes 6.
	"relay-then-capture-north": {pos: "n-510000-012000-16-23", best: []int{7}, exact: seedsPtr(13)},
	// Pit 5 (11 seeds) laps the board and ends in empty 4 facing 7 (3+1):
	// takes 5, 26-12, +14. Pit 3 ends in 4 at once: takes 4, 25-12, +13.
	"lap-then-capture": {pos: "s-00010b-030000-21-12", best: []int{5}, exact: seedsPtr(14)},
	// The mirror image, North to move.
	"lap-then-capture-north": {pos: "n-030000-00010b-12-21", best: []int{11}, exact: seedsPtr(14)},
	// Pit 0 (12) sows 1..11, skips 0, drops the 12th into 1: relays 1, 3,
	// 5, 7, 9, 11 of two seeds each, the last ending in emptied pit 1 facing
	// 10 (2): takes 3, 25-14, +11. The only move; it feeds the empty North.
	"twelve-seeds-skip-origin": {pos: "s-c00000-000000-22-14", best: []int{0}, exact: seedsPtr(11)},
	// Pit 4 takes North's last seeds (6: 1 + 1): North cannot move, South
	// (the last mover) takes 0:3: 25-23, +2. Pit 0 instead lets 6 land in 7
	// facing 4 and take 2: North 25 by majority, -5.
	"capture-leaves-opponent-no-move": {pos: "s-300010-100000-20-23", best: []int{4}, exact: seedsPtr(2)},
	// The same with each row to its owner: pit 4 leaves 0:3, South's own: +2.
	"capture-leaves-opponent-no-move-side-owner": {pos: "s-300010-100000-20-23", rules: sideOwner, best: []int{4}, exact: seedsPtr(2)},
	// Pit 5 empties South's row; North's 8:1 9:1 cannot reach it (8 relays
	// through 9 to 11, 9 stops in 10): no legal move. The last mover takes
	// the 3 seeds left: 25-23, +2.
	"blockade-last-mover": {pos: "s-000001-001100-22-23", best: []int{5}, exact: seedsPtr(2)},
	// The same blockade, each row to its owner: North keeps 3: 22-26, -4.
	"blockade-side-owner": {pos: "s-000001-001100-22-23", rules: sideOwner, best: []int{5}, exact: seedsPtr(-4)},
	// North's row is empty: pit 0 (to 1, 2) does not feed it, so pit 5 is the
	// only legal move.
	"must-feed": {pos: "s-200001-000000-22-23", best: []int{5}},
	// Pit 4 (the only move) gives n-000001-000011-22-23, already seen twice:
	// the third occurrence ends the game and each side takes its own row,
	// 22+1 against 23+2, -2.
	"third-occurrence-ends-the-game": {
		pos:     "s-000010-000011-22-23",
		history: []string{"n-000001-000011-22-23", "s-000100-000011-22-23", "n-000001-000011-22-23", "s-001000-000011-22-23"},
		best:    []int{4}, exact: seedsPtr(-2),
	},
	// S 1:1 5:1, N 7:1, 23-22. Pit 1 to empty 2; North's only move is 7 to 8;
	// then 2 to empty 3 facing 8 takes 2: 25 by majority, +3 (and 5 to 6
	// instead lets 8 to 9 take 2, then North takes the last seed: -2).
	// Pit 5 to 6: North plays 7 to 8, South's 1 to 2 is forced, 8 to 9 takes
	// 2 and North takes the last seed: -2.
	"quiet-move-then-majority": {pos: "s-010001-010000-23-22", best: []int{1}, exact: seedsPtr(3)},
	// The mirror image, North to move.
	"quiet-move-then-majority-north": {pos: "n-010000-010001-22-23", best: []int{7}, exact: seedsPtr(3)},
	// S 2:2 3:1, N 6:1 11:1, 21-22, North to move. 6 to 7: South must take
	// 7 (2 to 4 or 3 to 4, 2 seeds, 23), North's 11 goes to 0, and South,
	// with North's row empty, cannot feed it: North takes the 3 left,
	// 25-23, +2. 11 to 0 instead: South plays 0 to 1, 6 to 7 is forced, and
	// South takes 7 and then every seed left: 26-22, -4.
	"bait-then-blockade": {pos: "n-002100-100001-21-22", best: []int{6}, exact: seedsPtr(2)},
	// S 3:1, N 6:1 11:1, 21-24, North to move. 6 to 7 invites 3 to 4 taking
	// 2 (23); 11 to 0 is forced and South, unable to feed, leaves North the
	// last seed: 25-23, +2. 11 to 0 first lets South play 0 to 1, then 3 to
	// 4 takes 7 and South takes the rest: 24-24, 0.
	"offer-a-capture-to-block": {pos: "n-000100-100001-21-24", best: []int{6}, exact: seedsPtr(2)},
	// S 1:1 5:1, N 6:1, 24-21. 1 to 2, 6 to 7 (forced), 2 to 3: North's
	// 7 to 8 takes 2 (23), South's 5 to 6 feeds, North's 6 to 7 would not
	// feed back: South takes the last seed, 25-23, +2. Pit 5 first lets
	// North's 7 relay to 10 and take 2, and North takes the rest: 24-24.
	"tempo-to-win-the-last-seed": {pos: "s-010001-100000-24-21", best: []int{1}, exact: seedsPtr(2)},
	// Each row to its owner. S 0:1, N 7:1 9:1, 23-22, North to move. 7 to
	// 8; South's 0 to 1 is forced; 9 to 10 takes 2 (24) and South, empty,
	// cannot move: North keeps 8:1, 25-23, +2. 9 to 10 first leaves 10
	// facing 1: South's 0 to 1 takes 2, 25 by majority, -3.
	"side-owner-keep-your-row": {pos: "n-100000-010100-23-22", rules: sideOwner, best: []int{7}, exact: seedsPtr(2)},
	// The capturing seed stays. S 1:1 4:1 5:1, North empty: 1 to 2 does not
	// feed. 5 to 6: North's 6 to 7 takes 1 (23), then 1-2, 7-8, and 2 to 3
	// takes 1 (24); North cannot move and South takes 3:1, 25-23, +2. 4
	// relays through 5 to 6 and 7: North's 7 to 8, 1 to 2, 8 to 9 takes 1
	// and South, empty, leaves North 2 seeds: 23-25, -2.
	"capture-seed-left-feed": {pos: "s-010011-000000-23-22", rules: leftSeed, best: []int{5}, exact: seedsPtr(2)},
	// The capturing seed stays. S 5:1, N 6:1 10:1, 22-23, North to move. 10
	// to 11; South's 5 relays through 6 to 8; North must feed with 11 to 0;
	// 0 to 1 is forced; 7 relays through 8 to 10 and takes 1 (24), and
	// South, empty, leaves North 2 seeds: 26-22, +4. 6 to 7 instead: South's
	// 5 to 6 empties its row and North cannot feed it: South takes 3, -2.
	"capture-seed-left-block": {pos: "n-000001-100010-22-23", rules: leftSeed, best: []int{10}, exact: seedsPtr(4)},
}

func TestTactics(t *testing.T) {
	for name, tc := range tactics {
		t.Run(name, func(t *testing.T) {
			p := engine.MustParse(tc.pos)
			var hist []engine.Position
			for _, h := range tc.history {
				hist = append(hist, engine.MustParse(h))
			}
			for _, every := range []bool{true, false} {
				a, err := NewSearcher(1<<20).Analyze(context.Background(), p, tc.rules, hist, Limits{Depth: 24, Nodes: 2_000_000, BestOnly: !every})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(tc.best, a.BestMove) {
					t.Errorf("every=%v: best move %d (score %d, pv %v), want one of %v", every, a.BestMove, a.Score, a.PV, tc.best)
				}
				if tc.exact != nil && (!a.Exact || a.Score != *tc.exact) {
					t.Errorf("every=%v: score %d exact=%v, want exactly %d", every, a.Score, a.Exact, *tc.exact)
				}
				if len(a.PV) == 0 || a.PV[0] != a.BestMove {
					t.Errorf("every=%v: pv %v does not start with the best move %d", every, a.PV, a.BestMove)
				}
			}
			// Every searching level finds these; the seed must not matter.
			for level := 5; level <= MaxLevel; level++ {
				for seed := range uint64(3) {
					pit, err := NewSearcher(1<<20).ChooseMove(context.Background(), p, tc.rules, hist, level, seed)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Contains(tc.best, pit) {
						t.Errorf("level %d seed %d plays %d, want one of %v", level, seed, pit, tc.best)
					}
				}
			}
		})
	}
}

// TestTacticsMirror checks the table against its own symmetry: each position
// seen from the other side of the board has the same value and the mirrored
// best moves.
func TestTacticsMirror(t *testing.T) {
	for name, tc := range tactics {
		t.Run(name, func(t *testing.T) {
			mirror := func(s string) engine.Position {
				p := engine.MustParse(s)
				var m engine.Position
				for i := range engine.NumPits {
					m.Pits[(i+engine.RowPits)%engine.NumPits] = p.Pits[i]
				}
				m.Captured = [2]uint8{p.Captured[1], p.Captured[0]}
				m.ToMove = p.ToMove.Other()
				return m
			}
			p := mirror(tc.pos)
			var hist []engine.Position
			for _, h := range tc.history {
				hist = append(hist, mirror(h))
			}
			a, err := NewSearcher(1<<20).Analyze(context.Background(), p, tc.rules, hist, Limits{Depth: 24, Nodes: 2_000_000})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(tc.best, (a.BestMove+engine.RowPits)%engine.NumPits) {
				t.Errorf("mirror %s: best move %d, want the mirror of one of %v", p, a.BestMove, tc.best)
			}
			if tc.exact != nil && (!a.Exact || a.Score != *tc.exact) {
				t.Errorf("mirror %s: score %d exact=%v, want exactly %d", p, a.Score, a.Exact, *tc.exact)
			}
		})
	}
}
