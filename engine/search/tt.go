package search

import "github.com/ayoayo/ayoayo/engine"

// Zobrist keys: one random word per (pit, seed count), per (side, captured
// count) and one for North to move. They are drawn once from a fixed seed, so
// hashes (and with them searches) are the same in every run.
var (
	zPit  [engine.NumPits][engine.SeedCount + 1]uint64
	zCap  [2][engine.SeedCount + 1]uint64
	zSide uint64
)

func init() {
	x := uint64(0x41796f61796f) // "Ayoayo"
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		return mix64(x)
	}
	for i := range zPit {
		for n := range zPit[i] {
			zPit[i][n] = next()
		}
	}
	for s := range zCap {
		for n := range zCap[s] {
			zCap[s][n] = next()
		}
	}
	zSide = next()
}

// mix64 is splitmix64's finaliser: a bijection that spreads every input bit
// over the whole word.
func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// hashOf returns the Zobrist hash of p: pits, captured counts and side to move,
// exactly what the repetition rule compares.
func hashOf(p *engine.Position) uint64 {
	h := zCap[0][p.Captured[0]] ^ zCap[1][p.Captured[1]]
	for i, n := range p.Pits {
		h ^= zPit[i][n]
	}
	if p.ToMove == engine.North {
		h ^= zSide
	}
	return h
}

// Bound says how a stored score relates to the true value of its node.
type bound uint8

const (
	boundNone  bound = iota
	boundUpper       // the value is at most the score (the search failed low)
	boundLower       // the value is at least the score (the search failed high)
	boundExact
)

// A table entry is two words: the full key, to reject other positions that
// share the slot, and the data packed as
//
//	bits  0-15 score (int16, hundredths of a seed)
//	bits 16-23 best move + 1 (0: none)
//	bits 24-31 depth searched
//	bits 32-33 bound, bit 34 proven
//	bits 40-63 generation of the search that wrote it
//
// A search only reads entries of its own generation, so a reused table gives
// the same answers as a fresh one and searches stay reproducible.
type ttEntry struct {
	key  uint64
	data uint64
}

type ttData struct {
	score  int
	move   int // -1: none
	depth  int
	bound  bound
	proven bool
}

const genBits = 24

func pack(d ttData, gen uint32) uint64 {
	return uint64(uint16(int16(d.score))) |
		uint64(uint8(d.move+1))<<16 |
		uint64(uint8(d.depth))<<24 |
		uint64(d.bound)<<32 |
		b2u(d.proven)<<34 |
		uint64(gen)<<40
}

func unpack(w uint64) ttData {
	return ttData{
		score:  int(int16(uint16(w))),
		move:   int(uint8(w>>16)) - 1,
		depth:  int(uint8(w >> 24)),
		bound:  bound(w>>32) & 3,
		proven: w>>34&1 != 0,
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// table is a transposition table of two-entry buckets: the first entry keeps
// the deeper (or proven) result, the second always takes the newest. Its size
// is set between searches; nothing is allocated while searching.
type table struct {
	// mem is all the table's memory: as many entries as the largest size it
	// has been given. A smaller size uses a prefix of it, so a searcher lent
	// to searches of different sizes allocates only to grow.
	mem     []ttEntry
	entries []ttEntry // mem[:n], n a power of two, at least 2
	mask    uint64    // selects a bucket's first entry (even index)
	gen     uint32
}

// ttEntryBytes is the size of one entry, for sizing tables in bytes.
const ttEntryBytes = 16

func newTable(bytes int) table {
	var t table
	t.resize(bytes)
	return t
}

// resize makes the table about bytes bytes (rounded down to a power of two
// entries). Whatever the previous searches left in the memory it reuses is of
// an older generation, which probes ignore and stores overwrite as they would
// an empty entry, so a resized table searches exactly as a new one of that
// size.
func (t *table) resize(bytes int) {
	n := 2
	for n*2*ttEntryBytes <= bytes {
		n *= 2
	}
	if n > len(t.mem) {
		t.mem = make([]ttEntry, n)
	}
	t.entries = t.mem[:n:n]
	t.mask = uint64(n-1) &^ 1
}

// newSearch starts a generation: entries written before are ignored. When the
// counter wraps, the whole memory is cleared (not only the part in use) so an
// ancient entry cannot pass for new.
func (t *table) newSearch() {
	t.gen = (t.gen + 1) & (1<<genBits - 1)
	if t.gen == 0 {
		clear(t.mem)
		t.gen = 1
	}
}

func (t *table) probe(key uint64) (ttData, bool) {
	i := key & t.mask
	b := t.entries[i : i+2 : i+2]
	for j := range b {
		if b[j].key == key && uint32(b[j].data>>40) == t.gen {
			return unpack(b[j].data), true
		}
	}
	return ttData{}, false
}

// priority orders entries for the depth-preferred slot: proven results last
// forever, so they outrank any depth.
func priority(d ttData) int {
	if d.proven {
		return 1 << 10
	}
	return d.depth
}

func (t *table) store(key uint64, d ttData) {
	i := key & t.mask
	b := t.entries[i : i+2 : i+2]
	w := pack(d, t.gen)
	first := &b[0]
	if first.key == key || uint32(first.data>>40) != t.gen || priority(d) >= priority(unpack(first.data)) {
		// The displaced entry, if it is another position, moves to the
		// always-replace slot rather than being lost.
		if first.key != key && uint32(first.data>>40) == t.gen {
			b[1] = *first
		} else if b[1].key == key {
			b[1] = ttEntry{}
		}
		*first = ttEntry{key: key, data: w}
		return
	}
	b[1] = ttEntry{key: key, data: w}
}
