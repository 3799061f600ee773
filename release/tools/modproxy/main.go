// Command modproxy writes a Go module proxy as a directory (GOPROXY=file://DIR)
// from a commit of this repository: the root module at a version given, and
// each module of the same tree that the root requires (clients/go) at the
// version the root's go.mod requires, each zipped from the commit as a real
// proxy would serve its tag. CI installs the server from it
// (`go install github.com/ayoayo/ayoayo/cmd/ayoayo@VERSION`), which proves
// that the root go.mod needs no replace and that the client version it
// requires is the tree's (go.sum's hash of it is checked).
//
//	go run ./modproxy --out DIR --version v0.0.0-20261203120000-0123456789ab [--rev HEAD] REPO
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/zip"
)

func main() {
	out := flag.String("out", "", "the proxy `directory` to write")
	version := flag.String("version", "", "the root module's `version`")
	rev := flag.String("rev", "HEAD", "the git `revision` to zip")
	flag.Parse()
	if *out == "" || *version == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: modproxy --out DIR --version V [--rev REV] REPO")
		os.Exit(2)
	}
	if err := run(*out, *version, *rev, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "modproxy:", err)
		os.Exit(1)
	}
}

func run(out, version, rev, repo string) error {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	when, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%cI", rev).Output()
	if err != nil {
		return fmt.Errorf("git log %s: %w", rev, err)
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(string(when)))
	if err != nil {
		return err
	}
	// The commit's files only, as a proxy serves a tag: untracked and
	// ignored files of the work tree stay out. (zip.CreateFromVCS would do
	// it, but does not know a git worktree's .git file.)
	tree, err := os.MkdirTemp("", "modproxy")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tree)
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", repo, rev, tree)
	if msg, err := archive.CombinedOutput(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", rev, err, msg)
	}
	root, err := readMod(filepath.Join(tree, "go.mod"))
	if err != nil {
		return err
	}
	if len(root.Replace) > 0 {
		return errors.New("the root go.mod has a replace: go install of a version ignores it, and fails")
	}
	if err := write(out, tree, "", root, version, t); err != nil {
		return err
	}
	required := map[string]string{}
	for _, r := range root.Require {
		required[r.Mod.Path] = r.Mod.Version
	}
	// The modules nested in the tree that the root requires.
	return filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" || path == filepath.Join(tree, "go.mod") {
			return nil
		}
		mf, err := readMod(path)
		if err != nil {
			return err
		}
		v, ok := required[mf.Module.Mod.Path]
		if !ok {
			return nil
		}
		sub, err := filepath.Rel(tree, filepath.Dir(path))
		if err != nil {
			return err
		}
		return write(out, tree, filepath.ToSlash(sub), mf, v, t)
	})
}

func readMod(path string) (*modfile.File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return modfile.Parse(path, data, nil)
}

// write puts one module version in the proxy: its list, info, mod and zip.
func write(out, tree, subdir string, mf *modfile.File, version string, t time.Time) error {
	m := module.Version{Path: mf.Module.Mod.Path, Version: version}
	if err := module.Check(m.Path, m.Version); err != nil {
		return err
	}
	esc, err := module.EscapePath(m.Path)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, filepath.FromSlash(esc), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{version, t.UTC()})
	if err != nil {
		return err
	}
	gomod, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(subdir), "go.mod"))
	if err != nil {
		return err
	}
	files := map[string][]byte{"list": []byte(version + "\n"), version + ".info": info, version + ".mod": gomod}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(dir, version+".zip"))
	if err != nil {
		return err
	}
	if err := zip.CreateFromDir(f, m, filepath.Join(tree, filepath.FromSlash(subdir))); err != nil {
		f.Close()
		return fmt.Errorf("zip %s: %w", m, err)
	}
	fmt.Printf("%s@%s\n", m.Path, m.Version)
	return f.Close()
}
