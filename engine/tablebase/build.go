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

// noExit stands for "no move leaves the level" in the exits' maximum.
const noExit = -128

// Build computes the table of every board with at most maxSeeds seeds under
// r, level by level from 0 seeds up, on workers goroutines (the caller
// knows the cores it may use; below 1 counts as 1),
// with true scores up to DefaultScores(maxSeeds) seeds (see BuildWith).
// progress, when not nil, is called now and then with the work done so far
// and the total, never by two goroutines at once; the last call has
// done == total. The work is two units a board: one when its moves are
// looked at, one when its value is decided (a level's cycles may leave a
// share of its boards undecided until the iteration ends). Build stops with
// ctx's error when ctx is cancelled.
//
// Memory: the table (one byte a board), plus for the level being solved four
// bytes a board in the working copy and four a board still undecided after
// its first look: about 0.6 GiB at most for N = 20. The scores take two
// byte a board and split, 33 MB for S = 12, and their build holds a
// level's moves and exits, about 50 MB at level 12.
func Build(ctx context.Context, maxSeeds int, r engine.Rules, workers int, progress func(done, total int64)) (*Table, error) {
	return BuildGated(ctx, maxSeeds, r, workers, progress, nil)
}

// DefaultScores returns the S a build of N = maxSeeds gets by default:
// every level up to DefaultScoreSeeds.
func DefaultScores(maxSeeds int) int { return min(maxSeeds, DefaultScoreSeeds) }

// A Gate admits one piece of a build's work (a chunk of 65,536 boards, a few
// milliseconds): it returns once the piece may run, with the function to
// call when it is done, or an error that stops the build. A server passes
// one that takes a unit of its CPU budget, so that a build running for
// seconds lets more urgent work in between its pieces.
type Gate func(ctx context.Context) (done func(), err error)

// BuildGated is Build with every piece of the work admitted by gate (nil:
// none is held back).
func BuildGated(ctx context.Context, maxSeeds int, r engine.Rules, workers int, progress func(done, total int64), gate Gate) (*Table, error) {
	return BuildWith(ctx, maxSeeds, DefaultScores(maxSeeds), r, workers, progress, gate)
}

// BuildWith is BuildGated with true scores (Score, MoveScores) for the
// boards of up to scoreSeeds seeds, 0 <= scoreSeeds <= min(maxSeeds,
// MaxScoreSeeds), or none at all when scoreSeeds is -1: a result-only
// table, whose values give each position's result but not always the
// game's final difference. The progress's total then also counts one unit
// a board and split of the score section.
func BuildWith(ctx context.Context, maxSeeds, scoreSeeds int, r engine.Rules, workers int, progress func(done, total int64), gate Gate) (*Table, error) {
	if maxSeeds < 0 || maxSeeds > MaxSeedsLimit {
		return nil, fmt.Errorf("tablebase: %d seeds, want 0 to %d", maxSeeds, MaxSeedsLimit)
	}
	if scoreSeeds < -1 || scoreSeeds > min(maxSeeds, MaxScoreSeeds) {
		return nil, fmt.Errorf("tablebase: true scores up to %d seeds, want -1 (none) to %d", scoreSeeds, min(maxSeeds, MaxScoreSeeds))
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	t := newTable(r, maxSeeds, scoreSeeds)
	t.body = make([]byte, t.offset[maxSeeds+1])
	if progress == nil {
		progress = func(int64, int64) {}
	}
	boardWork := 2 * t.offset[maxSeeds+1]
	total := boardWork + t.scoreOffset[scoreSeeds+1]
	workers = max(workers, 1)
	for n := 0; n <= maxSeeds; n++ {
		b := newBuilder(t, n, workers)
		b.gate = gate
		if err := b.run(ctx, func(done int64) { progress(2*t.offset[n]+done, total) }); err != nil {
			return nil, err
		}
	}
	t.crc = checksum(t.body)
	if scoreSeeds >= 0 {
		t.scores = make([]byte, t.scoreOffset[scoreSeeds+1])
		sb := &scoreBuild{t: t, workers: workers, gate: gate}
		done := boardWork
		for n := 0; n <= scoreSeeds; n++ {
			if err := sb.level(ctx, n, func(d int64) { done += d; progress(done, total) }); err != nil {
				return nil, err
			}
		}
		slices.SortFunc(sb.open, func(x, y openBounds) int { return cmp.Compare(x.entry, y.entry) })
		t.open = sb.open
		t.scoresCRC = t.scoreChecksum()
	}
	progress(total, total)
	return t, nil
}

// builder solves one level. The level's bytes live in cells, four to a
// word, while it is solved: the workers read and write them at once, and
// atomic words keep that well defined. The finished level is copied into
// the table, where the levels above read it.
type builder struct {
	t       *Table
	n       int
	size    int
	workers int
	cells   []atomic.Uint32
	work    [][]pending // per chunk: the boards not decided yet
	gate    Gate        // admits each chunk's work; nil: none held back
}

// pending is a board whose value depends on boards of its own level: its
// index in its chunk, the best of its moves that leave the level (or
// noExit), and the pits of its moves that stay.
type pending struct {
	off   uint16
	exit  int8
	quiet uint8
}

// chunk is how many boards a worker takes at a time; a multiple of 4, so
// that no word of cells is written by two workers in the first pass.
const chunk = 1 << 16

func newBuilder(t *Table, n, workers int) *builder {
	size := int(LevelSize(n))
	return &builder{
		t: t, n: n, size: size, workers: workers,
		cells: make([]atomic.Uint32, (size+3)/4),
		work:  make([][]pending, (size+chunk-1)/chunk),
	}
}

func (b *builder) get(i int) uint8 { return uint8(b.cells[i>>2].Load() >> (8 * (i & 3))) }

// set writes byte i of the level, leaving the other three of its word as
// they are, whoever writes them meanwhile.
func (b *builder) set(i int, c uint8) {
	w := &b.cells[i>>2]
	shift := 8 * (i & 3)
	for {
		old := w.Load()
		if w.CompareAndSwap(old, old&^(0xff<<shift)|uint32(c)<<shift) {
			return
		}
	}
}

// parallel runs f on every chunk, shared out among the workers, each chunk
// once the gate admits it, and stops early when ctx is cancelled or the
// gate fails. after, when not nil, runs once a chunk is done, never twice at
// once.
func (b *builder) parallel(ctx context.Context, f func(c int), after func(c int)) error {
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	gctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	for range b.workers {
		wg.Go(func() {
			for gctx.Err() == nil {
				c := int(next.Add(1) - 1)
				if c >= len(b.work) {
					return
				}
				if b.gate != nil {
					done, err := b.gate(gctx)
					if err != nil {
						stop(fmt.Errorf("tablebase: build held back: %w", err))
						return
					}
					f(c)
					done()
				} else {
					f(c)
				}
				if after != nil {
					mu.Lock()
					after(c)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return context.Cause(gctx)
}

func (b *builder) run(ctx context.Context, progress func(done int64)) error {
	var done int64
	scratch := make(chan []pending, b.workers)
	for range b.workers {
		scratch <- make([]pending, 0, chunk)
	}
	err := b.parallel(ctx, func(c int) {
		buf := <-scratch
		lo, hi := c*chunk, min(b.size, (c+1)*chunk)
		buf = b.exits(lo, hi, buf[:0])
		b.work[c] = slices.Clone(buf) // exact size: the lists are most of the memory
		scratch <- buf
	}, func(c int) {
		done += int64(min(b.size, (c+1)*chunk) - c*chunk)
		progress(done)
	})
	if err != nil {
		return err
	}
	if err := b.solve(ctx, progress); err != nil {
		return err
	}
	progress(2 * int64(b.size)) // boards still undecided now hold their fixpoint
	level := b.t.body[b.t.offset[b.n]:b.t.offset[b.n+1]]
	for i := range level {
		level[i] = b.get(i)
	}
	return nil
}

// exits looks at boards lo..hi-1 of the level: every board whose moves all
// leave the level (or that has none) gets its final value; the others get
// the starting bounds of the fixpoint iteration and are appended to work.
func (b *builder) exits(lo, hi int, work []pending) []pending {
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
			best = max(best, k-clamp(split(&q), a, bb))
		}
		var c uint8
		switch {
		case !legal:
			v := settled(&p, b.t.rules) // the game ends: the leftovers as the rules say
			c = encode(v, v, n)
		case quiet == 0 || best == n:
			c = encode(best, best, n)
		default:
			c = encode(max(best, -n), n, n)
			work = append(work, pending{off: uint16(idx - lo), exit: int8(best), quiet: quiet})
		}
		b.set(idx, c)
	}
	return work
}

// solve iterates A up from below and B down from above on the pending
// boards, in place, until a whole sweep changes nothing: A's least fixpoint
// and B's greatest. The workers share each sweep by chunks, each seeing the
// others' updates as they come (chaotic iteration: a board's new bounds are
// never worse than its old, and never pass the fixpoint, since every bound
// read is on the right side of it). Boards whose bounds meet are final and
// dropped from the work.
func (b *builder) solve(ctx context.Context, progress func(done int64)) error {
	size := int64(b.size)
	for {
		progress(2*size - b.pending())
		var changed atomic.Bool
		err := b.parallel(ctx, func(c int) {
			if b.sweep(c) {
				changed.Store(true)
			}
		}, nil)
		if err != nil || !changed.Load() {
			return err
		}
	}
}

// pending counts the boards not decided yet.
func (b *builder) pending() int64 {
	var n int64
	for _, w := range b.work {
		n += int64(len(w))
	}
	return n
}

// sweep updates chunk c's pending boards once and reports whether any
// changed.
func (b *builder) sweep(c int) bool {
	n := b.n
	work := b.work[c]
	if len(work) == 0 {
		return false
	}
	changed := false
	kept := work[:0]
	var x [engine.NumPits]uint8
	for _, w := range work {
		idx := c*chunk + int(w.off)
		unrank(uint32(idx), n, &x)
		p := engine.Position{Pits: x}
		na, nb := int(w.exit), int(w.exit)
		for quiet := w.quiet; quiet != 0; quiet &= quiet - 1 {
			q, _, _ := p.ApplyCapture(lowBit(quiet), b.t.rules)
			qa, qb := bounds(b.get(int(rankRotated(&q.Pits, n))), n)
			na = max(na, -qb)
			nb = max(nb, -qa)
		}
		old := b.get(idx)
		oa, ob := bounds(old, n)
		na, nb = max(na, oa), min(nb, ob)
		if cn := encode(na, nb, n); cn != old {
			b.set(idx, cn)
			changed = true
		}
		if na < nb {
			kept = append(kept, w)
		}
	}
	b.work[c] = kept
	return changed
}
