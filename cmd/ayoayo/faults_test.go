package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/puzzles"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// TestCorruptStoredGameIsServerFault edits a stored game behind the server's
// back, as a bad restore or a bug would, and asks every game endpoint that
// reads what was edited. Each must answer 500 internal_error and say nothing
// of the database, the engine or the data: the fault is the server's, never
// the client's (before, a history that no longer replayed was answered 422
// illegal_move, and an undecodable row 400 invalid_notation with its text).
func TestCorruptStoredGameIsServerFault(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "faults.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hub := games.NewHub(st, games.HubOptions{})
	h, err := api.New(api.Options{
		DB:      st,
		Games:   games.NewService(st, testCPU(), games.Options{Changed: hub}),
		Hub:     hub,
		Puzzles: puzzles.NewFeed(st, testCPU(), puzzles.FeedOptions{}),
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	call := func(t *testing.T, method, path, token, body string) (int, map[string]any, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return resp.StatusCode, m, string(raw)
	}
	// newGame starts a two-person game, joined with one move played unless
	// state is "waiting", and returns its id and the seats' tokens.
	newGame := func(t *testing.T, state string) (id string, tokens map[string]string) {
		t.Helper()
		status, m, raw := call(t, http.MethodPost, "/v1/games", "", `{"opponent":{"type":"human"}}`)
		if status != http.StatusCreated {
			t.Fatalf("create: %d %s", status, raw)
		}
		id, tokens = m["game"].(map[string]any)["id"].(string), map[string]string{"south": m["token"].(string)}
		if state == "joined" {
			status, m, raw := call(t, http.MethodPost, "/v1/games/"+id+"/join", "", "")
			if status != http.StatusCreated {
				t.Fatalf("join: %d %s", status, raw)
			}
			tokens["north"] = m["token"].(string)
			if status, _, raw := call(t, http.MethodPost, "/v1/games/"+id+"/moves", tokens["south"], `{"ply":0,"pit":2}`); status != http.StatusCreated {
				t.Fatalf("move: %d %s", status, raw)
			}
		}
		return id, tokens
	}

	// corrupt runs query on one connection that ignores the schema's CHECK
	// constraints, which would otherwise refuse most of these edits.
	corrupt := func(t *testing.T, query, id string) {
		t.Helper()
		conn, err := st.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, "PRAGMA ignore_check_constraints = ON"); err != nil {
			t.Fatal(err)
		}
		defer conn.ExecContext(ctx, "PRAGMA ignore_check_constraints = OFF")
		if _, err := conn.ExecContext(ctx, query, id); err != nil {
			t.Fatal(err)
		}
	}
	corruptions := []struct {
		name  string
		state string // "joined": a move played; "waiting": nobody joined
		sql   string // run with the game's id as ?1
		leak  string // text of the corruption that must not reach the client
	}{
		{"position does not parse", "joined", `UPDATE games SET position = 'bogus-position' WHERE id = ?1`, "bogus"},
		{"rule option unknown", "joined", `UPDATE games SET capture_seed = 'bogus' WHERE id = ?1`, "bogus"},
		{"history not pits", "joined", `UPDATE games SET history = 'z' WHERE id = ?1`, "'z'"},
		{"history does not replay", "joined", `UPDATE games SET history = '8' WHERE id = ?1`, "replay"},
		{"move row disagrees with the history", "joined", `UPDATE moves SET pit = 9 WHERE game_id = ?1`, "pit"},
		{"waiting game's status unknown", "waiting", `UPDATE games SET status = 'bogus' WHERE id = ?1`, "bogus"},
	}
	endpoints := []struct {
		name, method, path, body string
		seat                     string          // whose token to send, if any
		reads                    map[string]bool // the corruptions this endpoint reads
	}{
		{"get game", http.MethodGet, "", "", "", map[string]bool{"position does not parse": true, "rule option unknown": true, "history not pits": true, "waiting game's status unknown": true}},
		{"list moves", http.MethodGet, "/moves", "", "", map[string]bool{"move row disagrees with the history": true}},
		{"play", http.MethodPost, "/moves", `{"ply":1,"pit":7}`, "north", map[string]bool{"position does not parse": true, "rule option unknown": true, "history not pits": true, "history does not replay": true}},
		{"resign", http.MethodPost, "/resign", "", "south", map[string]bool{"position does not parse": true, "rule option unknown": true, "history not pits": true}},
		{"join", http.MethodPost, "/join", "", "", map[string]bool{"waiting game's status unknown": true}},
		{"events", http.MethodGet, "/events", "", "", map[string]bool{"position does not parse": true, "rule option unknown": true, "history not pits": true, "waiting game's status unknown": true}},
	}
	// Words of the layers below that a problem must never carry.
	internals := []string{"sqlite", "SQL", "notation", "decode", "replay", "engine", "stored", "illegal", "invalid"}
	for _, c := range corruptions {
		for _, ep := range endpoints {
			if !ep.reads[c.name] {
				continue
			}
			t.Run(c.name+"/"+ep.name, func(t *testing.T) {
				id, tokens := newGame(t, c.state)
				corrupt(t, c.sql, id)
				status, m, raw := call(t, ep.method, "/v1/games/"+id+ep.path, tokens[ep.seat], ep.body)
				if status != http.StatusInternalServerError || m["code"] != "internal_error" {
					t.Fatalf("%d %s, want 500 internal_error", status, raw)
				}
				// The instance (the path, with the game's random id) and the
				// request id are the client's own; everything else is the
				// server's words, which must not give anything away.
				delete(m, "instance")
				delete(m, "requestId")
				said := strings.ToLower(fmt.Sprint(m))
				for _, word := range append(internals, c.leak) {
					if strings.Contains(said, strings.ToLower(word)) {
						t.Fatalf("the answer gives away %q: %s", word, raw)
					}
				}
			})
		}
	}
}
