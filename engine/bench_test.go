package engine

import (
	"math/rand/v2"
	"testing"
)

// randomPlayout plays uniformly random legal moves from p to the end of the
// game under the full rules: a move is drawn among the non-empty pits of the
// side to move and tried; an illegal one (endless relay, not feeding) is
// struck out and another drawn; when none is left the game ends with no moves.
// It returns the number of plies played and the final position.
func randomPlayout(p Position, r Rules, rng *rand.PCG) (int, Position) {
	plies := 0
	for p.MajorityResult().Reason == NotOver {
		var cand [RowPits]uint8
		n := 0
		first := p.ToMove.FirstPit()
		for pit := first; pit < first+RowPits; pit++ {
			if p.Pits[pit] != 0 {
				cand[n] = uint8(pit)
				n++
			}
		}
		moved := false
		for n > 0 {
			i := int(rng.Uint64() % uint64(n))
			next, why := p.Apply(int(cand[i]), r)
			if why == Legal {
				p = next
				moved = true
				break
			}
			n--
			cand[i] = cand[n]
		}
		if !moved {
			p = p.Settle(r)
			break
		}
		plies++
	}
	return plies, p
}

func BenchmarkPlayout(b *testing.B) {
	rng := rand.NewPCG(1, 2)
	plies := 0
	for b.Loop() {
		n, _ := randomPlayout(Start(), Rules{}, rng)
		plies += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "playouts/s")
	b.ReportMetric(float64(plies)/float64(b.N), "plies/playout")
}

type corpusMove struct {
	pos Position
	pit int
}

// gameCorpus collects every position of n seeded random games with the move
// the game played from it.
func gameCorpus(n int) []corpusMove {
	rng := rand.NewPCG(7, 11)
	var corpus []corpusMove
	for range n {
		p := Start()
		for {
			m := p.LegalMoves(Rules{})
			if m == 0 {
				break
			}
			k := int(rng.Uint64() % uint64(m.Len()))
			pit := m.Next()
			for range k {
				pit = m.Next()
			}
			corpus = append(corpus, corpusMove{p, pit})
			p, _ = p.Apply(pit, Rules{})
		}
	}
	return corpus
}

func BenchmarkPlay(b *testing.B) {
	corpus := gameCorpus(200)
	var out Outcome
	i := 0
	for b.Loop() {
		c := &corpus[i]
		Play(c.pos, c.pit, Rules{}, &out)
		i++
		if i == len(corpus) {
			i = 0
		}
	}
	b.ReportMetric(float64(len(corpus)), "corpus")
}

func BenchmarkApply(b *testing.B) {
	corpus := gameCorpus(200)
	i := 0
	for b.Loop() {
		c := &corpus[i]
		c.pos.Apply(c.pit, Rules{})
		i++
		if i == len(corpus) {
			i = 0
		}
	}
}
