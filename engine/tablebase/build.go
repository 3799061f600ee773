package tablebase

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/ayoayo/ayoayo/engine"
)

// noExit stands for "no move leaves the level" in the exits' maximum.
const noExit = -128

// Build computes the table of every board with at most maxSeeds seeds under
// r, level by level from 0 seeds up. progress, when not nil, is called now
// and then with the boards finished so far and the total, never by two
// goroutines at once; the last call has done == total. (A level's boards
// count as finished once their moves are looked at; the iteration over the
// cycles that follows is not counted.) Build stops with ctx's error when ctx is cancelled.
func Build(ctx context.Context, maxSeeds int, r engine.Rules, progress func(done, total int64)) (*Table, error) {
	if maxSeeds < 0 || maxSeeds > MaxSeedsLimit {
		return nil, fmt.Errorf("tablebase: %d seeds, want 0 to %d", maxSeeds, MaxSeedsLimit)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	t := &Table{rules: r, maxSeeds: maxSeeds}
	t.setOffsets()
	t.body = make([]byte, t.offset[maxSeeds+1])
	if progress == nil {
		progress = func(int64, int64) {}
	}
	total := t.offset[maxSeeds+1]
	for n := 0; n <= maxSeeds; n++ {
		b := &builder{t: t, n: n, level: t.body[t.offset[n]:t.offset[n+1]]}
		if err := b.run(ctx, func(done int64) { progress(t.offset[n]+done, total) }); err != nil {
			return nil, err
		}
	}
	progress(total, total)
	return t, nil
}

// setOffsets fills the level offsets for t.maxSeeds.
func (t *Table) setOffsets() {
	for n := 0; n <= t.maxSeeds; n++ {
		t.offset[n+1] = t.offset[n] + LevelSize(n)
	}
}

// builder solves one level.
type builder struct {
	t     *Table
	n     int
	level []byte // this level's bytes, written in place
}

// pending is a board whose value depends on boards of its own level: its
// index, the best of its moves that leave the level (or noExit), and the
// pits of its moves that stay.
type pending struct {
	idx   uint32
	exit  int8
	quiet uint8
}

// chunk is how many boards a worker takes at a time in the first pass.
const chunk = 1 << 16

func (b *builder) run(ctx context.Context, progress func(done int64)) error {
	size := len(b.level)
	workers := runtime.GOMAXPROCS(0)
	chunks := (size + chunk - 1) / chunk
	lists := make([][]pending, chunks)
	var mu sync.Mutex
	nextChunk, done := 0, int64(0)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				mu.Lock()
				c := nextChunk
				nextChunk++
				mu.Unlock()
				if c >= chunks {
					return
				}
				lo, hi := c*chunk, min(size, (c+1)*chunk)
				lists[c] = b.exits(lo, hi)
				mu.Lock()
				done += int64(hi - lo)
				progress(done) // under the lock: calls never overlap
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	var work []pending
	for _, l := range lists {
		work = append(work, l...)
	}
	lists = nil
	return b.solve(ctx, work)
}

// exits evaluates boards lo..hi-1 of the level: every board whose moves all
// leave the level (or that has none) gets its final value; the others get
// the starting bounds of the fixpoint iteration and are returned.
func (b *builder) exits(lo, hi int) []pending {
	var work []pending
	var x [engine.NumPits]uint8
	unrank(uint32(lo), b.n, &x)
	n := b.n
	for idx := lo; idx < hi; idx++ {
		if idx > lo {
			next(&x)
		}
		p := engine.Position{Pits: x}
		best, quiet, legal := noExit, uint8(0), false
		for pit := range engine.RowPits {
			if x[pit] == 0 {
				continue
			}
			q, capt, why := p.ApplyCapture(pit, b.t.rules)
			if why != engine.Legal {
				continue
			}
			legal = true
			if capt.None() {
				quiet |= 1 << pit
				continue
			}
			k := int(capt.Seeds)
			m := n - k
			c := b.t.body[b.t.offset[m]+int64(rankRotated(&q.Pits, m))]
			a, bb := bounds(c, m)
			q.ToMove = engine.North
			best = max(best, k-clamp(split(&q), a, bb))
		}
		switch {
		case !legal:
			v := -n // the opponent, who just moved, takes every seed
			if b.t.rules.Leftovers == engine.LeftoversSideOwner {
				v = split(&p)
			}
			b.level[idx] = encode(v, v, n)
		case quiet == 0 || best == n:
			b.level[idx] = encode(best, best, n)
		default:
			b.level[idx] = encode(max(best, -n), n, n)
			work = append(work, pending{idx: uint32(idx), exit: int8(best), quiet: quiet})
		}
	}
	return work
}

// solve iterates A up from below and B down from above on the pending
// boards, in place (Gauss-Seidel), until nothing changes: A's least fixpoint
// and B's greatest. Boards whose bounds meet are dropped from the work.
func (b *builder) solve(ctx context.Context, work []pending) error {
	n := b.n
	var x [engine.NumPits]uint8
	for changed := true; changed && len(work) > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		changed = false
		kept := work[:0]
		for _, w := range work {
			unrank(w.idx, n, &x)
			p := engine.Position{Pits: x}
			na, nb := int(w.exit), int(w.exit)
			for quiet := w.quiet; quiet != 0; quiet &= quiet - 1 {
				pit := lowBit(quiet)
				q, _, _ := p.ApplyCapture(pit, b.t.rules)
				qa, qb := bounds(b.level[rankRotated(&q.Pits, n)], n)
				na = max(na, -qb)
				nb = max(nb, -qa)
			}
			na = max(na, -n) // the starting bound when nothing is known
			if c := encode(na, nb, n); c != b.level[w.idx] {
				b.level[w.idx] = c
				changed = true
			}
			if na < nb {
				kept = append(kept, w)
			}
		}
		work = kept
	}
	return nil
}
