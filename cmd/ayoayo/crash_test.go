//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/store/sqlite"
)

// TestCrashKeepsAnsweredMoves is the durability check: the real binary,
// under a load of moves, is killed with SIGKILL and started again on the same
// database. Every move that had been answered with a 2xx must be there, with
// the position it was answered with, and SQLite's integrity check must pass.
func TestCrashKeepsAnsweredMoves(t *testing.T) {
	endToEnd(t, "builds and runs the server binary")
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	db := filepath.Join(dir, "crash.db")
	args := []string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--game-create-rate", "0", "--join-rate", "0", "--move-rate", "0"}
	httpc := &http.Client{Timeout: 30 * time.Second}

	srv := &crashClient{startBinary(t, bin, args...), httpc}
	acked := playUntilKilled(t, srv, 8, 1500*time.Millisecond)
	if len(acked) == 0 {
		t.Fatal("no move was answered before the kill")
	}
	t.Logf("%d moves answered 2xx before SIGKILL", len(acked))

	srv = &crashClient{startBinary(t, bin, args...), httpc}
	byGame := map[string][]ackedMove{}
	for _, m := range acked {
		byGame[m.game] = append(byGame[m.game], m)
	}
	for id, ms := range byGame {
		var page struct {
			Moves []struct {
				Ply      int        `json:"ply"`
				Pit      int        `json:"pit"`
				Position ltPosition `json:"position"`
			} `json:"moves"`
		}
		status, err := srv.get("/v1/games/"+id+"/moves?limit=1000", &page)
		if err != nil || status != http.StatusOK {
			t.Fatalf("history of %s after the restart: %d %v", id, status, err)
		}
		for _, m := range ms {
			if m.ply >= len(page.Moves) {
				t.Fatalf("game %s: move at ply %d was answered %d but is gone after the crash (history has %d)",
					id, m.ply, m.status, len(page.Moves))
			}
			got := page.Moves[m.ply]
			if got.Ply != m.ply || got.Pit != m.pit || fmt.Sprint(got.Position) != fmt.Sprint(m.position) {
				t.Fatalf("game %s ply %d: stored pit %d at %v, answered pit %d at %v", id, m.ply, got.Pit, got.Position, m.pit, m.position)
			}
		}
		for i, m := range page.Moves {
			if m.Ply != i {
				t.Fatalf("game %s: history[%d] is ply %d", id, i, m.Ply)
			}
		}
	}
	// A live event stream must not hold up a graceful shutdown: SIGTERM
	// ends it, and the server exits well within its 15 s drain timeout.
	var waiting ltSeat // a game that waits for a player: its stream stays open
	if st, err := srv.post("/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &waiting); err != nil || st != http.StatusCreated {
		t.Fatalf("create: %d %v", st, err)
	}
	resp, err := srv.client.Get(srv.srv.url + "/v1/games/" + waiting.Game.ID + "/events")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("event stream: %v", err)
	}
	// The 200 came with the stream's flushed headers: its handler follows
	// the game and waits; no wait of ours is needed for that.
	streamEnded := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		close(streamEnded)
	}()
	began := time.Now()
	srv.srv.stop(t)
	if took := time.Since(began); took > 10*time.Second {
		t.Fatalf("shutdown with an open event stream took %v", took)
	}
	select {
	case <-streamEnded:
	case <-time.After(10 * time.Second):
		t.Fatal("the event stream outlived the server")
	}

	st, err := sqlite.Open(context.Background(), db, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var check string
	if err := st.DB().QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
	var bad int
	if err := st.DB().QueryRow(`SELECT count(*) FROM games g
		WHERE g.ply != (SELECT count(*) FROM moves m WHERE m.game_id = g.id)`).Scan(&bad); err != nil || bad != 0 {
		t.Fatalf("%d games whose ply is not their number of moves (%v)", bad, err)
	}
}

// crashClient talks JSON to a running binary.
type crashClient struct {
	srv    *server
	client *http.Client
}

func (s *crashClient) post(path, token string, body, out any) (int, error) {
	return s.call(http.MethodPost, path, token, body, out)
}

func (s *crashClient) get(path string, out any) (int, error) {
	return s.call(http.MethodGet, path, "", nil, out)
}

func (s *crashClient) call(method, path, token string, body, out any) (int, error) {
	status, _, err := callJSON(context.Background(), s.client, method, s.srv.url+path, token, body, out)
	return status, err
}

// ackedMove is a move the server answered with a 2xx.
type ackedMove struct {
	game     string
	ply, pit int
	position ltPosition // after the move, as answered
	status   int
}

// playUntilKilled has workers play games until after, then kills the server
// with SIGKILL while they keep sending, and returns every move answered 2xx.
func playUntilKilled(t *testing.T, s *crashClient, workers int, after time.Duration) []ackedMove {
	t.Helper()
	var mu sync.Mutex
	var acked []ackedMove
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for {
				select {
				case <-stop:
					return
				default:
				}
				var a, b ltSeat
				if st, err := s.post("/v1/games", "", map[string]any{"opponent": map[string]any{"type": "human"}}, &a); err != nil || st != http.StatusCreated {
					continue // the server is gone or going
				}
				if st, err := s.post("/v1/games/"+a.Game.ID+"/join", "", nil, &b); err != nil || st != http.StatusCreated {
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
					st, err := s.post("/v1/games/"+game.ID+"/moves", tokens[side], map[string]int{"pit": pit, "ply": game.Ply}, &ans)
					if err != nil || st/100 != 2 {
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
	// The load runs for a while before the kill: a span of the real
	// binary's work under load is the behaviour under test, not a wait.
	time.Sleep(after)
	if err := s.srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-s.srv.done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the server ended with %v, want killed by SIGKILL", err)
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	return acked
}
