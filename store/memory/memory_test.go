package memory_test

import (
	"testing"

	"github.com/ayoayo/ayoayo/store/memory"
	"github.com/ayoayo/ayoayo/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) storetest.Store { return memory.New() })
}
