// Package testgc raises the garbage collector's target in the root
// module's test binaries that import it (blank, from a gc_test.go). Their
// tests judge thousands of updates and compile hundreds of CRDs with the
// API server's own validator and CEL, which allocate heavily: at the
// default GOGC=100 about a quarter of their CPU went to marking
// (docs/testing.md, "Measured"). A GOGC set in the environment wins, so a
// memory-tight machine can lower it again.
package testgc

import (
	"os"
	"runtime/debug"
)

// Percent is the garbage collector's target the test binaries run with:
// the heap grows to five times the live data before a cycle.
const Percent = 400

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(Percent)
	}
}
