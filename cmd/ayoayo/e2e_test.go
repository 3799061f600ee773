package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/api/apitest"
)

// TestEndToEnd builds the real binary, serves on a free loopback port with
// a fresh database, sends the 600 shared rule vectors and a battery of
// malformed requests over HTTP, then stops it with SIGTERM and expects a
// clean exit.
func TestEndToEnd(t *testing.T) {
	endToEnd(t, "builds and runs the binary")
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	// The endgame table the server builds at start by default, here asked
	// for explicitly (startBinary turns the default off).
	srv := startBinary(t, bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "e2e.db"), "--tablebase-build", "12")
	client := &http.Client{Timeout: 30 * time.Second}

	t.Run("ready", func(t *testing.T) {
		res, body := call(t, client, http.MethodGet, srv.url+"/readyz", "", "")
		if res.StatusCode != http.StatusOK {
			t.Fatalf("readyz: %d %s", res.StatusCode, body)
		}
	})

	t.Run("vectors", func(t *testing.T) {
		n := 0
		for _, v := range apitest.LoadVectors(t, "../../engine/testdata/vectors.jsonl") {
			res, body := call(t, client, http.MethodPost, srv.url+"/v1/evaluate", "application/json", v.EvaluateBody())
			if res.StatusCode != http.StatusOK || !apitest.SameJSON(body, v.Expect) {
				t.Errorf("%s: %d %s\nwant %s", v.Name, res.StatusCode, body, v.Expect)
			}
			n++
		}
		if n != 600 {
			t.Errorf("sent %d vectors, want 600", n)
		}
	})

	t.Run("malformed", func(t *testing.T) {
		for _, r := range apitest.Malformed(api.DefaultBodyLimit) {
			res, body := call(t, client, r.Method, srv.url+r.Path, r.ContentType, r.Body)
			var p struct {
				Type, Title, Detail, Code string
				Status                    int
			}
			err := json.Unmarshal(body, &p)
			switch {
			case res.StatusCode != r.Status:
				t.Errorf("%s: status %d, want %d: %s", r.Name, res.StatusCode, r.Status, truncate(body))
			case res.Header.Get("Content-Type") != "application/problem+json":
				t.Errorf("%s: Content-Type %q", r.Name, res.Header.Get("Content-Type"))
			case err != nil || p.Code != r.Code || p.Status != r.Status || p.Type == "" || p.Title == "" || p.Detail == "":
				t.Errorf("%s: problem %s, want code %s", r.Name, truncate(body), r.Code)
			}
		}
	})

	// The server answers at once and takes up the table once it is built.
	t.Run("tablebase", func(t *testing.T) {
		for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(srv.logs(), `"msg":"endgame table ready"`); time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no table ready after 2 minutes:\n%s", srv.logs())
			}
		}
		ending := `{"pits":[0,2,1,0,3,1,1,0,2,0,1,1],"captured":{"south":20,"north":16},"toMove":"south"}` // 12 seeds
		if src, res := analyzeSource(t, srv.url, ending, ""); src != "tablebase" || res != "win" {
			t.Errorf("an ending with 12 seeds: source %q result %q, want tablebase and win", src, res)
		}
	})

	srv.stop(t)
	if !strings.Contains(srv.logs(), `"msg":"stopped"`) {
		t.Errorf("no clean stop in the log:\n%s", srv.logs())
	}
	if strings.Contains(srv.logs(), `"level":"ERROR"`) {
		t.Errorf("errors in the log:\n%s", srv.logs())
	}
}

// e2eEnv names the environment variable that opts in to the end-to-end
// tests.
const e2eEnv = "AYOAYO_E2E"

// endToEnd skips an end-to-end test unless AYOAYO_E2E=1 (and always under
// -short). Those tests build the binary and drive real processes through
// seconds-long scenarios, tens of seconds each: plain go test ./... leaves
// them out to stay within minutes, and .ci/run runs each as a step of its
// own, where a failure names it.
func endToEnd(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s: skipped under -short", what)
	}
	if os.Getenv(e2eEnv) != "1" {
		t.Skipf("%s, an end-to-end test: run it with %s=1 go test -run '^%s$' ./cmd/ayoayo/ (.ci/run runs each in a step)", what, e2eEnv, t.Name())
	}
}

// binDir holds the binary the end-to-end tests share; TestMain removes it.
var binDir string

// sharedBinary is this command, compiled once for the test binary's run
// however many end-to-end tests ask for it: each build takes seconds of
// both cores.
var sharedBinary = sync.OnceValues(func() (string, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		gobin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	if binDir, err = os.MkdirTemp("", "ayoayo-e2e-"); err != nil {
		return "", err
	}
	bin := filepath.Join(binDir, "ayoayo")
	if out, err := exec.Command(gobin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

// buildBinary returns the path of this command's binary (sharedBinary);
// dir, the test's own, keeps its databases and files.
func buildBinary(t testing.TB, _ string) string {
	t.Helper()
	bin, err := sharedBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// server is a running binary and the log it writes.
type server struct {
	cmd  *exec.Cmd
	url  string
	mu   sync.Mutex
	log  bytes.Buffer
	done chan error
}

func (s *server) logs() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// startBinary runs bin and waits for the log line with the address it
// listens on.
func startBinary(t *testing.T, bin string, args ...string) *server {
	t.Helper()
	return startBinaryUntil(t, bin, "listening", args...)
}

// startBinaryUntil runs bin and waits for the first log line with message
// msg and the server's address: "listening" when the API is served,
// "opening the database" as soon as the port answers.
func startBinaryUntil(t testing.TB, bin, msg string, args ...string) *server {
	t.Helper()
	s, addr := launchBinary(t, bin, msg, args...)
	s.listening(t, addr)
	return s
}

// launchBinary runs bin without waiting for it; listening then waits for
// the address of its first log line with message msg. Apart, they let a
// test start several servers at once.
func launchBinary(t testing.TB, bin, msg string, args ...string) (*server, <-chan string) {
	t.Helper()
	s := &server{cmd: exec.Command(bin, args...), done: make(chan error, 1)}
	// No endgame table built at start unless the test asks for one with
	// --tablebase-build: seconds of both cores most tests do not need.
	s.cmd.Env = append(os.Environ(), "AYOAYO_LOG_LEVEL=info", "AYOAYO_TABLEBASE_BUILD=0", "AYOAYO_PRACTICE_STOCK=0")
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	said := false
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.mu.Lock()
			s.log.Write(sc.Bytes())
			s.log.WriteByte('\n')
			s.mu.Unlock()
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == msg && !said {
				said = true
				addr <- line.Addr
			}
		}
		s.done <- s.cmd.Wait()
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
		}
	})
	return s, addr
}

func (s *server) listening(t testing.TB, addr <-chan string) {
	t.Helper()
	select {
	case a := <-addr:
		s.url = "http://" + a
	case err := <-s.done:
		t.Fatalf("the server exited before listening: %v\n%s", err, s.logs())
	case <-time.After(60 * time.Second):
		t.Fatalf("the server did not say where it listens:\n%s", s.logs())
	}
}

// stop sends SIGTERM and expects exit status 0.
func (s *server) stop(t testing.TB) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, s.logs())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit 30 s after SIGTERM:\n%s", s.logs())
	}
}

func call(t testing.TB, c *http.Client, method, url, contentType, body string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
