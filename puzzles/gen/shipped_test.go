package gen_test

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/puzzles/ahead"
	"github.com/ayoayo/ayoayo/puzzles/gen"
)

// TestFeedYearShipped compares the daily puzzles shipped in the binary
// (package puzzles/ahead) with the days the year tests generate
// (TestFeedYear and TestFeedYearV2: the same feeds, generated once per test
// binary), so that checking them costs no generation of its own. With
// AYOAYO_PUZZLE_YEARS=1 (CI) that is every shipped day of 2026 and 2027,
// and CI's `ayoayo puzzles ahead --check shipped --except-days ...` makes
// only the rest again (TestExceptDaysAreYearTested); otherwise the year
// tests' four weeks, those of them the file holds.
func TestFeedYearShipped(t *testing.T) {
	set, err := ahead.Set()
	if err != nil {
		t.Fatal(err)
	}
	shipped := map[time.Time]gen.Puzzle{}
	for _, p := range set.Days {
		shipped[gen.Day(p.Date)] = p
	}
	compared := 0
	for _, version := range []int{1, 2} {
		_, feed, ok := gen.YearFeed(t, version)
		if !ok {
			continue
		}
		for _, made := range feed {
			p, ok := shipped[gen.Day(made.Date)]
			if !ok {
				continue
			}
			compared++
			if err := puzzles.CompareAheadDay(p, made); err != nil {
				t.Error(err)
			}
		}
	}
	t.Logf("%d of the %d shipped days compared with the year tests' feeds", compared, len(set.Days))
}

// TestExceptDaysAreYearTested: the days CI's check of the shipped file
// leaves out (`--except-days FIRST:LAST` in .ci/run) are days the year tests
// generate in full, and so compare (TestFeedYearShipped), in the same CI
// run: no shipped day goes unchecked when a year test's span or the step
// changes alone.
func TestExceptDaysAreYearTested(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("no .ci/run here (not a clone of the repository)")
	}
	if err != nil {
		t.Fatal(err)
	}
	spans := regexp.MustCompile(`--except-days[ =](\S+):(\S+)`).FindAllSubmatch(ci, -1)
	for _, m := range spans {
		first, err1 := gen.ParseDate(string(m[1]))
		last, err2 := gen.ParseDate(string(m[2]))
		if err1 != nil || err2 != nil || last.Before(first) {
			t.Errorf("%s: not two days in order", m[0])
			continue
		}
		for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
			if !yearTested(d) {
				t.Errorf("%s: %s is left out but no year test generates it in full", m[0], d.Format(gen.DateLayout))
				break
			}
		}
	}
	if !regexp.MustCompile(`AYOAYO_PUZZLE_YEARS=1 .*-run '[^']*TestFeedYear`).Match(ci) {
		t.Errorf(".ci/run has no step running the year tests (TestFeedYear...) with AYOAYO_PUZZLE_YEARS=1, which --except-days relies on")
	}
}

// yearTested reports whether a year test generates d with
// AYOAYO_PUZZLE_YEARS=1.
func yearTested(d time.Time) bool {
	for _, version := range []int{1, 2} {
		first, days := gen.FullYearSpan(version)
		if !d.Before(first) && d.Before(first.AddDate(0, 0, days)) {
			return true
		}
	}
	return false
}
