package puzzles

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkGenerate measures one generation by each version over its first
// year as the feed serves it (version 1 from 2026-01-05, version 2 from
// 2027-01-04, both Mondays): for every weekday (the grade the day asks for),
// cycling through that weekday's dates of the year, and for all days of the
// year together (-benchtime 365x covers each once). The slowest generation
// seen is reported as max-ms; the target is 2 s on one core.
func BenchmarkGenerate(b *testing.B) {
	for _, v := range []struct {
		version int
		monday  time.Time
	}{
		{1, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)},
		{2, time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)},
	} {
		bench := func(b *testing.B, step, offset, days int) {
			var slowest time.Duration
			i := 0
			for b.Loop() {
				d := v.monday.AddDate(0, 0, offset+step*(i%days))
				start := time.Now()
				if _, err := GenerateVersion(context.Background(), d, v.version); err != nil {
					b.Fatal(err)
				}
				slowest = max(slowest, time.Since(start))
				i++
			}
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms")
		}
		b.Run(fmt.Sprintf("v%d", v.version), func(b *testing.B) {
			for wd, name := range []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"} {
				b.Run(name, func(b *testing.B) { bench(b, 7, wd, 52) })
			}
			b.Run("all", func(b *testing.B) { bench(b, 1, 0, 365) })
		})
	}
}

// BenchmarkGeneratePractice measures one practice generation per difficulty
// (and with the difficulty open), for seq 0, 1, 2, ... of the filter; the
// slowest is reported as max-ms. -benchtime 20x samples 20 puzzles each.
func BenchmarkGeneratePractice(b *testing.B) {
	for d := range 6 {
		name := fmt.Sprintf("difficulty-%d", d)
		if d == 0 {
			name = "any"
		}
		b.Run(name, func(b *testing.B) {
			var slowest time.Duration
			seq := uint64(0)
			for b.Loop() {
				start := time.Now()
				if _, err := GeneratePractice(context.Background(), Version, PracticeFilter{Difficulty: d}, seq); err != nil {
					b.Fatal(err)
				}
				slowest = max(slowest, time.Since(start))
				seq++
			}
			b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms")
		})
	}
}

// BenchmarkVerify measures the check made whenever a puzzle is loaded: two
// weeks of each version.
func BenchmarkVerify(b *testing.B) {
	for _, v := range []struct {
		version int
		first   time.Time
	}{
		{1, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)},
		{2, time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)},
	} {
		b.Run(fmt.Sprintf("v%d", v.version), func(b *testing.B) {
			var feed []Puzzle
			for i := range 14 {
				pz, err := GenerateVersion(context.Background(), v.first.AddDate(0, 0, i), v.version)
				if err != nil {
					b.Fatal(err)
				}
				feed = append(feed, pz)
			}
			i := 0
			for b.Loop() {
				if err := Verify(feed[i%len(feed)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
