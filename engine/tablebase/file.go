package tablebase

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"
	"slices"

	"github.com/ayoayo/ayoayo/engine"
)

// The file format, version 2. All numbers are little-endian.
//
//	offset size
//	0      8    magic "AYOTBL\r\n" (a text transfer that mangles line ends
//	            shows at once)
//	8      4    format version (2; 1 is still read, see below)
//	12     1    captureSeed (0 taken, 1 left)
//	13     1    leftovers (0 last_mover, 1 side_owner)
//	14     1    N, the most seeds on the board (0 to 20)
//	15     1    1 when the file has a score section, else 0
//	16     8    body length: the number of boards with at most N seeds
//	24     4    CRC-32C (Castagnoli) of the body
//	28     4    CRC-32C of the header's other 252 bytes (0-27 and 32-255)
//	32     168  the number of boards of each level n = 0..20 (0 above N)
//	200    1    S, the most seeds on the board with true scores (0 to
//	            min(N, 14); 0 without a score section)
//	201    7    0 (reserved)
//	208    8    score entries: (n+1) a board of level n <= S (0 without a
//	            score section)
//	216    4    CRC-32C of the score section (0 without one)
//	220    8    open entries: those listed after the scores
//	228    28   0 (reserved)
//	256    ...  the body: one byte a board, level 0 first, each level in rank
//	            order (lexicographic order of the pits 0-11 of the board seen
//	            by the mover); the byte numbers the bounds A <= B, as shares
//	            a = (A+n)/2 <= b = (B+n)/2, as b(b+1)/2 + a, so a byte of
//	            level n is at most n(n+3)/2.
//	...    ...  the score section, right after the body: the scores, one
//	            byte an entry, level 0 first, each level's boards in rank
//	            order, each board's splits in order of the mover's captured
//	            seeds, 24-n to 24; the byte is W+n (the real game's future
//	            for the mover, majority stop included, -n..n), plus 0x80
//	            when the entry's bounds differ (A < B). Then the open
//	            entries, 8 bytes each, by entry: its index (uint32), A and
//	            B (int8 each), two 0 bytes.
//
// Version 1 is version 2 without a score section, byte 15 and bytes
// 200-255 all 0: such a file opens as a result-only table.
//
// A reader refuses a reserved byte that is not 0, a body byte above its
// level's last pair, a score entry whose bounds are out of order or beyond
// its level, as well as a checksum that does not match.
const (
	magic      = "AYOTBL\r\n"
	version    = 2
	versionOne = 1 // no score section: a result-only table
	headerSize = 256
)

// ErrInvalidFile: a file that is not a table this version can read: another
// magic, another version, a header that contradicts itself, a truncated file
// or a checksum that does not match. The wrapped text says which.
var ErrInvalidFile = errors.New("invalid tablebase file")

// Header is what a table file says about itself.
type Header struct {
	Version  int
	Rules    engine.Rules
	MaxSeeds int
	BodyLen  int64
	BodyCRC  uint32 // CRC-32C of the body, as written
	// ScoreSeeds is S, the most seeds on the board with true scores, or -1
	// for a result-only file (no score section; every version 1 file).
	ScoreSeeds int
	Scores     int64  // score entries
	Open       int64  // open entries listed after them
	ScoresLen  int64  // bytes of the score section
	ScoresCRC  uint32 // CRC-32C of the score section, as written
}

// openSize is the bytes of an open entry in a file.
const openSize = 8

// openBytes encodes the open entries as a file holds them.
func (t *Table) openBytes() []byte {
	out := make([]byte, openSize*len(t.open))
	for i, o := range t.open {
		binary.LittleEndian.PutUint32(out[openSize*i:], o.entry)
		out[openSize*i+4], out[openSize*i+5] = byte(o.a), byte(o.b)
	}
	return out
}

// scoreChecksum returns the CRC-32C of the score section as a file holds it.
func (t *Table) scoreChecksum() uint32 {
	return crc32.Update(checksum(t.scores), castagnoli, t.openBytes())
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// header returns the header of t, whose body checksum is crc.
func (t *Table) header(crc uint32) []byte {
	h := make([]byte, headerSize)
	copy(h, magic)
	binary.LittleEndian.PutUint32(h[8:], version)
	h[12] = byte(t.rules.CaptureSeed)
	h[13] = byte(t.rules.Leftovers)
	h[14] = byte(t.maxSeeds)
	binary.LittleEndian.PutUint64(h[16:], uint64(len(t.body)))
	binary.LittleEndian.PutUint32(h[24:], crc)
	for n := 0; n <= t.maxSeeds; n++ {
		binary.LittleEndian.PutUint64(h[32+8*n:], uint64(LevelSize(n)))
	}
	if t.scoreSeeds >= 0 {
		h[15] = 1
		h[200] = byte(t.scoreSeeds)
		binary.LittleEndian.PutUint64(h[208:], uint64(len(t.scores)))
		binary.LittleEndian.PutUint32(h[216:], t.scoresCRC)
		binary.LittleEndian.PutUint64(h[220:], uint64(len(t.open)))
	}
	binary.LittleEndian.PutUint32(h[28:], headerCRC(h))
	return h
}

func headerCRC(h []byte) uint32 {
	c := crc32.Update(0, castagnoli, h[:28])
	return crc32.Update(c, castagnoli, h[32:headerSize])
}

// Checksum returns the CRC-32C of the table's body, as its file stores it.
func (t *Table) Checksum() uint32 { return t.crc }

func checksum(body []byte) uint32 { return crc32.Checksum(body, castagnoli) }

// WriteTo writes the table in the file format above.
func (t *Table) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for _, b := range [][]byte{t.header(t.Checksum()), t.body, t.scores, t.openBytes()} {
		n, err := w.Write(b)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// ParseHeader reads and checks a file's header (its first 256 bytes or
// more); it does not look at the body.
func ParseHeader(b []byte) (Header, error) {
	var h Header
	if len(b) < len(magic) || string(b[:len(magic)]) != magic {
		return h, fmt.Errorf("%w: not a tablebase file (wrong magic)", ErrInvalidFile)
	}
	if len(b) < headerSize {
		return h, fmt.Errorf("%w: truncated header (%d bytes, want %d)", ErrInvalidFile, len(b), headerSize)
	}
	v := binary.LittleEndian.Uint32(b[8:])
	if v != version && v != versionOne {
		return h, fmt.Errorf("%w: format version %d, this program reads versions %d and %d", ErrInvalidFile, v, versionOne, version)
	}
	if got, want := headerCRC(b), binary.LittleEndian.Uint32(b[28:]); got != want {
		return h, fmt.Errorf("%w: header checksum %08x, want %08x", ErrInvalidFile, got, want)
	}
	h.Version = int(v)
	h.Rules = engine.Rules{CaptureSeed: engine.CaptureSeed(b[12]), Leftovers: engine.Leftovers(b[13])}
	if err := h.Rules.Validate(); err != nil {
		return h, fmt.Errorf("%w: %w", ErrInvalidFile, err)
	}
	h.MaxSeeds = int(b[14])
	if h.MaxSeeds > MaxSeedsLimit {
		return h, fmt.Errorf("%w: N = %d, want at most %d", ErrInvalidFile, h.MaxSeeds, MaxSeedsLimit)
	}
	// Bytes that only a version 2 file with a score section may use.
	reserved := func(i int) bool { return true }
	h.ScoreSeeds = -1
	switch {
	case b[15] == 1 && v == version:
		h.ScoreSeeds = int(b[200])
		if h.ScoreSeeds > min(h.MaxSeeds, MaxScoreSeeds) {
			return h, fmt.Errorf("%w: true scores up to %d seeds, want at most %d", ErrInvalidFile, h.ScoreSeeds, min(h.MaxSeeds, MaxScoreSeeds))
		}
		var want int64
		for n := 0; n <= h.ScoreSeeds; n++ {
			want += scoreLevelSize(n)
		}
		if got := binary.LittleEndian.Uint64(b[208:]); got != uint64(want) {
			return h, fmt.Errorf("%w: %d score entries, want %d for S = %d", ErrInvalidFile, got, want, h.ScoreSeeds)
		}
		open := binary.LittleEndian.Uint64(b[220:])
		if open > uint64(want) {
			return h, fmt.Errorf("%w: %d open entries, more than the %d scores", ErrInvalidFile, open, want)
		}
		h.Scores, h.Open = want, int64(open)
		h.ScoresLen = want + openSize*h.Open
		h.ScoresCRC = binary.LittleEndian.Uint32(b[216:])
		reserved = func(i int) bool { return i > 200 && i < 208 || i >= 228 }
	case b[15] != 0:
		return h, fmt.Errorf("%w: reserved header byte 15 is %d, want 0 (version %d) or 1 (version %d, scores)", ErrInvalidFile, b[15], versionOne, version)
	}
	for i := 32 + 8*(MaxSeedsLimit+1); i < headerSize; i++ {
		if reserved(i) && b[i] != 0 {
			return h, fmt.Errorf("%w: reserved header byte %d is %d, want 0", ErrInvalidFile, i, b[i])
		}
	}
	var total int64
	for n := 0; n <= MaxSeedsLimit; n++ {
		want := int64(0)
		if n <= h.MaxSeeds {
			want = LevelSize(n)
		}
		if got := binary.LittleEndian.Uint64(b[32+8*n:]); got != uint64(want) {
			return h, fmt.Errorf("%w: level %d holds %d boards, want %d", ErrInvalidFile, n, got, want)
		}
		total += want
	}
	if got := binary.LittleEndian.Uint64(b[16:]); got != uint64(total) {
		return h, fmt.Errorf("%w: body of %d bytes, want %d for N = %d", ErrInvalidFile, got, total, h.MaxSeeds)
	}
	h.BodyLen = total
	h.BodyCRC = binary.LittleEndian.Uint32(b[24:])
	return h, nil
}

// Open maps the table file at path into memory (or reads it, where mapping
// is not available), checks its header, the body's checksum and every body
// byte, and returns the table. Close ends its use; the mapping is released
// once the Table is unreachable (see Close). The file must not be rewritten
// in place while it is mapped (replace it by renaming, as ayoayo tablebase
// build does): a mapped file that shrinks under a probe crashes the process.
func Open(path string) (*Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	head := make([]byte, headerSize)
	if _, err := io.ReadFull(f, head); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			// Say "wrong magic" rather than "truncated" for a short non-table.
			_, err = ParseHeader(head[:min(st.Size(), headerSize)])
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, err
	}
	h, err := ParseHeader(head)
	if err == nil {
		err = h.checkSize(st.Size())
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data, unmap, err := mapFile(f, int(st.Size()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t, err := fromBody(h, data[headerSize:])
	if err != nil {
		_ = unmap() // nothing has seen the table
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	runtime.AddCleanup(t, func(unmap func() error) { _ = unmap() }, unmap)
	return t, nil
}

// checkSize checks that a file of size bytes holds h's header and body.
func (h Header) checkSize(size int64) error {
	if want := headerSize + h.BodyLen + h.ScoresLen; size != want {
		return fmt.Errorf("%w: %d bytes, want %d (truncated or padded)", ErrInvalidFile, size, want)
	}
	return nil
}

// fromBody returns the table that header h describes, over data (the
// body, then the score section), once both checksums match, every body
// byte is a pair of bounds its level can hold and every score entry a pair
// of bounds in order within its level.
func fromBody(h Header, data []byte) (*Table, error) {
	t := newTable(h.Rules, h.MaxSeeds, h.ScoreSeeds)
	t.body, t.crc = data[:h.BodyLen], h.BodyCRC
	got, bad := t.scan()
	if got != h.BodyCRC {
		return nil, fmt.Errorf("%w: body checksum %08x, want %08x", ErrInvalidFile, got, h.BodyCRC)
	}
	if bad != nil {
		return nil, bad
	}
	if h.ScoreSeeds >= 0 {
		section := data[h.BodyLen : h.BodyLen+h.ScoresLen]
		if got := checksum(section); got != h.ScoresCRC {
			return nil, fmt.Errorf("%w: score section checksum %08x, want %08x", ErrInvalidFile, got, h.ScoresCRC)
		}
		t.scores, t.scoresCRC = section[:h.Scores], h.ScoresCRC
		if err := t.readOpen(section[h.Scores:]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// readOpen reads the open entries from b and checks the score section: every
// score within its level, the open entries in order, each one a score
// flagged open whose bounds are in order, within its level and around the
// score, and every flagged score listed.
func (t *Table) readOpen(b []byte) error {
	flagged := 0
	for n := 0; n <= t.scoreSeeds; n++ {
		for i, c := range t.scores[t.scoreOffset[n]:t.scoreOffset[n+1]] {
			if int(c&^openFlag) > 2*n {
				return fmt.Errorf("%w: level %d score entry %d holds %d, beyond the level", ErrInvalidFile, n, i, int(c&^openFlag)-n)
			}
			if c&openFlag != 0 {
				flagged++
			}
		}
	}
	if len(b)/openSize != flagged {
		return fmt.Errorf("%w: %d open entries listed, %d scores flagged open", ErrInvalidFile, len(b)/openSize, flagged)
	}
	t.open = make([]openBounds, flagged)
	for i := range t.open {
		r := b[openSize*i : openSize*(i+1)]
		o := openBounds{entry: binary.LittleEndian.Uint32(r), a: int8(r[4]), b: int8(r[5])}
		if r[6] != 0 || r[7] != 0 || int64(o.entry) >= int64(len(t.scores)) || (i > 0 && o.entry <= t.open[i-1].entry) {
			return fmt.Errorf("%w: open entry %d is out of order, beyond the scores or not padded with 0", ErrInvalidFile, i)
		}
		n := 0
		for t.scoreOffset[n+1] <= int64(o.entry) {
			n++
		}
		c := t.scores[o.entry]
		w := int(c&^openFlag) - n
		if c&openFlag == 0 || int(o.a) < -n || o.a >= o.b || int(o.b) > n || w < int(o.a) || w > int(o.b) {
			return fmt.Errorf("%w: open entry %d (level %d score entry %d) holds bounds %d..%d around score %d", ErrInvalidFile, i, n, int64(o.entry)-t.scoreOffset[n], o.a, o.b, w)
		}
		t.open[i] = o
	}
	return nil
}

// scan returns the CRC-32C of t's body and an error for its first byte that
// is no pair of its level (above the level's last code), or nil. It reads
// the body once, a block at a time, for both.
func (t *Table) scan() (uint32, error) {
	const block = 1 << 16
	var crc uint32
	var bad error
	for n := 0; n <= t.maxSeeds; n++ {
		level := t.body[t.offset[n]:t.offset[n+1]]
		last := pairCode(n, n)
		for lo := 0; lo < len(level); lo += block {
			b := level[lo:min(len(level), lo+block)]
			crc = crc32.Update(crc, castagnoli, b)
			if bad != nil {
				continue
			}
			if anyAbove(b, last) {
				i := lo + slices.IndexFunc(b, func(c uint8) bool { return c > last })
				bad = fmt.Errorf("%w: level %d board %d holds byte %d, above %d, the level's last pair", ErrInvalidFile, n, i, level[i], last)
			}
		}
	}
	return crc, bad
}

// anyAbove reports whether a byte of b is above last, eight bytes at a time:
// a byte's low seven bits plus 127-l carry into its top bit exactly when
// they exceed l (no carry crosses into the next byte), where l is last less
// its top bit; the byte's own top bit then decides.
func anyAbove(b []byte, last uint8) bool {
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	k := uint64(127-last&0x7f) * ones
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		low := (x&^tops + k) & tops // low bits above last's low bits
		if last < 0x80 && (x|low)&tops != 0 || last >= 0x80 && x&low != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c > last {
			return true
		}
	}
	return false
}
