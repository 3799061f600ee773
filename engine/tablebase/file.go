package tablebase

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

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
//	15     1    0
//	16     8    body length: the number of boards with at most N seeds
//	24     4    CRC-32C (Castagnoli) of the body
//	28     4    CRC-32C of the header's other 252 bytes (0-27 and 32-255)
//	32     168  the number of boards of each level n = 0..20 (0 above N)
//	200    56   0
//	256    ...  the body: one byte a board, level 0 first, each level in rank
//	            order (lexicographic order of the pits 0-11 of the board seen
//	            by the mover); the byte numbers the bounds A <= B, as shares
//	            a = (A+n)/2 <= b = (B+n)/2, as b(b+1)/2 + a.
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
// is not available), checks its header and the body's checksum, and returns
// the table. Close releases it. The file must not be rewritten in place
// while it is open (replace it by renaming, as ayoayo tablebase build does):
// a mapped file that shrinks under a probe crashes the process.
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
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if size := headerSize + h.BodyLen; st.Size() != size {
		return nil, fmt.Errorf("%s: %w: %d bytes, want %d (truncated or padded)", path, ErrInvalidFile, st.Size(), size)
	}
	data, unmap, err := mapFile(f, int(st.Size()))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t := &Table{rules: h.Rules, maxSeeds: h.MaxSeeds, body: data[headerSize:], unmap: unmap, crc: h.BodyCRC}
	t.setOffsets()
	if got := checksum(t.body); got != h.BodyCRC {
		_ = t.Close()
		return nil, fmt.Errorf("%s: %w: body checksum %08x, want %08x", path, ErrInvalidFile, got, h.BodyCRC)
	}
	return t, nil
}
