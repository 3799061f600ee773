package engine

import "fmt"

// CaptureSeed says what happens to the seed that makes a capture.
type CaptureSeed uint8

const (
	// CaptureTaken (Russ, the default): the capturing seed is captured too.
	CaptureTaken CaptureSeed = iota
	// CaptureLeft: it stays in the pit where it landed.
	CaptureLeft
)

// Leftovers says who takes the seeds left on the board when the side to move
// has no legal move.
type Leftovers uint8

const (
	// LeftoversLastMover (Russ, the default): the player who made the last move
	// takes every seed left on the board.
	LeftoversLastMover Leftovers = iota
	// LeftoversSideOwner: each player takes the seeds in their own row.
	LeftoversSideOwner
)

// Rules are the rule options. The zero value is the default: Russ's rules.
type Rules struct {
	CaptureSeed CaptureSeed
	Leftovers   Leftovers
}

func (c CaptureSeed) String() string {
	switch c {
	case CaptureTaken:
		return "taken"
	case CaptureLeft:
		return "left"
	}
	return fmt.Sprintf("CaptureSeed(%d)", uint8(c))
}

func (l Leftovers) String() string {
	switch l {
	case LeftoversLastMover:
		return "last_mover"
	case LeftoversSideOwner:
		return "side_owner"
	}
	return fmt.Sprintf("Leftovers(%d)", uint8(l))
}

// ParseRules reads the option words; an empty word means the default.
func ParseRules(captureSeed, leftovers string) (Rules, error) {
	var r Rules
	switch captureSeed {
	case "", "taken":
		r.CaptureSeed = CaptureTaken
	case "left":
		r.CaptureSeed = CaptureLeft
	default:
		return r, fmt.Errorf("%w: captureSeed %q, want taken or left", ErrInvalidRules, captureSeed)
	}
	switch leftovers {
	case "", "last_mover":
		r.Leftovers = LeftoversLastMover
	case "side_owner":
		r.Leftovers = LeftoversSideOwner
	default:
		return r, fmt.Errorf("%w: leftovers %q, want last_mover or side_owner", ErrInvalidRules, leftovers)
	}
	return r, nil
}

// Validate reports whether both options are known values.
func (r Rules) Validate() error {
	_, err := ParseRules(r.CaptureSeed.String(), r.Leftovers.String())
	return err
}
