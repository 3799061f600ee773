package main

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/internal/load"
	"github.com/ayoayo/ayoayo/store/memory"
)

// deadlinesServers serves the API in process: instances of it sharing one
// memory store, each with its own sweeper unless sweep is false, and the
// given limits; it returns their addresses, comma-separated. Instances of a
// memory store hear of each other's changes only by polling, every poll.
func deadlinesServers(t *testing.T, instances int, sweep bool, poll time.Duration, opts api.Options) string {
	t.Helper()
	store := memory.New()
	var addrs []string
	for range instances {
		hub := games.NewHub(store, games.HubOptions{PollInterval: poll})
		svc := games.NewService(store, testCPU(), games.Options{Changed: hub})
		if sweep {
			go games.NewSweeper(svc, games.SweepOptions{}).Run(t.Context())
		}
		o := opts
		o.Games, o.Hub = svc, hub
		h, err := api.New(o)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		addrs = append(addrs, srv.URL)
	}
	return strings.Join(addrs, ",")
}

// TestDeadlines: the benchmark sets up games whose clocks run out within
// a few seconds, sees each end once, by timeout, on a follower's stream,
// and reports the delay; it fails when a game never ends within its bound or
// the server refuses the streams it needs, and --idle reports each
// instance's CPU.
func TestDeadlines(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for clocks of a few seconds")
	}
	tests := []struct {
		name      string
		instances int
		sweep     bool
		poll      time.Duration
		opts      api.Options
		args      []string
		code      int
		stdout    []string // lines the report must have
		stderr    string
	}{
		{
			name: "one instance", instances: 1, sweep: true, poll: time.Hour,
			args: []string{"--games", "6", "--lead", "1s", "--spread", "2s", "--timeout", "20s"},
			stdout: []string{"games 6, followers on 1 instance(s)", "end events per game: exactly 1: 6, none: 0, more: 0",
				"ended as: finished timeout: 6", "deadline to end event: p50 "},
		},
		{
			// Both sweep the one store: each game still ends once, whichever
			// instance its follower is on.
			name: "two instances", instances: 2, sweep: true, poll: 50 * time.Millisecond,
			args:   []string{"--games", "6", "--lead", "1s", "--spread", "1s", "--timeout", "20s"},
			stdout: []string{"followers on 2 instance(s)", "end events per game: exactly 1: 6, none: 0, more: 0", "ended as: finished timeout: 6"},
		},
		{
			name: "nobody sweeps", instances: 1, sweep: false, poll: time.Hour,
			args:   []string{"--games", "3", "--lead", "1s", "--spread", "0s", "--timeout", "3s"},
			code:   1,
			stdout: []string{"end events per game: exactly 1: 0, none: 3, more: 0", "never ended: 3: ["},
			stderr: "3 of 3 games had no end event within the run's bound",
		},
		{
			name: "streams refused", instances: 1, sweep: true, poll: time.Hour, opts: api.Options{MaxStreamsPerClient: 2},
			// A lead long enough for the set-up on a loaded machine: the
			// third stream must be refused before any game ends.
			args:   []string{"--games", "3", "--concurrency", "1", "--lead", "10s", "--timeout", "30s"},
			code:   1,
			stdout: []string{"refused (answers not 2xx): stream 429: 1"},
			stderr: load.DeadlinesServeFlags,
		},
		{
			name: "idle", instances: 2, sweep: true, poll: time.Hour,
			args:   []string{"--idle", "--games", "4", "--sample", "1s"},
			stdout: []string{"games 4 with 3h0m0s clocks", "% of one core"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			addr := deadlinesServers(t, tt.instances, tt.sweep, tt.poll, tt.opts)
			m, stdout, stderr := testMain(nil)
			code := m.Run(context.Background(), append([]string{"deadlines", "--addr", addr}, tt.args...))
			t.Logf("report:\n%s", stdout)
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
		})
	}
}
