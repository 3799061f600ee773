package search

import "github.com/ayoayo/ayoayo/engine"

// Scores inside the search are in hundredths of a seed (centiseeds), for the
// side to move. A finished game scores exactly 100 times its final difference
// in captured seeds; the evaluation of an unfinished position is the captured
// difference plus the positional terms of Weights.
const (
	unit     = 100       // centiseeds per seed
	infinity = 32000     // beyond any score; fits the table's int16
	maxScore = 60 * unit // no evaluation reaches this
)

// Weights are the positional terms of the evaluation, in centiseeds, each
// counted for the side to move minus the same for the opponent.
//
// DefaultWeights come from self-play (TestTune, coordinate ascent over paired
// matches from balanced openings at levels 4 and 5; README, "The AI"): only
// Pits and Target earned a weight. Pits is a cheap stand-in for mobility, the
// number of moves left before a row runs dry; Target counts the seeds a
// capture could take next. Row, Hoard and Tempo scored within the noise at
// every weight tried, so they stay at zero.
type Weights struct {
	Row    int // per seed in the player's own row
	Pits   int // per non-empty pit in the player's own row
	Hoard  int // per pit holding 12 or more seeds: it laps the board when sown
	Target int // per seed in an opponent's pit facing an empty pit of the player's
	Tempo  int // for being the side to move
}

// DefaultWeights is the evaluation every level and analysis uses.
var DefaultWeights = Weights{Pits: 15, Target: 5}

// finalScore is the exact score of a finished position for the side to move:
// its captured seeds minus the opponent's, once the board is settled as the
// ending requires. A win by majority leaves the board as it is, so the score
// is the captured difference at that moment.
func finalScore(p *engine.Position) int {
	me := p.ToMove
	return unit * (int(p.Captured[me]) - int(p.Captured[me.Other()]))
}

// noMovesScore is the exact score when the side to move has no legal move:
// the leftovers go to the last mover, or to each row's owner.
func noMovesScore(p *engine.Position, r engine.Rules) int {
	me := p.ToMove
	mine, theirs := int(p.Captured[me]), int(p.Captured[me.Other()])
	if r.Leftovers == engine.LeftoversSideOwner {
		mine += p.RowSeeds(me)
		theirs += p.RowSeeds(me.Other())
	} else {
		theirs += p.BoardSeeds()
	}
	return unit * (mine - theirs)
}

// repetitionScore is the exact score when a position occurs for the third
// time: each player takes the seeds in their own row.
func repetitionScore(p *engine.Position) int {
	me := p.ToMove
	return unit * (int(p.Captured[me]) + p.RowSeeds(me) - int(p.Captured[me.Other()]) - p.RowSeeds(me.Other()))
}

func majorityOver(p *engine.Position) bool {
	return p.Captured[0] >= engine.Majority || p.Captured[1] >= engine.Majority
}

// evaluate scores an unfinished position for the side to move.
func (w *Weights) evaluate(p *engine.Position) int {
	me := int(p.ToMove) * engine.RowPits
	opp := engine.RowPits - me
	v := unit*(int(p.Captured[p.ToMove])-int(p.Captured[p.ToMove.Other()])) + w.Tempo
	var row, pits, hoard, target int
	for i := range engine.RowPits {
		a, b := int(p.Pits[me+i]), int(p.Pits[opp+i])
		row += a - b
		if a > 0 {
			pits++
		}
		if b > 0 {
			pits--
		}
		if a >= 12 {
			hoard++
		}
		if b >= 12 {
			hoard--
		}
		// Pit me+i faces 11-(me+i); for South's pit i that is North's 11-i,
		// which is opp+5-i in the other row.
		if a == 0 {
			target += int(p.Pits[opp+engine.RowPits-1-i])
		}
		if b == 0 {
			target -= int(p.Pits[me+engine.RowPits-1-i])
		}
	}
	return v + w.Row*row + w.Pits*pits + w.Hoard*hoard + w.Target*target
}
