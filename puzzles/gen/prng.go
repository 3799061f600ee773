package gen

import (
	"math/bits"
	"math/rand/v2"
)

// prng is the generator's only source of chance. It draws from PCG-DXSM, whose
// output for given seeds is fixed by its definition, and maps it to a range
// with its own arithmetic, so the puzzles stay the same even if a later Go
// release changes how math/rand/v2 implements IntN.
type prng struct{ src *rand.PCG }

func newPRNG(seed1, seed2 uint64) *prng { return &prng{src: rand.NewPCG(seed1, seed2)} }

// intN returns a number in [0, n), n > 0: the high word of a 64x64-bit
// product, biased by less than n/2^64, which is nothing at these sizes.
func (g *prng) intN(n int) int {
	hi, _ := bits.Mul64(g.src.Uint64(), uint64(n))
	return int(hi)
}
