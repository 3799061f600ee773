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

// TestLobbyRace races seeks, and accepts against cancels, through two
// handles on one file (two processes, as far as SQLite can tell): 300
// players, 100 under the race detector (the same code, raced by fewer;
// 300 took 104 s of wall clock under it at a load of 4-5), 60 with -short.
func TestLobbyRace(t *testing.T) {
	s, file := openTemp(t)
	again, err := Open(t.Context(), file, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = again.Close() })
	n := 300
	switch {
	case testing.Short():
		n = 60
	case raceDetector:
		n = 100
	}
	t.Run("seeks", func(t *testing.T) { storetest.RaceSeeks(t, n, s, again) })
	t.Run("challenges", func(t *testing.T) { storetest.RaceChallenges(t, n/3, s, again) })
}
