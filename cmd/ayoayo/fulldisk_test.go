//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/store/sqlite"
)

// TestFullDisk runs the binary on a SQLite database in a small file system
// of its own, fills the file system under a load of moves, and makes room
// again: meanwhile moves are 503 storage_full with Retry-After (never 500),
// games can still be read, /readyz is 503 storage_full at 0 bytes free
// after every write refused for room, whatever the server's background
// writes that need no room commit meanwhile, and /metrics counts the
// failures; afterwards /readyz is 200 again, moves are stored again, every
// acknowledged move is there, and the database passes its integrity check.
func TestFullDisk(t *testing.T) {
	endToEnd(t, "builds and runs the server binary on a file system of its own")
	bin := buildBinary(t, t.TempDir())
	dir := t.TempDir()
	// 64 MiB, most of it taken by a filler before the load starts: the
	// server gets a few MiB, which its WAL fills within a second or two of
	// moves, and removing the filler then gives it room for certain. (A
	// filler written after the load started could find the WAL grown over
	// the whole file system already, and free nothing when removed.)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mounting a small file system is not permitted here (mount -t tmpfs needs root, or CAP_SYS_ADMIN): %v: %s", err, out)
	}
	// Registered first, so it runs last: after the server is gone.
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	db := filepath.Join(dir, "full.db")
	srv := startBinary(t, bin, "serve", "--addr", "127.0.0.1:0", "--db", db, "--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0", "--metrics-public")
	httpc := &http.Client{Timeout: 30 * time.Second}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	var (
		mu    sync.Mutex
		acked []ackedMove
		full  int      // 503 storage_full with Retry-After
		wrong []string // anything else that is not a 2xx
	)
	// play plays moves of games until stop, keeping account of the
	// answers.
	play := func(stop <-chan struct{}, seed uint64) {
		rng := rand.New(rand.NewPCG(seed, 8))
		var game ltGame
		var tokens [2]string
		for {
			select {
			case <-stop:
				return
			default:
			}
			if game.Status != "active" {
				var s, n ltSeat
				st1, _, _, err1 := sendJSON(ctx, httpc, http.MethodPost, srv.url+"/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &s)
				if err1 != nil || st1 != http.StatusCreated {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				st2, _, _, err2 := sendJSON(ctx, httpc, http.MethodPost, srv.url+"/v1/games/"+s.Game.ID+"/join", "", nil, &n)
				if err2 != nil || st2 != http.StatusCreated {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				game, tokens = n.Game, [2]string{s.Token, n.Token}
			}
			pit, err := pickMove(game.Position, rng)
			if err != nil {
				game.Status = ""
				continue
			}
			side := 0
			if game.Position.ToMove == "north" {
				side = 1
			}
			var ans ltAnswer
			status, h, body, err := sendJSON(ctx, httpc, http.MethodPost, srv.url+"/v1/games/"+game.ID+"/moves", tokens[side], map[string]int{"pit": pit, "ply": game.Ply}, &ans)
			mu.Lock()
			switch {
			case err != nil:
				wrong = append(wrong, err.Error())
			case status/100 == 2:
				acked = append(acked, ackedMove{game: game.ID, ply: game.Ply, pit: pit, position: ans.Game.Position, status: status})
				game = ans.Game
			case status == http.StatusServiceUnavailable && h.Get("Retry-After") != "" && strings.Contains(string(body), `"storage_full"`):
				full++
			default:
				wrong = append(wrong, fmt.Sprintf("%d %s", status, truncate(body)))
			}
			mu.Unlock()
			if status != http.StatusOK && status != http.StatusCreated {
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	counts := func() (acks, fulls int) {
		mu.Lock()
		defer mu.Unlock()
		return len(acked), full
	}

	// Fill the file system but for a few MiB: the load fills the rest.
	filler := filepath.Join(dir, "filler")
	if err := fillLeaving(filler, 6<<20); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() { play(stop, uint64(w)) })
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		acks, fulls := counts()
		if fulls >= 10 {
			t.Logf("the disk is full: %d moves acknowledged so far", acks)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no move answered 503 storage_full a minute after the disk filled (%d acknowledged)", acks)
		}
	}

	// Take what room the WAL left, to the last byte: at 0 bytes free the
	// readiness probe's write must fail as the moves do, whatever space the
	// WAL or the database's free pages already hold.
	rest := filepath.Join(dir, "filler-rest")
	if err := fillLeaving(rest, 0); err != nil {
		t.Fatal(err)
	}
	if free := freeBytes(t, dir); free != 0 {
		t.Fatalf("%d bytes free after filling the file system to the last byte", free)
	}
	// The load stops, so that nothing but the server's own background
	// writes runs between a write that fails for room and the probe after
	// it: the lobby's expiry, each second, commits a write that changes
	// nothing, which needs no room. The last write that needed room
	// failed, so /readyz must say storage_full, every time.
	close(stop)
	wg.Wait()
	for probe := range 12 {
		status, h, body, err := sendJSON(ctx, httpc, http.MethodPost, srv.url+"/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, nil)
		if err != nil || status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(string(body), `"storage_full"`) {
			t.Fatalf("a game created at 0 bytes free: %d, Retry-After %q: %s (%v)", status, h.Get("Retry-After"), truncate(body), err)
		}
		time.Sleep(300 * time.Millisecond) // room for a background write, not a bound
		status, h, body, err = sendJSON(ctx, httpc, http.MethodGet, srv.url+"/readyz", "", nil, nil)
		if err != nil || status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.Contains(string(body), `"storage_full"`) {
			t.Errorf("/readyz %d at 0 bytes free, after a write refused for room: %d, Retry-After %q: %s (%v)", probe, status, h.Get("Retry-After"), truncate(body), err)
		}
	}
	mu.Lock()
	someGame := acked[0].game
	mu.Unlock()
	if status, _, body, err := sendJSON(ctx, httpc, http.MethodGet, srv.url+"/v1/games/"+someGame, "", nil, nil); err != nil || status != http.StatusOK {
		t.Errorf("a game read on a full disk: %d %s (%v)", status, truncate(body), err)
	}
	status, _, body, err := sendJSON(ctx, httpc, http.MethodGet, srv.url+"/metrics", "", nil, nil)
	if err != nil || status != http.StatusOK || !strings.Contains(string(body), "ayoayo_store_wal_bytes ") ||
		strings.Contains(string(body), `ayoayo_store_failures_total{kind="full"} 0`) {
		t.Errorf("/metrics on a full disk: %d, no WAL size or no full failures counted (%v)", status, err)
	}
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "ayoayo_store_") {
			t.Logf("metrics: %s", strings.TrimSpace(line))
		}
	}

	for _, f := range []string{filler, rest} {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}
	// /readyz alone makes the store ready again, before any move: its
	// probe is a write that needs room, and now finds it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if status, _, _, _ := sendJSON(ctx, httpc, http.MethodGet, srv.url+"/readyz", "", nil, nil); status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz is not 200 30 s after room was made:\n%s", srv.logs())
		}
	}
	before, _ := counts()
	stop = make(chan struct{})
	for w := range 4 {
		wg.Go(func() { play(stop, uint64(10+w)) })
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after, _ := counts()
		if after >= before+50 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d moves acknowledged in 30 s after room was made", after-before)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d moves acknowledged, %d answered 503 storage_full", len(acked), full)
	if len(wrong) > 0 {
		t.Errorf("%d answers neither 2xx nor 503 storage_full with Retry-After, the first: %s", len(wrong), wrong[0])
	}
	if strings.Contains(srv.logs(), "checkpoint failed") {
		t.Log("the failed checkpoint was logged")
	}
	srv.stop(t)

	st, err := sqlite.Open(ctx, db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var check string
	if err := st.DB().QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
	for _, m := range acked {
		var pit int
		err := st.DB().QueryRow("SELECT pit FROM moves WHERE game_id = ? AND ply = ?", m.game, m.ply).Scan(&pit)
		if err != nil || pit != m.pit {
			t.Fatalf("game %s ply %d was answered %d with pit %d; stored: pit %d (%v)", m.game, m.ply, m.status, m.pit, pit, err)
		}
	}
}

// freeBytes is the room left on the file system that holds dir, as an
// unprivileged writer sees it.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		t.Fatal(err)
	}
	return int64(fs.Bavail) * int64(fs.Bsize)
}

// fillLeaving writes a file of zeros until the file system has only leave
// bytes of room left (or none).
func fillLeaving(path string, leave int64) error {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(filepath.Dir(path), &fs); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for left := int64(fs.Bavail)*int64(fs.Bsize) - leave; left > 0; left -= int64(len(chunk)) {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return nil
			}
			return err
		}
	}
	return nil
}
