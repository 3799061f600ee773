//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// pgCluster is a PostgreSQL server of the test's own, on a free loopback
// port, which the test may stop and start: the shared server of the other
// tests (AYOAYO_TEST_POSTGRES) must not go down under them. It is made from
// Debian's postgresql package, whose server programs are off PATH;
// initdb refuses to run as root, so as root the cluster belongs to the
// postgres user and every program runs as that user.
type pgCluster struct {
	bin  string // the directory of initdb, pg_ctl and postgres
	dir  string // the data directory's parent, the socket and the log
	port int
	root bool
}

// newPGCluster makes and starts a cluster, stopped and removed when the
// test ends; it skips the test, saying why, when it cannot.
func newPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	initdb := pgServerBinary("initdb")
	if initdb == "" {
		t.Skip("no PostgreSQL server programs: install Debian's postgresql package (dpkg -L postgresql-15 | grep bin/initdb$ finds them)")
	}
	c := &pgCluster{bin: filepath.Dir(initdb), root: os.Geteuid() == 0}
	if c.root {
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Skip("running as root, and no runuser to run PostgreSQL as the postgres user")
		}
	}
	// Under /tmp, not t.TempDir(): the postgres user must reach it, and a
	// test's directory is the root user's alone.
	dir, err := os.MkdirTemp("", "ayoayo-test-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() { os.RemoveAll(dir) })
	if c.root {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root, and no postgres user to own the cluster: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8"); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c.start(t)
	t.Cleanup(func() { _, _ = c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop") })
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

// dsn is the URL of the cluster's postgres database.
func (c *pgCluster) dsn() string {
	return "postgres://postgres@127.0.0.1:" + strconv.Itoa(c.port) + "/postgres?sslmode=disable"
}

// start starts the server and waits until it takes connections.
func (c *pgCluster) start(t *testing.T) {
	t.Helper()
	opts := "-c listen_addresses=127.0.0.1 -p " + strconv.Itoa(c.port) + " -k " + c.dir
	if out, err := c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "-o", opts, "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// stop stops the server the way an operator restarting it would: fast,
// ending the sessions in progress.
func (c *pgCluster) stop(t *testing.T) {
	t.Helper()
	if out, err := c.run("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "-t", "60", "stop"); err != nil {
		t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// run runs one of the server's programs, as the postgres user when root.
func (c *pgCluster) run(name string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	path := filepath.Join(c.bin, name)
	cmd := exec.CommandContext(ctx, path, args...)
	if c.root {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return cmd.CombinedOutput()
}

// pgServerBinary is the path of a program of the newest PostgreSQL server
// installed from Debian's packages, or "".
func pgServerBinary(name string) string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${db:Status-Abbrev} ${Package}\n", "postgresql-*").Output()
	if err != nil && len(out) == 0 {
		return ""
	}
	var versions []int
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || f[0] != "ii" {
			continue
		}
		if v, err := strconv.Atoi(strings.TrimPrefix(f[1], "postgresql-")); err == nil {
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	slices.Reverse(versions)
	for _, v := range versions {
		files, err := exec.Command("dpkg", "-L", "postgresql-"+strconv.Itoa(v)).Output()
		if err != nil {
			continue
		}
		for line := range strings.Lines(string(files)) {
			if line = strings.TrimSpace(line); strings.HasSuffix(line, "/bin/"+name) {
				return line
			}
		}
	}
	return ""
}
