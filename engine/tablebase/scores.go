package tablebase

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ayoayo/ayoayo/engine"
)

// True scores. A board's value V counts play continued past the majority
// to the end of the board, which gives the right result but not always the
// game's final difference: once a player holds 25 the real game stops, and
// the seeds still on the board count for no one. The score section holds,
// for the boards of the levels 0..S (S <= N), the rest of the real game:
// the mover's future captures less the opponent's, majority stop included,
// which depends on how the captured seeds are split as well as on the
// board.
//
// A real position with n seeds on the board has cm + co = 48 - n captured
// seeds, neither 25 or more (the game would be over), so cm runs over
// 24-n..24: n+1 splits, numbered j = cm - (24-n). With 48 = 2 x 24 seeds,
// some player can reach 25 in every one of them (the mover needs 25-cm,
// the opponent cm+n-23, n+2 seeds between them), so every split is kept.
//
// Each (board, split) holds its own bounds (A, B), defined as for V (see
// the package documentation) over the game in which a capture that brings
// the mover to 25 ends play (worth the seeds it took), the leftovers go as
// the rules say when the mover has no move, and play that never captures
// again is scored by the split of the rows at the position it starts from.
// A quiet move keeps the captured counts, so split j of a level's boards
// leads to split n-j (the opponent's counts) of the same level: the level's
// splits are solved in pairs {j, n-j}. A capture of k seeds from split j
// leads to split n-j-k of level n-k, or ends the game when k > n-j.
//
// The score, W = clamp(s(p), A, B), is then the real game's future for the
// mover; unlike V it need not have n's parity (seeds may be left), so it
// takes a byte of its own: W+n, with the top bit set when A < B. Those
// boards are few (1,262 of 32.7 million entries up to 12 seeds, default
// rules), and only a quiet move's value, anchored at the position it is
// played from, needs their bounds: they are listed apart, sorted by entry.

// DefaultScoreSeeds is S, the levels with true scores, of a table built with
// Build: the whole table up to 12 seeds (2.7 M boards, 32.7 M scores, a
// byte each).
const DefaultScoreSeeds = 12

// MaxScoreSeeds is the largest S a build accepts: the scores up to 14
// seeds take 134 MB, and the build of level 14 holds its exits and quiet
// moves besides (a build of S = 14 peaked at 752 MB).
const MaxScoreSeeds = 14

// maxCaptured is the most seeds a player may hold in a game not yet over.
const maxCaptured = engine.Majority - 1

// splits returns how many splits of the captured seeds a level-n board has
// in a game not yet over: n+1.
func splits(n int) int { return n + 1 }

// scoreLevelSize is the number of (board, split) entries of level n.
func scoreLevelSize(n int) int64 { return LevelSize(n) * int64(splits(n)) }

// scoreEntry returns the index of p's (board, split) entry in the score
// section and its level, or ok=false when the section does not hold p: more
// than S seeds on the board, a table closed or without scores, or captured
// counts no unfinished game has (a majority, or a total other than 48).
func (t *Table) scoreEntry(p *engine.Position) (e int64, n int, ok bool) {
	for _, v := range p.Pits {
		n += int(v)
	}
	if n > t.scoreSeeds || n > int(t.limit.Load()) {
		return 0, n, false
	}
	cm, co := int(p.Captured[p.ToMove]), int(p.Captured[p.ToMove.Other()])
	if cm > maxCaptured || co > maxCaptured || cm+co+n != engine.SeedCount {
		return 0, n, false
	}
	var idx uint32
	if p.ToMove == engine.South {
		idx = rank(&p.Pits, n)
	} else {
		idx = rankRotated(&p.Pits, n)
	}
	return t.scoreOffset[n] + int64(idx)*int64(splits(n)) + int64(cm-(maxCaptured-n)), n, true
}

// openFlag marks a score byte whose bounds differ (see openBounds).
const openFlag = 0x80

// openBounds are the bounds of an entry whose A < B.
type openBounds struct {
	entry uint32
	a, b  int8
}

// scoreOf decodes entry e of level n into its score W.
func (t *Table) scoreOf(e int64, n int) int { return int(t.scores[e]&^openFlag) - n }

// scoreBounds returns the bounds of entry e of level n.
func (t *Table) scoreBounds(e int64, n int) (a, b int) {
	c := t.scores[e]
	if c&openFlag == 0 {
		w := int(c) - n
		return w, w
	}
	i, _ := slices.BinarySearchFunc(t.open, uint32(e), func(o openBounds, e uint32) int { return cmp.Compare(o.entry, e) })
	o := t.open[i] // Open checks that every open entry is listed
	return int(o.a), int(o.b)
}

// ScoreSeeds returns S: positions with at most S seeds on the board have
// true scores (Score, MoveScores). It is -1 for a table that has none (a
// result-only table: built so, or read from a version 1 file).
func (t *Table) ScoreSeeds() int { return t.scoreSeeds }

// Score returns the true final difference of the game from p for p's
// mover, with perfect play by both: captured seeds, the mover's less the
// opponent's, when the game ends by the rules (majority stop included),
// with a cycle that neither side profitably leaves scored as the
// repetition rule scores it at p, as Value does. ok is false when p has
// more than ScoreSeeds seeds on the board or is not a position of a game
// still going on (a majority reached, or not 48 seeds in all).
func (t *Table) Score(p *engine.Position) (score int, ok bool) {
	e, n, ok := t.scoreEntry(p)
	if !ok {
		return 0, false
	}
	return p.Margin(p.ToMove) + t.scoreOf(e, n), true
}

// MoveScores appends to out[:0] every legal move of p with its true score
// in Value: the game's final difference for p's mover after the move, with
// perfect play, anchored at p as Moves anchors its values (a cycle a quiet
// move enters is scored at p), so the best move's Value is Score(p). ok is
// false when Score's is. It allocates only when out is too short.
func (t *Table) MoveScores(p engine.Position, out []MoveValue) ([]MoveValue, bool) {
	out = out[:0]
	if _, _, ok := t.scoreEntry(&p); !ok {
		return out, false
	}
	s := split(&p)
	margin := p.Margin(p.ToMove)
	first := p.ToMove.FirstPit()
	for pit := first; pit < first+engine.RowPits; pit++ {
		if p.Pits[pit] == 0 {
			continue
		}
		q, capt, why := p.ApplyCapture(pit, t.rules)
		if why != engine.Legal {
			continue
		}
		mv := MoveValue{Pit: pit}
		if !capt.None() {
			mv.Captured = int(capt.Seeds)
		}
		switch {
		case q.MajorityResult().Over(): // the capture ends the game at once
			mv.Value = q.Margin(p.ToMove)
		case capt.None():
			e, n, ok := t.scoreEntry(&q)
			if !ok { // closed meanwhile, against Close's contract
				return out[:0], false
			}
			a, b := t.scoreBounds(e, n)
			mv.Value = margin + clamp(s, -b, -a)
		default:
			v, ok := t.Score(&q)
			if !ok {
				return out[:0], false
			}
			mv.Value = -v
		}
		out = append(out, mv)
	}
	return out, true
}

// scoreGraph is what the splits of one level need of its boards, found
// once for all of them: sowing costs far more than the iterations over the
// splits. The captures are kept as their values at each split (the levels
// below are done), the quiet moves as the boards they lead to.
type scoreGraph struct {
	n      int
	split  []int8   // s(p) of each board
	end    []int8   // a board without a legal move: its settled value; else noExit
	qfirst []uint32 // board i's quiet moves are qfirst[i]..qfirst[i+1]-1
	qchild []uint32 // the rank of the board a quiet move leads to, turned to its mover
	// exits[i*(n+1)+j] is the best value of board i's captures at split j,
	// or noExit.
	exits []int8
}

// graphPart is the quiet moves of one chunk of boards.
type graphPart struct {
	count []uint8
	child []uint32
}

// scoreBuild is a build's score section under way.
type scoreBuild struct {
	t       *Table
	workers int
	gate    Gate
	mu      sync.Mutex
	open    []openBounds // the open entries found so far, in any order
}

// run admits f through the gate, if any.
func (sb *scoreBuild) run(ctx context.Context, f func()) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if sb.gate == nil {
		f()
		return nil
	}
	done, err := sb.gate(ctx)
	if err != nil {
		return fmt.Errorf("tablebase: build held back: %w", err)
	}
	f()
	done()
	return nil
}

// each runs f(0), ..., f(count-1) on every worker, each call admitted by the
// gate, and returns the first error.
func (sb *scoreBuild) each(ctx context.Context, count int, f func(i int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, sb.workers)
	for w := range sb.workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= count {
					return
				}
				if err := sb.run(ctx, func() { f(i) }); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// graph finds the moves of every board of level n and the value of its
// captures at every split, a chunk of boards at a time on every worker.
func (sb *scoreBuild) graph(ctx context.Context, n int) (*scoreGraph, error) {
	size := int(LevelSize(n))
	g := &scoreGraph{n: n, split: make([]int8, size), end: make([]int8, size), exits: make([]int8, size*splits(n))}
	parts := make([]graphPart, (size+chunk-1)/chunk)
	err := sb.each(ctx, len(parts), func(c int) { parts[c] = sb.graphChunk(g, c*chunk, min(size, (c+1)*chunk)) })
	if err != nil {
		return nil, err
	}
	moves := 0
	for _, p := range parts {
		moves += len(p.child)
	}
	g.qfirst, g.qchild = make([]uint32, 1, size+1), make([]uint32, 0, moves)
	for c := range parts {
		for _, k := range parts[c].count {
			g.qfirst = append(g.qfirst, g.qfirst[len(g.qfirst)-1]+uint32(k))
		}
		g.qchild = append(g.qchild, parts[c].child...)
		parts[c] = graphPart{} // its memory can go at once
	}
	return g, nil
}

// graphChunk fills g for boards lo..hi-1 and returns their quiet moves.
// A capture of k seeds from split j brings the mover to 24-n+j+k captured:
// 25 or more ends the game (worth k), otherwise the opponent moves at split
// n-j-k of level n-k, whose splits lie side by side.
func (sb *scoreBuild) graphChunk(g *scoreGraph, lo, hi int) graphPart {
	n := g.n
	part := graphPart{count: make([]uint8, hi-lo), child: make([]uint32, 0, 2*(hi-lo))}
	var x [engine.NumPits]uint8
	unrank(uint32(lo), n, &x)
	for idx := lo; idx < hi; idx++ {
		if idx > lo {
			next(&x)
		}
		p := engine.Position{Pits: x}
		g.split[idx] = int8(split(&p))
		g.end[idx] = noExit
		row := g.exits[idx*splits(n) : (idx+1)*splits(n)]
		for j := range row {
			row[j] = noExit
		}
		legal := false
		for pit := range engine.RowPits {
			if x[pit] == 0 {
				continue
			}
			q, capt, why := p.ApplyCapture(pit, sb.t.rules)
			if why != engine.Legal {
				continue
			}
			legal = true
			if capt.None() {
				part.count[idx-lo]++
				part.child = append(part.child, rankRotated(&q.Pits, n))
				continue
			}
			k := int(capt.Seeds)
			mc := n - k
			base := sb.t.scoreOffset[mc] + int64(rankRotated(&q.Pits, mc))*int64(splits(mc))
			for j := range row {
				v := k
				if jc := n - j - k; jc >= 0 {
					v = k - sb.t.scoreOf(base+int64(jc), mc)
				}
				row[j] = max(row[j], int8(v))
			}
		}
		if !legal {
			g.end[idx] = int8(settled(&p, sb.t.rules))
		}
	}
	return part
}

// level solves level n of the score section, its split pairs shared out
// among the workers; done is called with the entries each pair settled.
func (sb *scoreBuild) level(ctx context.Context, n int, done func(int64)) error {
	g, err := sb.graph(ctx, n)
	if err != nil {
		return err
	}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, sb.workers)
	for w := range sb.workers {
		wg.Go(func() {
			var sc pairScratch // one per worker for all its pairs: less garbage
			for {
				j := int(next.Add(1) - 1)
				if j > n-j {
					return
				}
				if err := sb.pair(ctx, g, j, &sc); err != nil {
					errs[w] = err
					return
				}
				sides := int64(2)
				if j == n-j {
					sides = 1
				}
				mu.Lock()
				done(sides * int64(len(g.split)))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

// pairScratch is the working memory of pair: each side's bounds and its
// boards not decided yet.
type pairScratch struct {
	a, b    [2][]int8
	pending [2][]uint32
}

// pair solves the splits j and n-j of level n together: A up from below
// and B down from above, sweep after sweep over the boards not decided
// yet, until a sweep changes nothing (their least and greatest fixpoints,
// as for the board values).
func (sb *scoreBuild) pair(ctx context.Context, g *scoreGraph, j int, sc *pairScratch) error {
	n := g.n
	size := len(g.split)
	js := []int{j, n - j}
	if j == n-j {
		js = js[:1]
	}
	a, b, pending := &sc.a, &sc.b, &sc.pending
	for x := range js {
		if cap(a[x]) < size {
			a[x], b[x] = make([]int8, size), make([]int8, size)
		}
		a[x], b[x], pending[x] = a[x][:size], b[x][:size], pending[x][:0]
	}
	// other is the side a quiet move leads to: the opponent's split.
	other := func(x int) int { return (x + 1) % len(js) }
	for x, jx := range js {
		for lo := 0; lo < size; lo += chunk {
			err := sb.run(ctx, func() {
				for i := lo; i < min(size, lo+chunk); i++ {
					if e := g.end[i]; e != noExit {
						a[x][i], b[x][i] = e, e
						continue
					}
					best := int(g.exits[i*splits(n)+jx])
					if g.qfirst[i] == g.qfirst[i+1] || best == n {
						a[x][i], b[x][i] = int8(best), int8(best)
						continue
					}
					a[x][i], b[x][i] = int8(max(best, -n)), int8(n)
					pending[x] = append(pending[x], uint32(i))
				}
			})
			if err != nil {
				return err
			}
		}
	}
	for {
		changed := false
		err := sb.run(ctx, func() {
			for x, jx := range js {
				ox := other(x)
				kept := pending[x][:0]
				for _, i := range pending[x] {
					exit := int(g.exits[int(i)*splits(n)+jx])
					na, nb := exit, exit
					for _, q := range g.qchild[g.qfirst[i]:g.qfirst[i+1]] {
						na = max(na, -int(b[ox][q]))
						nb = max(nb, -int(a[ox][q]))
					}
					na, nb = max(na, int(a[x][i])), min(nb, int(b[x][i]))
					if int8(na) != a[x][i] || int8(nb) != b[x][i] {
						a[x][i], b[x][i] = int8(na), int8(nb)
						changed = true
					}
					if na < nb {
						kept = append(kept, i)
					}
				}
				pending[x] = kept
			}
		})
		if err != nil {
			return err
		}
		if !changed {
			break
		}
	}
	off := sb.t.scoreOffset[n]
	var open []openBounds
	for x, jx := range js {
		for i := range size {
			e := off + int64(i)*int64(splits(n)) + int64(jx)
			ai, bi := a[x][i], b[x][i]
			c := uint8(clamp(int(g.split[i]), int(ai), int(bi)) + n)
			if ai < bi {
				c |= openFlag
				open = append(open, openBounds{entry: uint32(e), a: ai, b: bi})
			}
			sb.t.scores[e] = c
		}
	}
	sb.mu.Lock()
	sb.open = append(sb.open, open...)
	sb.mu.Unlock()
	return nil
}
