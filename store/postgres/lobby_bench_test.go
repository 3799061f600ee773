package postgres

import (
	"os"
	"strconv"
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// analyzed is the ANALYZE that autovacuum runs on a table that grew by
// thousands of rows; without it the planner of a table filled a moment
// ago takes the lobby for a handful of rows.
func analyzed(b *testing.B, s *Store) func() {
	return func() {
		if _, err := s.pool.Exec(b.Context(), "ANALYZE seeks"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPairing: the pairing latency over 10,000 open correspondence
// seeks and 1,000 clock seeks, the two seeks of each pairing posted
// through two pools on one database, as two instances would
// (docs/performance.md).
func BenchmarkPairing(b *testing.B) {
	dsn := freshSchema(b)
	s := openOn(b, dsn, Options{})
	storetest.BenchPairing(b, analyzed(b, s), s, openOn(b, dsn, Options{}))
}

// BenchmarkLobbyList: a page of the lobby over 11,000 open seeks.
func BenchmarkLobbyList(b *testing.B) {
	s := openOn(b, freshSchema(b), Options{})
	storetest.BenchLobbyList(b, analyzed(b, s), s)
}

// TestLobbyRace races players' seeks, and accepts against cancels,
// through two pools on one database, as two instances: 300 players, or as
// many as AYOAYO_LOBBY_RACE_PLAYERS says (1,000 took 4.7 minutes on a
// loaded 2-core machine; docs/lobby.md).
func TestLobbyRace(t *testing.T) {
	dsn := freshSchema(t)
	s, again := openOn(t, dsn, Options{}), openOn(t, dsn, Options{})
	n := 300
	if v, err := strconv.Atoi(os.Getenv("AYOAYO_LOBBY_RACE_PLAYERS")); err == nil && v > 1 {
		n = v
	}
	if testing.Short() {
		n = 100
	}
	t.Run("seeks", func(t *testing.T) { storetest.RaceSeeks(t, n, s, again) })
	t.Run("challenges", func(t *testing.T) { storetest.RaceChallenges(t, max(n/10, 10), s, again) })
}
