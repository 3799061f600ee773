package engine

import "fmt"

// MoveError is an illegal move with the rules' reason. It matches
// ErrIllegalMove with errors.Is, and ErrGameOver too when that is the reason.
type MoveError struct {
	Pit    int
	Reason Reason
}

func (e *MoveError) Error() string {
	return fmt.Sprintf("illegal move: pit %d: %s", e.Pit, e.Reason)
}

// Is makes errors.Is(err, ErrIllegalMove) hold, and ErrGameOver for game_over.
func (e *MoveError) Is(target error) bool {
	return target == ErrIllegalMove || (target == ErrGameOver && e.Reason == GameOver)
}

// Game is a game record being played: a start position, the rules, the moves
// so far and the position they reach, with the repetition rule applied (the
// third occurrence of a position ends the game and each player takes the seeds
// in their own row). Game sessions and record validation share it. It is not
// safe for concurrent use.
type Game struct {
	rules  Rules
	start  Position
	pos    Position
	result Result
	moves  []int
	seen   map[Position]uint8
}

// NewGame starts a record from start under r. A start position that is
// already finished gives a game that is over from the beginning.
func NewGame(start Position, r Rules) (*Game, error) {
	g := new(Game)
	if err := g.Reset(start, r); err != nil {
		return nil, err
	}
	return g, nil
}

// Reset starts g again from start under r, as NewGame starts a game (the
// zero Game may be Reset), keeping the memory its moves and positions
// took: a caller replaying record after record in one Game allocates for
// the longest of them, not for each. The slice Moves returned before is
// written over. An error leaves g as it was.
func (g *Game) Reset(start Position, r Rules) error {
	if err := start.Validate(); err != nil {
		return err
	}
	if err := r.Validate(); err != nil {
		return err
	}
	if g.seen == nil {
		g.seen = make(map[Position]uint8)
	} else {
		clear(g.seen)
	}
	g.seen[start] = 1
	g.rules, g.start, g.moves = r, start, g.moves[:0]
	g.pos, g.result = start.Finish(r)
	return nil
}

// Rules returns the rule options of the game.
func (g *Game) Rules() Rules { return g.rules }

// Start returns the position the game began from.
func (g *Game) Start() Position { return g.start }

// Position returns the current position.
func (g *Game) Position() Position { return g.pos }

// Result returns how the game ended, or NotOver.
func (g *Game) Result() Result { return g.result }

// Ply returns how many moves have been played.
func (g *Game) Ply() int { return len(g.moves) }

// Moves returns the pits played so far; the caller must not change it.
func (g *Game) Moves() []int { return g.moves }

// Play plays pit for the side to move and writes what happened into out. An
// illegal move returns a *MoveError and changes nothing. When the move repeats
// a position for the third time, out.Position and out.Result say so: the board
// split between the players and the game over by repetition.
func (g *Game) Play(pit int, out *Outcome) error {
	if g.result.Over() {
		*out = Outcome{Pit: pit, Reason: GameOver, Capture: Capture{Pit: -1}, Position: g.pos, Before: g.pos, Rules: g.rules, Legs: out.Legs[:0]}
		return &MoveError{Pit: pit, Reason: GameOver}
	}
	Play(g.pos, pit, g.rules, out)
	if !out.Legal() {
		return &MoveError{Pit: pit, Reason: out.Reason}
	}
	g.moves = append(g.moves, pit)
	if !out.Result.Over() {
		g.seen[out.Position]++
		if g.seen[out.Position] >= 3 {
			out.Position = out.Position.SplitRows()
			out.Result = resultByCount(&out.Position, ByRepetition)
		}
	}
	g.pos, g.result = out.Position, out.Result
	return nil
}

// Resign ends the game with a win for the opponent of s.
func (g *Game) Resign(s Side) error {
	if g.result.Over() {
		return ErrGameOver
	}
	if !s.Valid() {
		return fmt.Errorf("%w: side %d", ErrInvalidPosition, s)
	}
	g.result = Result{Reason: ByResignation, Winner: WinnerOf(s.Other())}
	return nil
}

// TimeoutResult is the end of a game whose side s ran out of time: the
// other side wins, whatever the seeds say.
func TimeoutResult(s Side) Result { return Result{Reason: ByTimeout, Winner: WinnerOf(s.Other())} }
