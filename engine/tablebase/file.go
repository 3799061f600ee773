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

// The file format, version 1. All numbers are little-endian.
//
//	offset size
//	0      8    magic "AYOTBL\r\n" (a text transfer that mangles line ends
//	            shows at once)
//	8      4    format version (1)
//	12     1    captureSeed (0 taken, 1 left)
//	13     1    leftovers (0 last_mover, 1 side_owner)
//	14     1    N, the most seeds on the board (0 to 20)
//	15     1    0 (reserved)
//	16     8    body length: the number of boards with at most N seeds
//	24     4    CRC-32C (Castagnoli) of the body
//	28     4    CRC-32C of the header's other 252 bytes (0-27 and 32-255)
//	32     168  the number of boards of each level n = 0..20 (0 above N)
//	200    56   0 (reserved)
//	256    ...  the body: one byte a board, level 0 first, each level in rank
//	            order (lexicographic order of the pits 0-11 of the board seen
//	            by the mover); the byte numbers the bounds A <= B, as shares
//	            a = (A+n)/2 <= b = (B+n)/2, as b(b+1)/2 + a, so a byte of
//	            level n is at most n(n+3)/2.
//
// A reader refuses a reserved byte that is not 0 and a body byte above its
// level's last pair, as well as a checksum that does not match.
const (
	magic      = "AYOTBL\r\n"
	version    = 1
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
	n, err := w.Write(t.header(t.Checksum()))
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(t.body)
	return int64(n + m), err
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
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return h, fmt.Errorf("%w: format version %d, this program reads version %d", ErrInvalidFile, v, version)
	}
	if got, want := headerCRC(b), binary.LittleEndian.Uint32(b[28:]); got != want {
		return h, fmt.Errorf("%w: header checksum %08x, want %08x", ErrInvalidFile, got, want)
	}
	h.Version = version
	h.Rules = engine.Rules{CaptureSeed: engine.CaptureSeed(b[12]), Leftovers: engine.Leftovers(b[13])}
	if err := h.Rules.Validate(); err != nil {
		return h, fmt.Errorf("%w: %w", ErrInvalidFile, err)
	}
	if b[15] != 0 {
		return h, fmt.Errorf("%w: reserved header byte 15 is %d, want 0", ErrInvalidFile, b[15])
	}
	for i := 32 + 8*(MaxSeedsLimit+1); i < headerSize; i++ {
		if b[i] != 0 {
			return h, fmt.Errorf("%w: reserved header byte %d is %d, want 0", ErrInvalidFile, i, b[i])
		}
	}
	h.MaxSeeds = int(b[14])
	if h.MaxSeeds > MaxSeedsLimit {
		return h, fmt.Errorf("%w: N = %d, want at most %d", ErrInvalidFile, h.MaxSeeds, MaxSeedsLimit)
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
	if want := headerSize + h.BodyLen; size != want {
		return fmt.Errorf("%w: %d bytes, want %d (truncated or padded)", ErrInvalidFile, size, want)
	}
	return nil
}

// fromBody returns the table that header h describes, over body, once the
// body's checksum matches and every byte of it is a pair of bounds its level
// can hold.
func fromBody(h Header, body []byte) (*Table, error) {
	t := newTable(h.Rules, h.MaxSeeds)
	t.body, t.crc = body, h.BodyCRC
	got, bad := t.scan()
	if got != h.BodyCRC {
		return nil, fmt.Errorf("%w: body checksum %08x, want %08x", ErrInvalidFile, got, h.BodyCRC)
	}
	if bad != nil {
		return nil, bad
	}
	return t, nil
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
