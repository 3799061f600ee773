//go:build !linux

package gen

import "time"

// threadCPU is zero where the thread's CPU time is not read: the benchmarks
// then report cpu-ms as 0.
func threadCPU() time.Duration { return 0 }
