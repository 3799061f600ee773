package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestServeUnderAbuse runs the real binary as an operator would (default
// limits, behind a proxy on loopback) and sends it the requests of the
// issue "Game sessions under abuse", each as it was seen over HTTP; then
// it runs the load test against it, and against a server started with the
// flags docs/performance.md gives for a load test.
func TestServeUnderAbuse(t *testing.T) {
	endToEnd(t, "builds and runs the binary")
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	srv := startBinary(t, bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "abuse.db"), "--trusted-proxies", "127.0.0.1")
	client := &http.Client{Timeout: 30 * time.Second}
	send := func(method, path string, header http.Header, body any) (*http.Response, []byte) {
		t.Helper()
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = strings.NewReader(string(b))
		}
		req, err := http.NewRequest(method, srv.url+path, rd)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range header {
			req.Header[k] = v
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return res, data
	}
	problem := func(res *http.Response, data []byte, status int, code string) string {
		t.Helper()
		var p struct{ Code, Detail string }
		if err := json.Unmarshal(data, &p); err != nil || res.StatusCode != status || p.Code != code {
			t.Fatalf("%d %s, want %d %s", res.StatusCode, truncate(data), status, code)
		}
		return p.Detail
	}
	human := map[string]any{"opponent": map[string]any{"type": "human"}}

	t.Run("X-Forwarded-For entries left of the client change nothing", func(t *testing.T) {
		created := 0
		for i := range 40 {
			res, data := send(http.MethodPost, "/v1/games", http.Header{"X-Forwarded-For": {fmt.Sprintf("10.9.%d.1, 198.51.100.9", i)}}, human)
			switch res.StatusCode {
			case http.StatusCreated:
				created++
			default:
				problem(res, data, http.StatusTooManyRequests, "rate_limited")
				if res.Header.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
			}
		}
		if created != 20 {
			t.Errorf("%d of 40 games created past a burst of 20", created)
		}
	})

	var game ltGame
	var tokens [2]string
	newGame := func() {
		t.Helper()
		var a, b ltSeat
		res, data := send(http.MethodPost, "/v1/games", nil, human)
		if res.StatusCode != http.StatusCreated || json.Unmarshal(data, &a) != nil {
			t.Fatalf("create: %d %s", res.StatusCode, data)
		}
		res, data = send(http.MethodPost, "/v1/games/"+a.Game.ID+"/join", nil, nil)
		if res.StatusCode != http.StatusCreated || json.Unmarshal(data, &b) != nil {
			t.Fatalf("join: %d %s", res.StatusCode, data)
		}
		game, tokens = b.Game, [2]string{a.Token, b.Token}
	}
	newGame()

	t.Run("Last-Event-ID beyond the game's ply", func(t *testing.T) {
		res, data := send(http.MethodGet, "/v1/games/"+game.ID+"/events", http.Header{"Last-Event-Id": {"1000"}}, nil)
		problem(res, data, http.StatusBadRequest, "invalid_request")
	})

	t.Run("a huge X-Request-ID is replaced", func(t *testing.T) {
		huge := strings.Repeat("x", 200<<10)
		before := len(srv.logs())
		res, data := send(http.MethodGet, "/livez", http.Header{"X-Request-Id": {huge}}, nil)
		if res.StatusCode != http.StatusOK || len(res.Header.Get("X-Request-Id")) != 32 || len(data) > 100 {
			t.Fatalf("%d, X-Request-ID of %d bytes, %d bytes of body", res.StatusCode, len(res.Header.Get("X-Request-Id")), len(data))
		}
		// The request's log line reaches the test's reader of the server's
		// standard error a moment after the answer.
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(srv.logs()[before:], `"path":"/livez"`) && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if line := srv.logs()[before:]; !strings.Contains(line, `"path":"/livez"`) || len(line) > 2000 {
			t.Errorf("the request's log line (%d bytes): %s", len(line), truncate([]byte(line)))
		}
	})

	t.Run("parameter errors name the parameter and the reason only", func(t *testing.T) {
		res, data := send(http.MethodGet, "/v1/games/"+strings.Repeat("A", 65), nil, nil)
		if d := problem(res, data, http.StatusBadRequest, "invalid_request"); d != "path parameter id: maximum string length is 64" {
			t.Errorf("detail %q", d)
		}
		res, data = send(http.MethodGet, "/v1/games/"+game.ID+"/events", http.Header{"Last-Event-Id": {"-1"}}, nil)
		if d := problem(res, data, http.StatusBadRequest, "invalid_request"); d != "header parameter Last-Event-ID: number must be at least 0" {
			t.Errorf("detail %q", d)
		}
	})

	t.Run("HEAD on GET resources", func(t *testing.T) {
		for path, contentType := range map[string]string{
			"/":                                "text/html; charset=utf-8",
			"/livez":                           "application/json",
			"/v1/games/" + game.ID:             "application/json",
			"/v1/games/" + game.ID + "/events": "text/event-stream", // at once, not a stream
		} {
			res, data := send(http.MethodHead, path, nil, nil)
			if res.StatusCode != http.StatusOK || len(data) != 0 || res.Header.Get("Content-Type") != contentType {
				t.Errorf("HEAD %s: %d, %d bytes, Content-Type %q", path, res.StatusCode, len(data), res.Header.Get("Content-Type"))
			}
		}
	})

	t.Run("moves are limited per client address", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 3))
		for played := 0; ; played++ {
			if game.Status != "active" {
				newGame()
			}
			pit, err := pickMove(game.Position, rng)
			if err != nil {
				t.Fatal(err)
			}
			side := 0
			if game.Position.ToMove == "north" {
				side = 1
			}
			res, data := send(http.MethodPost, "/v1/games/"+game.ID+"/moves", http.Header{"Authorization": {"Bearer " + tokens[side]}}, map[string]int{"pit": pit, "ply": game.Ply})
			if res.StatusCode == http.StatusTooManyRequests {
				problem(res, data, http.StatusTooManyRequests, "rate_limited")
				// A burst of 60, and 10 a second besides while they were sent.
				if ra, _ := strconv.Atoi(res.Header.Get("Retry-After")); played < 60 || ra != 1 {
					t.Errorf("refused after %d moves with Retry-After %q, want after 60 or more, 1 s", played, res.Header.Get("Retry-After"))
				}
				return
			}
			var ans ltAnswer
			if res.StatusCode != http.StatusCreated || json.Unmarshal(data, &ans) != nil {
				t.Fatalf("move: %d %s", res.StatusCode, data)
			}
			game = ans.Game
			if played > 1000 {
				t.Fatal("1000 moves and no limit")
			}
		}
	})

	t.Run("loadtest against the default limits fails and says why", func(t *testing.T) {
		m, stdout, stderr := testMain(nil)
		code := m.Run(context.Background(), []string{"loadtest", "--addr", srv.url, "--games", "200", "--duration", "1s", "--retry-wait", "1s"})
		if code != 1 || !strings.Contains(stdout.String(), "create 429: ") || !strings.Contains(stderr.String(), loadtestServeFlags) {
			t.Errorf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
	})
	srv.stop(t)

	t.Run("loadtest against the documented load-test flags", func(t *testing.T) {
		lsrv := startBinary(t, bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "load.db"),
			"--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0")
		m, stdout, stderr := testMain(nil)
		code := m.Run(context.Background(), []string{"loadtest", "--addr", lsrv.url, "--games", "50", "--concurrency", "8", "--duration", "2s"})
		if code != 0 || strings.Contains(stdout.String(), "refused") || strings.Contains(stdout.String(), "given up") {
			t.Errorf("exit status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		lsrv.stop(t)
	})
}
