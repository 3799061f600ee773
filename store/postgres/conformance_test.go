package postgres

import (
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/review/explorer/explorertest"
	"github.com/ayoayo/ayoayo/store/storetest"
)

// TestConformance runs the suite every store passes, each case on a fresh
// schema of its own; a second handle is a second pool on that schema, as
// another instance would have.
func TestConformance(t *testing.T) {
	testDSN(t)
	var dsns sync.Map // *Store -> its DSN
	open := func(t *testing.T) *Store {
		dsn := freshSchema(t)
		s := openOn(t, dsn, Options{})
		dsns.Store(s, dsn)
		return s
	}
	again := func(t *testing.T, s any) *Store {
		dsn, ok := dsns.Load(s)
		if !ok {
			t.Fatal("a store the suite did not open")
		}
		return openOn(t, dsn.(string), Options{})
	}
	storetest.RunShared(t, func(t *testing.T) storetest.Store { return open(t) },
		func(t *testing.T, s storetest.Store) storetest.Store { return again(t, s) })
	t.Run("explorer", func(t *testing.T) {
		explorertest.Run(t, func(t *testing.T) explorertest.Store { return open(t) },
			func(t *testing.T, s explorertest.Store) explorertest.Store { return again(t, s) })
	})
}
