package stored

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/ayoayo/ayoayo/engine"
)

func TestHistory(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		pits []byte
		ok   bool
	}{
		{"empty", "", []byte{}, true},
		{"every pit", "0123456789ab", []byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, true},
		{"upper case is not a pit", "A", nil, false},
		{"past the last pit", "c", nil, false},
		{"a space", "0 1", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pits, err := DecodeHistory(tc.text)
			if (err == nil) != tc.ok || (tc.ok && !bytes.Equal(pits, tc.pits)) {
				t.Fatalf("DecodeHistory(%q) = %v, %v", tc.text, pits, err)
			}
			if tc.ok && EncodeHistory(pits) != tc.text {
				t.Fatalf("EncodeHistory(%v) = %q, want %q", pits, EncodeHistory(pits), tc.text)
			}
		})
	}
}

// FuzzHistory: whatever the text, DecodeHistory either refuses it or gives
// pits that encode back to it.
func FuzzHistory(f *testing.F) {
	for _, s := range []string{"", "0ab", "zz", "0123456789abc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		pits, err := DecodeHistory(s)
		if err != nil {
			return
		}
		for _, p := range pits {
			if p >= engine.NumPits {
				t.Fatalf("%q decodes to pit %d", s, p)
			}
		}
		if got := EncodeHistory(pits); got != s {
			t.Fatalf("%q decodes to %v, which encodes to %q", s, pits, got)
		}
	})
}

func TestMigrations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files fstest.MapFS
		want  []string // names in order; nil: an error
	}{
		{"in version order", fstest.MapFS{"m/0002_b.sql": {Data: []byte("B")}, "m/0010_c.sql": {}, "m/0001_a.sql": {}},
			[]string{"0001_a", "0002_b", "0010_c"}},
		{"no version", fstest.MapFS{"m/first.sql": {}}, nil},
		{"version zero", fstest.MapFS{"m/0000_zero.sql": {}}, nil},
		{"one version twice", fstest.MapFS{"m/0001_a.sql": {}, "m/1_b.sql": {}}, nil},
		{"none", fstest.MapFS{}, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := Migrations(tc.files, "m/*.sql")
			if tc.want == nil {
				if err == nil {
					t.Fatalf("no error for %v", ms)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range ms {
				names = append(names, m.Name)
			}
			if strings.Join(names, ",") != strings.Join(tc.want, ",") {
				t.Fatalf("%v, want %v", names, tc.want)
			}
		})
	}
}

// Undecodable keeps the cause's words but not its identity.
func TestUndecodableHidesItsCause(t *testing.T) {
	err := Undecodable("game x", engine.ErrInvalidNotation)
	if errors.Is(err, engine.ErrInvalidNotation) || !strings.Contains(err.Error(), engine.ErrInvalidNotation.Error()) {
		t.Fatalf("%v: want the cause's text without its identity", err)
	}
}
