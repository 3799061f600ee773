package review

import (
	"runtime"
	"syscall"
	"testing"
)

// TestLowerThreadPriority: the thread a review's ply searches on runs at
// nice 19, and the test's own thread keeps its priority.
func TestLowerThreadPriority(t *testing.T) {
	niceOf := func(tid int) int {
		// The raw getpriority answers 20 - nice.
		p, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
		if err != nil {
			t.Fatal(err)
		}
		return 20 - p
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mine := niceOf(syscall.Gettid())
	got := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		lowerThreadPriority()
		got <- niceOf(syscall.Gettid())
	}()
	if n := <-got; n != 19 {
		t.Errorf("the search's thread runs at nice %d, want 19", n)
	}
	if n := niceOf(syscall.Gettid()); n != mine {
		t.Errorf("the caller's thread went from nice %d to %d", mine, n)
	}
}
