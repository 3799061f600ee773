package gen

import (
	"fmt"
	"slices"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

// Verify proves p again from its position, rules and goal alone, by
// exhaustive search: that the position makes a puzzle with that goal (the key
// move is the only one that does what the goal asks, and relays through at
// least MinKeyLegs legs), and that every derived field (depth, solution line,
// key legs, difficulty, prompt, themes) is what the goal's proof gives. It
// also checks the date's id and the no-repeat bucket, and from version 2 the
// side of the practice split: a puzzle with a zero Date is a practice puzzle
// (version 2 or later; its id is the caller's). Any mismatch is
// ErrUnverified; a version this build does not know is ErrUnknownVersion.
//
// The solution line's replies are the most stubborn defence: the reply after
// which the solver needs the most moves to win, then the one that captures
// most, then the lowest pit; the solver's later moves are the fastest wins,
// then the lowest pit. For defend the reply is the opponent's biggest capture.
//
// An endgame puzzle is proved with tb, which must pass CheckTable; for any
// other puzzle tb may be nil (NeedsTable). The proof is a bounded search of
// milliseconds, with nothing to cancel.
func Verify(tb *tablebase.Table, p Puzzle) error {
	tb, err := proofTable(p, tb)
	if err != nil {
		return err
	}
	return verify(p, tb)
}

// verify is Verify with the endgame table tb (nil for a puzzle of another
// goal).
func verify(p Puzzle, tb *tablebase.Table) error {
	if p.Version < 1 || p.Version > PracticeVersion || (p.Version > Version && !p.Date.IsZero()) { // beyond Version: practice only
		return fmt.Errorf("%w: %d", ErrUnknownVersion, p.Version)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrUnverified, p.ID, fmt.Sprintf(format, args...))
	}
	practice := p.Date.IsZero()
	switch {
	case practice && p.Version < 2:
		return fail("version %d has no practice puzzles", p.Version)
	case practice:
		// A practice puzzle's id is the caller's to make and check.
	case checkDate(p.Date) != nil || !p.Date.Equal(Day(p.Date)):
		return fail("date %v is not a feed day", p.Date)
	case p.ID != IDFor(p.Date):
		return fail("id does not match the date %s", p.Date.Format(DateLayout))
	}
	if err := p.Position.Validate(); err != nil {
		return fail("%v", err)
	}
	if err := p.Rules.Validate(); err != nil {
		return fail("%v", err)
	}
	if !p.Goal.Valid() {
		return fail("unknown goal %q", p.Goal)
	}
	switch {
	case !practice && Bucket(&p.Position) != DayBucket(p.Date):
		return fail("position is outside the date's no-repeat bucket")
	case practice && !PracticeSide(&p.Position):
		return fail("position is on the daily side of the practice split")
	case !practice && p.Version >= 2 && PracticeSide(&p.Position):
		return fail("position is on the practice side of the practice split")
	}
	facts := examine(p.Position, p.Rules)
	f, ok := findGoal(p.Position, p.Rules, facts, p.Goal, p.Version, tb)
	if !ok {
		return fail("the position does not make a %s puzzle", p.Goal)
	}
	want := build(p.Date, p.Version, p.Position, p.Rules, facts, f)
	switch {
	case p.Depth != want.Depth:
		return fail("depth %d, the proof gives %d", p.Depth, want.Depth)
	case !slices.Equal(p.Solution, want.Solution):
		return fail("solution %v, the proof gives %v", p.Solution, want.Solution)
	case p.KeyLegs != want.KeyLegs:
		return fail("key legs %d, the key move sows %d", p.KeyLegs, want.KeyLegs)
	case p.Difficulty != want.Difficulty:
		return fail("difficulty %d, the features give %d", p.Difficulty, want.Difficulty)
	case p.Prompt != want.Prompt:
		return fail("prompt %q, want %q", p.Prompt, want.Prompt)
	case !slices.Equal(p.Themes, want.Themes):
		return fail("themes %v, want %v", p.Themes, want.Themes)
	}
	return nil
}

// VerifyPractice proves a practice puzzle again: Verify's proof of a
// practice puzzle (no date, the practice side of the split, exactly the
// puzzle its position, rules and goal make), and its id: a practice id of
// its version whose filter asks for it, and whose sequence number's bucket
// (seq mod PracticeWindow) is its position's, which the no-repeat promise
// rests on. It proves an endgame puzzle with tb, as Verify does.
func VerifyPractice(tb *tablebase.Table, p Puzzle) error {
	if !p.Date.IsZero() {
		return fmt.Errorf("%w: %s: a practice puzzle has no date", ErrUnverified, p.ID)
	}
	if err := Verify(tb, p); err != nil {
		return err
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrUnverified, p.ID, fmt.Sprintf(format, args...))
	}
	id, err := ParsePracticeID(p.ID)
	switch {
	case err != nil:
		return fail("%v", err)
	case id.Version != p.Version:
		return fail("made by version %d, the id says %d", p.Version, id.Version)
	case !Meets(p, id.Filter):
		return fail("not a puzzle its filter asks for")
	case DrillBucket(&p.Position) != int(id.Seq%PracticeWindow):
		return fail("its position is in bucket %d, its sequence number's is %d", DrillBucket(&p.Position), id.Seq%PracticeWindow)
	}
	return nil
}

// Step is one ply of an attempt or of a solution, with all it did.
type Step struct {
	Outcome engine.Outcome // has its own Legs
	Reply   bool           // the opponent's reply, played by the puzzle
}

// Attempt is the answer to a solver's moves.
type Attempt struct {
	// Correct: every move given is right (none wrong or illegal).
	Correct bool
	// Complete: the moves given finish the puzzle.
	Complete bool
	// Steps: the outcome of every move given, up to the first wrong one, and
	// of the replies the puzzle played between them (after a wrong move, the
	// reply that refutes it, when there is one).
	Steps []Step
	// Solution: the whole solution line, when the attempt gave up or solved
	// the puzzle; nil otherwise.
	Solution []Step
}

// play plays pit and returns the step, with a Legs slice of its own.
func play(p engine.Position, pit int, r engine.Rules, reply bool) Step {
	var out engine.Outcome
	engine.Play(p, pit, r, &out)
	return Step{Outcome: out, Reply: reply}
}

// SolutionSteps plays out p's solution line.
func SolutionSteps(p Puzzle) []Step {
	steps := make([]Step, 0, len(p.Solution))
	pos := p.Position
	for i, pit := range p.Solution {
		s := play(pos, pit, p.Rules, i%2 == 1)
		steps = append(steps, s)
		pos = s.Outcome.Position
	}
	return steps
}

// Check judges moves, the solver's own moves in order (the puzzle plays the
// replies), against p. A win or endgame puzzle accepts any later move that
// still forces the win within the puzzle's depth, not only the solution
// line's; the first move must be the key move, the only one. With giveUp, or
// once the puzzle is solved, the answer includes the solution. An endgame
// puzzle is judged with tb, as Verify proves it; for any other puzzle tb
// may be nil.
func Check(tb *tablebase.Table, p Puzzle, moves []int, giveUp bool) (Attempt, error) {
	tb, err := proofTable(p, tb)
	if err != nil {
		return Attempt{}, err
	}
	return check(p, moves, giveUp, tb)
}

// forcing reports whether p's goal is a forced win the solver plays out.
func (p *Puzzle) forcing() bool { return p.Goal == GoalWin || p.Goal == GoalEndgame }

// check is Check with the endgame table tb (nil for a puzzle of another
// goal).
func check(p Puzzle, moves []int, giveUp bool, tb *tablebase.Table) (Attempt, error) {
	if len(moves) == 0 && !giveUp {
		return Attempt{}, ErrEmptyAttempt
	}
	if len(moves) > p.Depth {
		return Attempt{}, fmt.Errorf("%w: %d moves, the puzzle takes at most %d", ErrTooManyMoves, len(moves), p.Depth)
	}
	a := Attempt{Correct: true}
	r, attacker := p.Rules, p.Position.ToMove
	pv := prover{r: r, tb: tb}
	pos := p.Position
	for i, pit := range moves {
		if a.Complete {
			return Attempt{}, fmt.Errorf("%w: the puzzle is solved after move %d", ErrTooManyMoves, i)
		}
		s := play(pos, pit, r, false)
		a.Steps = append(a.Steps, s)
		after := s.Outcome.Position
		budget := p.Depth - i
		switch {
		case !s.Outcome.Legal():
			a.Correct = false
		case p.forcing():
			a.Correct = pv.moveWins(&after, attacker, budget)
		default:
			a.Correct = pit == p.Key()
		}
		if !a.Correct {
			if s.Outcome.Legal() && !s.Outcome.Result.Over() {
				if reply := refutation(p, pv, &after, budget); reply >= 0 {
					a.Steps = append(a.Steps, play(after, reply, r, true))
				}
			}
			break
		}
		if s.Outcome.Result.Over() || p.Goal == GoalMaxCapture {
			a.Complete = true
			continue
		}
		var reply int
		if p.Goal == GoalDefend {
			_, reply = maxCapture(&after, r)
		} else {
			reply = pv.stubbornReply(&after, attacker, budget)
		}
		rs := play(after, reply, r, true)
		a.Steps = append(a.Steps, rs)
		pos = rs.Outcome.Position
		if p.Goal == GoalDefend || rs.Outcome.Result.Over() {
			a.Complete = true
		}
	}
	if giveUp || (a.Correct && a.Complete) {
		a.Solution = SolutionSteps(p)
	}
	return a, nil
}

// refutation picks the opponent's reply that shows a wrong move wrong: for
// defend, the big capture it allows; for a win, the lowest reply after which
// the win is no longer forced within the moves left; -1 when none is needed.
func refutation(p Puzzle, pv prover, after *engine.Position, budget int) int {
	r := p.Rules
	switch p.Goal {
	case GoalDefend:
		_, pit := maxCapture(after, r)
		return pit
	case GoalWin, GoalEndgame:
		var c children
		c.expand(after, r)
		for i := range c.n {
			s := &c.next[i]
			var next children
			next.expand(s, r)
			if over, w := ended(s, &next, r); over {
				if w != engine.WinnerOf(p.Position.ToMove) {
					return int(c.pits[i])
				}
				continue
			}
			if !pv.wins(s, budget-1) {
				return int(c.pits[i])
			}
		}
	}
	return -1
}
