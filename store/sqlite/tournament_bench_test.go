package sqlite

import (
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// BenchmarkArenaPairing: how soon a freed player of a 1,000-player arena
// is paired again (docs/performance.md).
func BenchmarkArenaPairing(b *testing.B) {
	s, _ := openTemp(b)
	storetest.BenchArenaPairing(b, nil, s)
}

// BenchmarkStandings: the standings of a 1,000-player arena, read after
// every result.
func BenchmarkStandings(b *testing.B) {
	s, _ := openTemp(b)
	storetest.BenchStandings(b, nil, s)
}
