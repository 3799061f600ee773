package postgres

import (
	"sync"
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// TestConformance runs the suite every store passes, each case on a fresh
// schema of its own; a second handle is a second pool on that schema, as
// another instance would have.
func TestConformance(t *testing.T) {
	testDSN(t)
	var dsns sync.Map // *Store -> its DSN
	storetest.RunShared(t, func(t *testing.T) storetest.Store {
		dsn := freshSchema(t)
		s := openOn(t, dsn, Options{})
		dsns.Store(s, dsn)
		return s
	}, func(t *testing.T, s storetest.Store) storetest.Store {
		dsn, ok := dsns.Load(s)
		if !ok {
			t.Fatal("a store the suite did not open")
		}
		return openOn(t, dsn.(string), Options{})
	})
}
