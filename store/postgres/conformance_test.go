package postgres

import (
	"testing"

	"github.com/ayoayo/ayoayo/store/storetest"
)

// TestConformance runs the suite every store passes, each case on a fresh
// schema of its own.
func TestConformance(t *testing.T) {
	testDSN(t)
	storetest.Run(t, func(t *testing.T) storetest.Store { return openFresh(t) })
}
