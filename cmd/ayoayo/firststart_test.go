package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/puzzles"
)

// BenchmarkFirstStart starts ayoayo serve on a fresh SQLite file, with the
// defaults a new server has (the endgame table built at start, the
// practice stock), and reports how soon after the process starts
// /v1/puzzles/daily first answers 200 (daily-ms; the target is 1 s), when
// the log said the API is served (listening-ms), and the time of the first
// request of each stocked practice filter (practice-max-ms, the slowest;
// the target is 100 ms each; each filter's own figure is logged). An
// end-to-end benchmark: AYOAYO_E2E=1.
//
//	AYOAYO_E2E=1 go test ./cmd/ayoayo -run '^$' -bench FirstStart -benchtime 3x
func BenchmarkFirstStart(b *testing.B) {
	endToEnd(b, "starts the binary")
	bin := buildBinary(b, "")
	client := &http.Client{Timeout: 30 * time.Second}
	var daily, listening, practiceMax time.Duration
	byFilter := map[string]time.Duration{}
	n := 0
	for b.Loop() {
		dir := b.TempDir()
		start := time.Now()
		// "opening the database" names the port, which answers 503 until
		// the API is served.
		srv := startBinaryUntil(b, bin, "opening the database", "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "fresh.db"),
			"--tablebase-build", "12", "--practice-stock", strconv.Itoa(puzzles.DefaultStockSize), "--practice-rate", "0")
		for deadline := start.Add(time.Minute); ; {
			res, err := client.Get(srv.url + "/v1/puzzles/daily")
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) {
				b.Fatalf("no 200 from /v1/puzzles/daily within a minute (%v):\n%s", err, srv.logs())
			}
			time.Sleep(2 * time.Millisecond) // polling the port: the measure's resolution
		}
		daily += time.Since(start)
		listening += listenedAfter(b, srv.logs())
		for _, f := range puzzles.StockedFilters() {
			q := url.Values{}
			if f.Difficulty != 0 {
				q.Set("difficulty", strconv.Itoa(f.Difficulty))
			}
			if f.Goal != "" {
				q.Set("goal", string(f.Goal))
			}
			if f.Theme != "" {
				q.Set("theme", f.Theme)
			}
			t0 := time.Now()
			res, body := call(b, client, http.MethodGet, srv.url+"/v1/puzzles/practice?"+q.Encode(), "", "")
			took := time.Since(t0)
			if res.StatusCode != http.StatusOK {
				b.Fatalf("practice %s: %d %s", q.Encode(), res.StatusCode, truncate(body))
			}
			name := q.Encode()
			if name == "" {
				name = "any"
			}
			byFilter[name] += took
			practiceMax = max(practiceMax, took)
		}
		srv.stop(b)
		n++
	}
	var each []string
	for _, name := range slices.Sorted(maps.Keys(byFilter)) {
		each = append(each, fmt.Sprintf("%s %.1f", name, ms(byFilter[name])/float64(n)))
	}
	b.Logf("first practice answer, ms on average: %s", strings.Join(each, ", "))
	b.ReportMetric(ms(daily)/float64(n), "daily-ms")
	b.ReportMetric(ms(listening)/float64(n), "listening-ms")
	b.ReportMetric(ms(practiceMax), "practice-max-ms")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// listenedAfter is the time from the server's first log line to its
// "listening" line.
func listenedAfter(b *testing.B, logs string) time.Duration {
	b.Helper()
	var first, listening time.Time
	for _, line := range strings.Split(logs, "\n") {
		var l struct {
			Time time.Time
			Msg  string
		}
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		if first.IsZero() {
			first = l.Time
		}
		if l.Msg == "listening" {
			listening = l.Time
			break
		}
	}
	if listening.IsZero() {
		b.Fatalf("no listening line:\n%s", logs)
	}
	return listening.Sub(first)
}
