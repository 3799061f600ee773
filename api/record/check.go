package record

import (
	"errors"
	"fmt"

	"github.com/ayoayo/ayoayo/engine"
)

// Illegal is the first illegal move of a record: its ply (0-based), as the
// notation names it, and the engine's reason.
type Illegal struct {
	Ply    int
	Name   string
	Pit    int
	Reason engine.Reason
}

// Replay is what the moves of a record do.
type Replay struct {
	Game    *engine.Game
	Illegal *Illegal // nil when every move is legal
}

// Check replays the record's moves from its start under its rules, through
// engine.Game (the repetition rule applies), and stops at the first illegal
// move: that is an answer, not an error. The error is a record that
// contradicts its moves (wrapping ErrMismatch: a move's stated captures, a
// Result, Termination or Winner tag the moves do not give), or tags that
// are not a start position and rules (ErrSyntax, or the engine's error for
// a position it refuses).
func Check(r *Record) (Replay, error) {
	start, err := r.Start()
	if err != nil {
		return Replay{}, err
	}
	rules, err := r.Rules()
	if err != nil {
		return Replay{}, err
	}
	g, err := engine.NewGame(start, rules)
	if err != nil {
		return Replay{}, err
	}
	var out engine.Outcome
	for i, m := range r.Moves {
		err := g.Play(m.Pit, &out)
		if me, ok := errors.AsType[*engine.MoveError](err); ok {
			return Replay{Game: g, Illegal: &Illegal{Ply: i, Name: MoveName(start.ToMove, i), Pit: m.Pit, Reason: me.Reason}}, nil
		}
		if err != nil {
			return Replay{}, err
		}
		if m.Captured != 0 && m.Captured != int(out.Capture.Seeds) {
			return Replay{}, fmt.Errorf("%w: move %s %c captures %d seeds, the record says %d",
				ErrMismatch, MoveName(start.ToMove, i), PitLetter(m.Pit), out.Capture.Seeds, m.Captured)
		}
	}
	return Replay{Game: g}, checkEnd(r, g)
}

// checkEnd compares the Result, Termination and Winner tags with the end of
// the moves.
func checkEnd(r *Record, g *engine.Game) error {
	res, hasRes := r.Get(TagResult)
	term, hasTerm := r.Get(TagTermination)
	winner, hasWinner := r.Get(TagWinner)
	mismatch := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrMismatch, fmt.Sprintf(format, args...))
	}
	over := g.Result()
	pos := g.Position()
	if over.Over() {
		// The rules ended it.
		switch {
		case hasRes && res != ResultTag(pos):
			return mismatch("the moves end the game %s, the Result tag says %s", ResultTag(pos), res)
		case hasTerm && term != TermNormal:
			return mismatch("the moves end the game by %s, the Termination tag says %s", over.Reason, term)
		case hasWinner && winner != over.Winner.String():
			return mismatch("the moves end the game won by %s, the Winner tag says %s", over.Winner, winner)
		}
		return nil
	}
	if !hasRes || res == Unfinished {
		switch {
		case hasTerm && term != TermAbandoned:
			return mismatch("the Termination tag says %s, but the Result is %s: the game has not ended", term, Unfinished)
		case hasWinner:
			return mismatch("a Winner tag, but the game has not ended")
		}
		return nil
	}
	// Ended by the players or the clock, after the last move.
	if res != ResultTag(pos) {
		return mismatch("the moves leave the captures at %s, the Result tag says %s", ResultTag(pos), res)
	}
	switch term {
	case TermResignation, TermTimeout:
		if !hasWinner || winner == "draw" {
			return mismatch("a game ended by %s needs a Winner tag of south or north", term)
		}
	case TermAgreement:
		if hasWinner && winner != "draw" {
			return mismatch("a game ended by agreement is a draw, the Winner tag says %s", winner)
		}
	case TermNormal, "":
		return mismatch("the moves do not end the game, yet the Result tag says %s: a Termination tag says how it ended", res)
	default:
		return mismatch("a game with a result %s cannot be %s", res, term)
	}
	return nil
}
