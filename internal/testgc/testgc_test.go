package testgc

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestPercent: the init set the target, unless GOGC was set.
func TestPercent(t *testing.T) {
	want := Percent
	if os.Getenv("GOGC") != "" {
		t.Logf("GOGC=%s set in the environment: it wins", os.Getenv("GOGC"))
		want = debug.SetGCPercent(-1)
		debug.SetGCPercent(want)
	}
	got := debug.SetGCPercent(-1)
	debug.SetGCPercent(got)
	if got != want {
		t.Errorf("GC percent %d, want %d", got, want)
	}
}
