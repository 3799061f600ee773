package gen

import (
	"github.com/ayoayo/ayoayo/engine"
)

// Candidate positions come from self-play, so puzzles look like positions
// people reach: a few random opening moves for variety, then two simple
// players built on the engine, each with its own style and a seeded share of
// random moves. The search package's levels are not used: the generator must
// give the same puzzles whatever the AI becomes, and these policies are fixed
// by the generator version.

// policy is a self-play player's style.
type policy uint8

const (
	// greedy takes the biggest capture on offer.
	greedy policy = iota
	// cautious weighs its capture against the opponent's best reply.
	cautious
	numPolicies
)

// player is one side of a self-play game.
type player struct {
	style policy
	noise int // percent of moves played at random
}

// maxGamePlies ends a self-play game that runs on without a result; long
// games are rare and their late positions add nothing new.
const maxGamePlies = 240

// choose picks pl's move in p among c, its legal moves (at least one).
func (pl player) choose(p *engine.Position, c *children, r engine.Rules, rng *prng) int {
	if rng.intN(100) < pl.noise {
		return rng.intN(c.n)
	}
	best, ties := -1, 0
	bestScore := 0
	for i := range c.n {
		score := int(c.taken[i])
		if pl.style == cautious {
			threat, _ := maxCapture(&c.next[i], r)
			score -= threat
		}
		switch {
		case best < 0 || score > bestScore:
			best, bestScore, ties = i, score, 1
		case score == bestScore:
			// Reservoir choice among equal moves, so ties do not always go
			// to the lowest pit.
			ties++
			if rng.intN(ties) == 0 {
				best = i
			}
		}
	}
	return best
}

// selfPlay plays one game from the start position and appends to dst every
// position after the opening in which the game is not yet over. With
// minSeeds > 0 the game stops once fewer than minSeeds seeds are left on the
// board (version 1 plays every game out: minSeeds 0).
func selfPlay(rng *prng, r engine.Rules, dst []engine.Position, minSeeds int) []engine.Position {
	players := [2]player{
		{style: policy(rng.intN(int(numPolicies))), noise: rng.intN(25)},
		{style: policy(rng.intN(int(numPolicies))), noise: rng.intN(25)},
	}
	opening := 1 + rng.intN(10)
	p := engine.Start()
	var c children
	for ply := range maxGamePlies {
		c.expand(&p, r)
		if c.n == 0 || p.BoardSeeds() < minSeeds {
			break
		}
		if ply >= opening {
			dst = append(dst, p)
		}
		var i int
		if ply < opening {
			i = rng.intN(c.n)
		} else {
			i = players[p.ToMove].choose(&p, &c, r, rng)
		}
		p = c.next[i]
	}
	return dst
}
