package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
)

// maxBytesPerMove is the target for a stored move, on average over
// everything a game keeps (its row, its records, its seats' answers).
const maxBytesPerMove = 300

// sizeGames and sizePlies shape the games measured: two people, so two
// seats with an answer each, and about fifty moves a game.
const (
	sizeGames = 200
	sizePlies = 50
)

// tableSize is the space one table or index takes on disk.
type tableSize struct {
	name  string
	bytes int64
}

// storeSize is what measureBytesPerMove found.
type storeSize struct {
	games, moves, answers int
	answerBytes           float64 // the answers' average length
	fileBytes             int64
	tables                []tableSize // largest first; nil when dbstat is missing
}

func (z storeSize) perMove() float64 { return float64(z.fileBytes) / float64(z.moves) }

// answerBody is about the answer a person's move gets from the API (some
// 850 bytes of JSON): the game as it stands and the move with its legs. Its
// content does not matter to SQLite, which does not compress; its size does.
func answerBody(rng *rand.Rand, g games.Game, out *engine.Outcome) []byte {
	type leg struct {
		From int   `json:"from"`
		Sown []int `json:"sown"`
	}
	legs := make([]leg, len(out.Legs))
	for i, l := range out.Legs {
		legs[i] = leg{From: int(l.From), Sown: l.AppendSown(nil)}
	}
	body, err := json.Marshal(map[string]any{
		"game": map[string]any{"id": g.ID, "status": g.Status, "ply": g.Ply, "version": g.Version + 1,
			"position": out.Position.String(), "createdAt": g.CreatedAt, "updatedAt": g.UpdatedAt,
			"rules": map[string]string{"captureSeed": "taken", "leftovers": "last_mover"}},
		"move": map[string]any{"ply": g.Ply, "side": out.Before.ToMove.String(), "pit": out.Pit, "legs": legs,
			"capture": out.Capture, "position": out.Position.String()},
	})
	if err != nil {
		panic(err)
	}
	// The rest of the answer (links, the seats, the clock) pads it to its
	// usual size.
	if n := 820 + rng.IntN(60) - len(body); n > 0 {
		body = append(body[:len(body)-1], fmt.Sprintf(`,"links":%q}`, strings.Repeat("x", max(n-11, 0)))...)
	}
	return body
}

// gameID is a random id of 16 URL-safe characters, as the service makes.
func gameID(rng *rand.Rand) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	b := make([]byte, 16)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// measureBytesPerMove stores n games between two people of up to plies
// moves each through the store (CreateGame, Join, one ApplyPlay per move
// with the mover's answer), vacuums the file and measures it.
func measureBytesPerMove(tb testing.TB, n, plies int) storeSize {
	tb.Helper()
	ctx := context.Background()
	file := filepath.Join(tb.TempDir(), "size.db")
	s, err := Open(ctx, file, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	// Games are played side by side, as a server sees them, so the writes
	// share commits as they would there.
	const workers = 8
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for i := w; i < n && errs[w] == nil; i += workers {
				errs[w] = playSizeGame(ctx, s, rng, i, plies)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			tb.Fatal(err)
		}
	}
	var z storeSize
	db := s.DB()
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		tb.Fatal(err)
	}
	var pages, pageSize int64
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM moves),
		(SELECT count(*) FROM answers), (SELECT avg(length(body)) FROM answers),
		(SELECT page_count FROM pragma_page_count), (SELECT page_size FROM pragma_page_size)`).
		Scan(&z.games, &z.moves, &z.answers, &z.answerBytes, &pages, &pageSize)
	if err != nil {
		tb.Fatal(err)
	}
	z.fileBytes = pages * pageSize
	if rows, err := db.QueryContext(ctx, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC"); err == nil {
		for rows.Next() {
			var ts tableSize
			if err := rows.Scan(&ts.name, &ts.bytes); err != nil {
				tb.Fatal(err)
			}
			z.tables = append(z.tables, ts)
		}
		if err := rows.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	if z.games != n || z.answers != 2*n || z.moves < n*plies*85/100 || z.answerBytes < 800 || z.answerBytes > 900 {
		tb.Fatalf("stored %d games, %d moves, %d answers of %.0f bytes; want %d, about %d, %d of about 850",
			z.games, z.moves, z.answers, z.answerBytes, n, n*plies, 2*n)
	}
	return z
}

// playSizeGame creates game i, seats North and plays up to plies moves of
// random legal pits, each its own request.
func playSizeGame(ctx context.Context, s *Store, rng *rand.Rand, i, plies int) error {
	at := time.Date(2026, 3, 14, 15, 9, 26, 535897000, time.UTC).Add(time.Duration(i) * time.Minute)
	id := gameID(rng)
	tokens := [2][]byte{hashOf(id + "-south"), hashOf(id + "-north")}
	g := games.Game{ID: id, CreatedAt: at, UpdatedAt: at, Start: engine.Start(), Position: engine.Start(),
		Status: games.Waiting, Tokens: [2][]byte{tokens[engine.South], nil}, Version: 1}
	if err := s.CreateGame(ctx, g, nil); err != nil {
		return err
	}
	at = at.Add(3*time.Second + 141*time.Microsecond)
	g, err := s.Join(ctx, id, tokens[engine.North], at)
	if err != nil {
		return err
	}
	rec, err := engine.NewGame(g.Start, g.Rules)
	if err != nil {
		return err
	}
	var out, try engine.Outcome
	for g.Status == games.Active && g.Ply < plies {
		// Random pits, mostly ones that capture nothing: random play
		// captures so much that games end after some 25 moves, people's
		// games go on longer.
		var pits, quiet []int
		for legal := g.Position.LegalMoves(g.Rules); legal != 0; {
			pit := legal.Next()
			pits = append(pits, pit)
			if engine.Play(g.Position, pit, g.Rules, &try); try.Capture.None() {
				quiet = append(quiet, pit)
			}
		}
		if len(quiet) > 0 && rng.IntN(8) > 0 {
			pits = quiet
		}
		pit := pits[rng.IntN(len(pits))]
		if err := rec.Play(pit, &out); err != nil {
			return fmt.Errorf("game %d, ply %d: %w", i, g.Ply, err)
		}
		at = at.Add(time.Duration(2+rng.IntN(30))*time.Second + time.Duration(rng.IntN(1e6))*time.Microsecond)
		next := g
		next.Ply, next.Position, next.Result = rec.Ply(), rec.Position(), rec.Result()
		next.History = append(g.History, byte(pit))
		if next.Result.Over() {
			next.Status = games.Finished
		}
		next.UpdatedAt = at
		next.Version++
		p := games.Play{GameID: id, Ply: g.Ply, TokenHash: tokens[out.Before.ToMove],
			Moves: []games.Record{{Ply: g.Ply, Pit: pit, At: at}}, Answer: answerBody(rng, g, &out), At: at, Game: next}
		if err := s.ApplyPlay(ctx, p); err != nil {
			return fmt.Errorf("game %d, ply %d: %w", i, g.Ply, err)
		}
		g = next
	}
	return nil
}

// logSize reports z, table by table.
func logSize(tb testing.TB, z storeSize) {
	tb.Helper()
	tb.Logf("%d games, %d moves, %d answers of %.0f bytes on average: %d bytes after VACUUM, %.1f bytes/move (target %d)",
		z.games, z.moves, z.answers, z.answerBytes, z.fileBytes, z.perMove(), maxBytesPerMove)
	if z.tables == nil {
		tb.Log("no dbstat table in this build: no breakdown")
	}
	for _, ts := range z.tables {
		tb.Logf("  %-28s %9d bytes  %6.1f bytes/move  %5.1f%%", ts.name, ts.bytes,
			float64(ts.bytes)/float64(z.moves), 100*float64(ts.bytes)/float64(z.fileBytes))
	}
}

// TestBytesPerMove holds the store to the target: games of about
// fifty moves between two people, with the answers they keep, take no more
// than maxBytesPerMove bytes per move on disk.
func TestBytesPerMove(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 200 games")
	}
	z := measureBytesPerMove(t, sizeGames, sizePlies)
	logSize(t, z)
	if z.perMove() > maxBytesPerMove {
		t.Fatalf("%.1f bytes per stored move, %.1f over the target of %d", z.perMove(), z.perMove()-maxBytesPerMove, maxBytesPerMove)
	}
}

// BenchmarkBytesPerMove reports the size of a stored move (bytes/move), and
// how much of it each table holds, over the same games as TestBytesPerMove.
func BenchmarkBytesPerMove(b *testing.B) {
	var z storeSize
	for b.Loop() {
		z = measureBytesPerMove(b, sizeGames, sizePlies)
	}
	b.ReportMetric(z.perMove(), "bytes/move")
	for _, ts := range z.tables {
		if ts.name == "moves" || ts.name == "answers" || ts.name == "games" {
			b.ReportMetric(float64(ts.bytes)/float64(z.moves), ts.name+"-bytes/move")
		}
	}
	logSize(b, z)
}
