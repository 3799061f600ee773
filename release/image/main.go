// Command image builds the server's OCI image as a file, without a
// container daemon and without pulling anything: an OCI image layout
// (oci-layout, index.json, blobs/) in a tar, whose index holds the image
// for linux/amd64 and for linux/arm64: each the static binary of a release
// archive on an empty base with the CA certificates (so TLS to a database
// or anything else verifies), run as a non-root user, port 8080, /data as
// the SQLite volume, a health check (`ayoayo healthcheck`), labelled with
// the version. It also checks such a file: the layout, both platforms'
// configs and files, and the binary of this machine's architecture, which
// it runs (version, serve, healthcheck).
//
//	go run . build --binary linux/amd64=PATH --binary linux/arm64=PATH --license FILE \
//	    [--ca-certificates FILE] --version V --commit C --date D --out FILE
//	go run . check --image FILE --version V
//
// Run it outside the repository's workspace (GOWORK=off), as release.sh
// does: it is a module of its own. `podman load -i FILE`, `docker load -i
// FILE` (Docker 25 or later), `skopeo copy oci-archive:FILE …` and
// `crane push FILE` read the file; the index's annotations name it
// ayoayo:VERSION.
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
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
	caPath     = "/etc/ssl/certs/ca-certificates.crt" // where Go's crypto/x509 looks first on linux
)

// platforms are the architectures the index must hold, each once.
var platforms = []string{"amd64", "arm64"}

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
	binaries := map[string]string{}
	fs.Func("binary", "`linux/ARCH=PATH`: the static linux binary of an architecture (amd64 and arm64, both needed)", func(v string) error {
		plat, path, ok := strings.Cut(v, "=")
		arch, found := strings.CutPrefix(plat, "linux/")
		if !ok || !found || !slices.Contains(platforms, arch) {
			return fmt.Errorf("want linux/ARCH=PATH with ARCH one of %v", platforms)
		}
		binaries[arch] = path
		return nil
	})
	version := fs.String("version", "", "the version, for the name and labels")
	commit := fs.String("commit", "", "the commit, for the labels")
	date := fs.String("date", "", "the build date (RFC 3339), for the labels and the image's times")
	license := fs.String("license", "", "the LICENSE file, put at /LICENSE")
	certs := fs.String("ca-certificates", caPath, "the CA certificates bundle (PEM), put at "+caPath+" (Debian's ca-certificates package has it)")
	out := fs.String("out", "", "the image file to write: an OCI image layout in a tar")
	_ = fs.Parse(args)
	if len(binaries) != len(platforms) || *version == "" || *out == "" || *license == "" {
		return fmt.Errorf("build needs --binary for each of linux/%s, --license, --version and --out", strings.Join(platforms, ", linux/"))
	}
	created := time.Unix(0, 0).UTC()
	if *date != "" {
		t, err := time.Parse(time.RFC3339, *date)
		if err != nil {
			return fmt.Errorf("--date: %w", err)
		}
		created = t.UTC()
	}
	files := map[string][]byte{}
	for name, path := range map[string]string{"LICENSE": *license, "ca": *certs} {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[name] = data
	}
	if n, err := countCerts(files["ca"]); err != nil || n == 0 {
		return fmt.Errorf("--ca-certificates %s: %d certificates, %v", *certs, n, err)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arch := range platforms {
		img, err := platformImage(binaries[arch], arch, files["LICENSE"], files["ca"], *version, *commit, created)
		if err != nil {
			return fmt.Errorf("linux/%s: %w", arch, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{
			Platform: &v1.Platform{OS: "linux", Architecture: arch},
		}})
	}
	dir, err := os.MkdirTemp("", "ayoayo-image")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	tag := strings.ReplaceAll(*version, "+", "_")
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag,                               // the tag, as skopeo and podman read it
		"io.containerd.image.name":          "docker.io/library/ayoayo:" + tag, // the whole name, as docker load reads it
	})); err != nil {
		return err
	}
	if err := tarDir(dir, *out, created); err != nil {
		return err
	}
	d, _ := idx.Digest()
	fmt.Printf("wrote %s: an OCI layout, ayoayo:%s, linux/%s, index %s\n", *out, tag, strings.Join(platforms, " and linux/"), d)
	return nil
}

// platformImage is the image of one architecture.
func platformImage(binary, arch string, license, certs []byte, version, commit string, created time.Time) (v1.Image, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	layer, err := rootLayer(bin, license, certs, created)
	if err != nil {
		return nil, err
	}
	base := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	base = mutate.ConfigMediaType(base, types.OCIConfigJSON)
	img, err := mutate.Append(base, mutate.Addendum{Layer: layer, MediaType: types.OCILayer,
		History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "release/image build", Comment: "the ayoayo binary, CA certificates and /data"}})
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", arch, v1.Time{Time: created}
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
		// Read by Docker and Podman (in docker format); compose.yaml says
		// the same for any runtime.
		Healthcheck: &v1.HealthConfig{
			Test:        []string{"CMD", binaryPath, "healthcheck"},
			Interval:    10 * time.Second,
			Timeout:     5 * time.Second,
			StartPeriod: 30 * time.Second,
			Retries:     3,
		},
		Labels: map[string]string{
			"org.opencontainers.image.title":       "ayoayo",
			"org.opencontainers.image.description": "The Ayoayo API: rules engine, AI, puzzles and game sessions over HTTP",
			"org.opencontainers.image.version":     version,
			"org.opencontainers.image.revision":    commit,
			"org.opencontainers.image.created":     created.Format(time.RFC3339),
			"org.opencontainers.image.licenses":    "MIT",
		},
	}
	return mutate.ConfigFile(img, cf)
}

// countCerts counts the certificates of a PEM bundle, and fails on one
// that does not parse.
func countCerts(pemData []byte) (int, error) {
	n := 0
	for rest := pemData; ; {
		var blk *pem.Block
		blk, rest = pem.Decode(rest)
		if blk == nil {
			return n, nil
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(blk.Bytes); err != nil {
			return n, err
		}
		n++
	}
}

// tarDir writes the files under dir to a tar at out: sorted names, owner 0,
// one time, so that the same layout makes the same file.
func tarDir(dir, out string, mtime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		names = append(names, path)
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	for _, path := range names {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		hdr := &tar.Header{Name: filepath.ToSlash(rel), ModTime: mtime, Mode: 0o644, Typeflag: tar.TypeReg, Size: fi.Size()}
		if fi.IsDir() {
			hdr.Name, hdr.Mode, hdr.Typeflag, hdr.Size = hdr.Name+"/", 0o755, tar.TypeDir, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if !fi.IsDir() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if _, err := tw.Write(data); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rootLayer is an image's one layer: the binary, the CA certificates, the
// LICENSE, and the data directory owned by the user the server runs as (a
// volume mounted there starts as a copy of it, writable by that user).
func rootLayer(bin, license, certs []byte, mtime time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		hdr  tar.Header
		body []byte
	}{
		{tar.Header{Typeflag: tar.TypeDir, Name: "data/", Mode: 0o755, Uid: uid, Gid: gid, ModTime: mtime}, nil},
		{tar.Header{Typeflag: tar.TypeDir, Name: "etc/", Mode: 0o755, ModTime: mtime}, nil},
		{tar.Header{Typeflag: tar.TypeDir, Name: "etc/ssl/", Mode: 0o755, ModTime: mtime}, nil},
		{tar.Header{Typeflag: tar.TypeDir, Name: "etc/ssl/certs/", Mode: 0o755, ModTime: mtime}, nil},
		{tar.Header{Typeflag: tar.TypeReg, Name: strings.TrimPrefix(caPath, "/"), Mode: 0o644, Size: int64(len(certs)), ModTime: mtime}, certs},
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
	dir, err := os.MkdirTemp("", "ayoayo-image-check")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	root := filepath.Join(dir, "layout")
	if err := untar(*file, root); err != nil {
		return err
	}
	imgs, err := layoutImages(root, *version)
	if err != nil {
		return fmt.Errorf("%s: %w", *file, err)
	}
	for _, arch := range platforms {
		if err := checkImage(imgs[arch], arch, *version); err != nil {
			return fmt.Errorf("%s: linux/%s: %w", *file, arch, err)
		}
	}
	img, ok := imgs[runtime.GOARCH]
	if !ok {
		fmt.Printf("%s: linux/%s checked; no image of this machine's %s to run\n", *file, strings.Join(platforms, " and linux/"), runtime.GOARCH)
		return nil
	}
	// The binary this machine can run, here: its version, a start, and the
	// health check against it, up and down.
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
	fmt.Printf("%s: an OCI layout of linux/%s; entrypoint %s, user %s, port %s, volume %s, CA certificates, health check; version %s; the %s binary served and its healthcheck said 0 up, 1 down; %s",
		*file, strings.Join(platforms, " and linux/"), binaryPath, user, port, dataDir, *version, runtime.GOARCH, got)
	return nil
}

// layoutImages reads an OCI layout: index.json must hold one image index,
// named for version, holding one image for each of platforms.
func layoutImages(root, version string) (map[string]v1.Image, error) {
	for _, f := range []string{"oci-layout", "index.json"} {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			return nil, fmt.Errorf("not an OCI layout: %w", err)
		}
	}
	top, err := layout.ImageIndexFromPath(root)
	if err != nil {
		return nil, err
	}
	im, err := top.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(im.Manifests) != 1 || im.Manifests[0].MediaType != types.OCIImageIndex {
		return nil, fmt.Errorf("index.json: want one image index, have %d entries", len(im.Manifests))
	}
	if ref := im.Manifests[0].Annotations["org.opencontainers.image.ref.name"]; ref != strings.ReplaceAll(version, "+", "_") {
		return nil, fmt.Errorf("index.json: ref.name %q, want %q", ref, version)
	}
	idx, err := top.ImageIndex(im.Manifests[0].Digest)
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	imgs := map[string]v1.Image{}
	for _, d := range m.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" || imgs[d.Platform.Architecture] != nil {
			return nil, fmt.Errorf("the image index has a manifest for %v", d.Platform)
		}
		img, err := idx.Image(d.Digest)
		if err != nil {
			return nil, err
		}
		imgs[d.Platform.Architecture] = img
	}
	if len(imgs) != len(platforms) {
		return nil, fmt.Errorf("the image index holds %d platforms, want linux/%s", len(imgs), strings.Join(platforms, " and linux/"))
	}
	return imgs, nil
}

// checkImage checks one platform's config and files.
func checkImage(img v1.Image, arch, version string) error {
	if img == nil {
		return errors.New("missing")
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
	expect(c.Healthcheck != nil && slices.Equal(c.Healthcheck.Test, []string{"CMD", binaryPath, "healthcheck"}), "health check %+v", c.Healthcheck)
	expect(c.Labels["org.opencontainers.image.version"] == version, "version label %q, want %q", c.Labels["org.opencontainers.image.version"], version)
	expect(c.Labels["org.opencontainers.image.revision"] != "", "no revision label")
	expect(cf.OS == "linux" && cf.Architecture == arch, "platform %s/%s", cf.OS, cf.Architecture)
	if len(faults) > 0 {
		return errors.New(strings.Join(faults, "; "))
	}
	var ca bytes.Buffer
	if err := extractTo(img, strings.TrimPrefix(caPath, "/"), &ca); err != nil {
		return err
	}
	if n, err := countCerts(ca.Bytes()); err != nil || n == 0 {
		return fmt.Errorf("%s: %d certificates, %v", caPath, n, err)
	}
	return nil
}

// untar extracts the tar at file into dir.
func untar(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(path, filepath.Clean(dir)+string(os.PathSeparator)) {
			return fmt.Errorf("%s: a path outside the layout: %q", file, h.Name)
		}
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
}

// extract copies the file at path in img's filesystem to out, executable.
func extract(img v1.Image, path, out string) error {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if err := extractTo(img, path, f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// extractTo copies the file at path in img's filesystem to w.
func extractTo(img v1.Image, path string, w io.Writer) error {
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
		_, err = io.Copy(w, tr)
		return err
	}
}

// serveOnce starts the binary on a free loopback port with a database in
// dir, waits (at most a minute) for /readyz to answer 200, runs its
// healthcheck (exit 0), stops it, and runs the healthcheck again (exit 1).
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
		if !stopped { // a check failed before the stop: no one waits for it yet
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
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
		if err := healthcheck(bin, l.Addr, 0); err != nil {
			return err
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
		return healthcheck(bin, l.Addr, 1)
	}
	return fmt.Errorf("the binary stopped without listening: %v", lines.Err())
}

// healthcheck runs `bin healthcheck --addr addr` and checks its exit code.
func healthcheck(bin, addr string, want int) error {
	out, err := exec.Command(bin, "healthcheck", "--addr", addr).CombinedOutput()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		return err
	}
	if code != want {
		return fmt.Errorf("healthcheck --addr %s: exit %d, want %d: %s", addr, code, want, out)
	}
	return nil
}
