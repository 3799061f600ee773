package games

// Time in game sessions. The server's clock is the only clock: a move's time
// is measured from the moment the previous move was accepted (the game's
// UpdatedAt, which only moves, the join and the end change) to the moment
// this one is. Everything here is a pure function of a game's stored state,
// so the answer to a move, a read of the game and the history rebuilt later
// all say the same times; the service applies them, the stores only keep the
// results (the clocks left and the deadline, which they index so that any
// instance can find the games that are overdue).

import (
	"fmt"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/fault"
)

// TimeKind is the kind of a game's time control.
type TimeKind uint8

// The kinds of time control. The zero value is an untimed game.
const (
	Untimed TimeKind = iota
	// Live: each side has a clock that runs while it is to move, with a
	// Fischer increment added after each move it completes.
	Live
	// Correspondence: each move must come within a number of days of the
	// opponent's.
	Correspondence
)

// TimeControl is the time a game gives its players. The zero value is an
// untimed game.
type TimeControl struct {
	Kind      TimeKind
	Initial   time.Duration // Live: each side's time at the start
	Increment time.Duration // Live: added after each move a side completes
	PerMove   time.Duration // Correspondence: the time for each move, in whole days
}

// Bounds of a time control. Tiny clocks are allowed on purpose: tests and
// demos use them.
const (
	MaxInitial   = 3 * time.Hour
	MaxIncrement = 3 * time.Minute
	MinPerMove   = 24 * time.Hour
	MaxPerMove   = 14 * 24 * time.Hour
)

// ErrInvalidTimeControl: a time control outside the bounds above.
var ErrInvalidTimeControl = fault.New(fault.Invalid, "invalid_time_control", "Invalid time control", "invalid time control")

// Timed reports whether tc is a time control at all.
func (tc TimeControl) Timed() bool { return tc.Kind != Untimed }

// Check reports a time control outside the bounds, wrapping
// ErrInvalidTimeControl.
func (tc TimeControl) Check() error {
	switch tc.Kind {
	case Untimed:
		if tc != (TimeControl{}) {
			return fmt.Errorf("%w: an untimed game has no times", ErrInvalidTimeControl)
		}
	case Live:
		// A field of the other kind first: it is what the client got
		// wrong, and the clock's own fields may be missing because of it.
		switch {
		case tc.PerMove != 0:
			return fmt.Errorf("%w: a clock has no daysPerMove", ErrInvalidTimeControl)
		case tc.Initial < 0 || tc.Initial > MaxInitial || tc.Initial%time.Second != 0:
			return fmt.Errorf("%w: initialSeconds must be a whole number from 0 to %d", ErrInvalidTimeControl, int(MaxInitial/time.Second))
		case tc.Increment < 0 || tc.Increment > MaxIncrement || tc.Increment%time.Second != 0:
			return fmt.Errorf("%w: incrementSeconds must be a whole number from 0 to %d", ErrInvalidTimeControl, int(MaxIncrement/time.Second))
		case tc.Initial == 0 && tc.Increment < time.Second:
			return fmt.Errorf("%w: initialSeconds may be 0 only with an increment of at least 1 second", ErrInvalidTimeControl)
		}
	case Correspondence:
		switch {
		case tc.Initial != 0 || tc.Increment != 0:
			return fmt.Errorf("%w: correspondence has no initialSeconds or incrementSeconds", ErrInvalidTimeControl)
		case tc.PerMove < MinPerMove || tc.PerMove > MaxPerMove || tc.PerMove%(24*time.Hour) != 0:
			return fmt.Errorf("%w: daysPerMove must be a whole number from %d to %d", ErrInvalidTimeControl, MinPerMove/(24*time.Hour), MaxPerMove/(24*time.Hour))
		}
	default:
		return fmt.Errorf("%w: kind %d", ErrInvalidTimeControl, tc.Kind)
	}
	return nil
}

// String is the time control in brief, for logs: "180+2", "3d", "untimed".
func (tc TimeControl) String() string {
	switch tc.Kind {
	case Live:
		return fmt.Sprintf("%d+%d", int(tc.Initial/time.Second), int(tc.Increment/time.Second))
	case Correspondence:
		return fmt.Sprintf("%dd", int(tc.PerMove/(24*time.Hour)))
	case Untimed:
		return "untimed"
	}
	return fmt.Sprintf("TimeKind(%d)", tc.Kind)
}

// startClock is each side's time when a game with tc begins.
func (tc TimeControl) startClock() [2]time.Duration {
	switch tc.Kind {
	case Live:
		return [2]time.Duration{tc.Initial, tc.Initial}
	case Correspondence:
		return [2]time.Duration{tc.PerMove, tc.PerMove}
	}
	return [2]time.Duration{}
}

// Expiries are how long a game may wait for someone before it ends by
// itself; the Service's Options set them.
type Expiries struct {
	// FirstMove is the window a side of a live game has for its first move
	// (its clock runs from its second turn on); past it the game is
	// aborted. Zero: DefaultFirstMove.
	FirstMove time.Duration
	// FirstMoveCorrespondence is the same window in correspondence.
	// Zero: DefaultFirstMoveCorrespondence.
	FirstMoveCorrespondence time.Duration
	// Waiting is how long a game against a person waits for someone to
	// join before it is aborted. Zero: DefaultWaitingExpiry.
	Waiting time.Duration
	// Idle is how long an untimed game may go without a move before the
	// side to move loses by timeout. Zero: DefaultIdleExpiry.
	Idle time.Duration
}

// Defaults of Expiries.
const (
	DefaultFirstMove               = 30 * time.Second
	DefaultFirstMoveCorrespondence = 24 * time.Hour
	DefaultWaitingExpiry           = 24 * time.Hour
	DefaultIdleExpiry              = 30 * 24 * time.Hour
)

func (e Expiries) withDefaults() Expiries {
	if e.FirstMove <= 0 {
		e.FirstMove = DefaultFirstMove
	}
	if e.FirstMoveCorrespondence <= 0 {
		e.FirstMoveCorrespondence = DefaultFirstMoveCorrespondence
	}
	if e.Waiting <= 0 {
		e.Waiting = DefaultWaitingExpiry
	}
	if e.Idle <= 0 {
		e.Idle = DefaultIdleExpiry
	}
	return e
}

// Ending is what happens to a game when its deadline passes.
type Ending uint8

// The endings. EndsNever goes with a game that is over.
const (
	EndsNever   Ending = iota
	EndsTimeout        // the side to move loses by timeout
	EndsAbort          // the game is aborted: no result, it counts for nobody
)

// String returns the word the API uses: "timeout", "abort", "" for EndsNever.
func (e Ending) String() string {
	switch e {
	case EndsTimeout:
		return "timeout"
	case EndsAbort:
		return "abort"
	}
	return ""
}

// firstMove reports whether the side to move in g has not moved yet. Sides
// strictly alternate (a side with no move ends the game), so the first two
// plies are each side's first move.
func (g *Game) firstMove() bool { return g.Ply < 2 }

// aiToMove reports whether the AI is the side to move in g.
func (g *Game) aiToMove() bool { return g.AI != nil && g.AI.Side == g.Position.ToMove }

// Ending says how g ends at its Deadline, and for a timeout which side
// loses: a game nobody joined, or a timed game whose side to move has not
// made its first move, is aborted; otherwise the side to move loses.
func (g *Game) Ending() (Ending, engine.Side) {
	switch {
	case g.Status == Waiting:
		return EndsAbort, g.Position.ToMove
	case g.Status != Active:
		return EndsNever, 0
	case g.TimeControl.Timed() && g.firstMove() && !g.aiToMove():
		return EndsAbort, g.Position.ToMove
	}
	return EndsTimeout, g.Position.ToMove
}

// deadline is when g, as it stands now, ends by itself: UpdatedAt (when
// the wait began: the creation, the join or the last move) plus the time
// the side to move has. Zero for a game that is over.
func (g *Game) deadline(e Expiries) time.Time {
	var wait time.Duration
	switch {
	case g.Status == Waiting:
		return g.CreatedAt.Add(e.Waiting)
	case g.Status != Active:
		return time.Time{}
	case !g.TimeControl.Timed() || g.aiToMove():
		// The AI replies within the request that gave it the move, so a
		// game never waits on it; should one ever, it is idle.
		wait = e.Idle
	case g.firstMove() && g.TimeControl.Kind == Correspondence:
		wait = e.FirstMoveCorrespondence
	case g.firstMove():
		wait = e.FirstMove
	default:
		wait = g.Clock[g.Position.ToMove]
	}
	return g.UpdatedAt.Add(wait)
}

// Running reports whose clock runs in g now: the side to move of an active
// timed game, from its second turn on (a first move has only its window),
// and never the AI's, whose thinking is charged to nobody.
func (g *Game) Running() (engine.Side, bool) {
	if g.Status != Active || !g.TimeControl.Timed() || g.firstMove() || g.aiToMove() {
		return 0, false
	}
	return g.Position.ToMove, true
}

// startedAt is when g's first turn began: the join, or the creation of a
// game against the AI.
func (g *Game) startedAt() time.Time {
	if g.JoinedAt.IsZero() {
		return g.CreatedAt
	}
	return g.JoinedAt
}

// charge returns the clocks after side moved at ply, having taken spent
// since its turn began: a side's first move and the AI's cost nothing; on
// a live clock the time spent is taken and the increment added after
// every move a person completes; correspondence gives every move the same
// days.
func charge(tc TimeControl, clock [2]time.Duration, side engine.Side, ply int, byAI bool, spent time.Duration) [2]time.Duration {
	if tc.Kind != Live || byAI {
		return clock
	}
	if ply >= 2 {
		// Never negative: instances whose clocks disagree a little must
		// not give a side time back. Whole milliseconds, as the API shows
		// them and the stores keep them, so a clock read back is the clock
		// answered.
		clock[side] = max(clock[side]-max(spent, 0), 0).Truncate(time.Millisecond)
	}
	clock[side] += tc.Increment
	return clock
}

// ClockView is a timed game's clock as a front end draws it: each side's
// time left when the current turn began (at the end: after the last move,
// and zero for a side that ran out), whose time is running, and when it
// runs out.
type ClockView struct {
	Remaining [2]time.Duration
	Running   engine.Side
	IsRunning bool
	Deadline  time.Time // when Running's time runs out; zero when none runs
}

// ClockOf returns g's clock, and false for an untimed game.
func ClockOf(g *Game) (ClockView, bool) {
	if !g.TimeControl.Timed() {
		return ClockView{}, false
	}
	v := ClockView{Remaining: g.Clock}
	if side, ok := g.Running(); ok {
		// The same instant as g.Deadline, but from the clock alone, so
		// that the history rebuilt later says it too.
		v.Running, v.IsRunning, v.Deadline = side, true, g.UpdatedAt.Add(g.Clock[side])
	}
	return v, true
}

// Expiry is when a game ends by itself unless Side moves (a waiting game:
// unless someone joins, and BySide is false), and how.
type Expiry struct {
	At     time.Time
	Side   engine.Side
	BySide bool
	Ending Ending
}

// overdue says whether g's deadline, if it has one, has passed at now.
func (g *Game) overdue(now time.Time) bool {
	return !g.Deadline.IsZero() && !now.Before(g.Deadline)
}

// ExpiryOf returns g's expiry, and false for a game that is over.
func ExpiryOf(g *Game) (Expiry, bool) {
	end, side := g.Ending()
	if end == EndsNever || g.Deadline.IsZero() {
		return Expiry{}, false
	}
	return Expiry{At: g.Deadline, Side: side, BySide: g.Status == Active, Ending: end}, true
}
