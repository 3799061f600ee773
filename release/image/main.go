// Command image builds the server's OCI image as a file, without a
// container daemon and without pulling anything: the static binary of a
// release archive on an empty base, run as a non-root user, port 8080,
// /data as the SQLite volume, labelled with the version. It also checks
// such a file: its config, and the binary it holds, which it runs.
//
//	go run . build --binary PATH --arch amd64 --version V --commit C --date D --out FILE
//	go run . check --image FILE --version V
//
// The file is a tarball `docker load -i FILE` and `podman load -i FILE`
// read, tagged ayoayo:VERSION, with OCI media types.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed shape, which check verifies.
const (
	binaryPath = "/ayoayo"
	dataDir    = "/data"
	user       = "65532:65532" // "nonroot" in distroless images; no passwd entry is needed
	uid, gid   = 65532, 65532
	port       = "8080/tcp"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: image build|check [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "build":
		err = build(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func build(args []string) error {
	fs := flag.NewFlagSet("build", flag.ExitOnError)
	binary := fs.String("binary", "", "the static linux binary")
	arch := fs.String("arch", "amd64", "its architecture: amd64 or arm64")
	version := fs.String("version", "", "the version, for the tag and labels")
	commit := fs.String("commit", "", "the commit, for the labels")
	date := fs.String("date", "", "the build date (RFC 3339), for the labels and the image's times")
	license := fs.String("license", "", "the LICENSE file, put at /LICENSE")
	out := fs.String("out", "", "the image file to write")
	_ = fs.Parse(args)
	if *binary == "" || *version == "" || *out == "" || *license == "" {
		return errors.New("build needs --binary, --license, --version and --out")
	}
	created := time.Unix(0, 0).UTC()
	if *date != "" {
		t, err := time.Parse(time.RFC3339, *date)
		if err != nil {
			return fmt.Errorf("--date: %w", err)
		}
		created = t.UTC()
	}
	bin, err := os.ReadFile(*binary)
	if err != nil {
		return err
	}
	lic, err := os.ReadFile(*license)
	if err != nil {
		return err
	}
	layer, err := rootLayer(bin, lic, created)
	if err != nil {
		return err
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "release/image build", Comment: "the ayoayo binary and /data"}})
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", *arch, v1.Time{Time: created}
	cf.Config = v1.Config{
		Entrypoint:   []string{binaryPath},
		Cmd:          []string{"serve"},
		User:         user,
		WorkingDir:   dataDir,
		ExposedPorts: map[string]struct{}{port: {}},
		Volumes:      map[string]struct{}{dataDir: {}},
		Env: []string{
			"AYOAYO_ADDR=:8080",
			"AYOAYO_DB=" + dataDir + "/ayoayo.db",
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "ayoayo",
			"org.opencontainers.image.description": "The Ayoayo API: rules engine, AI, puzzles and game sessions over HTTP",
			"org.opencontainers.image.version":     *version,
			"org.opencontainers.image.revision":    *commit,
			"org.opencontainers.image.created":     created.Format(time.RFC3339),
			"org.opencontainers.image.licenses":    "MIT",
		},
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return err
	}
	tag, err := name.NewTag("ayoayo:" + strings.ReplaceAll(*version, "+", "_"))
	if err != nil {
		return fmt.Errorf("tag: %w", err)
	}
	if err := tarball.WriteToFile(*out, tag, img); err != nil {
		return err
	}
	d, _ := img.Digest()
	fmt.Printf("wrote %s: %s, linux/%s, %s\n", *out, tag, *arch, d)
	return nil
}

// rootLayer is the image's one layer: the binary, and the data directory
// owned by the user the server runs as (a volume mounted there starts as
// a copy of it, writable by that user), and the LICENSE.
func rootLayer(bin, license []byte, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		hdr  tar.Header
		body []byte
	}{
		{tar.Header{Typeflag: tar.TypeDir, Name: "data/", Mode: 0o755, Uid: uid, Gid: gid, ModTime: mtime}, nil},
		{tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777, ModTime: mtime}, nil},
		{tar.Header{Typeflag: tar.TypeReg, Name: "ayoayo", Mode: 0o755, Size: int64(len(bin)), ModTime: mtime}, bin},
		{tar.Header{Typeflag: tar.TypeReg, Name: "LICENSE", Mode: 0o644, Size: int64(len(license)), ModTime: mtime}, license},
	}
	for _, e := range entries {
		if err := tw.WriteHeader(&e.hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}

func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	file := fs.String("image", "", "the image file")
	version := fs.String("version", "", "the version it must carry")
	_ = fs.Parse(args)
	if *file == "" || *version == "" {
		return errors.New("check needs --image and --version")
	}
	img, err := tarball.ImageFromPath(*file, nil)
	if err != nil {
		return err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return err
	}
	c := cf.Config
	var faults []string
	expect := func(ok bool, format string, a ...any) {
		if !ok {
			faults = append(faults, fmt.Sprintf(format, a...))
		}
	}
	expect(slices.Equal(c.Entrypoint, []string{binaryPath}), "entrypoint %v, want [%s]", c.Entrypoint, binaryPath)
	expect(c.User == user, "user %q, want %q", c.User, user)
	_, exposed := c.ExposedPorts[port]
	expect(exposed, "ports %v, want %s", c.ExposedPorts, port)
	_, volume := c.Volumes[dataDir]
	expect(volume, "volumes %v, want %s", c.Volumes, dataDir)
	expect(c.Labels["org.opencontainers.image.version"] == *version, "version label %q, want %q", c.Labels["org.opencontainers.image.version"], *version)
	expect(c.Labels["org.opencontainers.image.revision"] != "", "no revision label")
	expect(cf.OS == "linux", "os %q", cf.OS)
	if len(faults) > 0 {
		return fmt.Errorf("%s: %s", *file, strings.Join(faults, "; "))
	}

	// The binary the image holds, run here: its version, and a start.
	dir, err := os.MkdirTemp("", "ayoayo-image-check")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "ayoayo")
	if err := extract(img, strings.TrimPrefix(binaryPath, "/"), bin); err != nil {
		return err
	}
	got, err := exec.Command(bin, "version").Output()
	if err != nil {
		return fmt.Errorf("%s version: %w", binaryPath, err)
	}
	if !strings.HasPrefix(string(got), "ayoayo "+*version+" ") {
		return fmt.Errorf("%s version printed %q, want version %s", binaryPath, got, *version)
	}
	if err := serveOnce(bin, dir); err != nil {
		return err
	}
	fmt.Printf("%s: entrypoint %v, user %s, port %s, volume %s, version %s; %s", *file, c.Entrypoint, c.User, port, dataDir, *version, got)
	return nil
}

// extract copies the file at path in img's filesystem to out.
func extract(img v1.Image, path, out string) error {
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("the image has no %s", path)
		}
		if err != nil {
			return err
		}
		if strings.TrimPrefix(h.Name, "./") != path {
			continue
		}
		f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
}

// serveOnce starts the binary on a free loopback port with a database in
// dir, waits (at most a minute) for /readyz to answer 200, and stops it.
func serveOnce(bin, dir string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--addr", "127.0.0.1:0", "--db", filepath.Join(dir, "check.db"), "--tablebase-build", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	stopped := false
	defer func() {
		if !stopped {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var l struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &l) != nil || l.Msg != "listening" {
			continue
		}
		res, err := http.Get("http://" + l.Addr + "/readyz")
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %d", res.StatusCode)
		}
		go func() {
			_, _ = io.Copy(io.Discard, stderr)
			exited <- cmd.Wait()
		}()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return err
		}
		stopped = true
		if err := <-exited; err != nil {
			return fmt.Errorf("serve did not stop cleanly: %w", err)
		}
		return nil
	}
	go func() { exited <- cmd.Wait() }()
	return fmt.Errorf("the binary stopped without listening: %v", lines.Err())
}
