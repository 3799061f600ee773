package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The admin port serves the metrics (the new ones among them), the
// profiler and the health checks; the public port then answers /metrics
// with 404, and the admin port serves nothing else.
func TestAdminPort(t *testing.T) {
	m, _, stderr := testMain(map[string]string{
		"AYOAYO_ADDR":       "127.0.0.1:0",
		"AYOAYO_ADMIN_ADDR": "127.0.0.1:0",
		"AYOAYO_DB":         filepath.Join(t.TempDir(), "admin.db"),
	})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	go func() { exit <- m.Run(ctx, []string{"serve"}) }()
	public := "http://" + listeningAddr(t, stderr)
	var admin string
	for line := range strings.Lines(stderr.String()) {
		var l struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "admin listening" {
			admin = "http://" + l.Addr
		}
	}
	if admin == "" {
		t.Fatalf("no admin listening line:\n%s", stderr)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(url string) (int, string) {
		t.Helper()
		res, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	// An open event stream shows in the gauge.
	var seat ltSeat
	if st, _, err := callJSON(ctx, client, http.MethodPost, public+"/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &seat); err != nil || st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, err)
	}
	streamCtx, closeStream := context.WithCancel(ctx)
	req, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, public+"/v1/games/"+seat.Game.ID+"/events", nil)
	stream, err := http.DefaultClient.Do(req)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %v", err)
	}
	defer stream.Body.Close()
	defer closeStream()

	code, body := get(admin + "/metrics")
	if code != http.StatusOK {
		t.Fatalf("admin /metrics: %d", code)
	}
	for _, want := range []string{
		"ayoayo_build_info{", "ayoayo_http_requests_total{",
		"ayoayo_db_pool_max_connections 16", "ayoayo_db_pool_in_use_connections ", "ayoayo_db_pool_idle_connections ",
		"ayoayo_db_pool_waits_total ", "ayoayo_db_pool_wait_seconds_total ",
		"ayoayo_event_streams_open 1",
		"ayoayo_ai_searches_running 0", "ayoayo_ai_moves_waiting 0", "ayoayo_analyses_waiting 0",
		"ayoayo_sweeps_total ", "ayoayo_sweep_failures_total 0", "ayoayo_sweep_games_total 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("admin /metrics lacks %q", want)
		}
	}
	if code, _ := get(public + "/metrics"); code != http.StatusNotFound {
		t.Errorf("public /metrics with an admin port: %d, want 404", code)
	}
	for _, path := range []string{"/livez", "/readyz", "/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/heap"} {
		if code, _ := get(admin + path); code != http.StatusOK {
			t.Errorf("admin %s: %d, want 200", path, code)
		}
	}
	for _, path := range []string{"/v1/games", "/openapi.yaml", "/"} {
		if code, _ := get(admin + path); code != http.StatusNotFound {
			t.Errorf("admin %s: %d, want 404 (the API is not served there)", path, code)
		}
	}
	if code, _ := get(public + "/debug/pprof/"); code == http.StatusOK {
		t.Error("the profiler is served on the public port")
	}

	closeStream()
	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not stop")
	}
}
