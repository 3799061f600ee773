package engine

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

// String returns "taken" or "left", the words the API uses.
func (c CaptureSeed) String() string { return captureSeedWords.name(uint8(c)) }

// String returns "last_mover" or "side_owner", the words the API uses.
func (l Leftovers) String() string { return leftoversWords.name(uint8(l)) }

// ParseRules reads the option words, as UnmarshalText does, except that an
// empty word means the default: both options are optional in the API.
func ParseRules(captureSeed, leftovers string) (Rules, error) {
	var r Rules
	var err error
	if captureSeed != "" {
		if r.CaptureSeed, err = parseWord[CaptureSeed](&captureSeedWords, captureSeed); err != nil {
			return Rules{}, err
		}
	}
	if leftovers != "" {
		if r.Leftovers, err = parseWord[Leftovers](&leftoversWords, leftovers); err != nil {
			return Rules{}, err
		}
	}
	return r, nil
}

// Validate reports whether both options are known values.
func (r Rules) Validate() error {
	_, err := ParseRules(r.CaptureSeed.String(), r.Leftovers.String())
	return err
}
