// Package golden compares what a test produced with a golden file under
// testdata/golden, and rewrites the file instead when the test binary runs
// with -update (`go test ./... -update`, make golden). The flag is
// registered here, once per test binary that imports the package, so that
// every package's tests take it alike.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update is -update: rewrite golden files rather than compare.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// Updating reports whether the test binary runs with -update.
func Updating() bool { return *update }

// Check compares got with the file at path, or writes got there (creating
// its directory) with -update. A difference fails t with the first lines
// that differ.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run the test with -update and review the diff):\n%s", path, Diff(string(want), string(got)))
	}
}

// Diff shows the first 20 lines where want and got differ.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < 20; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			shown++
		}
	}
	return b.String()
}
