package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/store/postgres"
	"github.com/ayoayo/ayoayo/store/sqlite"
	"github.com/jackc/pgx/v5"
)

func TestRedactDB(t *testing.T) {
	tests := []struct{ db, want string }{
		{"./ayoayo.db", "./ayoayo.db"},
		{"/var/lib/ayoayo/postgres:weird.db", "/var/lib/ayoayo/postgres:weird.db"},
		{"postgres://ayo@db.example:5432/ayoayo", "postgres://ayo@db.example:5432/ayoayo"},
		{"postgres://ayo:sekret@db.example:5432/ayoayo", "postgres://ayo:xxxxx@db.example:5432/ayoayo"},
		{"postgresql://ayo:sekret@db.example/ayoayo?sslmode=require", "postgresql://ayo:xxxxx@db.example/ayoayo?sslmode=require"},
		{"postgres://db.example/ayoayo?user=ayo&password=sekret", "postgres://db.example/ayoayo?password=xxxxx&user=ayo"},
		{"postgres://ayo:sekret@db.example:port/ayoayo", "(a postgres URL that does not parse)"},
	}
	for _, tc := range tests {
		if got := redactDB(tc.db); got != tc.want || strings.Contains(got, "sekret") {
			t.Errorf("redactDB(%q) = %q, want %q", tc.db, got, tc.want)
		}
	}
}

// TestOpenStoreChoosesByDB: a postgres URL is never taken for a file name,
// and anything else is a SQLite file.
func TestOpenStoreChoosesByDB(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "chosen.db")
	st, err := openStore(ctx, file, time.Now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*sqlite.Store); !ok {
		t.Fatalf("%s opened a %T, want SQLite", file, st)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	for _, db := range []string{"postgres://ayo:sekret@127.0.0.1:1/ayoayo?connect_timeout=5", "postgresql://127.0.0.1:1/ayoayo"} {
		st, err := openStore(ctx, db, time.Now, nil)
		if err == nil {
			st.Close()
			t.Fatalf("%s: opened with no server there", db)
		}
		if strings.Contains(err.Error(), "sekret") {
			t.Fatalf("the error quotes the password: %v", err)
		}
		if entries, _ := os.ReadDir("."); len(entries) > 0 {
			t.Fatalf("%s: files were made: %v", db, entries)
		}
	}
	if dsn := os.Getenv("AYOAYO_TEST_POSTGRES"); dsn != "" {
		st, err := openStore(ctx, freshSchema(t, dsn), time.Now, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := st.(*postgres.Store); !ok {
			t.Fatalf("opened a %T, want PostgreSQL", st)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// postgresDSN returns AYOAYO_TEST_POSTGRES with a schema of the test's own
// (dropped at its end) and a password, which trust authentication ignores
// but the log must not show; or it skips the test.
func postgresDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("AYOAYO_TEST_POSTGRES")
	if dsn == "" && os.Getenv("CI") == "true" {
		t.Fatal("CI runs the PostgreSQL tests: .ci/run sets AYOAYO_TEST_POSTGRES before them")
	}
	if dsn == "" {
		t.Skip("PostgreSQL tests need AYOAYO_TEST_POSTGRES=postgres://USER@HOST:PORT/DB (a database the tests may create and drop schemas in); .ci/run sets it")
	}
	u, err := url.Parse(freshSchema(t, dsn))
	if err != nil || u.Scheme == "" {
		t.Skipf("AYOAYO_TEST_POSTGRES is not a URL (%v); serve takes only postgres:// URLs", err)
	}
	if _, has := u.User.Password(); !has {
		u.User = url.UserPassword(u.User.Username(), "sekret-pw")
	}
	return u.String()
}

// freshSchema creates an empty schema, dropped with its tables when the
// test ends, and returns dsn with it as the search_path.
func freshSchema(t *testing.T, dsn string) string {
	t.Helper()
	name := "t_" + strings.ToLower(rand.Text()[:16])
	admin := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := admin(t.Context(), "CREATE SCHEMA "+name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestServeOnPostgres serves from PostgreSQL: ready, a game created over
// HTTP lands in the database, and the log names the database without its
// password.
func TestServeOnPostgres(t *testing.T) {
	dsn := postgresDSN(t)
	m, _, stderr := testMain(map[string]string{"AYOAYO_ADDR": "127.0.0.1:0", "AYOAYO_DB": dsn})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := make(chan int, 1)
	go func() { code <- m.Run(ctx, []string{"serve", "--analyze-concurrency", "1"}) }()

	var listening struct{ Msg, Addr, DB string }
	for deadline := time.Now().Add(30 * time.Second); listening.Addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for line := range strings.Lines(stderr.String()) {
			var l struct{ Msg, Addr, DB string }
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "listening" {
				listening = l
			}
		}
	}
	if listening.Addr == "" {
		t.Fatalf("no listening line:\n%s", stderr.String())
	}
	if !strings.HasPrefix(listening.DB, "postgres") || !strings.Contains(listening.DB, "xxxxx") {
		t.Errorf("the listening line names the database %q, want the URL with its password hidden", listening.DB)
	}
	if strings.Contains(stderr.String(), "sekret-pw") {
		t.Errorf("the log shows the password:\n%s", stderr.String())
	}
	res, err := http.Get("http://" + listening.Addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("/readyz: %d", res.StatusCode)
	}
	res, err = http.Post("http://"+listening.Addr+"/v1/games", "application/json", strings.NewReader(`{"opponent":{"type":"human"}}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ Game struct{ ID string } }
	err = json.NewDecoder(res.Body).Decode(&created)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || err != nil || created.Game.ID == "" {
		t.Fatalf("create a game: %d, %+v (%v)", res.StatusCode, created, err)
	}
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Fatalf("exit status %d:\n%s", c, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not return after cancellation")
	}

	st, err := postgres.Open(t.Context(), dsn, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if g, err := st.Game(t.Context(), created.Game.ID); err != nil || g.ID != created.Game.ID {
		t.Fatalf("the game created over HTTP is not in PostgreSQL: %+v (%v)", g, err)
	}
}

func TestPuzzlesGenerateOnPostgres(t *testing.T) {
	dsn := postgresDSN(t)
	for i, want := range []string{"generated", "already stored"} {
		code, out, errOut := run(t, "puzzles", "generate", "--from", "2026-01-05", "--days", "1", "--db", dsn)
		if code != 0 || !strings.HasPrefix(out, "2026-01-05 p20260105") || !strings.Contains(out, want) {
			t.Fatalf("run %d: exit %d, output %q (%s); want %q", i+1, code, out, errOut, want)
		}
	}
}
