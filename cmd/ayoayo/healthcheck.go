package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"
)

// runHealthcheck is `ayoayo healthcheck`: exit 0 when the server at --addr
// answers /readyz with 200, 1 otherwise. The release image has no shell and
// no HTTP client, so this is what a container's health check runs (see
// release/compose.yaml); it reads AYOAYO_ADDR as serve does, so the same
// environment names the same port.
func runHealthcheck(ctx context.Context, m *Main, fs *flag.FlagSet, args []string) error {
	addr := fs.String("addr", ":8080", "the `address` serve listens on (a missing or wildcard host is this machine)")
	timeout := fs.Duration("timeout", 3*time.Second, "how long to wait for the answer")
	if err := m.parse(fs, args, envPrefix, "addr"); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	url, err := readyzURL(*addr)
	if err != nil {
		return fmt.Errorf("%w: --addr: %v", errUsage, err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, res.Status)
	}
	fmt.Fprintf(m.Stdout, "%s: %s\n", url, res.Status)
	return nil
}

// readyzURL is the /readyz URL of a listening address: ":8080" and
// "0.0.0.0:8080" are asked on the loopback address, as "[::]:8080" is.
func readyzURL(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if port == "" || port == "0" {
		return "", errors.New("no port")
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	return "http://" + net.JoinHostPort(host, port) + "/readyz", nil
}
