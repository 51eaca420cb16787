package validators

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// generated lists the files go generate writes, relative to this module.
var generated = []string{
	"apis/widget/v1/zz_generated.deepcopy.go",
	"apis/widget/v1/zz_generated.validations.go",
	"apis/widget/v1/zz_generated.immutable.go",
	"apis/deploy/v1/zz_generated.deepcopy.go",
	"apis/deploy/v1/zz_generated.validations.go",
	"apis/deploy/v1/zz_generated.immutable.go",
	"config/crd/bench.immutable-gen.io_widgets.yaml",
	"config/crd/bench.immutable-gen.io_deployments.yaml",
}

// TestGeneratedUpToDate runs `go generate .` (validation-gen at the version
// go.mod pins, immutable-gen from this repository) on a copy of this module
// and fails when a committed generated file differs.
func TestGeneratedUpToDate(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if path == "go.mod" {
			// Every relative replacement (the generator's module, the
			// runtime module) points into this repository.
			b = bytes.ReplaceAll(b, []byte("=> ../.."), []byte("=> "+root))
		}
		for _, g := range generated {
			if path == filepath.FromSlash(g) {
				return nil // must be written by the generators
			}
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "generate", ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go generate: %v\n%s", err, out)
	}
	for _, g := range generated {
		want, err := os.ReadFile(filepath.Join(dir, g))
		if err != nil {
			t.Errorf("%s was not generated: %v", g, err)
			continue
		}
		got, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is not what go generate writes: run `go generate .` in bench/validators and commit\n%s", g, firstDiff(string(got), string(want)))
		}
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + g[i] + "\n  generated: " + w[i]
		}
	}
	return "lengths differ"
}
