package gen

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// findPuzzle returns the first puzzle of the feed from 2026-03-02 on with the
// goal and at least the depth asked for; for the endgame goal, which version
// 1 does not have, endgamePuzzle's.
func findPuzzle(t *testing.T, tb *tablebase.Table, goal Goal, depth int) Puzzle {
	t.Helper()
	if goal == GoalEndgame {
		return endgamePuzzle(t, tb, endgamePosition)
	}
	first := date(t, "2026-03-02")
	for i := range 90 {
		pz, err := Daily(context.Background(), nil, first.AddDate(0, 0, i), 1)
		if err != nil {
			t.Fatal(err)
		}
		if pz.Goal == goal && pz.Depth >= depth {
			return pz
		}
	}
	t.Fatalf("no %s puzzle of depth %d in 90 days", goal, depth)
	return Puzzle{}
}

// endgamePosition makes an endgame practice puzzle (the endgame filter's
// seq 3): South wins with perfect play by one move only (pit 5), and then
// within 3 moves.
const endgamePosition = "s-103002-010200-19-20"

// endgamePuzzle returns the practice puzzle (version 2, no date) with goal
// endgame that the position in notation makes.
func endgamePuzzle(t testing.TB, tb *tablebase.Table, notation string) Puzzle {
	t.Helper()
	p, r := engine.MustParse(notation), engine.Rules{}
	facts := examine(p, r)
	f, ok := findGoal(p, r, facts, GoalEndgame, Version, tb)
	if !ok {
		t.Fatalf("%s makes no endgame puzzle", notation)
	}
	return build(time.Time{}, Version, p, r, facts, f)
}

// otherLegalMove returns a legal move of p other than pit.
func otherLegalMove(t *testing.T, p engine.Position, pit int) int {
	t.Helper()
	for m := p.LegalMoves(engine.Rules{}); m != 0; {
		if other := m.Next(); other != pit {
			return other
		}
	}
	t.Fatalf("%s has no legal move but %d", p, pit)
	return -1
}

func TestSolverAgreesWithNaiveSearch(t *testing.T) {
	hand := []struct {
		pos  string
		wins []bool // within 1, 2, 3 moves
	}{
		// pit 0 lands in empty pit 1 and takes pit 10's two seeds: 27 seeds.
		{"s-100000-000020-24-21", []bool{true, true, true}},
		// South's last seed goes over to North, who cannot feed South back
		// (pit 6 sows into pit 7): no legal move, so the board's last seed
		// goes to South, the last mover, 25-23.
		{"s-000001-000000-24-23", []bool{true, true, true}},
		// South's only seed cannot reach North's empty row: South has no
		// legal move, the game is already over.
		{"s-000010-000000-23-24", []bool{false, false, false}},
		{"s-444444-444444-0-0", []bool{false, false, false}},
	}
	for _, tt := range hand {
		t.Run(tt.pos, func(t *testing.T) {
			p := engine.MustParse(tt.pos)
			for n := 1; n <= 3; n++ {
				if got := winsWithin(&p, engine.Rules{}, n); got != tt.wins[n-1] {
					t.Errorf("winsWithin(%d) = %v, want %v", n, got, tt.wins[n-1])
				}
			}
		})
	}

	// Endgame positions from self-play, where wins are common, under both
	// rule options.
	rng := newPRNG(7, 7)
	var pos []engine.Position
	for len(pos) < 400 {
		for _, p := range selfPlay(rng, engine.Rules{}, nil, 0) {
			if p.BoardSeeds() <= 20 {
				pos = append(pos, p)
			}
		}
	}
	wins := 0
	for _, r := range []engine.Rules{{}, {CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}} {
		for _, p := range pos[:200] {
			for pit := range engine.NumPits {
				q, why := p.Apply(pit, r)
				if why != engine.Legal || !p.ToMove.Owns(pit) {
					continue
				}
				for n := 1; n <= 2; n++ {
					got, want := moveWinsWithin(&q, p.ToMove, r, n), refMoveWins(p, pit, r, p.ToMove, n)
					if got != want {
						t.Fatalf("%s pit %d within %d (rules %+v): solver %v, naive %v", p, pit, n, r, got, want)
					}
					if got {
						wins++
					}
				}
			}
		}
	}
	if wins == 0 {
		t.Fatal("no win among the endgame positions: the comparison proves nothing")
	}
}

// TestNaiveSolverCatchesAWrongKey keeps the naive cross-check honest: with the
// key move swapped for another, it must object.
func TestNaiveSolverCatchesAWrongKey(t *testing.T) {
	tb := testTable(t)
	for _, goal := range Goals {
		t.Run(string(goal), func(t *testing.T) {
			pz := findPuzzle(t, tb, goal, 1)
			if problems := refProblems(pz); len(problems) > 0 {
				t.Fatalf("the real puzzle fails: %v", problems)
			}
			pz.Solution = slices.Clone(pz.Solution)
			pz.Solution[0] = otherLegalMove(t, pz.Position, pz.Key())
			pz.KeyLegs = -1 // not what is being tested
			if len(refProblems(pz)) == 0 {
				t.Fatal("no objection to a wrong key move")
			}
		})
	}
}

func TestVerifyRejectsTampering(t *testing.T) {
	base := findPuzzle(t, nil, GoalWin, 2)
	if err := Verify(nil, base); err != nil { // version 1: no table
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		change func(*Puzzle)
		want   error
	}{
		{"another key move", func(p *Puzzle) { p.Solution[0] = otherLegalMove(t, p.Position, p.Key()) }, ErrUnverified},
		{"a shorter line", func(p *Puzzle) { p.Solution = p.Solution[:1] }, ErrUnverified},
		{"another reply", func(p *Puzzle) { p.Solution[1] = otherLegalMove(t, mustPlay(t, p.Position, p.Key()), p.Solution[1]) }, ErrUnverified},
		{"key legs", func(p *Puzzle) { p.KeyLegs++ }, ErrUnverified},
		{"difficulty", func(p *Puzzle) { p.Difficulty = p.Difficulty%5 + 1 }, ErrUnverified},
		{"depth", func(p *Puzzle) { p.Depth++ }, ErrUnverified},
		{"goal", func(p *Puzzle) { p.Goal = GoalMaxCapture }, ErrUnverified},
		{"an endgame", func(p *Puzzle) { p.Goal = GoalEndgame }, ErrUnverified},

		{"unknown goal", func(p *Puzzle) { p.Goal = "mate" }, ErrUnverified},
		{"prompt", func(p *Puzzle) { p.Prompt += "!" }, ErrUnverified},
		{"themes", func(p *Puzzle) { p.Themes = append(p.Themes, "easy") }, ErrUnverified},
		{"the other side to move", func(p *Puzzle) { p.Position.ToMove = p.Position.ToMove.Other() }, ErrUnverified},
		{"a seed moved", func(p *Puzzle) {
			for i := range p.Position.Pits {
				if p.Position.Pits[i] > 0 {
					p.Position.Pits[i]--
					p.Position.Pits[(i+1)%engine.NumPits]++
					return
				}
			}
		}, ErrUnverified},
		{"a seed too many", func(p *Puzzle) { p.Position.Pits[0]++ }, ErrUnverified},
		{"another day's id", func(p *Puzzle) { p.ID = IDFor(p.Date.AddDate(0, 0, 1)) }, ErrUnverified},
		{"another day", func(p *Puzzle) { p.Date = p.Date.AddDate(0, 0, 1); p.ID = IDFor(p.Date) }, ErrUnverified},
		{"a future version", func(p *Puzzle) { p.Version = Version + 1 }, ErrUnknownVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pz := base
			pz.Solution = slices.Clone(base.Solution)
			pz.Themes = slices.Clone(base.Themes)
			tt.change(&pz)
			if err := Verify(testTable(t), pz); !errors.Is(err, tt.want) {
				t.Fatalf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func mustPlay(t *testing.T, p engine.Position, pit int) engine.Position {
	t.Helper()
	q, why := p.Apply(pit, engine.Rules{})
	if why != engine.Legal {
		t.Fatalf("%s pit %d: %s", p, pit, why)
	}
	return q
}

// ownMoves returns the solver's moves of the solution line.
func ownMoves(pz Puzzle) []int {
	var moves []int
	for i := 0; i < len(pz.Solution); i += 2 {
		moves = append(moves, pz.Solution[i])
	}
	return moves
}

// TestVerifyEndgame: an endgame puzzle proves with the table, and a changed
// one does not.
func TestVerifyEndgame(t *testing.T) {
	tb := testTable(t)
	base := endgamePuzzle(t, tb, endgamePosition)
	if err := Verify(tb, base); err != nil {
		t.Fatal(err)
	}
	if problems := refProblems(base); len(problems) > 0 {
		t.Fatalf("the naive solver objects: %v", problems)
	}
	if base.Depth != 3 || base.Key() != 5 || !slices.Contains(base.Themes, "endgame") {
		t.Fatalf("depth %d, key %d, themes %v: want a win in 3 by pit 5", base.Depth, base.Key(), base.Themes)
	}
	tests := []struct {
		name   string
		change func(*Puzzle)
	}{
		{"another key move", func(p *Puzzle) { p.Solution[0] = otherLegalMove(t, p.Position, p.Key()) }},
		{"a shorter line", func(p *Puzzle) { p.Solution = p.Solution[:3] }},
		{"depth", func(p *Puzzle) { p.Depth++ }},
		{"difficulty", func(p *Puzzle) { p.Difficulty = p.Difficulty%5 + 1 }},
		{"version 1", func(p *Puzzle) { p.Version = 1 }},
		{"other rules", func(p *Puzzle) { p.Rules.Leftovers = engine.LeftoversSideOwner }},
		{"North to move", func(p *Puzzle) { p.Position.ToMove = engine.North }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pz := base
			pz.Solution = slices.Clone(base.Solution)
			tt.change(&pz)
			if err := Verify(tb, pz); !errors.Is(err, ErrUnverified) {
				t.Fatalf("Verify = %v, want ErrUnverified", err)
			}
		})
	}
}

// TestCheckTable: a table proves endgame puzzles only if it gives the
// same puzzles as the one generator version 2 was defined with.
func TestCheckTable(t *testing.T) {
	ctx := context.Background()
	if err := CheckTable(testTable(t)); err != nil {
		t.Fatal(err)
	}
	small, err := tablebase.Build(ctx, 3, engine.Rules{}, testWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := tablebase.Build(ctx, 2, engine.Rules{Leftovers: engine.LeftoversSideOwner}, testWorkers, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tb   *tablebase.Table
	}{{"none", nil}, {"3 seeds", small}, {"other rules", other}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckTable(tc.tb); err == nil {
				t.Error("taken")
			}
			if _, err := Daily(ctx, tc.tb, date(t, "2027-01-04"), 2); err == nil {
				t.Error("version 2 generated with it")
			}
			if err := Verify(tc.tb, endgamePuzzle(t, testTable(t), endgamePosition)); err == nil || errors.Is(err, ErrUnverified) {
				t.Errorf("an endgame puzzle: %v, want a refusal of the table", err)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tb := testTable(t)
	type want struct {
		correct, complete, solution bool
		steps                       int
		err                         error
	}
	for _, goal := range Goals {
		pz := findPuzzle(t, tb, goal, 1)
		if goal == GoalWin {
			pz = findPuzzle(t, tb, goal, 2)
		}
		own := ownMoves(pz)
		wrong := otherLegalMove(t, pz.Position, pz.Key())
		empty := -1
		for pit := pz.Position.ToMove.FirstPit(); pit < pz.Position.ToMove.FirstPit()+engine.RowPits; pit++ {
			if pz.Position.Pits[pit] == 0 {
				empty = pit
			}
		}
		tests := []struct {
			name   string
			moves  []int
			giveUp bool
			want   want
		}{
			{"the solution", own, false, want{correct: true, complete: true, solution: true, steps: len(pz.Solution)}},
			{"the key move alone", own[:1], false, want{correct: true, complete: len(own) == 1, solution: len(own) == 1, steps: min(2, len(pz.Solution))}},
			{"a wrong move", []int{wrong}, false, want{correct: false, steps: -1}},
			{"a wrong move, then give up", []int{wrong}, true, want{correct: false, solution: true, steps: -1}},
			{"give up at once", nil, true, want{correct: true, solution: true}},
			{"an opponent's pit", []int{(pz.Key() + 6) % 12}, false, want{correct: false, steps: 1}},
			{"no moves", nil, false, want{err: ErrEmptyAttempt}},
			{"a move too many", append(slices.Clone(own), own[0]), false, want{err: ErrTooManyMoves}},
		}
		if empty >= 0 {
			tests = append(tests, struct {
				name   string
				moves  []int
				giveUp bool
				want   want
			}{"an empty pit", []int{empty}, false, want{correct: false, steps: 1}})
		}
		for _, tt := range tests {
			t.Run(string(goal)+"/"+tt.name, func(t *testing.T) {
				a, err := Check(tb, pz, tt.moves, tt.giveUp)
				if !errors.Is(err, tt.want.err) {
					t.Fatalf("err %v, want %v", err, tt.want.err)
				}
				if err != nil {
					return
				}
				if a.Correct != tt.want.correct || a.Complete != tt.want.complete || (a.Solution != nil) != tt.want.solution {
					t.Fatalf("correct %v complete %v solution %v, want %+v", a.Correct, a.Complete, a.Solution != nil, tt.want)
				}
				if tt.want.steps >= 0 && len(a.Steps) != tt.want.steps {
					t.Fatalf("%d steps, want %d", len(a.Steps), tt.want.steps)
				}
				for i, s := range a.Steps {
					if s.Reply != (i%2 == 1) {
						t.Fatalf("step %d reply %v", i, s.Reply)
					}
				}
				if a.Solution != nil {
					for i, s := range a.Solution {
						if s.Outcome.Pit != pz.Solution[i] || !s.Outcome.Legal() {
							t.Fatalf("solution step %d: %v, want pit %d", i, s.Outcome.String(), pz.Solution[i])
						}
					}
				}
				if tt.name == "the solution" {
					last := a.Steps[len(a.Steps)-1].Outcome
					if pz.forcing() && last.Result.Winner != engine.WinnerOf(pz.Position.ToMove) {
						t.Fatalf("the solution ends %v", last.Result)
					}
				}
			})
		}
	}
}
