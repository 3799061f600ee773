package tablebase

import (
	"os"
	"testing"
)

// TestTableFile checks a big table built by `ayoayo tablebase build`, named
// by AYOAYO_TEST_TABLEBASE (skipped without it): every byte is a pair of shares
// its level can hold, and on random positions up to its N the best move's
// value is the position's value, as the fixpoint equations require; on
// random positions up to its S, the same of the true scores, and each
// score has the result's sign.
func TestTableFile(t *testing.T) {
	path := os.Getenv("AYOAYO_TEST_TABLEBASE")
	if path == "" {
		t.Skip("set AYOAYO_TEST_TABLEBASE to a table file to check it")
	}
	tb, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for n := 0; n <= tb.MaxSeeds(); n++ {
		for i, c := range tb.body[tb.offset[n]:tb.offset[n+1]] {
			if c > pairCode(n, n) {
				t.Fatalf("level %d board %d: byte %d, above the last pair of the level", n, i, c)
			}
		}
	}
	var buf []MoveValue
	for _, p := range randomPositions(tb.MaxSeeds(), 200_000, 11) {
		v, ok := tb.Value(&p)
		if !ok {
			t.Fatalf("%v: not in the table", p)
		}
		buf, _ = tb.Moves(p, buf)
		if len(buf) == 0 {
			continue
		}
		if best := bestValue(buf); best != v {
			t.Fatalf("%v: best move %d, value %d (%v)", p, best, v, buf)
		}
	}
	if tb.ScoreSeeds() < 0 {
		return
	}
	// The true scores: the best move's score is the position's, which has
	// the result's sign.
	for _, p := range randomRealPositions(tb.ScoreSeeds(), 200_000, 12) {
		score, ok := tb.Score(&p)
		v, _ := tb.Value(&p)
		if !ok || sign(score) != int(Result(&p, v))-1 {
			t.Fatalf("%v: score %d (%v), value %d", p, score, ok, v)
		}
		buf, _ = tb.MoveScores(p, buf)
		if len(buf) > 0 && bestValue(buf) != score {
			t.Fatalf("%v: best move %d, score %d (%v)", p, bestValue(buf), score, buf)
		}
	}
}
