package sqlite

import (
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// TestPlayerSchemaRefusesBadRows: the players' tables and the games' new
// columns hold numbers and bytes the store reads without parsing, so the
// schema is what keeps them readable (STRICT types, checks, keys): a
// statement that would write a row the store could not give back fails,
// and what was stored reads back as it was.
func TestPlayerSchemaRefusesBadRows(t *testing.T) {
	tests := []struct {
		name string
		stmt string
	}{
		{"token not a SHA-256", "UPDATE players SET token_hash = x'00'"},
		{"no token", "UPDATE players SET token_hash = NULL"},
		{"a token another player holds", `INSERT INTO players (id, name, token_hash, created_at, updated_at)
			SELECT 'other', name, token_hash, created_at, updated_at FROM players`},
		{"a second player with the id", `INSERT INTO players (id, name, token_hash, created_at, updated_at)
			SELECT id, name, zeroblob(32), created_at, updated_at FROM players`},
		{"counts as text", "UPDATE players SET games = 'many'"},
		{"time as text", "UPDATE players SET created_at = '2026-01-01'"},
		{"a rating in no category", "UPDATE player_ratings SET category = 'blitz'"},
		{"a rating of no player", `INSERT INTO player_ratings (player_id, category, value, deviation, volatility, games)
			VALUES ('nobody', 'live', 1500, 350, 0.06, 0)`},
		{"a rating of negative games", "UPDATE player_ratings SET games = -1"},
		{"a rating as text", "UPDATE player_ratings SET value = 'high'"},
		{"a second rating in a category", `INSERT INTO player_ratings (player_id, category, value, deviation, volatility, games)
			SELECT player_id, category, 1, 1, 1, 1 FROM player_ratings`},
		{"a puzzle rating of negative games", "UPDATE puzzle_ratings SET games = -1"},
		{"an attempt neither solved nor not", "UPDATE player_puzzles SET solved = 2"},
		{"an attempt of no player", `INSERT INTO player_puzzles (player_id, puzzle_id, at, solved, before_value,
			before_deviation, after_value, after_deviation) VALUES ('nobody', 'x', 0, 1, 1, 1, 1, 1)`},
		{"a second first attempt", `INSERT INTO player_puzzles (player_id, puzzle_id, at, solved, before_value,
			before_deviation, after_value, after_deviation)
			SELECT player_id, puzzle_id, 0, 1, 1, 1, 1, 1 FROM player_puzzles`},
		{"a daily solve of no player", "INSERT INTO player_daily (player_id, day) VALUES ('nobody', '2026-01-01')"},
		{"a game rated neither yes nor no", "UPDATE games SET rated = 2"},
		{"a seat's rating as text", "UPDATE games SET south_rating = 'high'"},
		{"a seat with no name", "UPDATE games SET north_name = NULL"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			s, _ := openTemp(t)
			p := players.Player{ID: "p", Name: "P", TokenHash: hashOf("p"), CreatedAt: t0, UpdatedAt: t0}
			if err := s.CreatePlayer(ctx, p); err != nil {
				t.Fatal(err)
			}
			day := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
			sv := players.NewSolve(p.ID, "p20250301", "p20250301", true, day, [2]players.Rating{players.NewRating(), players.NewRating()}, t0)
			if _, first, err := s.RecordSolve(ctx, sv, false); err != nil || !first {
				t.Fatalf("record solve: %v, %v", first, err)
			}
			g := newGame(t, s, "g")
			seat := games.SeatPlayer{ID: p.ID, Name: p.Name, Rating: 1500, Deviation: 350}
			joined, err := s.Join(ctx, g.ID, hashOf("g-north"), t0, time.Time{}, seat)
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.Player(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.DB().ExecContext(ctx, tc.stmt); err == nil {
				t.Fatalf("%s: written", tc.stmt)
			}
			got, err := s.Player(ctx, p.ID)
			if err != nil || got.Counts != want.Counts || !sameRating(got.Rating(players.Puzzles), sv.After[0]) || got.Name != p.Name {
				t.Fatalf("the player after the refused statement: %+v (%v), want %+v", got, err, want)
			}
			if r, ok, err := s.PuzzleRating(ctx, sv.Key); err != nil || !ok || !sameRating(r, sv.After[1]) {
				t.Fatalf("the puzzle rating after the refused statement: %+v, %v, %v", r, ok, err)
			}
			entries, err := s.PlayerPuzzles(ctx, p.ID, players.PuzzleCursor{}, 10)
			if err != nil || len(entries) != 1 || !entries[0].Daily.Equal(day) {
				t.Fatalf("the attempts after the refused statement: %+v, %v", entries, err)
			}
			again, err := s.Game(ctx, g.ID)
			if err != nil || again.Rated != joined.Rated || again.Players != joined.Players {
				t.Fatalf("the game after the refused statement: %+v (%v), want %+v", again.Players, err, joined.Players)
			}
		})
	}
}

func sameRating(a, b players.Rating) bool {
	return a.Value == b.Value && a.Deviation == b.Deviation && a.Volatility == b.Volatility && a.Games == b.Games && a.At.Equal(b.At)
}
