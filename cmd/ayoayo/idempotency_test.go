package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// inProcess is a server run in the test's process, on db.
type inProcess struct {
	url  string
	stop func()
}

func serveOn(t *testing.T, db string, args ...string) *inProcess {
	t.Helper()
	m, _, stderr := testMain(map[string]string{"AYOAYO_ADDR": "127.0.0.1:0", "AYOAYO_DB": db})
	ctx, cancel := context.WithCancel(context.Background())
	exit := make(chan int, 1)
	go func() { exit <- m.Run(ctx, append([]string{"serve", "--request-log", "none"}, args...)) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if code := <-exit; code != 0 {
				t.Errorf("serve exited with %d:\n%s", code, stderr)
			}
		})
	}
	t.Cleanup(stop)
	return &inProcess{url: "http://" + listeningAddr(t, stderr), stop: stop}
}

// create posts body to path with the Idempotency-Key key, and again while
// the answer is 409 (another request with the key runs).
func create(t *testing.T, base, path, key string, body string) (int, http.Header, []byte) {
	t.Helper()
	for {
		req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusConflict {
			return res.StatusCode, res.Header, b
		}
		time.Sleep(10 * time.Millisecond) // the other request's progress
	}
}

// tokensOf reads the secrets of creation answers.
func tokensOf(bodies ...[]byte) []string {
	var out []string
	for _, b := range bodies {
		i := bytes.Index(b, []byte(`"token":"`))
		if i < 0 {
			continue
		}
		rest := b[i+len(`"token":"`):]
		out = append(out, string(rest[:bytes.IndexByte(rest, '"')]))
	}
	return out
}

// A creation with an Idempotency-Key is made once, whichever instance gets
// it and however often; its answer comes back the same after a restart;
// and the database holds none of the tokens issued, in any form.
func TestIdempotencyAcrossInstances(t *testing.T) {
	tests := []struct {
		name   string
		db     func(t *testing.T) string
		shared bool // another instance may serve the same database
		search func(t *testing.T, db string, secrets []string)
	}{
		{"SQLite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "idem.db") }, false, searchFiles},
		{"PostgreSQL", postgresDSN, true, searchTables},
	}
	human := `{"opponent":{"type":"human"}}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := tt.db(t)
			a := serveOn(t, db)
			b := a
			if tt.shared {
				b = serveOn(t, db)
			}
			// Four at once with one key, on both instances.
			var bodies [4][]byte
			var wg sync.WaitGroup
			for i := range bodies {
				wg.Go(func() {
					st, _, body := create(t, []*inProcess{a, b}[i%2].url, "/v1/games", "four-at-once", human)
					if st != http.StatusCreated {
						t.Errorf("copy %d: %d %s", i, st, body)
					}
					bodies[i] = body
				})
			}
			wg.Wait()
			for i := range bodies {
				if !bytes.Equal(bodies[i], bodies[0]) {
					t.Fatalf("copy %d answered\n%s\nthe first\n%s", i, bodies[i], bodies[0])
				}
			}
			_, _, player := create(t, b.url, "/v1/players", "a-player", `{"name":"Ngozi"}`)
			if st, _, body := create(t, a.url, "/v1/games", "four-at-once", `{"opponent":{"type":"human"},"seat":"north"}`); st != http.StatusUnprocessableEntity || !bytes.Contains(body, []byte("idempotency_key_reused")) {
				t.Fatalf("another body with the key: %d %s", st, body)
			}
			// Games made without a key, whose tokens are searched for too.
			_, _, other := create(t, a.url, "/v1/games", "another-key", human)

			a.stop()
			b.stop()
			c := serveOn(t, db)
			if st, h, body := create(t, c.url, "/v1/games", "four-at-once", human); st != http.StatusCreated || !bytes.Equal(body, bodies[0]) || h.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("after a restart: %d %s, want the first answer again", st, body)
			}
			if _, _, again := create(t, c.url, "/v1/players", "a-player", `{"name":"Ngozi"}`); !bytes.Equal(again, player) {
				t.Fatalf("the player after a restart:\n%s\nwant\n%s", again, player)
			}
			c.stop()
			secrets := tokensOf(bodies[0], player, other)
			if len(secrets) != 3 {
				t.Fatalf("tokens %q, want 3", secrets)
			}
			tt.search(t, db, secrets)
		})
	}
}

// forms are the ways a secret could sit in a database: as it is, and its
// bytes in hexadecimal (how PostgreSQL shows a bytea).
func forms(secret string) []string {
	return []string{secret, hex.EncodeToString([]byte(secret))}
}

// searchFiles reads the SQLite file and its WAL, every byte of them.
func searchFiles(t *testing.T, db string, secrets []string) {
	t.Helper()
	var all []byte
	for _, f := range []string{db, db + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte("Ngozi")) {
		t.Fatal("the search does not see the rows: the player's name is missing")
	}
	for _, s := range secrets {
		for _, f := range forms(s) {
			if bytes.Contains(all, []byte(f)) {
				t.Fatalf("the database file holds the token %s", s)
			}
		}
	}
}

// searchTables reads every row of every table of the schema as text.
func searchTables(t *testing.T, dsn string, secrets []string) {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT tablename FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(tables) == 0 {
		t.Fatalf("tables %v: %v", tables, err)
	}
	var all strings.Builder
	for _, table := range tables {
		var text string
		if err := conn.QueryRow(ctx, fmt.Sprintf(`SELECT coalesce(string_agg(t::text, E'\n'), '') FROM %s t`, pgx.Identifier{table}.Sanitize())).Scan(&text); err != nil {
			t.Fatal(err)
		}
		all.WriteString(text)
	}
	if !strings.Contains(all.String(), "Ngozi") {
		t.Fatal("the search does not see the rows: the player's name is missing")
	}
	for _, s := range secrets {
		for _, f := range forms(s) {
			if strings.Contains(all.String(), f) {
				t.Fatalf("a table holds the token %s", s)
			}
		}
	}
}
