package postgres

import (
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ayoayo/ayoayo/engine"
	"github.com/ayoayo/ayoayo/games"
	"github.com/ayoayo/ayoayo/players"
)

// TestPlayersMigrationKeepsGames: a database at migration 4, the last
// before players, with games in every status, migrates at Open; its games
// read back as they were, unrated and with anonymous seats, and go on
// being played and ended.
func TestPlayersMigrationKeepsGames(t *testing.T) {
	dsn := freshSchema(t)
	ctx := t.Context()
	conn := schemaAt(t, dsn, 4)
	defer conn.Close(ctx)
	start := engine.Start().String()
	for _, row := range []struct{ id, status, winner, reason, kind string }{
		{"waiting", "waiting", "", "", ""},
		{"active", "active", "", "", "live"},
		{"finished", "finished", "north", "resignation", "correspondence"},
	} {
		north := hashOf(row.id + "-north")
		if row.status == "waiting" {
			north = nil
		}
		_, err := conn.Exec(ctx, `INSERT INTO games (id, created_at, updated_at, capture_seed, leftovers, start, ply,
				position, history, status, winner, end_reason, south_token, north_token, version, time_kind,
				time_initial_us, south_clock_us, north_clock_us, deadline)
			VALUES ($1, $2, $2, 'taken', 'last_mover', $3, 0, $3, '', $4, $5, $6, $7, $8, 1, $9, 60000000,
				60000000, 60000000, CASE WHEN $4 = 'finished' THEN NULL ELSE $2::timestamptz + interval '1 day' END)`,
			row.id, t0, start, row.status, row.winner, row.reason, hashOf(row.id+"-south"), north, row.kind)
		if err != nil {
			t.Fatalf("game %s: %v", row.id, err)
		}
	}
	conn.Close(ctx)

	s := openOn(t, dsn, Options{})
	if vs, err := s.Versions(ctx); err != nil || !slices.Equal(vs, allVersions(t)) {
		t.Fatalf("versions after Open: %v, %v; want %v", vs, err, allVersions(t))
	}
	for _, id := range []string{"waiting", "active", "finished"} {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatalf("game %s: %v", id, err)
		}
		if g.Status != games.Status(id) || g.Rated || g.Players != [2]games.SeatPlayer{} || !g.CreatedAt.Equal(micro(t0)) {
			t.Errorf("game %s after the migration: %+v", id, g)
		}
	}
	// The old games go on: one is joined by a player, the active one
	// ends with a result the players' counts take.
	mustPlayer(t, s, "bob")
	sp := games.SeatPlayer{ID: "bob", Name: "name of bob"}
	if g, err := s.Join(ctx, "waiting", hashOf("bob"), t0, t0.Add(time.Hour), sp); err != nil || g.Players[engine.North] != sp {
		t.Fatalf("join after the migration: %+v, %v", g, err)
	}
	g, err := s.Game(ctx, "active")
	if err != nil {
		t.Fatal(err)
	}
	m := players.NewMatch([2]string{"", ""}, 1, "", [2]players.Rating{}, t0)
	if _, err := s.End(ctx, games.End{ID: g.ID, Version: g.Version, Status: games.Finished,
		Result: engine.TimeoutResult(engine.North), At: t0.Add(time.Minute), Match: &m}); err != nil {
		t.Fatal(err)
	}
}

// schemaAt migrates the empty schema of dsn to version (and no further),
// recording the migrations as migrate does, and returns a connection to
// it, for a test to put there what a database of that version held before
// the next migrations run at Open.
func schemaAt(t *testing.T, dsn string, version int) *pgx.Conn {
	t.Helper()
	ctx := t.Context()
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	// The table migrate makes, and the migrations up to version.
	if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY,
		name text NOT NULL, applied_at timestamptz NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Version > version {
			break
		}
		if _, err := conn.Exec(ctx, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := conn.Exec(ctx, "INSERT INTO schema_migrations VALUES ($1, $2, $3)", m.Version, m.Name, t0); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}
