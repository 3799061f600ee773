package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// BackupInfo describes a copy Backup made.
type BackupInfo struct {
	Bytes   int64 // the copy's size
	Version int   // the newest migration it records (0: none)
}

// Backup copies the database at file to out while other connections, in
// this process or another (a running server), go on reading and writing
// it. The copy is made by VACUUM INTO inside one read transaction: it holds
// exactly the commits made before that transaction began (WAL readers see
// a snapshot and do not block writers, so a server keeps writing), written
// compactly into a new file. The copy is checked (PRAGMA integrity_check),
// synced, and only then renamed to out, replacing a file there: out is
// either the previous file or a whole, checked copy, never a part.
func Backup(ctx context.Context, file, out string) (BackupInfo, error) {
	if _, err := os.Stat(file); err != nil {
		// sql.Open would create an empty database in its place.
		return BackupInfo{}, err
	}
	tmp := filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+".tmp-"+rand.Text()[:8])
	defer os.Remove(tmp) // gone after the rename; left by a failure otherwise
	src, err := sql.Open("sqlite", "file:"+file+"?"+url.Values{"_pragma": {fmt.Sprintf("busy_timeout(%d)", BusyTimeout.Milliseconds())}}.Encode())
	if err != nil {
		return BackupInfo{}, fmt.Errorf("open %s: %w", file, err)
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return BackupInfo{}, fmt.Errorf("copy %s: %w", file, err)
	}
	info, err := CheckCopy(ctx, tmp)
	if err != nil {
		return BackupInfo{}, fmt.Errorf("check the copy of %s: %w", file, err)
	}
	if err := syncFile(tmp); err != nil {
		return BackupInfo{}, fmt.Errorf("sync the copy: %w", err)
	}
	if err := os.Rename(tmp, out); err != nil {
		return BackupInfo{}, err
	}
	// The rename is durable once the directory is synced.
	if err := syncFile(filepath.Dir(out)); err != nil {
		return BackupInfo{}, fmt.Errorf("sync %s: %w", filepath.Dir(out), err)
	}
	return info, nil
}

// errNotOK: PRAGMA integrity_check found a fault.
var errNotOK = errors.New("integrity_check failed")

// CheckCopy opens a database file read-only (a backup, before it is
// restored or after it is made) and runs SQLite's integrity check on it,
// returning its size and schema version.
func CheckCopy(ctx context.Context, file string) (BackupInfo, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return BackupInfo{}, err
	}
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		return BackupInfo{}, err
	}
	defer db.Close()
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil {
		return BackupInfo{}, err
	}
	if check != "ok" {
		return BackupInfo{}, fmt.Errorf("%w: %s", errNotOK, check)
	}
	info := BackupInfo{Bytes: fi.Size()}
	var v sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT max(version) FROM schema_migrations").Scan(&v); err != nil {
		return BackupInfo{}, fmt.Errorf("not a database of this server: %w", err)
	}
	info.Version = int(v.Int64)
	return info, nil
}

// syncFile flushes a file, or a directory's entries, to disk.
func syncFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, fs.ErrInvalid) {
		return err
	}
	return nil
}
