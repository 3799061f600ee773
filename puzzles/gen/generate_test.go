package gen

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/engine/tablebase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func date(t testing.TB, s string) time.Time {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// generateRange generates n consecutive days from first with tb, shared out
// among the CPUs; the results are in date order.
func generateRange(t *testing.T, tb *tablebase.Table, first time.Time, n int) []Puzzle {
	t.Helper()
	out, err := Days(context.Background(), tb, first, n, DefaultCutover, testWorkers)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fullYears reports whether the year tests run in full: with
// AYOAYO_PUZZLE_YEARS=1 (a step of its own in .ci/run; minutes of CPU), and
// never under -short or the race detector. Otherwise they check a sample
// of four weeks, so that go test ./... stays well within its default
// timeout on a loaded 2-core machine.
func fullYears() bool {
	return os.Getenv("AYOAYO_PUZZLE_YEARS") == "1" && !testing.Short() && !raceDetector
}

// fullYearSpan is the year the year test of a generator version generates
// in full: 2026 for version 1 (TestFeedYear), 2027 for version 2
// (TestFeedYearV2). The shipped days of these years are compared with it
// (TestFeedYearShipped), so CI's check of the shipped file leaves them out
// (TestExceptDaysAreYearTested).
func fullYearSpan(version int) (first time.Time, days int) {
	return time.Date(2025+version, 1, 1, 0, 0, 0, 0, time.UTC), 365
}

// yearSpan is the run of days the year test of version generates in this
// run of the tests: the whole year with AYOAYO_PUZZLE_YEARS=1, else four
// weeks of it (from 2027-02-01 for version 2); ok is false where the test
// does not run (version 2 under the race detector).
func yearSpan(version int) (first time.Time, days int, ok bool) {
	first, days = fullYearSpan(version)
	switch {
	case version == 2 && raceDetector:
		return time.Time{}, 0, false
	case fullYears():
		return first, days, true
	case version == 2:
		return first.AddDate(0, 1, 0), 28, true
	}
	return first, 28, true
}

// yearFeeds holds the feeds the year tests generated, by version, so that
// TestFeedYearShipped compares the shipped days with them instead of
// generating a year again.
var yearFeeds struct {
	sync.Mutex
	feed map[int][]Puzzle
}

// yearFeed returns the feed of version's year test (yearSpan), generated on
// first need and kept for the test binary's life (two years are about
// 700 KB).
func yearFeed(t *testing.T, version int) (first time.Time, feed []Puzzle, ok bool) {
	t.Helper()
	first, days, ok := yearSpan(version)
	if !ok {
		return time.Time{}, nil, false
	}
	yearFeeds.Lock()
	defer yearFeeds.Unlock()
	if feed, ok := yearFeeds.feed[version]; ok {
		return first, feed, true
	}
	feed = generateRange(t, testTable(t), first, days)
	if yearFeeds.feed == nil {
		yearFeeds.feed = map[int][]Puzzle{}
	}
	yearFeeds.feed[version] = feed
	return first, feed, true
}

// TestFeedYear generates a whole year of the feed, as it will be served, and
// checks every promise the feed makes.
func TestFeedYear(t *testing.T) {
	first, feed, _ := yearFeed(t, 1)
	checkFeed(t, testTable(t), first, feed)
}

// TestFeedYearV2 generates the first year of version 2, 2027, and checks
// every promise of version 1 and version 2's depth targets: at least 60 %
// of all keys, 70 % of the keys of wins within 2 or 3 moves and 80 % of the
// keys from Friday to Sunday are not the biggest capture on offer. Without
// AYOAYO_PUZZLE_YEARS=1 it checks four weeks from 2027-02-01 and only logs
// the shares; under the race detector it does not run (version 2's deep
// days are slow there; TestFeedYear covers the code).
func TestFeedYearV2(t *testing.T) {
	first, feed, ok := yearFeed(t, 2)
	if !ok {
		t.Skip("version 2's deep days are slow under the race detector")
	}
	days := len(feed)
	checkFeed(t, testTable(t), first, feed)
	type share struct{ deep, of int }
	var all, weekend, win23 share
	count := func(s *share, deep bool) {
		s.of++
		if deep {
			s.deep++
		}
	}
	for _, pz := range feed {
		if pz.Version != 2 || PracticeSide(&pz.Position) {
			t.Errorf("%s: version %d, practice side %v", pz.ID, pz.Version, PracticeSide(&pz.Position))
		}
		deep := NonGreedy(pz)
		if deep != slices.Contains(pz.Themes, "sacrifice") {
			t.Errorf("%s: non-greedy %v, themes %v", pz.ID, deep, pz.Themes)
		}
		count(&all, deep)
		if wd := pz.Date.Weekday(); wd == time.Friday || wd == time.Saturday || wd == time.Sunday {
			count(&weekend, deep)
		}
		if pz.Goal == GoalWin && pz.Depth >= 2 {
			count(&win23, deep)
		}
	}
	for _, target := range []struct {
		name    string
		s       share
		percent int
	}{{"all", all, 60}, {"Friday to Sunday", weekend, 80}, {"wins within 2 or 3", win23, 70}} {
		t.Logf("non-greedy keys, %s: %d of %d", target.name, target.s.deep, target.s.of)
		if days == 365 && (target.s.of == 0 || 100*target.s.deep < target.percent*target.s.of) {
			t.Errorf("non-greedy keys, %s: %d of %d, want at least %d %%", target.name, target.s.deep, target.s.of, target.percent)
		}
	}
}

// checkFeed checks every promise the feed makes of days consecutive days
// from first.
func checkFeed(t *testing.T, tb *tablebase.Table, first time.Time, feed []Puzzle) {
	days := len(feed)
	t.Run("each verifies", func(t *testing.T) {
		for i, pz := range feed {
			d := first.AddDate(0, 0, i)
			if err := Verify(tb, pz); err != nil {
				t.Errorf("%s: %v", d.Format(DateLayout), err)
			}
			if !pz.Date.Equal(d) || pz.ID != IDFor(d) || pz.Version != VersionFor(d, DefaultCutover) {
				t.Errorf("%s: date %v id %s version %d", d.Format(DateLayout), pz.Date, pz.ID, pz.Version)
			}
			if pz.KeyLegs < MinKeyLegs || pz.Difficulty != TargetDifficulty(d) || pz.Prompt == "" {
				t.Errorf("%s: key legs %d, difficulty %d (the weekday's is %d), prompt %q", pz.ID, pz.KeyLegs, pz.Difficulty, TargetDifficulty(d), pz.Prompt)
			}
			if pz.Goal == GoalEndgame && (pz.Depth < 1 || pz.Depth > maxEndgameDepth || pz.Position.BoardSeeds() > EndgameSeeds) {
				t.Errorf("%s: endgame within %d, %d seeds on the board", pz.ID, pz.Depth, pz.Position.BoardSeeds())
			}
			if pz.Goal == GoalWin && (pz.Depth < 1 || pz.Depth > MaxWinDepth || pz.Plies() > 2*pz.Depth) {
				t.Errorf("%s: win within %d in %d plies", pz.ID, pz.Depth, pz.Plies())
			}
		}
	})

	t.Run("naive solver agrees", func(t *testing.T) {
		endgames, exact := 0, 0
		for _, pz := range feed {
			refProve(t, pz)
			if pz.Goal == GoalEndgame {
				endgames++
				if _, ok := refEndgameProblems(pz); ok {
					exact++
				}
			}
		}
		t.Logf("%d endgame puzzles, %d of them checked exactly (a small enough game graph)", endgames, exact)
	})

	t.Run("no position repeats", func(t *testing.T) {
		seen := map[engine.Position]string{}
		for _, pz := range feed {
			if other, dup := seen[pz.Position]; dup {
				t.Errorf("%s and %s share position %s", other, pz.ID, pz.Position)
			}
			seen[pz.Position] = pz.ID
		}
		if len(seen) != days {
			t.Errorf("%d distinct positions in %d days", len(seen), days)
		}
	})

	t.Run("difficulty rises through the week", func(t *testing.T) {
		var sum, count [7]int
		for _, pz := range feed {
			wd := (int(pz.Date.Weekday()) + 6) % 7 // Monday first
			sum[wd] += pz.Difficulty
			count[wd]++
		}
		means := make([]string, 7)
		for wd := range 7 {
			means[wd] = fmt.Sprintf("%.2f", float64(sum[wd])/float64(count[wd]))
			// Compare sum[wd]/count[wd] > sum[wd-1]/count[wd-1] exactly.
			if wd > 0 && sum[wd]*count[wd-1] <= sum[wd-1]*count[wd] {
				t.Errorf("weekday %d's mean difficulty does not rise", wd)
			}
		}
		t.Logf("mean difficulty Monday to Sunday: %s", strings.Join(means, " "))
	})

	t.Run("every goal appears", func(t *testing.T) {
		goals := map[Goal]int{}
		depths := map[int]int{}
		for _, pz := range feed {
			goals[pz.Goal]++
			if pz.Goal == GoalWin {
				depths[pz.Depth]++
			}
		}
		for _, g := range Goals {
			// Endgame puzzles (version 2) are a few a month: a full year
			// must have them, a sample need not.
			if goals[g] == 0 && (g != GoalEndgame || (days == 365 && feed[0].Version >= 2)) {
				t.Errorf("no %s puzzle in %d days", g, days)
			}
		}
		if days == 365 && len(depths) != MaxWinDepth {
			t.Errorf("win depths %v, want each of 1 to %d", depths, MaxWinDepth)
		}
		t.Logf("goals %v, win depths %v", goals, depths)
	})
}

// TestGenerateIsPure: the same date gives the same puzzle every time, with
// the shared generator and with a fresh one (which builds its own endgame
// table), and the version changes it. Under the race detector the version 2
// date is left out: a table build and a deep day take minutes there.
func TestGenerateIsPure(t *testing.T) {
	dates := []string{"2026-01-01", "2026-06-14", "2028-02-29"}
	if raceDetector {
		dates = dates[:2]
	}
	for _, s := range dates {
		t.Run(s, func(t *testing.T) {
			d := date(t, s)
			v := VersionFor(d, DefaultCutover)
			a, err := Daily(context.Background(), testTable(t), d, v)
			if err != nil {
				t.Fatal(err)
			}
			var fresh *tablebase.Table // version 1 needs none
			if v >= 2 {
				if fresh, err = tablebase.Build(context.Background(), EndgameSeeds, engine.Rules{}, testWorkers, nil); err != nil {
					t.Fatal(err)
				}
			}
			b, err := Daily(context.Background(), fresh, d.Add(17*time.Hour), v) // any time of the day
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("two generations differ:\n%+v\n%+v", a, b)
			}
		})
	}
	for _, v := range []int{0, Version + 1} {
		if _, err := Daily(context.Background(), testTable(t), date(t, "2026-01-01"), v); !errors.Is(err, ErrUnknownVersion) {
			t.Fatalf("version %d: %v, want ErrUnknownVersion", v, err)
		}
	}
}

func TestGenerateStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Daily(ctx, nil, date(t, "2026-01-04"), 1); err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// goldenPuzzle is the part of a puzzle the golden file pins.
type goldenPuzzle struct {
	ID         string   `json:"id"`
	Position   string   `json:"position"`
	Goal       Goal     `json:"goal"`
	Depth      int      `json:"depth"`
	Difficulty int      `json:"difficulty"`
	KeyLegs    int      `json:"keyLegs"`
	Solution   []int    `json:"solution"`
	Themes     []string `json:"themes"`
	Prompt     string   `json:"prompt"`
}

// TestGoldenFortnight pins two weeks of the feed of each version: a machine,
// a Go release or a change to the code that gives other puzzles for the same
// version fails here. Changing the puzzles on purpose means a new Version
// (and go test -run Golden -update, which must leave the older files as they
// are).
func TestGoldenFortnight(t *testing.T) {
	tests := []struct {
		name, first, file string
	}{
		{"version 1", "2026-03-02", "testdata/fortnight.golden.jsonl"},
		{"version 2", "2027-03-01", "testdata/fortnight-v2.golden.jsonl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if raceDetector && tt.name != "version 1" {
				t.Skip("version 2's deep days are slow under the race detector; version 1 covers the code")
			}
			checkGolden(t, generateRange(t, testTable(t), date(t, tt.first), 14), tt.file)
		})
	}
}

func checkGolden(t *testing.T, feed []Puzzle, file string) {
	t.Helper()
	var got strings.Builder
	for _, pz := range feed {
		line, err := json.Marshal(goldenPuzzle{pz.ID, pz.Position.String(), pz.Goal, pz.Depth, pz.Difficulty, pz.KeyLegs, pz.Solution, pz.Themes, pz.Prompt})
		if err != nil {
			t.Fatal(err)
		}
		got.Write(line)
		got.WriteByte('\n')
	}
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("the feed differs from %s (run with -update only when Version changes):\ngot:\n%s", file, got.String())
	}
}

func TestTargetDifficulty(t *testing.T) {
	tests := []struct {
		date string
		want int
	}{
		{"2026-03-02", 1}, // Monday
		{"2026-03-03", 1}, // Tuesday of an even ISO week (10)
		{"2026-03-10", 2}, // and of an odd one (11)
		{"2026-03-04", 2}, // Wednesday
		{"2026-03-05", 3}, // Thursday
		{"2026-03-06", 3}, // Friday, week 10
		{"2026-03-13", 4}, // week 11
		{"2026-03-07", 4}, // Saturday
		{"2026-03-08", 5}, // Sunday
	}
	for _, tt := range tests {
		t.Run(tt.date, func(t *testing.T) {
			if got := TargetDifficulty(date(t, tt.date)); got != tt.want {
				t.Fatalf("TargetDifficulty = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestDifficulty(t *testing.T) {
	tests := []struct {
		name                string
		goal                Goal
		depth, legs, decoys int
		want                int
	}{
		{"plain capture", GoalMaxCapture, 1, 8, 0, 1},
		{"capture, long relay", GoalMaxCapture, 1, 12, 0, 2},
		{"capture, very long relay and decoys", GoalMaxCapture, 1, 18, 3, 5},
		{"win in one", GoalWin, 1, 9, 0, 1},
		{"win in three", GoalWin, 3, 9, 0, 3},
		{"win in three, everything", GoalWin, 3, 20, 4, 5},
		{"defend", GoalDefend, 1, 8, 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := difficulty(tt.goal, tt.depth, tt.legs, tt.decoys); got != tt.want {
				t.Fatalf("difficulty = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestBucketsPartitionTheYear: the no-repeat rule rests on each date of a
// 366-day window owning a different bucket.
func TestBucketsPartitionTheYear(t *testing.T) {
	first := date(t, "2027-06-01")
	seen := map[int]bool{}
	for i := range Window {
		seen[DayBucket(first.AddDate(0, 0, i))] = true
	}
	if len(seen) != Window {
		t.Fatalf("%d buckets over %d days", len(seen), Window)
	}
	if DayBucket(first) != DayBucket(first.AddDate(0, 0, Window)) {
		t.Fatal("buckets do not cycle with the window")
	}
}

func TestMirrorIsAnInvolution(t *testing.T) {
	for _, s := range []string{"s-444444-444444-0-0", "n-010a12-100411-18-9", "s-1c2112-143130-15-2"} {
		p := engine.MustParse(s)
		m := mirror(p)
		if err := m.Validate(); err != nil || mirror(m) != p || m == p {
			t.Errorf("%s: mirror %s (%v)", s, m, err)
		}
	}
}
