package testgc

import (
	"os"
	"runtime/debug"
	"strconv"
	"testing"
)

// TestPercent: the init set the target to Percent, unless GOGC was set,
// which then stands as the runtime read it.
func TestPercent(t *testing.T) {
	want := Percent
	if env := os.Getenv("GOGC"); env != "" {
		if env == "off" {
			want = -1
		} else {
			n, err := strconv.Atoi(env)
			if err != nil {
				n = 100 // the runtime reads a GOGC it cannot parse as 100
			}
			want = n
		}
	}
	got := debug.SetGCPercent(-1)
	debug.SetGCPercent(got)
	if got != want {
		t.Errorf("GC percent %d, want %d (GOGC=%q)", got, want, os.Getenv("GOGC"))
	}
}
