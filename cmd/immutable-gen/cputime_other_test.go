//go:build !unix && immutablegen_full

package main

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
