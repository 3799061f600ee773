package search

import (
	"encoding/binary"
	"math/bits"

	"github.com/ayoayo/ayoayo/engine"
)

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
// matches from balanced openings at levels 4 and 5; docs/ai.md, "The
// evaluation"): only Pits and Target earned a weight. Pits is a cheap
// stand-in for mobility, the number of moves left before a row runs dry;
// Target counts the seeds a capture could take next. Row, Hoard and Tempo scored within the noise at
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
// its margin once the board is settled as the ending requires. A win by
// majority leaves the board as it is, so the score is the captured difference
// at that moment.
func finalScore(p *engine.Position) int { return unit * p.Margin(p.ToMove) }

// noMovesScore is the exact score when the side to move has no legal move:
// the engine's settlement of the leftovers (to the last mover, or to each
// row's owner) decides it.
func noMovesScore(p *engine.Position, r engine.Rules) int {
	final := p.Settle(r)
	return unit * final.Margin(p.ToMove)
}

// repetitionScore is the exact score when a position occurs for the third
// time: each player takes the seeds in their own row, as engine.Game does.
func repetitionScore(p *engine.Position) int {
	final := p.SplitRows()
	return unit * final.Margin(p.ToMove)
}

// rows returns the side to move's row and the opponent's as six bytes each,
// pit by pit from the row's first pit.
func rows(p *engine.Position) (me, opp uint64) {
	south := binary.LittleEndian.Uint64(p.Pits[0:8]) & rowMask
	north := binary.LittleEndian.Uint64(p.Pits[4:12]) >> 16
	if p.ToMove == engine.South {
		return south, north
	}
	return north, south
}

const (
	rowMask = 0x0000_ffff_ffff_ffff
	lows    = 0x0000_0101_0101_0101 // the low bit of each pit's byte
	highs   = 0x0000_8080_8080_8080 // the high bit of each pit's byte
)

// A pit holds at most 48 seeds, so adding 0x80-k to its byte sets the byte's
// high bit exactly when it holds k or more, and never carries into the next.
func atLeast(row uint64, k uint64) uint64 { return (row + (0x80-k)*lows) & highs }

// byteSum adds up a row's bytes; the sum is at most 48, so it fits one byte.
func byteSum(row uint64) int { return int(row * 0x0101_0101_0101_0101 >> 40 & 0xff) }

// evaluate scores an unfinished position for the side to move. It works on
// each row packed into a word, a few operations per term.
func (w *Weights) evaluate(p *engine.Position) int {
	me, opp := rows(p)
	v := unit*p.Margin(p.ToMove) + w.Tempo
	meFull, oppFull := atLeast(me, 1), atLeast(opp, 1)
	v += w.Row * (byteSum(me) - byteSum(opp))
	v += w.Pits * (bits.OnesCount64(meFull) - bits.OnesCount64(oppFull))
	v += w.Hoard * (bits.OnesCount64(atLeast(me, 12)) - bits.OnesCount64(atLeast(opp, 12)))
	// Pit i of a row faces pit 5-i of the other: reversing a row's bytes
	// lines each pit up with the one it faces. A byte mask of the empty pits
	// then picks the seeds a capture into them could take.
	meEmpty := (highs &^ meFull) >> 7 * 0xff
	oppEmpty := (highs &^ oppFull) >> 7 * 0xff
	v += w.Target * (byteSum(reverse(opp)&meEmpty) - byteSum(reverse(me)&oppEmpty))
	return v
}

// reverse reverses the order of a row's six pits.
func reverse(row uint64) uint64 { return bits.ReverseBytes64(row) >> 16 }
