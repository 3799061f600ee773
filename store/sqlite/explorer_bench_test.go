package sqlite

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/analysis"
	"github.com/ayoayo/ayoayo/budget"
	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/review/explorer"
)

// explorerGames is BenchmarkExplorer's scale: the 1,000,000
// finished games indexed (50,000 with -short).
const explorerGames = 1_000_000

// benchLine is one ply of a generated game, before the rows are summed.
type benchLine struct {
	key        int64
	cat, band  int8
	move       int8
	winner     int8 // 0 South, 1 draw, 2 North
	game       int32
	rating     int16
	_, _, _, _ int8
}

// benchGame plays generated game i: its category, band, rating, result,
// and its first explorer.Plies plies, each (position, move). Players
// prefer some moves of each position to the others, as people do, so
// the openings share their first plies and part ways later: each move
// is the r-th of the position's own order of preference (a hash of the
// position), r drawn with chances 1/2, 1/4, 1/8…
func benchGame(i int, lines func(benchLine)) {
	rng := rand.New(rand.NewPCG(uint64(i), 7))
	rating := int(1500 + rng.NormFloat64()*250)
	rating = min(max(rating, 600), 2900)
	l := benchLine{cat: 1, band: int8(explorer.BandOf(rating)), game: int32(i), rating: int16(rating)}
	if i%5 == 0 {
		l.cat = 2
	}
	switch r := rng.IntN(100); {
	case r < 45:
		l.winner = 0
	case r < 55:
		l.winner = 1
	default:
		l.winner = 2
	}
	p := engine.Start()
	var pits [engine.NumPits]int
	for range explorer.Plies {
		n := 0
		for m := p.LegalMoves(engine.Rules{}); m != 0; {
			pits[n] = m.Next()
			n++
		}
		if n == 0 {
			return
		}
		key := explorer.KeyOf(p)
		r := 0
		for r < n-1 && rng.IntN(2) == 0 {
			r++
		}
		pit := pits[(int(key%7)+r)%n]
		l.key, l.move = int64(key), int8(pit)
		lines(l)
		p, _ = p.Apply(pit, engine.Rules{})
	}
}

func benchGameID(i int32) string { return fmt.Sprintf("g%015d", i) }

// buildExplorerIndex fills explorer_moves with the index of n generated
// games, as the service would have built it one game at a time, and
// returns the positions the games reached (a query's sample). The
// lines are summed in key order, a quarter of the keys at a time, so
// that the rows go into the table's B-tree in order.
func buildExplorerIndex(b *testing.B, s *Store, n int) []engine.Position {
	ctx := b.Context()
	const parts = 4
	for part := range parts {
		var lines []benchLine
		for i := range n {
			benchGame(i, func(l benchLine) {
				if int((uint64(l.key)^1<<63)>>62) == part {
					lines = append(lines, l)
				}
			})
		}
		slices.SortFunc(lines, func(a, b benchLine) int {
			return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.cat, b.cat), cmp.Compare(a.band, b.band),
				cmp.Compare(a.move, b.move), cmp.Compare(a.game, b.game))
		})
		tx, err := s.DB().BeginTx(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		st, err := tx.PrepareContext(ctx, `INSERT INTO explorer_moves (position, category, band, move, south, draws, north,
			rating_sum, last_at, recent1, recent2, recent3) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		for len(lines) > 0 {
			run := 1
			for run < len(lines) && lines[run].key == lines[0].key && lines[run].cat == lines[0].cat &&
				lines[run].band == lines[0].band && lines[run].move == lines[0].move {
				run++
			}
			var res [3]int
			var sum int64
			for _, l := range lines[:run] {
				res[l.winner]++
				sum += int64(l.rating)
			}
			var recent [3]any
			for j := range 3 {
				if j < run {
					recent[j] = benchGameID(lines[run-1-j].game)
				}
			}
			last := lines[run-1]
			if _, err := st.ExecContext(ctx, last.key, last.cat, last.band, last.move, res[0], res[1], res[2], sum,
				t0.Add(time.Duration(last.game)*time.Second).UnixMicro(), recent[0], recent[1], recent[2]); err != nil {
				b.Fatal(err)
			}
			lines = lines[run:]
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	// The sample: a random ply of a random game, as a person stepping
	// through games would ask.
	rng := rand.New(rand.NewPCG(3, 4))
	sample := make([]engine.Position, 4096)
	for i := range sample {
		g, ply := rng.IntN(n), rng.IntN(explorer.Plies)
		p, k := engine.Start(), 0
		benchGame(g, func(l benchLine) {
			if k < ply {
				p, _ = p.Apply(int(l.move), engine.Rules{})
			}
			k++
		})
		sample[i] = p
	}
	return sample
}

// BenchmarkExplorer answers the explorer from an index of 1,000,000
// finished games on SQLite, and reports the p50 and p99 in ms (the
// target: a p99 of at most 20 ms) and the index's bytes per game. Each
// query is a position some game reached at a random ply, in the live
// category with every rating, then 1500-1799. "index" is the statistics
// alone; "engine" adds the engine's scores (a 20,000-node search for a
// position not asked before, on a fresh cache, waited for at most
// explorer.DefaultEngineWait; scored-% are the answers that had them).
// Building the index takes minutes, before the timer.
func BenchmarkExplorer(b *testing.B) {
	n := explorerGames
	if testing.Short() {
		n = 50_000
	}
	s, _ := openTemp(b)
	start := time.Now()
	sample := buildExplorerIndex(b, s, n)
	var rows, bytes int64
	if err := s.DB().QueryRowContext(b.Context(), "SELECT count(*) FROM explorer_moves").Scan(&rows); err != nil {
		b.Fatal(err)
	}
	if err := s.DB().QueryRowContext(b.Context(),
		"SELECT sum(pgsize) FROM dbstat WHERE name = 'explorer_moves'").Scan(&bytes); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d games indexed in %v: %d rows, %d bytes, %.0f bytes a game; load average %s", n,
		time.Since(start).Round(time.Second), rows, bytes, float64(bytes)/float64(n), loadAverage())
	for _, c := range []struct {
		name    string
		engine  bool
		ratings [2]int
	}{
		{"index", false, [2]int{0, explorer.MaxRating}},
		{"index-1500-1799", false, [2]int{1500, 1799}},
		{"engine", true, [2]int{0, explorer.MaxRating}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var o explorer.Options
			if c.engine {
				// As serve makes it: one search at a time, none that
				// would wait for a unit of the budget.
				o.Analyzer = analysis.New(budget.New(2), analysis.Options{Concurrency: 1, Wait: -1})
			}
			svc := explorer.New(s, o)
			var took []time.Duration
			i, scored := 0, 0
			for b.Loop() {
				q := explorer.Query{Position: sample[i%len(sample)], Category: players.Live,
					MinRating: c.ratings[0], MaxRating: c.ratings[1]}
				i++
				t := time.Now()
				a, err := svc.Explore(b.Context(), q)
				if err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t))
				if a.HasEngine {
					scored++
				}
				if c.ratings[0] == 0 && q.Position == engine.Start() && a.Games() == 0 {
					b.Fatal("the start position has no games")
				}
			}
			slices.Sort(took)
			ms := func(q float64) float64 {
				return float64(took[min(int(q*float64(len(took))), len(took)-1)]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
			b.ReportMetric(float64(bytes)/float64(n), "bytes/game")
			if c.engine {
				b.ReportMetric(100*float64(scored)/float64(len(took)), "scored-%")
			}
			b.Logf("load average %s", loadAverage())
		})
	}
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
