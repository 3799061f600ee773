package main

import (
	"context"
	"database/sql"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/store/sqlite"
)

// TestBackupUnderLoad copies the database of a server that is playing
// moves as fast as it can: the copy passes SQLite's integrity check, is a
// snapshot (every game's ply is its number of moves), and holds every move
// answered 2xx before the backup began; the server keeps answering
// meanwhile.
func TestBackupUnderLoad(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "live.db"), filepath.Join(dir, "copy.db")
	m, _, serveErr := testMain(map[string]string{"AYOAYO_DB": db, "AYOAYO_ADDR": "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	exit := make(chan int, 1)
	go func() {
		exit <- m.Run(ctx, []string{"serve", "--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0"})
	}()
	base := "http://" + listeningAddr(t, serveErr)

	client := &http.Client{Timeout: 10 * time.Second}
	var mu sync.Mutex
	var acked []ackedMove
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// Bounded: four players, and at most 20 s whatever happens.
	giveUp := time.After(20 * time.Second)
	for w := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			post := func(path, token string, body, out any) int {
				st, _, err := callJSON(ctx, client, http.MethodPost, base+path, token, body, out)
				if err != nil {
					return 0
				}
				return st
			}
			for {
				select {
				case <-stop:
					return
				case <-giveUp:
					return
				default:
				}
				var a, b ltSeat
				if post("/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &a) != http.StatusCreated ||
					post("/v1/games/"+a.Game.ID+"/join", "", nil, &b) != http.StatusCreated {
					continue
				}
				game, tokens := b.Game, [2]string{a.Token, b.Token}
				for game.Status == "active" {
					pit, err := pickMove(game.Position, rng)
					if err != nil {
						break
					}
					side := 0
					if game.Position.ToMove == "north" {
						side = 1
					}
					var ans ltAnswer
					st := post("/v1/games/"+game.ID+"/moves", tokens[side], map[string]int{"pit": pit, "ply": game.Ply}, &ans)
					if st/100 != 2 {
						break
					}
					mu.Lock()
					acked = append(acked, ackedMove{game: game.ID, ply: game.Ply, pit: pit, position: ans.Game.Position, status: st})
					mu.Unlock()
					game = ans.Game
				}
			}
		})
	}
	var stopOnce sync.Once
	stopLoad := func() { stopOnce.Do(func() { close(stop); wg.Wait() }) }
	defer stopLoad()
	answered := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	for deadline := time.Now().Add(10 * time.Second); answered() < 500 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}

	before := answered() // every move in acked[:before] was answered before the backup began
	if before == 0 {
		t.Fatal("no move was answered before the backup")
	}
	bm, stdout, stderr := testMain(nil)
	began := time.Now()
	if code := bm.Run(t.Context(), []string{"backup", "--db", db, "--out", out}); code != 0 {
		t.Fatalf("backup: exit %d: %s", code, stderr)
	}
	took := time.Since(began)
	during := answered() - before
	if !strings.Contains(stdout.String(), "integrity_check ok") {
		t.Errorf("backup printed %q", stdout)
	}
	// The server goes on after the backup.
	for deadline := time.Now().Add(10 * time.Second); answered() < before+during+50 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if answered() < before+during+50 {
		t.Errorf("the server answered %d moves in the 10 s after the backup", answered()-before-during)
	}
	t.Logf("%d moves before the backup, %d during its %v", before, during, took)
	stopLoad()

	if _, err := sqlite.CheckCopy(t.Context(), out); err != nil {
		t.Fatal(err)
	}
	cp, err := sql.Open("sqlite", "file:"+out+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	var torn int
	if err := cp.QueryRow(`SELECT count(*) FROM games g
		WHERE g.ply != (SELECT count(*) FROM moves m WHERE m.game_id = g.id)`).Scan(&torn); err != nil || torn != 0 {
		t.Fatalf("%d games of the copy whose ply is not their number of moves (%v)", torn, err)
	}
	mu.Lock()
	kept := acked[:before]
	mu.Unlock()
	for _, mv := range kept {
		var pit int
		if err := cp.QueryRow("SELECT pit FROM moves WHERE game_id = ? AND ply = ?", mv.game, mv.ply).Scan(&pit); err != nil || pit != mv.pit {
			t.Fatalf("game %s ply %d was answered before the backup with pit %d; the copy has pit %d (%v)", mv.game, mv.ply, mv.pit, pit, err)
		}
	}

	cancel()
	select {
	case code := <-exit:
		if code != 0 {
			t.Errorf("serve exit %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Error("serve did not stop")
	}
}
