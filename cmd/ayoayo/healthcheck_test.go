package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestHealthcheck(t *testing.T) {
	ready := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
		}
	}))
	defer ready.Close()
	starting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer starting.Close()
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nobody := closed.Addr().String()
	closed.Close()
	_, readyPort, _ := net.SplitHostPort(ready.Listener.Addr().String())

	tests := []struct {
		name string
		args []string
		code int
		out  string // in stdout when 0, stderr otherwise
	}{
		{"ready", []string{"--addr", ready.Listener.Addr().String()}, 0, "/readyz: 200 OK"},
		{"ready, wildcard host", []string{"--addr", ":" + readyPort}, 0, "http://127.0.0.1:" + readyPort + "/readyz"},
		{"not ready", []string{"--addr", starting.Listener.Addr().String()}, 1, "503"},
		{"nobody listens", []string{"--addr", nobody}, 1, "connection refused"},
		{"no port", []string{"--addr", "localhost"}, 2, "--addr"},
		{"stray argument", []string{"--addr", ":1", "now"}, 2, "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := run(t, append([]string{"healthcheck"}, tt.args...)...)
			got := out
			if tt.code != 0 {
				got = errOut
			}
			if code != tt.code || !strings.Contains(got, tt.out) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.code, tt.out)
			}
		})
	}
}

func TestReadyzURL(t *testing.T) {
	tests := []struct{ addr, want string }{
		{":8080", "http://127.0.0.1:8080/readyz"},
		{"0.0.0.0:8080", "http://127.0.0.1:8080/readyz"},
		{"[::]:9", "http://[::1]:9/readyz"},
		{"api.example:443", "http://api.example:443/readyz"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			got, err := readyzURL(tt.addr)
			if err != nil || got != tt.want {
				t.Fatalf("readyzURL(%q) = %q, %v; want %q", tt.addr, got, err, tt.want)
			}
		})
	}
}
