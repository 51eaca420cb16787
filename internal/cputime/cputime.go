// Package cputime reads the CPU time of the running process, for the
// benchmarks that report CPU seconds beside wall time (BENCHMARKS.md).
package cputime

import "time"

// Process returns the process's user and system CPU time so far, or 0
// where it is not measured.
func Process() time.Duration { return process() }
