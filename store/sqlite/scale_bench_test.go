package sqlite

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/storetest"
)

// Scale of BenchmarkPlayersAtScale: the issue's "100,000 players and
// 1,000,000 games on SQLite".
const (
	scalePlayers = 100_000
	scaleGames   = 1_000_000
)

// BenchmarkPlayersAtScale serves a profile (the player with its ratings,
// counts and streak), a page of game history (the first, and one deep in
// by its cursor) and a leaderboard from a database of 100,000 rated
// players and 1,000,000 finished games between them, and reports each
// one's p50 and p99 in ms: every list must be an index walk, whatever the
// size (the target is a p99 of at most 20 ms). Filling the database takes
// a minute or so, before the timer.
func BenchmarkPlayersAtScale(b *testing.B) {
	s, _ := openTemp(b)
	ctx := b.Context()
	now := t0.Add(400 * 24 * time.Hour)
	model := storetest.NewGame(b, s, "model", t0)
	start := time.Now()
	tx, err := s.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
			INSERT INTO players (id, name, token_hash, created_at, updated_at, games, wins, losses, rated)
			SELECT printf('p%06d', i), printf('Player %d', i), randomblob(32), ?, ?, 20, 10, 10, 20 FROM n`,
			[]any{scalePlayers, t0.UnixMicro(), t0.UnixMicro()}},
		// Ratings from 800 to 2800; deviations from 40 to 190, so about half
		// are provisional; last played up to 60 days before now, so about
		// half are active.
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
			INSERT INTO player_ratings (player_id, category, value, deviation, volatility, games, at)
			SELECT printf('p%06d', i), 'live', 800 + abs(random()) % 2000, 40 + (i * 7) % 150, 0.06, 20,
				? - (i % 60) * 86400000000 FROM n`,
			[]any{scalePlayers, now.UnixMicro()}},
		// Each game between two players, a second apart, each player in
		// twenty of them.
		{`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ? - 1)
			INSERT INTO games (id, created_at, updated_at, capture_seed, leftovers, start, ply, position, history,
				status, winner, end_reason, south_token, north_token, version, time_kind, time_initial_us, rated,
				south_player, south_name, south_rating, south_deviation, south_change,
				north_player, north_name, north_rating, north_deviation, north_change)
			SELECT printf('g%07d', i), g.created_at,
				strftime('%Y-%m-%dT%H:%M:%S', ? + i, 'unixepoch') || '.000000Z',
				g.capture_seed, g.leftovers, g.start, g.ply, g.position, g.history,
				'finished', CASE WHEN i % 2 = 0 THEN 'south' ELSE 'north' END, 'resignation',
				g.south_token, g.south_token, 3, 'live', 180000000, 1,
				printf('p%06d', i % ?), 'S', 1500, 80, 7.5,
				printf('p%06d', (i * 7 + 13) % ?), 'N', 1500, 80, -7.5
			FROM n, games AS g WHERE g.id = ?`,
			[]any{scaleGames, t0.Unix(), scalePlayers, scalePlayers, model.ID}},
		{`ANALYZE`, nil},
	} {
		if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d players and %d games stored in %v", scalePlayers, scaleGames, time.Since(start).Round(time.Second))

	svc := players.NewService(s, func() time.Time { return now })
	rng := rand.New(rand.NewPCG(1, 2))
	anyone := func() string { return fmt.Sprintf("p%06d", rng.IntN(scalePlayers)) }
	deep := map[string]string{} // each player's next page: a second look at one goes deeper
	for _, c := range []struct {
		name string
		op   func() error
	}{
		{"profile", func() error {
			id := anyone()
			p, err := svc.Get(ctx, id)
			if err == nil && p.Counts.Games != 20 {
				err = fmt.Errorf("%s: %+v", id, p.Counts)
			}
			if err == nil {
				_, err = svc.Streak(ctx, id)
			}
			return err
		}},
		{"history", func() error {
			id := anyone()
			page, next, err := svc.Games(ctx, id, players.GamesQuery{}, deep[id])
			if err == nil && (len(page) == 0 || page[0].Rating.Delta() == 0) {
				err = fmt.Errorf("%s: a page of %d games", id, len(page))
			}
			deep[id] = next
			return err
		}},
		{"leaderboard", func() error {
			board, err := svc.Leaderboard(ctx, players.Live)
			if err == nil && len(board) != players.LeaderboardSize {
				err = fmt.Errorf("a leaderboard of %d", len(board))
			}
			return err
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var took []time.Duration
			for b.Loop() {
				t := time.Now()
				if err := c.op(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t))
			}
			slices.Sort(took)
			ms := func(q float64) float64 {
				return float64(took[min(int(q*float64(len(took))), len(took)-1)]) / float64(time.Millisecond)
			}
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}
