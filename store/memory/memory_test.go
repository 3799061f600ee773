package memory_test

import (
	"testing"

	"github.com/ayoayo/ayoayo/review/explorer/explorertest"
	"github.com/ayoayo/ayoayo/store/memory"
	"github.com/ayoayo/ayoayo/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return memory.New() })
	t.Run("explorer", func(t *testing.T) {
		explorertest.Run(t, func(*testing.T) explorertest.Store { return memory.New() }, nil)
	})
}
