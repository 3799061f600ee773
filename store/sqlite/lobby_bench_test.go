package sqlite

import (
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// BenchmarkPairing: the pairing latency over 10,000 open correspondence
// seeks and 1,000 clock seeks (docs/performance.md).
func BenchmarkPairing(b *testing.B) {
	s, _ := openTemp(b)
	storetest.BenchPairing(b, nil, s)
}

// BenchmarkLobbyList: a page of the lobby over 11,000 open seeks.
func BenchmarkLobbyList(b *testing.B) {
	s, _ := openTemp(b)
	storetest.BenchLobbyList(b, nil, s)
}
