package gen

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used (Linux's
// RUSAGE_THREAD, 1), so that a benchmark that locks its goroutine to its
// thread can report the work a generation takes apart from the wait a busy
// machine adds to the wall clock.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
