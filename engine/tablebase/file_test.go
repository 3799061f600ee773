package tablebase

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
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
}

func TestOpenErrors(t *testing.T) {
	tb := build(t, 4, engine.Rules{})
	_, file := writeTable(t, tb)
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(file)) }
	rehead := func(b []byte) []byte { // keeps the header checksum right
		binary.LittleEndian.PutUint32(b[28:], headerCRC(b))
		return b
	}
	rebody := func(b []byte) []byte { // keeps both checksums right
		binary.LittleEndian.PutUint32(b[24:], checksum(b[headerSize:headerSize+len(tb.body)]))
		return rehead(b)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a table", []byte("hello, world\n")},
		{"wrong magic", mutate(func(b []byte) []byte { b[0] = 'X'; return b })},
		{"short header", file[:100]},
		{"version 3", mutate(func(b []byte) []byte { b[8] = 3; return rehead(b) })},
		{"version 1 with scores", mutate(func(b []byte) []byte { b[8] = 1; return rehead(b) })},
		{"header checksum", mutate(func(b []byte) []byte { b[14] = 5; return b })},
		{"unknown rule", mutate(func(b []byte) []byte { b[13] = 7; return rehead(b) })},
		{"N too big", mutate(func(b []byte) []byte { b[14] = 21; return rehead(b) })},
		{"wrong level count", mutate(func(b []byte) []byte { b[40]++; return rehead(b) })},
		{"truncated body", file[:len(file)-1]},
		{"padded", append(bytes.Clone(file), 0)},
		{"flipped body bit", mutate(func(b []byte) []byte { b[headerSize+100] ^= 4; return b })},
		{"byte 15 neither 0 nor 1", mutate(func(b []byte) []byte { b[15] = 2; return rehead(b) })},
		{"S beyond N", mutate(func(b []byte) []byte { b[200] = 5; return rehead(b) })},
		{"S below the section", mutate(func(b []byte) []byte { b[200] = 3; return rehead(b) })},
		{"reserved byte 201", mutate(func(b []byte) []byte { b[201] = 1; return rehead(b) })},
		{"reserved byte 228", mutate(func(b []byte) []byte { b[228] = 1; return rehead(b) })},
		{"open entries beyond the scores", mutate(func(b []byte) []byte { b[227] = 1; return rehead(b) })},
		{"no score section, reserved byte 200", mutate(func(b []byte) []byte {
			b[15] = 0
			return rehead(b)
		})},
		{"reserved byte 255", mutate(func(b []byte) []byte { b[255] = 0x80; return rehead(b) })},
		{"byte 230 at level 1", mutate(func(b []byte) []byte {
			for i := range LevelSize(1) {
				b[headerSize+1+i] = 230 // the reviewer's file: a 1-seed board worth 39
			}
			return rebody(b)
		})},
		{"byte above level 4", mutate(func(b []byte) []byte { b[headerSize+len(tb.body)-1] = pairCode(4, 4) + 1; return rebody(b) })},
		{"byte 255 at level 0", mutate(func(b []byte) []byte { b[headerSize] = 255; return rebody(b) })},
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

// load is Open on a file's bytes in memory.
func load(data []byte) (*Table, error) {
	h, err := ParseHeader(data)
	if err == nil {
		err = h.checkSize(int64(len(data)))
	}
	if err != nil {
		return nil, err
	}
	return fromBody(h, data[headerSize:])
}

// checkProbes probes every board of tb, both sides to move: values and
// bounds within the level with its parity, and every move's value too; and
// where tb has true scores, every split's score and move scores within the
// level.
func checkProbes(t *testing.T, tb *Table) {
	t.Helper()
	var x [engine.NumPits]uint8
	var moves []MoveValue
	for n := 0; n <= tb.MaxSeeds(); n++ {
		for i := range uint32(LevelSize(n)) {
			unrank(i, n, &x)
			for _, side := range []engine.Side{engine.South, engine.North} {
				p := engine.Position{Pits: x, ToMove: side}
				a, b, ok1 := tb.Bounds(&p)
				v, ok2 := tb.Value(&p)
				if !ok1 || !ok2 || a > b || v < a || v > b || a < -n || b > n || (v+n)%2 != 0 || (a+n)%2 != 0 || (b+n)%2 != 0 {
					t.Fatalf("%v: bounds %d, %d (%v), value %d (%v) at level %d", p, a, b, ok1, v, ok2, n)
				}
				moves, _ = tb.Moves(p, moves)
				for _, m := range moves {
					if m.Value < -n || m.Value > n {
						t.Fatalf("%v: move %+v beyond level %d", p, m, n)
					}
				}
				if n > tb.ScoreSeeds() {
					continue
				}
				for cm := maxCaptured - n; cm <= maxCaptured; cm++ {
					p.Captured[side], p.Captured[side.Other()] = uint8(cm), uint8(engine.SeedCount-n-cm)
					margin := p.Margin(side)
					if s, ok := tb.Score(&p); !ok || s < margin-n || s > margin+n {
						t.Fatalf("%v: score %d (%v) beyond level %d", p, s, ok, n)
					}
					moves, _ = tb.MoveScores(p, moves)
					for _, m := range moves {
						if m.Value < margin-n || m.Value > margin+n {
							t.Fatalf("%v: move score %+v beyond level %d", p, m, n)
						}
					}
				}
			}
		}
	}
}

// FuzzOpen: any file gives a table or an error wrapping ErrInvalidFile,
// never a panic, and a table it gives answers every probe within bounds.
func FuzzOpen(f *testing.F) {
	tb := build(f, 3, engine.Rules{})
	var buf bytes.Buffer
	if _, err := tb.WriteTo(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:headerSize])
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := load(data)
		if err != nil {
			if !errors.Is(err, ErrInvalidFile) || tb != nil {
				t.Fatalf("load: %v, %v", tb, err)
			}
			return
		}
		checkProbes(t, tb)
	})
}

// FuzzBody gives Open a hostile body under a header and checksums that
// match it, so that only the body's bytes can be wrong: a body is accepted
// exactly when each of its bytes is a pair its level can hold, and then every
// probe stays within bounds.
func FuzzBody(f *testing.F) {
	f.Add(uint8(0), uint8(1), []byte{0, 230, 230, 230})
	f.Add(uint8(3), uint8(4), bytes.Repeat([]byte{2}, 300))
	f.Add(uint8(1), uint8(2), []byte{0, 0, 1, 2, 3, 4, 5, 6})
	f.Fuzz(func(t *testing.T, rules, seeds uint8, fill []byte) {
		tb := newTable(engine.Rules{CaptureSeed: engine.CaptureSeed(rules & 1), Leftovers: engine.Leftovers(rules >> 1 & 1)}, int(seeds%5), -1)
		tb.body = make([]byte, tb.offset[tb.maxSeeds+1])
		if len(fill) > 0 {
			for i := range tb.body {
				tb.body[i] = fill[i%len(fill)]
			}
		}
		valid := true
		for n := 0; n <= tb.maxSeeds; n++ {
			for _, c := range tb.body[tb.offset[n]:tb.offset[n+1]] {
				valid = valid && c <= pairCode(n, n)
			}
		}
		file := append(tb.header(checksum(tb.body)), tb.body...)
		got, err := load(file)
		if (err == nil) != valid || (err != nil && !errors.Is(err, ErrInvalidFile)) {
			t.Fatalf("valid body %v, load: %v", valid, err)
		}
		if err == nil {
			checkProbes(t, got)
		}
	})
}

// TestClose: probes after Close say ok=false; probes that overlap Close,
// against its contract, neither crash nor race, and the mapping outlives
// them.
func TestClose(t *testing.T) {
	path, _ := writeTable(t, build(t, 6, engine.Rules{}))
	tb, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := randomPositions(6, 1<<10, 5)
	var wg sync.WaitGroup
	var answered atomic.Int64
	for range 2 {
		wg.Go(func() {
			var out []MoveValue
			for i := range 20_000 {
				p := &ps[i%len(ps)]
				if _, ok := tb.Value(p); ok {
					answered.Add(1)
				}
				tb.Bounds(p)
				out, _ = tb.Moves(*p, out)
			}
		})
	}
	for answered.Load() == 0 {
		runtime.Gosched()
	}
	if err := tb.Close(); err != nil {
		t.Fatal(err)
	}
	runtime.GC() // the probers still hold tb: the mapping must stay
	wg.Wait()
	p := engine.Position{Pits: [12]uint8{1}}
	if v, ok := tb.Value(&p); ok {
		t.Errorf("Value after Close: %d, ok", v)
	}
	if _, _, ok := tb.Bounds(&p); ok {
		t.Error("Bounds after Close: ok")
	}
	if m, ok := tb.Moves(p, nil); ok || len(m) != 0 {
		t.Errorf("Moves after Close: %v, %v", m, ok)
	}
	if tb.MaxSeeds() != 6 {
		t.Errorf("MaxSeeds after Close: %d", tb.MaxSeeds())
	}
	if err := tb.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	runtime.GC() // now unreachable: the cleanup unmaps, with nothing left to fault
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

// TestAnyAbove checks the eight-bytes-at-a-time test against the plain one
// for every bound, on random bytes and on each byte value in each lane.
func TestAnyAbove(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for last := range 256 {
		for _, b := range [][]byte{nil, {0}, {255, 0, 0}, bytes.Repeat([]byte{uint8(last)}, 19)} {
			checkAnyAbove(t, b, uint8(last))
		}
		for v := range 256 {
			for lane := range 9 {
				b := make([]byte, 9)
				b[lane] = uint8(v)
				checkAnyAbove(t, b, uint8(last))
			}
		}
		for range 50 {
			b := make([]byte, rng.IntN(40))
			for i := range b {
				b[i] = uint8(rng.IntN(last + 2))
			}
			checkAnyAbove(t, b, uint8(last))
		}
	}
}

func checkAnyAbove(t *testing.T, b []byte, last uint8) {
	t.Helper()
	want := slices.ContainsFunc(b, func(c uint8) bool { return c > last })
	if got := anyAbove(b, last); got != want {
		t.Fatalf("anyAbove(%v, %d) = %v, want %v", b, last, got, want)
	}
}
