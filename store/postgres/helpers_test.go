package postgres

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/storetest"
	"github.com/jackc/pgx/v5"
)

// The cases every store must pass are in store/storetest (conformance_test.go
// runs them here); the tests beside it cover what only this store has: its
// migrations under a lock, several instances on one database, the single
// statements its writes are, the database's own guards, and the rows it
// decodes.

// testDSN returns the database the tests may use, or skips the test.
func testDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv("AYOAYO_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("PostgreSQL tests need AYOAYO_TEST_POSTGRES=postgres://USER@HOST:PORT/DB (a database the tests may create and drop schemas in); .ci/run sets it")
	}
	return dsn
}

// freshSchema creates an empty schema of its own for the test, dropped with
// everything in it when the test ends, and returns the test database's DSN
// with the schema as its search_path.
func freshSchema(t testing.TB) string {
	t.Helper()
	dsn := testDSN(t)
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
		t.Fatalf("create schema %s: %v", name, err)
	}
	t.Cleanup(func() {
		// t.Context is over by now; the drop gets a moment of its own.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := admin(ctx, "DROP SCHEMA "+name+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return withParam(t, dsn, "search_path", name)
}

// withParam adds a connection parameter to dsn, a URL or a key=value string.
func withParam(t testing.TB, dsn, key, value string) string {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return fmt.Sprintf("%s %s=%s", dsn, key, value)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("AYOAYO_TEST_POSTGRES does not parse as a URL: %v", err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// openOn opens a store on dsn, closed when the test ends.
func openOn(t testing.TB, dsn string, opts Options) *Store {
	t.Helper()
	s, err := Open(t.Context(), dsn, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// openFresh opens a store on a fresh schema.
func openFresh(t *testing.T) *Store {
	t.Helper()
	return openOn(t, freshSchema(t), Options{})
}

func hashOf(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// t0 has nanoseconds, which the store cuts to microseconds.
var t0 = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// newGame stores a game between two people, South seated, North waiting.
func newGame(t *testing.T, s *Store, id string) games.Game {
	t.Helper()
	return storetest.NewGame(t, s, id, t0)
}

// joinedGame stores a game between two people and seats North.
func joinedGame(t testing.TB, s *Store, id string) games.Game {
	t.Helper()
	return storetest.JoinedGame(t, s, id, t0)
}

// seatToken is the token of the seat to move in a game made by joinedGame.
func seatToken(g games.Game) string { return g.ID + "-" + g.Position.ToMove.String() }

// playOn returns the write of pit played in g by the holder of token, the
// game after it worked out by the engine as the game service does.
func playOn(t testing.TB, g games.Game, pit int, token string, at time.Time) games.Play {
	t.Helper()
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		t.Fatal(err)
	}
	var out engine.Outcome
	for _, p := range g.History {
		if err := rec.Play(int(p), &out); err != nil {
			t.Fatal(err)
		}
	}
	if err := rec.Play(pit, &out); err != nil {
		t.Fatalf("pit %d at %s: %v", pit, g.Position, err)
	}
	next := g
	next.Ply, next.Position, next.Result = rec.Ply(), rec.Position(), rec.Result()
	next.History = append(slices.Clone(g.History), byte(pit))
	if next.Result.Over() {
		next.Status = games.Finished
	}
	next.UpdatedAt = at
	next.Version++
	return games.Play{GameID: g.ID, Ply: g.Ply,
		Moves: []games.Record{{Ply: g.Ply, Pit: pit, At: at, Version: next.Version}}, At: at, Game: next}
}

// micro is t as the store gives it back.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }
