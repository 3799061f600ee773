package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// maxBytesPerMove is the target for a stored move (issue 32), on average
// over everything a game keeps (its row and its records: no answers).
const maxBytesPerMove = 120

// sizeGames and sizePlies shape the games measured: two people and about
// fifty moves a game.
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
	games, moves int
	fileBytes    int64
	tables       []tableSize // largest first; nil when dbstat is missing
}

func (z storeSize) perMove() float64 { return float64(z.fileBytes) / float64(z.moves) }

// measureBytesPerMove stores n games between two people of up to plies
// moves each through the store (CreateGame, Join, one ApplyPlay per move),
// vacuums the file and measures it.
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
	if err := storetest.PlaySizedGames(ctx, s, n, plies); err != nil {
		tb.Fatal(err)
	}
	var z storeSize
	db := s.DB()
	if _, err := db.ExecContext(ctx, "VACUUM"); err != nil {
		tb.Fatal(err)
	}
	var pages, pageSize int64
	err = db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM games), (SELECT count(*) FROM moves),
		(SELECT page_count FROM pragma_page_count), (SELECT page_size FROM pragma_page_size)`).
		Scan(&z.games, &z.moves, &pages, &pageSize)
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
	if z.games != n || z.moves < n*plies*85/100 {
		tb.Fatalf("stored %d games, %d moves; want %d, about %d", z.games, z.moves, n, n*plies)
	}
	return z
}

// logSize reports z, table by table.
func logSize(tb testing.TB, z storeSize) {
	tb.Helper()
	tb.Logf("%d games, %d moves: %d bytes after VACUUM, %.1f bytes/move (target %d)",
		z.games, z.moves, z.fileBytes, z.perMove(), maxBytesPerMove)
	if z.tables == nil {
		tb.Log("no dbstat table in this build: no breakdown")
	}
	for _, ts := range z.tables {
		tb.Logf("  %-28s %9d bytes  %6.1f bytes/move  %5.1f%%", ts.name, ts.bytes,
			float64(ts.bytes)/float64(z.moves), 100*float64(ts.bytes)/float64(z.fileBytes))
	}
}

// TestBytesPerMove holds the store to the target: games of about
// fifty moves between two people take no more than maxBytesPerMove bytes
// per move on disk.
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
		if ts.name == "moves" || ts.name == "games" {
			b.ReportMetric(float64(ts.bytes)/float64(z.moves), ts.name+"-bytes/move")
		}
	}
	logSize(b, z)
}
