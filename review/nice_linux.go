package review

import "syscall"

// lowerThreadPriority makes the calling OS thread the machine's last
// choice (nice 19): the review's search runs on it, so any other thread
// that wants a core, a request's above all, gets it first.
func lowerThreadPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
}
