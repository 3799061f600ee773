package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/memory"
)

// loadtestServer serves the API in process, with a memory store and the
// given limits.
func loadtestServer(t *testing.T, opts api.Options) string {
	t.Helper()
	cpu := testCPU() // one budget for the process's services, as serve makes
	st := memory.New()
	hub := games.NewHub(st, games.HubOptions{})
	opts.Games, opts.Hub = games.NewService(st, cpu, games.Options{Changed: hub}), hub
	opts.Analyses = analysis.New(cpu, analysis.Options{})
	h, err := api.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLoadtestRefusals: the load test waits out Retry-After within
// --retry-wait, reports every refused request by operation and status, and
// fails, naming the serve flags a load test needs, when it could not set up
// or keep its games.
func TestLoadtestRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs load tests of a few seconds")
	}
	tests := []struct {
		name   string
		opts   api.Options
		args   []string
		code   int
		stdout []string // lines the report must have
		stderr string
	}{
		{
			// Two games at once, then one a second: the other two wait.
			name:   "set-up waits out Retry-After",
			opts:   api.Options{RateLimits: api.RateLimits{"game-create": {Rate: 60, Burst: 2}}},
			args:   []string{"--games", "4", "--concurrency", "4", "--duration", "500ms", "--retry-wait", "20s"},
			code:   0,
			stdout: []string{"refused (answers not 2xx): create 429: ", "sent again after Retry-After: ", "note: the server limited this client address (429)"},
		},
		{
			name:   "set-up refused beyond --retry-wait",
			opts:   api.Options{RateLimits: api.RateLimits{"game-create": {Rate: 1, Burst: 2}}},
			args:   []string{"--games", "3", "--duration", "500ms", "--retry-wait", "1s"},
			code:   1,
			stdout: []string{"given up: create 429: 1"},
			stderr: "setting up games: 1 of 3 could not be set up: POST /v1/games: 429",
		},
		{
			// Two games, created at once; they end within the run, and their
			// replacements are refused for a minute: both are lost. The run
			// is long enough for two games of random moves to end even
			// under the race detector on a loaded machine (about 20 moves
			// a second there, and a game takes up to about 100).
			name:   "replacements refused",
			opts:   api.Options{RateLimits: api.RateLimits{"game-create": {Rate: 1, Burst: 2}}},
			args:   []string{"--games", "2", "--concurrency", "2", "--duration", "12s", "--retry-wait", "1s"},
			code:   1,
			stdout: []string{"lost 2", "given up: create 429: 2"},
			stderr: "could not keep 2 games in play: 2 lost",
		},
		{
			name:   "joins refused",
			opts:   api.Options{RateLimits: api.RateLimits{"join": {Rate: 1, Burst: 1}}},
			args:   []string{"--games", "2", "--duration", "500ms", "--retry-wait", "0s"},
			code:   1,
			stdout: []string{"given up: join 429: 1"},
			stderr: "setting up games: 1 of 2 could not be set up",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := loadtestServer(t, tt.opts)
			m, stdout, stderr := testMain(nil)
			code := m.Run(context.Background(), append([]string{"loadtest", "--addr", url}, tt.args...))
			if code != tt.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the report lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
			if tt.code != 0 && !strings.Contains(stderr.String(), loadtestServeFlags) {
				t.Errorf("a run refused with 429 does not name the serve flags a load test needs:\n%s", stderr)
			}
		})
	}
}

// TestLoadtestFlood: --flood measures the cheap requests alone and under
// the flood, and reports both, their ratio and every heavy answer by
// operation and status; the run is bounded by its durations.
func TestLoadtestFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a load test of a few seconds")
	}
	url := loadtestServer(t, api.Options{})
	m, stdout, stderr := testMain(nil)
	code := m.Run(context.Background(), []string{"loadtest", "--addr", url, "--flood", "--duration", "500ms", "--flood-warm-up", "200ms",
		"--flood-analyses", "1", "--flood-practice", "1", "--flood-ai", "1"})
	if code != 0 {
		t.Fatalf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"flood: 1 analyses (timeMs 10000), 1 practice requests (difficulty 5), 1 games against AI level 8, 0 reviews of 80-ply records",
		"POST /v1/evaluate        alone p50/p99 ",
		"move against a person    alone p50/p99 ",
		"p99 ratio ",
		// This server has no puzzle feed: every practice request is 503.
		"practice 503: ",
		"ai create 201: 1",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	m, _, stderr = testMain(nil)
	if code := m.Run(context.Background(), []string{"loadtest", "--addr", "http://192.0.2.1:8080", "--flood"}); code != 2 || !strings.Contains(stderr.String(), "only runs against a server on this machine") {
		t.Errorf("a flood of another machine: exit %d, %s", code, stderr)
	}
}

// TestLoadtestFloodReviews: --flood-reviews adds loops of POST /v1/review
// to the flood, alone when the other loops are 0, and counts their answers
// (this server has no reviews: every one is 503, waited out as its
// Retry-After asks); a negative count is a usage error.
func TestLoadtestFloodReviews(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a load test of a few seconds")
	}
	url := loadtestServer(t, api.Options{})
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{
			name: "reviews alone",
			args: []string{"--flood-analyses", "0", "--flood-practice", "0", "--flood-ai", "0", "--flood-reviews", "2"},
			stdout: []string{
				"flood: 0 analyses (timeMs 10000), 0 practice requests (difficulty 5), 0 games against AI level 8, 2 reviews of 80-ply records",
				"p99 ratio ",
				"review 503: ",
			},
		},
		{
			name:   "reviews beside the rest",
			args:   []string{"--flood-analyses", "1", "--flood-practice", "0", "--flood-ai", "0", "--flood-reviews", "1"},
			stdout: []string{"1 analyses", "1 reviews of 80-ply records", "review 503: "},
		},
		{
			name:   "a negative count",
			args:   []string{"--flood-reviews", "-1"},
			code:   2,
			stderr: "cannot be negative",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, stdout, stderr := testMain(nil)
			args := append([]string{"loadtest", "--addr", url, "--flood", "--duration", "300ms", "--flood-warm-up", "200ms"}, tt.args...)
			if code := m.Run(context.Background(), args); code != tt.code {
				t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("the report lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, stderr)
			}
		})
	}
}
