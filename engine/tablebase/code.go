package tablebase

import "math/bits"

// A level-n value is 2x-n for an x from 0 to n: the mover's share x of the n
// seeds, less the opponent's n-x. A position's byte holds its bounds A <= B
// as the pair of shares (a, b), a <= b <= n, numbered b(b+1)/2 + a. For
// n <= 20 that is 231 codes, so one byte a position.

// pairCode returns the byte for shares a <= b.
func pairCode(a, b int) uint8 { return uint8(b*(b+1)/2 + a) }

// shares decodes a byte into the shares (a, b). Bytes above 230 never occur
// in a valid table; they decode to (0, 0) (a checksum guards the file).
var shares [256][2]uint8

func init() {
	for b := 0; b <= MaxSeedsLimit; b++ {
		for a := 0; a <= b; a++ {
			shares[pairCode(a, b)] = [2]uint8{uint8(a), uint8(b)}
		}
	}
}

// bounds decodes c at level n into the values A <= B.
func bounds(c uint8, n int) (a, b int) {
	s := &shares[c]
	return 2*int(s[0]) - n, 2*int(s[1]) - n
}

// encode is the byte of values A <= B at level n.
func encode(a, b, n int) uint8 { return pairCode((a+n)/2, (b+n)/2) }

// clamp returns s limited to [a, b]: max(a, min(b, s)).
func clamp(s, a, b int) int { return max(a, min(b, s)) }

// lowBit returns the index of the lowest set bit of m (m != 0).
func lowBit(m uint8) int { return bits.TrailingZeros8(m) }
