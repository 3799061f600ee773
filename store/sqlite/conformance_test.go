package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/ayoayo/ayoayo/store/sqlite"
	"github.com/ayoayo/ayoayo/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "conformance.db"), sqlite.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("close: %v", err)
			}
		})
		return s
	})
}
