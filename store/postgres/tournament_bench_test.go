package postgres

import (
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// analyzedAll is the ANALYZE autovacuum would have run on tables that grew
// by thousands of rows a moment ago.
func analyzedAll(b *testing.B, s *Store) func() {
	return func() {
		if _, err := s.pool.Exec(b.Context(), "ANALYZE"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkArenaPairing: how soon a freed player of a 1,000-player arena
// is paired again, the games ended through one pool and paired through
// another on the same database, as by two instances (docs/performance.md).
func BenchmarkArenaPairing(b *testing.B) {
	dsn := freshSchema(b)
	s := openOn(b, dsn, Options{})
	storetest.BenchArenaPairing(b, analyzedAll(b, s), s, openOn(b, dsn, Options{}))
}

// BenchmarkStandings: the standings of a 1,000-player arena, read after
// every result.
func BenchmarkStandings(b *testing.B) {
	s := openOn(b, freshSchema(b), Options{})
	storetest.BenchStandings(b, analyzedAll(b, s), s)
}
