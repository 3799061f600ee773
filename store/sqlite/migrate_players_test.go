package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
	"github.com/ayoayo/ayoayo/store/internal/stored"
)

// v6Games reads every column a game had at schema version 6, each game
// as one line of text, in id order: what migration 7 must keep.
func v6Games(t *testing.T, ctx context.Context, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(ctx, `SELECT concat_ws('|', id, created_at, updated_at, quote(joined_at), capture_seed,
		leftovers, start, ply, position, history, status, winner, end_reason, quote(ai_side), quote(ai_level),
		quote(south_token), quote(north_token), version, time_kind, time_initial_us, time_increment_us,
		time_per_move_us, south_clock_us, north_clock_us, quote(deadline_us)) FROM games ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMigrate0007Players builds a file at schema version 6 with games of
// every status, timed and not, opens it, which applies 0007, and checks
// that every game keeps every column it had and reads back unrated with
// anonymous seats, its moves kept (its answers go with 0009), that there are no players
// yet, and that the new tables and indexes work on the old games.
func TestMigrate0007Players(t *testing.T) {
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "v6.db")
	db, exec := schemaAt(t, ctx, file, 6, "players")
	games6 := []struct {
		id, status, kind string
		plies            int
		result           engine.Result
		deadline         any
	}{
		{id: "waiting", status: "waiting", kind: "live", deadline: int64(1_780_000_000_000_001)},
		{id: "active", status: "active", kind: "correspondence", plies: 5, deadline: int64(1_780_000_000_000_002)},
		{id: "timed-out", status: "finished", kind: "live", plies: 6, result: engine.TimeoutResult(engine.South)},
		{id: "aborted", status: "aborted", kind: "live"},
		{id: "untimed-resigned", status: "finished", plies: 3,
			result: engine.Result{Reason: engine.ByResignation, Winner: engine.SouthWins}},
	}
	moves := 0
	for i, g := range games6 {
		rec, err := engine.NewGame(engine.Start(), engine.Rules{})
		if err != nil {
			t.Fatal(err)
		}
		var out engine.Outcome
		for ply := range g.plies {
			var pits []int
			for legal := rec.Position().LegalMoves(rec.Rules()); legal != 0; {
				pits = append(pits, legal.Next())
			}
			if err := rec.Play(pits[(ply+i)%len(pits)], &out); err != nil {
				t.Fatal(err)
			}
		}
		history := make([]byte, 0, rec.Ply())
		for _, p := range rec.Moves() {
			history = append(history, byte(p))
		}
		north, joined := any(hashOf(g.id+"-north")), any("2026-05-01T10:00:01.000002Z")
		if g.status == "waiting" || g.status == "aborted" {
			north, joined = nil, nil
		}
		exec(`INSERT INTO games (id, created_at, updated_at, joined_at, capture_seed, leftovers, start, ply, position,
			history, status, winner, end_reason, south_token, north_token, version, time_kind, time_initial_us,
			time_increment_us, time_per_move_us, south_clock_us, north_clock_us, deadline_us)
			VALUES (?, '2026-05-01T10:00:00.000001Z', ?, ?, 'taken', 'last_mover', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			g.id, fmt.Sprintf("2026-05-01T10:%02d:00.000003Z", 10+i), joined, engine.Start().String(), rec.Ply(),
			rec.Position().String(), stored.EncodeHistory(history), g.status, g.result.Winner.String(),
			g.result.Reason.String(), hashOf(g.id+"-south"), north, 2+g.plies, g.kind, 180_000_001, 2_000_003,
			0, 170_000_005+i, 160_000_007, g.deadline)
		for ply, pit := range history {
			exec(`INSERT INTO moves (game_id, ply, pit, by_ai, at) VALUES (?, ?, ?, 0, ?)`, g.id, ply, pit, 1_777_000_000_000_000+int64(ply))
			moves++
		}
		if g.plies > 0 {
			exec(`INSERT INTO answers (game_id, token_hash, ply, pit, body) VALUES (?, ?, 0, ?, ?)`,
				g.id, hashOf(g.id+"-south"), history[0], []byte("{\"note\":\"Ayò \xff\"}\n"))
		}
	}
	before := v6Games(t, ctx, db)
	if len(before) != len(games6) || moves < 10 {
		t.Fatalf("the version 6 file holds %d games and %d moves: too few to test with", len(before), moves)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	s, err := Open(ctx, file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var all []int
	for _, m := range ms {
		all = append(all, m.Version)
	}
	if vs, err := s.Versions(ctx); err != nil || !slices.Equal(vs, all) {
		t.Fatalf("versions %v (%v) after the upgrade, want %v (the later migrations apply too)", vs, err, all)
	}
	t.Run("every game keeps every column", func(t *testing.T) {
		if after := v6Games(t, ctx, s.DB()); !slices.Equal(after, before) {
			t.Fatalf("after the migration:\n%q\nbefore:\n%q", after, before)
		}
		var n int
		// The answers went with 0009, which applies too.
		if err := s.DB().QueryRowContext(ctx, `SELECT count(*) FROM moves`).Scan(&n); err != nil || n != moves {
			t.Fatalf("%d moves (%v), want %d", n, err, moves)
		}
	})
	t.Run("unrated, anonymous seats", func(t *testing.T) {
		for _, g := range games6 {
			got, err := s.Game(ctx, g.id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Rated || got.Players != ([2]games.SeatPlayer{}) || got.Ply != g.plies {
				t.Fatalf("game %s: rated %v, players %+v, ply %d", g.id, got.Rated, got.Players, got.Ply)
			}
		}
	})
	t.Run("no players yet", func(t *testing.T) {
		var n int
		err := s.DB().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM players) + (SELECT count(*) FROM player_ratings)
			+ (SELECT count(*) FROM puzzle_ratings) + (SELECT count(*) FROM player_puzzles) + (SELECT count(*) FROM player_daily)`).Scan(&n)
		if err != nil || n != 0 {
			t.Fatalf("%d rows in the players' tables (%v), want none", n, err)
		}
		if gs, err := s.PlayerGames(ctx, "", players.GamesQuery{Limit: 10}); err != nil || len(gs) != 0 {
			t.Fatalf("the games of no player: %+v, %v; want none", gs, err)
		}
	})
	t.Run("integrity and indexes", func(t *testing.T) {
		var check string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
			t.Fatalf("integrity_check %q (%v)", check, err)
		}
		var orphan string
		if err := s.DB().QueryRowContext(ctx, "PRAGMA foreign_key_check").Scan(&orphan); !errors.Is(err, sql.ErrNoRows) {
			t.Fatalf("foreign_key_check found %q (%v)", orphan, err)
		}
		for _, index := range []string{"games_created_at", "games_deadline", "games_ended", "games_south_history",
			"games_north_history", "games_south_other", "games_north_other", "player_ratings_board", "player_puzzles_newest"} {
			var n int
			if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND name = ?", index).Scan(&n); err != nil || n != 1 {
				t.Fatalf("index %s: %d (%v)", index, n, err)
			}
		}
	})
	t.Run("an old game gets a player", func(t *testing.T) {
		p := players.Player{ID: "newcomer", Name: "Newcomer", TokenHash: hashOf("newcomer"), CreatedAt: t0, UpdatedAt: t0}
		if err := s.CreatePlayer(ctx, p); err != nil {
			t.Fatal(err)
		}
		seat := games.SeatPlayer{ID: p.ID, Name: p.Name, Rating: 1500, Deviation: 350}
		g, err := s.Join(ctx, "waiting", hashOf("waiting-north"), t0, t0.Add(time.Minute), seat)
		if err != nil || g.Players[engine.North] != seat || g.Players[engine.South] != (games.SeatPlayer{}) {
			t.Fatalf("join: %+v, %v; want North seated for %s", g.Players, err, p.ID)
		}
		result := engine.Result{Reason: engine.ByResignation, Winner: engine.NorthWins}
		m := players.NewMatch([2]string{"", p.ID}, 0, "", [2]players.Rating{}, t0.Add(time.Second))
		if _, err := s.Resign(ctx, "waiting", result, t0.Add(time.Second), &m); err != nil {
			t.Fatal(err)
		}
		got, err := s.Player(ctx, p.ID)
		if err != nil || got.Counts != (players.Counts{Games: 1, Wins: 1}) {
			t.Fatalf("the player after the game: %+v, %v; want one game won", got.Counts, err)
		}
		gs, err := s.PlayerGames(ctx, p.ID, players.GamesQuery{Limit: 10})
		if err != nil || len(gs) != 1 || gs[0].GameID != "waiting" || gs[0].Result != players.Win {
			t.Fatalf("the player's games: %+v, %v; want the old game, won", gs, err)
		}
	})
}
