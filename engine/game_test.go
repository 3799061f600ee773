package engine

import (
	"errors"
	"slices"
	"testing"
)

func TestGameRepetitionEndsOnThirdOccurrence(t *testing.T) {
	// Four seeds chase each other round the board with no capture; the line
	// 4 8 0 10 2 6 brings the position back, and its third occurrence ends the
	// game with each side taking its own row.
	g, err := NewGame(MustParse("s-010010-000011-23-21"), Rules{})
	if err != nil {
		t.Fatal(err)
	}
	line := []int{4, 11, 0, 10, 2, 6, 4, 8, 0, 10, 2, 6, 4, 8}
	var out Outcome
	for i, pit := range line {
		if g.Result().Over() {
			t.Fatalf("game ended after %d plies, before the third occurrence", i)
		}
		if err := g.Play(pit, &out); err != nil {
			t.Fatalf("ply %d pit %d: %v", i, pit, err)
		}
	}
	want := Result{Reason: ByRepetition, Winner: SouthWins}
	if g.Result() != want || out.Result != want {
		t.Fatalf("result %+v (outcome %+v), want %+v", g.Result(), out.Result, want)
	}
	if p := g.Position(); p != MustParse("s-000000-000000-26-22") {
		t.Fatalf("final position %s, want the rows split: s-000000-000000-26-22", p)
	}
	if err := g.Play(0, &out); !errors.Is(err, ErrGameOver) || !errors.Is(err, ErrIllegalMove) {
		t.Fatalf("move after the end: %v, want game over", err)
	}
}

func TestGameIllegalMoveChangesNothing(t *testing.T) {
	g, err := NewGame(Start(), Rules{})
	if err != nil {
		t.Fatal(err)
	}
	var out Outcome
	var me *MoveError
	if err := g.Play(7, &out); !errors.As(err, &me) || me.Reason != NotYourPit {
		t.Fatalf("pit 7 for South: %v, want not_your_pit", err)
	}
	if g.Ply() != 0 || g.Position() != Start() {
		t.Fatalf("illegal move changed the game: ply %d, %s", g.Ply(), g.Position())
	}
	if err := g.Play(0, &out); err != nil {
		t.Fatal(err)
	}
	if want := MustParse("n-270616-660066-2-0"); g.Position() != want {
		t.Fatalf("after pit 0: %s, want %s (RULES.md worked example)", g.Position(), want)
	}
}

func TestResign(t *testing.T) {
	g, _ := NewGame(Start(), Rules{})
	if err := g.Resign(South); err != nil {
		t.Fatal(err)
	}
	if r := g.Result(); r.Reason != ByResignation || r.Winner != NorthWins {
		t.Fatalf("result %+v, want north by resignation", r)
	}
	if err := g.Resign(North); !errors.Is(err, ErrGameOver) {
		t.Fatalf("second resignation: %v", err)
	}
}

func TestTimeoutResult(t *testing.T) {
	for _, tc := range []struct {
		flagged Side
		want    Winner
	}{{South, NorthWins}, {North, SouthWins}} {
		t.Run(tc.flagged.String(), func(t *testing.T) {
			r := TimeoutResult(tc.flagged)
			if r.Reason != ByTimeout || r.Winner != tc.want || !r.Over() {
				t.Fatalf("TimeoutResult(%s) = %+v, want %s by timeout", tc.flagged, r, tc.want)
			}
		})
	}
}

// TestGameReset: records replayed one after another in one Game, Reset for
// each, end as they do in a new Game each: nothing carries over from the
// record before (its moves, its positions seen, its rules), and a Reset
// that fails leaves the game as it was.
func TestGameReset(t *testing.T) {
	chase := MustParse("s-010010-000011-23-21")
	records := []struct {
		name  string
		start Position
		rules Rules
		line  []int
	}{
		// Twice the positions of the repetition test's line but one: a
		// Game that kept them would end the next record at once.
		{"positions seen twice", chase, Rules{}, []int{4, 11, 0, 10, 2, 6, 4, 8, 0, 10, 2, 6}},
		{"the same start, once", chase, Rules{}, []int{4, 11, 0, 10}},
		{"repetition", chase, Rules{}, []int{4, 11, 0, 10, 2, 6, 4, 8, 0, 10, 2, 6, 4, 8}},
		{"other rules", Start(), Rules{CaptureSeed: CaptureLeft, Leftovers: LeftoversSideOwner}, []int{0, 6, 1, 7}},
		{"an illegal move", Start(), Rules{}, []int{0, 0}},
		{"from the start", Start(), Rules{}, []int{0, 6, 1}},
	}
	var reused Game
	var out Outcome
	for _, rec := range records {
		t.Run(rec.name, func(t *testing.T) {
			fresh, err := NewGame(rec.start, rec.rules)
			if err != nil {
				t.Fatal(err)
			}
			if err := reused.Reset(rec.start, rec.rules); err != nil {
				t.Fatal(err)
			}
			for i, pit := range rec.line {
				ferr, rerr := fresh.Play(pit, &out), reused.Play(pit, &out)
				if (ferr == nil) != (rerr == nil) {
					t.Fatalf("ply %d pit %d: a new game says %v, the reset one %v", i, pit, ferr, rerr)
				}
			}
			if reused.Position() != fresh.Position() || reused.Result() != fresh.Result() || reused.Ply() != fresh.Ply() ||
				reused.Rules() != fresh.Rules() || reused.Start() != fresh.Start() || !slices.Equal(reused.Moves(), fresh.Moves()) {
				t.Fatalf("reset game: %s %+v ply %d moves %v; new game: %s %+v ply %d moves %v",
					reused.Position(), reused.Result(), reused.Ply(), reused.Moves(), fresh.Position(), fresh.Result(), fresh.Ply(), fresh.Moves())
			}
		})
	}
	t.Run("a start that does not add up", func(t *testing.T) {
		before := reused.Position()
		bad := Start()
		bad.Pits[0] = 3
		if err := reused.Reset(bad, Rules{}); !errors.Is(err, ErrInvalidPosition) {
			t.Fatalf("Reset from a position of 47 seeds: %v, want ErrInvalidPosition", err)
		}
		if reused.Position() != before || reused.Ply() == 0 {
			t.Fatalf("a failed Reset changed the game: %s ply %d", reused.Position(), reused.Ply())
		}
	})
}
