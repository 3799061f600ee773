package tablebase

import "github.com/ayoayo/ayoayo/engine"

// MaxSeedsLimit is the largest N a table can hold: a level's (A, B) pair
// must fit in one byte (see code), and level 20 already has 84.7 million
// boards.
const MaxSeedsLimit = 20

// ways[k][r] is the number of ways to put r seeds into k pits,
// C(r+k-1, k-1). Levels above MaxSeedsLimit are never ranked.
var ways [engine.NumPits + 1][MaxSeedsLimit + 1]uint32

// below[i][r][v] is how many boards with r seeds left for pits i..11 put
// fewer than v seeds into pit i: the rank's step at pit i. One table lookup
// per pit keeps the probe short; the padding to 32 lets masked indexes skip
// the bounds checks.
var below [engine.NumPits][32][32]uint32

func init() {
	for k := 1; k <= engine.NumPits; k++ {
		for r := 0; r <= MaxSeedsLimit; r++ {
			if k == 1 || r == 0 {
				ways[k][r] = 1
				continue
			}
			ways[k][r] = ways[k][r-1] + ways[k-1][r] // the first pit holds >= 1, or 0
		}
	}
	for i := range engine.NumPits {
		k := engine.NumPits - i
		for r := 0; r <= MaxSeedsLimit; r++ {
			for v := 0; v <= r; v++ {
				// boards with pit i >= v leave r-v seeds for k pits
				below[i][r][v] = ways[k][r] - ways[k][r-v]
			}
		}
	}
}

// LevelSize returns how many boards hold exactly n seeds (n <= MaxSeedsLimit).
func LevelSize(n int) int64 { return int64(ways[engine.NumPits][n]) }

// rank returns the index of board x, holding n seeds, among all boards with
// n seeds in lexicographic order of the pits (pit 0 most significant). The
// caller guarantees the pits add up to n <= MaxSeedsLimit.
func rank(x *[engine.NumPits]uint8, n int) uint32 {
	var idx uint32
	r := n
	for i := range engine.NumPits - 1 {
		v := int(x[i])
		idx += below[i][r&31][v&31]
		r -= v
	}
	return idx
}

// rankRotated is rank of the board seen from North: pit i of the result is
// pit i+6 of x. It saves the probe a copy.
func rankRotated(x *[engine.NumPits]uint8, n int) uint32 {
	var idx uint32
	r := n
	for i := range engine.NumPits - 1 {
		v := int(x[(i+engine.RowPits)%engine.NumPits])
		idx += below[i][r&31][v&31]
		r -= v
	}
	return idx
}

// unrank writes into x the board of rank idx among boards with n seeds.
func unrank(idx uint32, n int, x *[engine.NumPits]uint8) {
	r := n
	for i := range engine.NumPits - 1 {
		v := 0
		for v < r && below[i][r][v+1] <= idx {
			v++
		}
		idx -= below[i][r][v]
		x[i] = uint8(v)
		r -= v
	}
	x[engine.NumPits-1] = uint8(r)
}

// next steps x to the following board of the same level in rank order and
// reports false after the last one.
func next(x *[engine.NumPits]uint8) bool {
	// The rightmost pit before the last with seeds after it takes one more;
	// the rest of those seeds go to the last pit.
	tail := int(x[engine.NumPits-1])
	for i := engine.NumPits - 2; i >= 0; i-- {
		if tail > 0 {
			x[i]++
			for j := i + 1; j < engine.NumPits-1; j++ {
				x[j] = 0
			}
			x[engine.NumPits-1] = uint8(tail - 1)
			return true
		}
		tail += int(x[i])
	}
	return false
}
