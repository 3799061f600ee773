// Package tablebase holds endgame tables for Ayoayo: for every board with at
// most N seeds on it (N up to 20) and the player to move, the value of the
// rest of the game under perfect play, built by levels n = 0, 1, ..., N and
// stored in one byte a board, in memory or in a memory-mapped file; and,
// for the boards with at most S <= N seeds, the true score of every
// position of a game still going on, majority stop included (see scores.go
// and Table.Score): the value gives the result, the score the game's final
// difference.
//
// # Value
//
// Positions are taken with the mover turned to South (a board with North to
// move is looked up turned round by six pits); captured counts are ignored.
// The value V(p) of a board with n seeds is the mover's future captures less
// the opponent's under perfect play, play continued to the very end (the
// majority of 25 does not stop it inside the table), under the table's rule
// options. The game ends inside the table when the mover has no legal move
// (the engine's legality: an empty row, infinite_relay, must_feed); the
// leftovers then go as the rules say: with last_mover the opponent, who made
// the last move, takes all n (value -n); with side_owner each takes their own
// row (value s(p) below).
//
// Moves that capture nothing keep n, so boards of one level depend on each
// other and may cycle. Let s(p), the split, be the seeds in the mover's row
// less those in the opponent's: what the repetition rule of game sessions
// gives the mover. Each board gets two bounds, with a move's exit value e_m
// (a capture of k seeds to c: k - V(c), c's own value, of a lower level) and
// its quiet children q (same level):
//
//	A(p) = max over moves of (e_m | -B(q))   least fixpoint, from A = -n up
//	B(p) = max over moves of (e_m | -A(q))   greatest fixpoint, from B = n down
//	V(p) = clamp(s(p), A(p), B(p)) = max(A, min(B, s))
//
// A counts a play that never leaves the level as the worst outcome for p's
// mover, B as the best. A <= B, and every value of level n has n's parity, so
// the pair fits in a byte for n <= 20 (231 pairs).
//
// # Why V is the value of the repetition-scored game
//
// Let G(p) be the game from p in which a play that never captures again is
// scored s(p) for p's mover (and a play that captures into c is scored by
// G(c) from there). For an integer t, p's mover X can make sure of at least
// t in G(p) in exactly two ways:
//
//   - force, in a bounded number of moves, an exit worth >= t. The k-th
//     iterate of A from -n is what X can force within k moves, so this holds
//     iff A(p) >= t (the least fixpoint is the attractor);
//   - keep the play away from every exit worth < t forever, and have s(p) >= t
//     for the plays that stay. Keeping away forever is what the greatest
//     fixpoint B gives (a play that stays is worth the best, so B(p) >= t iff
//     X has such a strategy: the safety game), so this holds iff
//     B(p) >= t and s(p) >= t.
//
// A strategy that makes sure of t does one or the other: if every play it
// allows exits (at >= t), then, the tree being finitely branching, König's
// lemma bounds their length, so A(p) >= t; if some play it allows stays
// forever, that play is worth s(p) >= t and the strategy keeps every play off
// exits worth < t, so B(p) >= t. So X gets >= t iff t <= A or t <= min(B, s), that
// is t <= max(A, min(B, s)) = V(p). A play from p that cycles back to p and
// stays is what the session rule ends at the third occurrence of p (the first
// position to occur three times), scoring s(p): a cycle neither side can
// profitably leave is scored as the repetition rule scores it.
//
// # Move values
//
// Seen from the root p, an exit is worth e_m and a quiet move to q is worth
// clamp(s(p), -B(q), -A(q)): q's own bounds, negated, anchored at p's split.
// The best of them is V(p), because clamp distributes over max:
//
//	max(max e, max_q max(-B(q), min(-A(q), s)))
//	  = max(max e, max_q -B(q), min(max_q -A(q), s))
//	  = max(A, min(B, s))     (min(max e, s) <= max e is absorbed)
//
// so Moves gives the best move the position's value, always.
//
// # Win, draw or loss
//
// For a real position with captured counts cm (mover) and co (opponent),
// Result gives sign(cm - co + V): win, draw or loss with perfect play, even
// though the real game stops as soon as a player has 25. Along any play, once
// a player has 25 of the 48 seeds the other can end with at most 23, so the
// sign of the final margin is fixed from then on: the real game's payoff of a
// play is g(x) = sign(cm - co + x) of the payoff x of the same play continued
// to the end. g is monotone (non-decreasing), and max, min and clamp commute
// with non-decreasing maps, so the value of the game with payoff g is g of
// the value with payoff x: sign(cm - co + V). A cycle after a majority never
// happens in the real game, but its sign was fixed before it, so the scoring
// of cycles does not change the result.
package tablebase
