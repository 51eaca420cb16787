//go:build unix

package main

import (
	"syscall"
	"time"
)

// processCPU returns the process's user and system CPU time so far (as
// internal/cputime does in the generator's module, which this one does
// not require).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
