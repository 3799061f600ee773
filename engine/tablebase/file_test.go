package tablebase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ayoayo/ayoayo/engine"
)

func writeTable(t *testing.T, tb *Table) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if n, err := tb.WriteTo(&buf); err != nil || n != int64(buf.Len()) {
		t.Fatalf("WriteTo: %d bytes, %v (buffer %d)", n, err, buf.Len())
	}
	path := filepath.Join(t.TempDir(), "t.ayotb")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

func TestFileRoundTrip(t *testing.T) {
	r := engine.Rules{CaptureSeed: engine.CaptureLeft, Leftovers: engine.LeftoversSideOwner}
	tb := build(t, 7, r)
	path, _ := writeTable(t, tb)
	got, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	if got.Rules() != r || got.MaxSeeds() != 7 || !bytes.Equal(got.body, tb.body) || got.offset != tb.offset {
		t.Fatalf("opened table differs: rules %v N %d", got.Rules(), got.MaxSeeds())
	}
	p := engine.Position{Pits: [12]uint8{1, 0, 2, 0, 0, 0, 0, 1, 0, 0, 3, 0}}
	v1, _ := tb.Value(&p)
	v2, ok := got.Value(&p)
	if !ok || v1 != v2 {
		t.Fatalf("value %d from the file, %d built", v2, v1)
	}
	if err := got.Close(); err != nil {
		t.Fatal(err)
	}
	if err := got.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	tb := build(t, 4, engine.Rules{})
	_, file := writeTable(t, tb)
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(file)) }
	rehead := func(b []byte) []byte { // keeps the header checksum right
		binary.LittleEndian.PutUint32(b[28:], headerCRC(b))
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a table", []byte("hello, world\n")},
		{"wrong magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"short header", file[:100]},
		{"version 2", mutate(func(b []byte) []byte { b[8] = 2; return rehead(b) })},
		{"header checksum", mutate(func(b []byte) []byte { b[14] = 5; return b })},
		{"unknown rule", mutate(func(b []byte) []byte { b[13] = 7; return rehead(b) })},
		{"N too big", mutate(func(b []byte) []byte { b[14] = 21; return rehead(b) })},
		{"wrong level count", mutate(func(b []byte) []byte { b[40]++; return rehead(b) })},
		{"truncated body", file[:len(file)-1]},
		{"padded", append(bytes.Clone(file), 0)},
		{"flipped body bit", mutate(func(b []byte) []byte { b[headerSize+100] ^= 4; return b })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.ayotb")
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Open(path)
			if !errors.Is(err, ErrInvalidFile) {
				t.Fatalf("Open: %v, want ErrInvalidFile", err)
			}
			if got != nil {
				t.Fatalf("Open returned a table with error %v", err)
			}
			t.Log(err)
		})
	}
	if _, err := Open(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
}

// FuzzParseHeader: any bytes give a header or an error, never a panic, and
// an accepted header describes a table this version can hold.
func FuzzParseHeader(f *testing.F) {
	tb := build(f, 3, engine.Rules{})
	f.Add(tb.header(tb.Checksum()))
	f.Add([]byte(magic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := ParseHeader(b)
		if err != nil {
			if !errors.Is(err, ErrInvalidFile) {
				t.Fatalf("error %v does not wrap ErrInvalidFile", err)
			}
			return
		}
		if h.MaxSeeds > MaxSeedsLimit || h.Rules.Validate() != nil || h.BodyLen <= 0 {
			t.Fatalf("accepted %+v", h)
		}
	})
}
