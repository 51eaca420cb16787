package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// moduleRoot is the repository root, two levels above this package.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// normalize makes output independent of where the repository lives.
func normalize(t testing.TB, b []byte) []byte {
	return bytes.ReplaceAll(b, []byte(moduleRoot(t)+string(filepath.Separator)), nil)
}

// checkGolden compares got with the golden file at path (relative to the
// module root), or rewrites it with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	full := filepath.Join(moduleRoot(t), path)
	if *update {
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(full)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/immutable-gen -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./cmd/immutable-gen -update and review the diff):\n%s", path, lineDiff(string(want), string(got)))
	}
}

// lineDiff shows the first lines where want and got differ.
func lineDiff(want, got string) string {
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

// readDir returns the files below dir as relative path → content.
func readDir(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// outDir is a temporary directory whose name is safe inside a controller-gen
// option (t.TempDir names contain the test name, which may hold commas).
func outDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "immutable-gen-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
