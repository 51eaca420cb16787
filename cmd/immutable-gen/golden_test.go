package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

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
