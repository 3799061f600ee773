package sqlite

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestBackupReplacesAndRefuses(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	file, out := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	s, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, _ := migrations()

	// An older copy at out is replaced whole.
	if err := os.WriteFile(out, []byte("an old copy"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := Backup(ctx, file, out)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != ms[len(ms)-1].Version || info.Bytes == 0 {
		t.Errorf("backup info %+v, want version %d", info, ms[len(ms)-1].Version)
	}
	if _, err := CheckCopy(ctx, out); err != nil {
		t.Fatal(err)
	}

	// A file that is not there is not made, nor is a copy.
	missing := filepath.Join(dir, "missing.db")
	if _, err := Backup(ctx, missing, filepath.Join(dir, "c.db")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("backup of a missing file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if n := e.Name(); n != "a.db" && n != "a.db-wal" && n != "a.db-shm" && n != "b.db" {
			t.Errorf("left %s behind", n)
		}
	}

	// A file that is not a database fails the check.
	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte("not a database at all, but long enough to look at"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckCopy(ctx, junk); err == nil {
		t.Error("CheckCopy passed a file that is not a database")
	}
}
