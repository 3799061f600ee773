package gen

import (
	"errors"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{"2026-01-01", true},
		{"2028-02-29", true},
		{"2027-02-29", false},
		{"2026-1-01", false},
		{"2026-01-01T00:00:00Z", false},
		{"", false},
		{"today", false},
		{"1999-12-31", false}, // before the generator's calendar
		{"2000-01-01", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := ParseDate(tt.in)
			if tt.ok != (err == nil) {
				t.Fatalf("ParseDate(%q) = %v, %v", tt.in, d, err)
			}
			if err != nil && !errors.Is(err, ErrInvalidDate) {
				t.Fatalf("err %v is not ErrInvalidDate", err)
			}
			if err == nil && (d.Format(DateLayout) != tt.in || d.Location() != time.UTC) {
				t.Fatalf("ParseDate(%q) = %v", tt.in, d)
			}
		})
	}
}

func TestIDRoundTrip(t *testing.T) {
	d := time.Date(2026, 7, 4, 15, 30, 0, 0, time.FixedZone("x", -5*3600))
	id := IDFor(d)
	if id != "p20260704" {
		t.Fatalf("IDFor = %s", id)
	}
	back, err := DateOfID(id)
	if err != nil || !back.Equal(Day(d)) {
		t.Fatalf("DateOfID(%s) = %v, %v", id, back, err)
	}
	for _, bad := range []string{"", "p2026074", "q20260704", "p20261304", "p2026070x", "20260704x", "p19991231"} {
		if _, err := DateOfID(bad); !errors.Is(err, ErrInvalidDate) {
			t.Errorf("DateOfID(%q) = %v, want ErrInvalidDate", bad, err)
		}
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-01-01", "2028-02-29", "9999-12-31", "0000-00-00", "2026-13-01", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidDate) {
				t.Fatalf("ParseDate(%q): %v is not ErrInvalidDate", s, err)
			}
			return
		}
		if d.Format(DateLayout) != s || !d.Equal(Day(d)) {
			t.Fatalf("ParseDate(%q) = %v does not round-trip", s, d)
		}
		if back, err := DateOfID(IDFor(d)); err != nil || !back.Equal(d) {
			t.Fatalf("id of %s does not round-trip: %v %v", s, back, err)
		}
	})
}

func TestVersionFor(t *testing.T) {
	cut := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name          string
		date, cutover time.Time
		want          int
	}{
		{"the day before the default cutover", time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC), time.Time{}, 1},
		{"the default cutover", cut, time.Time{}, Version},
		{"a later day", cut.AddDate(3, 0, 0), time.Time{}, Version},
		{"a cutover given at noon counts its day", cut, cut.Add(12 * time.Hour), Version},
		{"an earlier cutover", time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), Version},
		{"a later cutover", cut.AddDate(0, 1, 0), cut.AddDate(0, 2, 0), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := VersionFor(tt.date, tt.cutover); got != tt.want {
				t.Fatalf("VersionFor = %d, want %d", got, tt.want)
			}
		})
	}
}
