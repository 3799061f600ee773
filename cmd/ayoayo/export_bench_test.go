package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/api"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/sqlite"
)

// The scale of BenchmarkExportAtScale: the 1,000,000 games on
// SQLite, of which the exported player has exportGames, each of
// exportPlies moves.
const (
	exportStored = 1_000_000
	exportGames  = 20_000
	exportPlies  = 40
)

// BenchmarkExportAtScale streams one player's 20,000 games (40 plies each,
// a live clock) out of 1,000,000 stored in SQLite through
// GET /v1/players/{id}/games/export over loopback HTTP, as NDJSON and as
// records in the text notation, and reports games/s (the target: at least
// 5,000). The other 980,000 games are rows between two other players with
// no moves: the export's index walks never see them, and their moves would
// only make the fixture slower to build. Filling the database (direct bulk
// inserts from one model game) takes a minute or so, before the timer.
// It sits here, where the binary wires a store to the handler, rather than
// in api, whose tests need no database: it measures the SQLite store's
// export queries and the HTTP encoding together.
//
//	go test ./cmd/ayoayo -run '^$' -bench ExportAtScale -benchtime 3x
func BenchmarkExportAtScale(b *testing.B) {
	ctx := b.Context()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "export.db"), sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	model, recs := modelGame(b, t0)
	if err := st.CreateGame(ctx, model, recs); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	tx, err := st.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	// Every column of the model's row, but those that make each game its own.
	rows, err := tx.QueryContext(ctx, "SELECT name FROM pragma_table_info('games')")
	if err != nil {
		b.Fatal(err)
	}
	var cols, vals []string
	own := map[string]string{
		"id":           "printf('g%07d', i)",
		"created_at":   "strftime('%Y-%m-%dT%H:%M:%S', ?2 + i, 'unixepoch') || '.000000Z'",
		"joined_at":    "strftime('%Y-%m-%dT%H:%M:%S', ?2 + i, 'unixepoch') || '.000000Z'",
		"updated_at":   "strftime('%Y-%m-%dT%H:%M:%S', ?2 + i + 80, 'unixepoch') || '.000000Z'",
		"south_player": "CASE WHEN i % ?3 = 0 THEN 'ada' ELSE 'bob' END",
		"north_player": "CASE WHEN i % ?3 = 0 THEN 'bob' ELSE 'cid' END",
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			b.Fatal(err)
		}
		cols = append(cols, c)
		if v, ok := own[c]; ok {
			vals = append(vals, v)
		} else {
			vals = append(vals, "m."+c)
		}
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	hash := func(s string) []byte { h := sha256.Sum256([]byte(s)); return h[:] }
	every := exportStored / exportGames
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO players (id, name, token_hash, created_at, updated_at) VALUES ('ada', 'Ada', ?, 0, 0), ('bob', 'Bob', ?, 0, 0), ('cid', 'Cid', ?, 0, 0)`,
			[]any{hash("ada"), hash("bob"), hash("cid")}},
		// Game i is created i seconds after the model, its moves shifted as
		// much; every fiftieth is ada's, and only those have moves.
		{`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
			INSERT INTO games (` + strings.Join(cols, ", ") + `) SELECT ` + strings.Join(vals, ", ") + `
			FROM n, games AS m WHERE m.id = ?4`, []any{exportStored, t0.Unix(), every, model.ID}},
		{`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
			INSERT INTO moves (game_id, ply, pit, by_ai, at, version)
			SELECT printf('g%07d', i), m.ply, m.pit, m.by_ai, m.at + i * 1000000, m.version
			FROM n, moves AS m WHERE i % ?2 = 0 AND m.game_id = ?3`, []any{exportStored, every, model.ID}},
		{`DELETE FROM games WHERE id = ?`, []any{model.ID}},
		{`ANALYZE`, nil},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d games stored, %d of them ada's with %d moves each, in %v", exportStored, exportGames, exportPlies, time.Since(start).Round(time.Second))

	e, err := api.New(api.Options{Exports: games.NewExporter(st), Players: players.NewService(st, time.Now)})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(e)
	defer srv.Close()
	for _, format := range []string{"ndjson", "record"} {
		b.Run(format, func(b *testing.B) {
			n := 0
			cpu0 := cpuTime(b)
			for b.Loop() {
				res, err := srv.Client().Get(srv.URL + "/v1/players/ada/games/export?format=" + format)
				if err != nil {
					b.Fatal(err)
				}
				games, err := countGames(res.Body, format)
				res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK || games != exportGames {
					b.Fatalf("status %d, %d games, %v", res.StatusCode, games, err)
				}
				n += games
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "games/s")
			// On a shared machine the wall clock says more of the others'
			// load than of the export: games per second of this process's
			// CPU (server and client together) says what the export costs.
			b.ReportMetric(float64(n)/(cpuTime(b)-cpu0).Seconds(), "games/cpu-s")
		})
	}
}

// countGames reads an export to its end and counts its games: NDJSON
// lines, or records (their Event tags).
func countGames(r io.Reader, format string) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		if format == "ndjson" || bytes.HasPrefix(sc.Bytes(), []byte("[Event ")) {
			n++
		}
	}
	return n, sc.Err()
}

// modelGame is a finished live game between ada (South) and bob (North)
// of exportPlies random legal moves, each 2 s after the last, as the
// service would store it.
func modelGame(b *testing.B, t0 time.Time) (games.Game, []games.Record) {
	b.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	for {
		eg, err := engine.NewGame(engine.Start(), engine.Rules{})
		if err != nil {
			b.Fatal(err)
		}
		var out engine.Outcome
		var recs []games.Record
		for ply := 0; ply < exportPlies && !eg.Result().Over(); ply++ {
			var legal []int
			for m := eg.Position().LegalMoves(engine.Rules{}); m != 0; {
				legal = append(legal, m.Next())
			}
			pit := legal[rng.IntN(len(legal))]
			if err := eg.Play(pit, &out); err != nil {
				b.Fatal(err)
			}
			recs = append(recs, games.Record{Ply: ply, Pit: pit, At: t0.Add(time.Duration(ply+1) * 2 * time.Second), Version: int64(ply + 2)})
		}
		if len(recs) < exportPlies {
			continue // ended early: another
		}
		g := games.Game{ID: "model", CreatedAt: t0, JoinedAt: t0, UpdatedAt: recs[len(recs)-1].At, Start: engine.Start(),
			Position: eg.Position(), Ply: len(recs), Status: games.Active, Version: int64(len(recs) + 1),
			TimeControl: games.TimeControl{Kind: games.Live, Initial: 5 * time.Minute, Increment: 3 * time.Second},
			Clock:       [2]time.Duration{4 * time.Minute, 4 * time.Minute},
			Players:     [2]games.SeatPlayer{{ID: "ada", Name: "Ada", Rating: 1500, Deviation: 80}, {ID: "bob", Name: "Bob", Rating: 1500, Deviation: 80}},
		}
		for _, m := range eg.Moves() {
			g.History = append(g.History, byte(m))
		}
		g.Tokens = [2][]byte{make([]byte, 32), make([]byte, 32)}
		g.Tokens[1][0] = 1
		g.Status, g.Result = games.Finished, engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}
		return g, recs
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
