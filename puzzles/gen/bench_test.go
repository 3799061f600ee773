package gen

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkGenerate measures one generation by each version over its first
// year as the feed serves it (version 1 from 2026-01-05, version 2 from
// 2027-01-04, both Mondays): for every weekday (the grade the day asks for),
// cycling through that weekday's dates of the year, and for all days of the
// year together (-benchtime 365x covers each once). The slowest generation
// seen is reported as max-ms (wall clock), with the mean and slowest CPU
// time (cpu-ms, max-cpu-ms); the target is 2 s on one core.
func BenchmarkGenerate(b *testing.B) {
	tb := testTable(b) // built once, before the clock starts
	for _, v := range []struct {
		version int
		monday  time.Time
	}{
		{1, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)},
		{2, time.Date(2027, 1, 4, 0, 0, 0, 0, time.UTC)},
	} {
		bench := func(b *testing.B, step, offset, days int) {
			var m cpuMeter
			defer m.report(b)
			i := 0
			for b.Loop() {
				d := v.monday.AddDate(0, 0, offset+step*(i%days))
				m.start()
				if _, err := Daily(context.Background(), tb, d, v.version); err != nil {
					b.Fatal(err)
				}
				m.stop()
				i++
			}
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
// slowest is reported as max-ms, the share of seq that found no puzzle
// within the budget (ErrNoPuzzle) as misses/op. -benchtime 20x samples 20
// puzzles each.
func BenchmarkGeneratePractice(b *testing.B) {
	tb := testTable(b)
	for d := range 6 {
		name := fmt.Sprintf("difficulty-%d", d)
		if d == 0 {
			name = "any"
		}
		b.Run(name, func(b *testing.B) {
			var m cpuMeter
			defer m.report(b)
			seq, misses := uint64(0), 0
			for b.Loop() {
				m.start()
				_, err := Practice(context.Background(), tb, Version, PracticeFilter{Difficulty: d}, seq)
				m.stop()
				misses += practiceMiss(b, err)
				seq++
			}
			b.ReportMetric(float64(misses)/float64(seq), "misses/op")
		})
	}
}

// practiceMiss counts a practice generation that found no puzzle within its
// budget (a rare grade can run out): 1 for ErrNoPuzzle, 0 for none, fatal for
// anything else.
func practiceMiss(b *testing.B, err error) int {
	if errors.Is(err, ErrNoPuzzle) {
		return 1
	}
	if err != nil {
		b.Fatal(err)
	}
	return 0
}

// cpuMeter times generations by the wall clock and by the CPU time of the
// benchmark's own thread (to which it locks its goroutine): on the shared
// machine the wall clock also counts the time other processes hold the
// core, the CPU time only the generation's work.
type cpuMeter struct {
	wall                    time.Time
	cpuStart                time.Duration
	n                       int
	sumCPU, slowest, maxCPU time.Duration
	locked                  bool
}

func (m *cpuMeter) start() {
	if !m.locked {
		runtime.LockOSThread()
		m.locked = true
	}
	m.wall, m.cpuStart = time.Now(), threadCPU()
}

func (m *cpuMeter) stop() {
	cpu := threadCPU() - m.cpuStart
	m.slowest = max(m.slowest, time.Since(m.wall))
	m.maxCPU = max(m.maxCPU, cpu)
	m.sumCPU += cpu
	m.n++
}

func (m *cpuMeter) report(b *testing.B) {
	if m.locked {
		runtime.UnlockOSThread()
	}
	if m.n == 0 {
		return
	}
	b.ReportMetric(float64(m.slowest.Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(m.sumCPU.Microseconds())/1000/float64(m.n), "cpu-ms")
	b.ReportMetric(float64(m.maxCPU.Microseconds())/1000, "max-cpu-ms")
}

// BenchmarkVerify measures the check made whenever a puzzle is loaded: two
// weeks of each version, and an endgame puzzle (won in 3 moves), whose
// proof probes the table and searches the win again.
func BenchmarkVerify(b *testing.B) {
	tb := testTable(b)
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
				pz, err := Daily(context.Background(), tb, v.first.AddDate(0, 0, i), v.version)
				if err != nil {
					b.Fatal(err)
				}
				feed = append(feed, pz)
			}
			i := 0
			for b.Loop() {
				if err := Verify(tb, feed[i%len(feed)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	b.Run("endgame", func(b *testing.B) {
		pz := endgamePuzzle(b, tb, endgamePosition)
		for b.Loop() {
			if err := Verify(tb, pz); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDailyBesideBusyWork measures a version 1 day's generation alone
// and beside as many goroutines as the machine's two cores that compute
// without ever blocking (as a table build, another package's test or a
// request's encoding may). A generation gets its share of the processors
// from the scheduler's preemption; one that yielded at every position
// (runtime.Gosched, as it once did) went to the back of the run queue each
// time and took over 250 times as long beside them.
func BenchmarkDailyBesideBusyWork(b *testing.B) {
	d := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	for _, busy := range []int{0, testWorkers} {
		b.Run(fmt.Sprintf("busy-%d", busy), func(b *testing.B) {
			stop := make(chan struct{})
			defer close(stop)
			for range busy {
				go spin(stop)
			}
			for b.Loop() {
				if _, err := Daily(context.Background(), nil, d, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// spin computes until stop is closed, looking at it only every few million
// steps so that it never blocks in between.
func spin(stop <-chan struct{}) {
	x := uint64(1)
	for {
		for range 1 << 22 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		select {
		case <-stop:
			return
		default:
		}
		if x == 0 {
			return // never: keeps x alive
		}
	}
}
