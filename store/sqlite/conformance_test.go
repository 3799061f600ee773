package sqlite_test

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/review/explorer/explorertest"
	"github.com/ayoayo/ayoayo/store/sqlite"
	"github.com/ayoayo/ayoayo/store/storetest"
)

func TestConformance(t *testing.T) {
	// The file of each store, so that a second handle (another process, as
	// far as SQLite can tell) opens the same one.
	var files sync.Map // *sqlite.Store -> string
	open := func(t *testing.T, file string) *sqlite.Store {
		t.Helper()
		s, err := sqlite.Open(t.Context(), file, sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
		files.Store(s, file)
		return s
	}
	again := func(t *testing.T, s any) *sqlite.Store {
		file, ok := files.Load(s)
		if !ok {
			t.Fatal("a store the suite did not open")
		}
		return open(t, file.(string))
	}
	storetest.RunShared(t, func(t *testing.T) storetest.Store {
		return open(t, filepath.Join(t.TempDir(), "conformance.db"))
	}, func(t *testing.T, s storetest.Store) storetest.Store { return again(t, s) })
	t.Run("explorer", func(t *testing.T) {
		explorertest.Run(t, func(t *testing.T) explorertest.Store {
			return open(t, filepath.Join(t.TempDir(), "explorer.db"))
		}, func(t *testing.T, s explorertest.Store) explorertest.Store { return again(t, s) })
	})
}
