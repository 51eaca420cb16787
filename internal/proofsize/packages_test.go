package proofsize

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProofPackagesListed: the Makefile's PROOF_PACKAGES, which `make
// test-proofs` and .ci/run run with IMMUTABLE_GEN_PROOFS=full, are the
// root module's packages whose tests import this package, so that no
// full-size proof is left out of CI.
func TestProofPackagesListed(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	const imp = `"github.com/immutable-gen/immutable-gen/internal/proofsize"`
	var want []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return fs.SkipDir // a nested module
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if strings.Contains(string(data), imp) && filepath.Base(filepath.Dir(path)) != "proofsize" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if p := "./" + filepath.ToSlash(rel); !slices.Contains(want, p) {
				want = append(want, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(string(mk), "\n") {
		if rest, ok := strings.CutPrefix(line, "PROOF_PACKAGES = "); ok {
			got = strings.Fields(rest)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the Makefile's PROOF_PACKAGES = %v; the packages whose tests import proofsize: %v", got, want)
	}
}
