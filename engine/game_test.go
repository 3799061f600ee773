package engine

import (
	"errors"
	"testing"
)

func TestGameRepetitionEndsOnThirdOccurrence(t *testing.T) {
	// Two seeds shuttle: South 5 -> 6 ... find a cycle by search over short
	// lines from a sparse position where no capture is possible.
	start := MustParse("s-000001-100000-23-23")
	g, err := NewGame(start, Rules{})
	if err != nil {
		t.Fatal(err)
	}
	if g.Result().Over() {
		t.Fatalf("start is over: %+v", g.Result())
	}
	var out Outcome
	// Play until the game ends, always taking the first legal move; the
	// position space here is tiny, so it must end, and by repetition if no
	// capture or starvation ends it first.
	for i := 0; i < 100 && !g.Result().Over(); i++ {
		m := g.Position().LegalMoves(g.Rules())
		if err := g.Play(m.Next(), &out); err != nil {
			t.Fatal(err)
		}
	}
	if !g.Result().Over() {
		t.Fatal("game did not end in 100 plies")
	}
	pos := g.Position()
	if pos.BoardSeeds() != 0 && g.Result().Reason == ByRepetition {
		t.Fatalf("repetition left seeds on the board: %s", pos)
	}
	if int(pos.Captured[South])+int(pos.Captured[North])+pos.BoardSeeds() != SeedCount {
		t.Fatalf("seeds not conserved: %s", pos)
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
