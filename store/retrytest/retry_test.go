package retrytest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/store/postgres"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// The fixtures were written by the code of 63ac9f9, the last that stored
// answers, through its HTTP handler: games against the AI (untimed, on a
// clock with the AI opening, played out), between people (untimed,
// correspondence, played out, one move only, timed out), and two rated
// games between players new to ratings, one resigned and one played out.
// Each database is dumped as SQL at that schema (SQLite's version 8,
// PostgreSQL's 6); the JSON beside it holds what the database never did:
// the seats' tokens, and the fixture's clock when it was done.
type fixture struct {
	Now    time.Time `json:"now"`
	Tokens []struct {
		Game  string `json:"game"`
		Side  string `json:"side"`
		Token string `json:"token"`
		What  string `json:"what"` // the kind of game
	} `json:"tokens"`
}

// storedAnswer is a row of the answers table before the migration.
type storedAnswer struct {
	game      string
	tokenHash []byte
	ply, pit  int
	body      []byte
}

func readFixture(t *testing.T, name string) (script string, fx fixture) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	j, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j, &fx); err != nil {
		t.Fatal(err)
	}
	return string(b), fx
}

// answerRows reads the answers table through query.
func answerRows(t *testing.T, query func() ([]storedAnswer, error)) []storedAnswer {
	t.Helper()
	as, err := query()
	if err != nil {
		t.Fatal(err)
	}
	// Every kind of game left answers: 10 games, 16 seats that moved.
	if len(as) != 16 {
		t.Fatalf("%d stored answers, want 16", len(as))
	}
	return as
}

// noAI is the chooser of a service that must never ask the AI: a retry
// makes no move.
func noAI(context.Context, engine.Position, engine.Rules, []engine.Position, int, uint64) (int, error) {
	return -1, fmt.Errorf("the AI was asked for a move during a retry")
}

// checkRetries sends every stored answer's request again, through the game
// service over st and the api's handler, and holds the answer to the
// stored bytes: 200 (a replay), the same body byte for byte but for the
// members the API has added since.
func checkRetries(t *testing.T, st games.Store, fx fixture, answers []storedAnswer) {
	t.Helper()
	svc := games.NewService(st, budget.New(1), games.Options{Choose: noAI, Now: func() time.Time { return fx.Now }})
	e, err := api.New(api.Options{Games: svc})
	if err != nil {
		t.Fatal(err)
	}
	type seat struct{ token, what, side string }
	byHash := map[string]seat{}
	for _, tk := range fx.Tokens {
		h := sha256.Sum256([]byte(tk.Token))
		byHash[string(h[:])] = seat{tk.Token, tk.What, tk.Side}
	}
	for _, a := range answers {
		s, ok := byHash[string(a.tokenHash)]
		if !ok {
			t.Fatalf("game %s: an answer of a token the fixture does not name", a.game)
		}
		t.Run(fmt.Sprintf("%s/%s's move at ply %d", s.what, s.side, a.ply), func(t *testing.T) {
			req := httptest.NewRequest(http.MethodPost, "/v1/games/"+a.game+"/moves",
				strings.NewReader(fmt.Sprintf(`{"ply":%d,"pit":%d}`, a.ply, a.pit)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+s.token)
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("retry: %d %s, want 200", rec.Code, rec.Body)
			}
			// The game's offers (issue 31) and the seats' bot marks
			// (issue 48) came to the API after these answers were stored:
			// the members a stored answer lacks; none stands, and no seat
			// is a bot, in these games.
			got := bytes.Replace(rec.Body.Bytes(), []byte(`"offers":{"draw":null,"takeback":null},`), nil, 1)
			got = bytes.ReplaceAll(got, []byte(`"bot":false,`), nil)
			if !bytes.Equal(got, a.body) {
				t.Fatalf("retry answered\n%s\nthe stored answer was\n%s", got, a.body)
			}
		})
	}
}

// TestRetriesAfterMigrationSQLite: a file of schema version 8, with its
// answers, migrated to today's schema (no answers): every seat's latest
// request sent again gets the very bytes stored for it.
func TestRetriesAfterMigrationSQLite(t *testing.T) {
	ctx := t.Context()
	script, fx := readFixture(t, "sqlite-before-0009")
	file := filepath.Join(t.TempDir(), "before.db")
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, script); err != nil {
		t.Fatal(err)
	}
	answers := answerRows(t, func() ([]storedAnswer, error) {
		rows, err := db.QueryContext(ctx, "SELECT game_id, token_hash, ply, pit, body FROM answers ORDER BY game_id, ply")
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		var out []storedAnswer
		for rows.Next() {
			var a storedAnswer
			if err := rows.Scan(&a.game, &a.tokenHash, &a.ply, &a.pit, &a.body); err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		return out, rows.Err()
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	s, err := sqlite.Open(ctx, file, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var left int
	if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'answers'").Scan(&left); err != nil || left != 0 {
		t.Fatalf("the answers table after the migration: %d (%v)", left, err)
	}
	checkRetries(t, s, fx, answers)
}

// TestRetriesAfterMigrationPostgres is TestRetriesAfterMigrationSQLite on
// PostgreSQL: a schema of version 6 from pg_dump, migrated by 0007.
func TestRetriesAfterMigrationPostgres(t *testing.T) {
	dsn := os.Getenv("AYOAYO_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("set AYOAYO_TEST_POSTGRES to a PostgreSQL URL (a database this test may create a schema in) to run it")
	}
	ctx := t.Context()
	script, fx := readFixture(t, "postgres-before-0007")
	schema := "retry_" + strings.ToLower(rand.Text()[:12])
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	// The dump names its schema; it is made anew under a name of this run's.
	if _, err := conn.Exec(ctx, strings.ReplaceAll(script, "answers_fixture", schema)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	answers := answerRows(t, func() ([]storedAnswer, error) {
		rows, err := conn.Query(ctx, "SELECT game_id, token_hash, ply, pit, body FROM "+schema+".answers ORDER BY game_id, ply")
		if err != nil {
			return nil, err
		}
		return pgx.CollectRows(rows, func(row pgx.CollectableRow) (storedAnswer, error) {
			var a storedAnswer
			err := row.Scan(&a.game, &a.tokenHash, &a.ply, &a.pit, &a.body)
			return a, err
		})
	})
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	s, err := postgres.Open(ctx, dsn+sep+"search_path="+schema, postgres.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var left bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", schema+".answers").Scan(&left); err != nil || left {
		t.Fatalf("the answers table after the migration: %v (%v)", left, err)
	}
	checkRetries(t, s, fx, answers)
}
