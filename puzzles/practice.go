package puzzles

// PracticeFilter says which practice puzzles a player asks for; a zero field
// takes any.
type PracticeFilter struct {
	Difficulty int    // 1..5, 0 any
	Goal       Goal   // "" any
	Theme      string // "" any
}
