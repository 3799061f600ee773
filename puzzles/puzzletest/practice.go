// Package puzzletest holds a practice generator for tests of the pool's
// bookkeeping: it makes up puzzles at once (they do not prove), so walks of
// a thousand requests cost nothing. Real practice puzzles come from
// gen.Practice.
package puzzletest

import (
	"context"
	"errors"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// madeUp is the prompt of every made-up puzzle, which CheckMadeUp looks for.
const madeUp = "A made-up practice puzzle."

// MadeUpPractice makes up the practice puzzle seq at once: a position that
// spells seq's low 20 bits (so any 2^20 consecutive seqs differ), with the
// filter's difficulty, goal and theme (or ones drawn from seq). Like the
// real generator it cannot meet a defend puzzle of difficulty 1, nor the
// themes of how a win ends (majority, no_moves) with another goal. It does
// not prove: verify it with CheckMadeUp.
func MadeUpPractice(ctx context.Context, version int, f gen.PracticeFilter, seq uint64) (gen.Puzzle, error) {
	if err := ctx.Err(); err != nil {
		return gen.Puzzle{}, err
	}
	p := gen.Puzzle{Version: version, Goal: f.Goal, Difficulty: f.Difficulty, Prompt: madeUp, Depth: 1, KeyLegs: gen.MinKeyLegs}
	winTheme := f.Theme == "majority" || f.Theme == "no_moves"
	switch {
	case p.Goal == "" && winTheme:
		p.Goal = gen.GoalWin
	case p.Goal == "":
		p.Goal = gen.Goals[seq%3]
	}
	if p.Difficulty == 0 {
		p.Difficulty = 2 + int(seq%4)
	}
	if (p.Goal == gen.GoalDefend && p.Difficulty == 1) || (winTheme && p.Goal != gen.GoalWin) {
		return gen.Puzzle{}, fmt.Errorf("%w: %w: made up", gen.ErrNoPuzzle, gen.ErrFilterUnmet)
	}
	p.Themes = []string{"relay"}
	if f.Theme != "" && f.Theme != "relay" {
		p.Themes = append(p.Themes, f.Theme)
	}
	seeds := 0
	for i := range 10 { // pit 5 spells bits 10-11 plus one
		p.Position.Pits[i] = uint8(seq >> (2 * i) & 3)
		seeds += int(p.Position.Pits[i])
	}
	// South, to move, always has a move; North always has seeds.
	p.Position.Pits[5]++
	p.Position.Pits[10], p.Position.Pits[11] = 1, 1
	rest := engine.SeedCount - seeds - 3
	p.Position.Captured[engine.South], p.Position.Captured[engine.North] = uint8(rest/2), uint8(rest-rest/2)
	moves := p.Position.LegalMoves(p.Rules)
	p.Solution = []int{moves.Next()}
	return p, nil
}

// CheckMadeUp is the VerifyPractice of made-up puzzles: it accepts those
// MadeUpPractice makes, and nothing else.
func CheckMadeUp(p gen.Puzzle) error {
	if p.Prompt != madeUp {
		return errors.New("not a made-up practice puzzle")
	}
	return nil
}
