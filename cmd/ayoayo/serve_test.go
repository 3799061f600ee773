package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer the server and the test may share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testMain runs the command with env as its environment. Unless env says
// otherwise, serve builds no endgame table and no practice stock at start:
// seconds (hours, for the stock) of both cores that no test but the ones
// about them needs.
func testMain(env map[string]string) (*Main, *syncBuffer, *syncBuffer) {
	var stdout, stderr syncBuffer
	getenv := func(k string) string {
		if v, ok := env[k]; ok || (k != "AYOAYO_TABLEBASE_BUILD" && k != "AYOAYO_PRACTICE_STOCK") {
			return v
		}
		return "0"
	}
	return &Main{Stdout: &stdout, Stderr: &stderr, Getenv: getenv}, &stdout, &stderr
}

// Serve in process: the address comes from the environment, the log says
// where it listens, and cancelling the context shuts it down with status 0;
// with a practice stocker running too, which stops before the store closes
// (nothing of the stock's is logged after the shutdown begins).
func TestServeInProcess(t *testing.T) {
	tests := []struct {
		name  string
		stock string
	}{
		{"without a practice stock", "0"},
		{"with a practice stocker running", "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { serveInProcess(t, tt.stock) })
	}
}

func serveInProcess(t *testing.T, stock string) {
	m, _, stderr := testMain(map[string]string{
		"AYOAYO_ADDR":           "127.0.0.1:0",
		"AYOAYO_DB":             filepath.Join(t.TempDir(), "serve.db"),
		"AYOAYO_PRACTICE_STOCK": stock,
	})
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() { code <- m.Run(ctx, []string{"serve", "--analyze-concurrency", "1", "--metrics-public"}) }()

	var addr string
	for deadline := time.Now().Add(30 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for line := range strings.Lines(stderr.String()) {
			var l struct{ Msg, Addr string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				addr = l.Addr
			}
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("no listening line:\n%s", stderr.String())
	}
	for _, path := range []string{"/livez", "/readyz", "/v1/explorer?position=s-444444-444444-0-0"} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", path, res.StatusCode)
		}
	}
	// The build is named by the start log and by a metric.
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	build := readBuildInfo()
	for _, want := range []string{`ayoayo_build_info{commit="` + build.Commit + `"`, "ayoayo_db_pool_max_connections", "ayoayo_sweeps_total", "ayoayo_event_streams_open 0"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	started := false
	for line := range strings.Lines(stderr.String()) {
		var l struct{ Msg, Version, Commit string }
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "starting" {
			started = l.Version == build.Version && l.Commit == build.Commit
		}
	}
	if !started {
		t.Errorf("no start line with version %s and commit %s:\n%s", build.Version, build.Commit, stderr.String())
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit status %d:\n%s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return after cancellation")
	}
	if !strings.Contains(stderr.String(), `"msg":"stopped"`) {
		t.Errorf("no stop in the log:\n%s", stderr.String())
	}
	_, after, _ := strings.Cut(stderr.String(), `"msg":"shutting down"`)
	if strings.Contains(after, "practice stock") {
		t.Errorf("the practice stock logged after the shutdown began:\n%s", after)
	}
}

func TestServeUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string
		code int
	}{
		{"bad env number", map[string]string{"AYOAYO_ANALYZE_CONCURRENCY": "many"}, nil, "AYOAYO_ANALYZE_CONCURRENCY", 2},
		{"bad env duration", map[string]string{"AYOAYO_SHUTDOWN_TIMEOUT": "soon"}, nil, "AYOAYO_SHUTDOWN_TIMEOUT", 2},
		{"bad log level", nil, []string{"--log-level", "loud"}, "log level", 2},
		{"negative limit", nil, []string{"--body-limit", "-1"}, "negative", 2},
		{"stray argument", nil, []string{"extra"}, "unexpected argument", 2},
		{"unknown flag", nil, []string{"--port", "80"}, "flag provided but not defined", 2},
		{"a negative rate", nil, []string{"--move-rate", "-1"}, "cannot be negative", 2},
		{"a negative practice rate", nil, []string{"--practice-rate", "-1"}, "cannot be negative", 2},
		{"a practice burst of 0", nil, []string{"--practice-burst", "0"}, "at least 1", 2},
		{"a negative player creation rate", map[string]string{"AYOAYO_PLAYER_CREATE_RATE": "-1"}, nil, "cannot be negative", 2},
		{"a burst of none", map[string]string{"AYOAYO_STREAM_BURST": "0"}, nil, "at least 1", 2},
		{"trust-proxy is refused", nil, []string{"--trust-proxy"}, "--trusted-proxies CIDR", 2},
		{"AYOAYO_TRUST_PROXY is refused", map[string]string{"AYOAYO_TRUST_PROXY": "true"}, nil, "--trusted-proxies CIDR", 2},
		{"a range that does not parse", nil, []string{"--trusted-proxies", "10.0.0.0/8,10.0.0.0/33"}, `"10.0.0.0/33" is neither`, 2},
		{"a proxy named, not numbered", map[string]string{"AYOAYO_TRUSTED_PROXIES": "proxy.local"}, nil, `"proxy.local" is neither`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _, stderr := testMain(tt.env)
			if code := m.Run(context.Background(), append([]string{"serve"}, tt.args...)); code != tt.code {
				t.Errorf("exit status %d, want %d", code, tt.code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr lacks %q:\n%s", tt.want, stderr.String())
			}
		})
	}
}

func TestHelpListsServeFlags(t *testing.T) {
	m, stdout, _ := testMain(nil)
	if code := m.Run(context.Background(), []string{"help"}); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	for _, flag := range []string{"-addr", "-db", "-cors-origins", "-analyze-concurrency", "-body-limit", "-log-level", "-shutdown-timeout", "-trusted-proxies", "-join-rate", "-move-rate", "-stream-rate", "-practice-rate", "-practice-burst", "AYOAYO_PRACTICE_RATE", "-player-create-rate", "AYOAYO_PLAYER_CREATE_BURST", "AYOAYO_ADDR", "AYOAYO_DB", "AYOAYO_MOVE_BURST"} {
		if !strings.Contains(stdout.String(), flag) {
			t.Errorf("help lacks %s:\n%s", flag, stdout.String())
		}
	}
}

// Every serve flag reads the variable its help names, and every variable
// the help names is a flag's: the name is derived from the flag's, so this
// catches a help text that drifted from it. Each is then shown to work,
// set through the environment alone.
func TestServeFlagsAndEnvironment(t *testing.T) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c serveConfig
	c.declare(fs)
	envOf := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { envOf[envName(envPrefix, f.Name)] = f.Name })
	named := regexp.MustCompile(`AYOAYO_[A-Z_]+[A-Z]`)
	fs.VisitAll(func(f *flag.Flag) {
		want := envName(envPrefix, f.Name)
		if f.Name == "db" && f.Usage != dbHelp {
			t.Errorf("--db: help %q, want dbHelp", f.Usage)
		}
		if !strings.Contains(f.Usage, "(env "+want) {
			t.Errorf("--%s: help does not name %s: %q", f.Name, want, f.Usage)
		}
		for _, v := range named.FindAllString(f.Usage, -1) {
			if _, ok := envOf[v]; !ok {
				t.Errorf("--%s: help names %s, which no flag reads", f.Name, v)
			}
		}
	})
	if len(envOf) < 45 {
		t.Errorf("only %d flags: %v", len(envOf), envOf)
	}

	// Through the environment only: values unlike every default.
	env := map[string]string{}
	for name, flagName := range envOf {
		f := fs.Lookup(flagName)
		switch f.Value.(type) {
		case *tableFiles:
			env[name] = "a.ayotb:b.ayotb"
		default:
			switch f.DefValue {
			case "true", "false":
				env[name] = map[string]string{"true": "false", "false": "true"}[f.DefValue]
			default:
				if _, err := strconv.Atoi(f.DefValue); err == nil {
					env[name] = "7"
				} else if _, err := time.ParseDuration(f.DefValue); err == nil {
					env[name] = "7m"
				} else {
					env[name] = "seven"
				}
			}
		}
	}
	m, _, _ := testMain(env)
	fs2 := flag.NewFlagSet("serve", flag.ContinueOnError)
	var got serveConfig
	got.declare(fs2)
	if err := m.parse(fs2, nil, envPrefix); err != nil {
		t.Fatal(err)
	}
	fs2.VisitAll(func(f *flag.Flag) {
		want := env[envName(envPrefix, f.Name)]
		if _, ok := f.Value.(*tableFiles); ok {
			want = "a.ayotb,b.ayotb"
		}
		if d, err := time.ParseDuration(want); err == nil {
			want = d.String()
		}
		if f.Value.String() != want {
			t.Errorf("--%s from %s: %q, want %q", f.Name, envName(envPrefix, f.Name), f.Value.String(), want)
		}
	})
	// The command line wins over the environment.
	fs3 := flag.NewFlagSet("serve", flag.ContinueOnError)
	var over serveConfig
	over.declare(fs3)
	if err := m.parse(fs3, []string{"--move-rate", "9", "--tablebase", "c.ayotb"}, envPrefix); err != nil {
		t.Fatal(err)
	}
	if over.RateLimits["move"].Rate != 9 || !slices.Equal(over.Tables.files, []string{"c.ayotb"}) {
		t.Errorf("move rate %d, tables %q: the command line did not win", over.RateLimits["move"].Rate, over.Tables.files)
	}
}
