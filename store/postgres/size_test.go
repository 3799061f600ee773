package postgres

import (
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// maxBytesPerMove bounds a stored move, on average over everything a game
// keeps (its row and its records: no answers). PostgreSQL's rows carry a
// header of 24 bytes and its index entries 16, so it keeps more than
// SQLite's 120.
const maxBytesPerMove = 150

// TestBytesPerMove holds the store to the bound over the games every store
// is measured with (storetest.PlaySizedGames: 200 games of about fifty
// moves between two people): the tables, their indexes and TOAST after
// VACUUM FULL, divided by the moves.
func TestBytesPerMove(t *testing.T) {
	if testing.Short() {
		t.Skip("stores 200 games")
	}
	s := openFresh(t)
	ctx := t.Context()
	if err := storetest.PlaySizedGames(ctx, s, 200, 50); err != nil {
		t.Fatal(err)
	}
	var moves int64
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM moves").Scan(&moves); err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, table := range []string{"games", "moves"} {
		if _, err := s.pool.Exec(ctx, "VACUUM FULL "+table); err != nil {
			t.Fatal(err)
		}
		var size int64
		if err := s.pool.QueryRow(ctx, "SELECT pg_total_relation_size($1::regclass)", table).Scan(&size); err != nil {
			t.Fatal(err)
		}
		t.Logf("  %-8s %9d bytes  %6.1f bytes/move", table, size, float64(size)/float64(moves))
		total += size
	}
	perMove := float64(total) / float64(moves)
	t.Logf("%d moves: %d bytes after VACUUM FULL, %.1f bytes/move (target %d)", moves, total, perMove, maxBytesPerMove)
	if perMove > maxBytesPerMove {
		t.Fatalf("%.1f bytes per stored move, %.1f over the target of %d", perMove, perMove-maxBytesPerMove, maxBytesPerMove)
	}
}
