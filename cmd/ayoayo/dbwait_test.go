package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/fault"
)

// TestDBWait: a start tries to open the database again, with growing
// pauses, while the failure is one that passes, and no longer than --db-wait
// in all; any other failure ends it at once. The clock is the test's: each
// pause moves it on, and nothing sleeps.
func TestDBWait(t *testing.T) {
	down := fmt.Errorf("dial: %w", fault.ErrUnavailable)
	full := fmt.Errorf("no room: %w", fault.ErrStorageFull)
	refused := errors.New("password authentication failed")
	tests := []struct {
		name    string
		wait    time.Duration
		fails   []error // the tries' failures, in order; then it opens
		tries   int
		pauses  string
		wantErr error // nil: it opens
	}{
		{"up at once", time.Minute, nil, 1, "[]", nil},
		{"up on the third try", time.Minute, []error{down, down}, 3, "[250ms 500ms]", nil},
		{"a full disk is waited for too", time.Minute, []error{full}, 2, "[250ms]", nil},
		{"pauses grow to 5s", time.Minute, []error{down, down, down, down, down, down, down}, 8, "[250ms 500ms 1s 2s 4s 5s 5s]", nil},
		{"runs out of time", time.Second, []error{down, down, down, down, down, down}, 4, "[250ms 500ms 250ms]", fault.ErrUnavailable},
		{"no wait: one try", 0, []error{down}, 1, "[]", fault.ErrUnavailable},
		{"a refusal ends it at once", time.Minute, []error{refused, down}, 1, "[]", refused},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			var pauses []time.Duration
			w := dbWait{
				wait: tc.wait,
				now:  func() time.Time { return clock },
				after: func(d time.Duration) <-chan time.Time {
					pauses = append(pauses, d)
					clock = clock.Add(d)
					ch := make(chan time.Time, 1)
					ch <- clock
					return ch
				},
				log: slog.New(slog.DiscardHandler),
			}
			tries := 0
			st, err := w.open(t.Context(), func(context.Context) (store, error) {
				tries++
				if tries <= len(tc.fails) {
					return nil, tc.fails[tries-1]
				}
				return nil, nil // opened; the test needs no store
			})
			if tc.wantErr == nil && (err != nil || st != nil) {
				t.Fatalf("open: %v", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("open: %v, want %v", err, tc.wantErr)
			}
			if tries != tc.tries || fmt.Sprint(pauses) != tc.pauses {
				t.Fatalf("%d tries with pauses %v, want %d with %s", tries, pauses, tc.tries, tc.pauses)
			}
		})
	}
}

// TestServeWaitsForTheDatabase: a server whose database cannot be opened
// yet (its directory is not there, as a volume not mounted yet) answers
// /livez 200 and /readyz 503 with Retry-After, and serves once it can.
func TestServeWaitsForTheDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not-yet")
	m, _, stderr := testMain(map[string]string{
		"AYOAYO_ADDR":    "127.0.0.1:0",
		"AYOAYO_DB":      filepath.Join(dir, "serve.db"),
		"AYOAYO_DB_WAIT": "1m",
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() { code <- m.Run(ctx, []string{"serve", "--analyze-concurrency", "1"}) }()
	logLine := func(msg string) (addr string, ok bool) {
		for line := range strings.Lines(stderr.String()) {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == msg {
				return l.Addr, true
			}
		}
		return "", false
	}
	waitFor := func(msg string) string {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if addr, ok := logLine(msg); ok {
				return addr
			}
		}
		t.Fatalf("no %q line:\n%s", msg, stderr.String())
		return ""
	}
	status := func(addr, path string) (int, string) {
		t.Helper()
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode, res.Header.Get("Retry-After")
	}

	addr := waitFor("opening the database")
	waitFor("the database is not available; waiting for it")
	if code, _ := status(addr, "/livez"); code != http.StatusOK {
		t.Errorf("/livez while waiting: %d", code)
	}
	for _, path := range []string{"/readyz", "/v1/games/x"} {
		if code, retry := status(addr, path); code != http.StatusServiceUnavailable || retry == "" {
			t.Errorf("%s while waiting: %d, Retry-After %q; want 503 with one", path, code, retry)
		}
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := waitFor("listening"); got != addr {
		t.Fatalf("listening on %s, then on %s", addr, got)
	}
	if code, _ := status(addr, "/readyz"); code != http.StatusOK {
		t.Errorf("/readyz once open: %d", code)
	}
	cancel()
	if c := <-code; c != 0 {
		t.Fatalf("exit status %d:\n%s", c, stderr.String())
	}
}

// TestServeDBWaitErrors: --db-wait is checked like the other durations, and
// a start that runs out of it exits 1 saying so, with the last failure.
func TestServeDBWaitErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-dir", "x.db")
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want []string
		code int
	}{
		{"negative", nil, []string{"--db-wait", "-1s"}, []string{"--db-wait cannot be negative"}, 2},
		{"not a duration", map[string]string{"AYOAYO_DB_WAIT": "a while"}, nil, []string{"AYOAYO_DB_WAIT"}, 2},
		{"runs out", map[string]string{"AYOAYO_DB": missing}, []string{"--db-wait", "0"},
			[]string{"the database was not available within --db-wait 0s (1 tries)", "unable to open database file"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"AYOAYO_ADDR": "127.0.0.1:0", "AYOAYO_DB": filepath.Join(t.TempDir(), "x.db")}
			for k, v := range tt.env {
				env[k] = v
			}
			m, _, stderr := testMain(env)
			if code := m.Run(context.Background(), append([]string{"serve"}, tt.args...)); code != tt.code {
				t.Errorf("exit status %d, want %d:\n%s", code, tt.code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}
