package modules

import (
	"go/version"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// floors are the newest versions a nested module may require of the
// modules a user's project shares with it.
var floors = map[string]string{
	"k8s.io/api":                     "v0.31.0",
	"k8s.io/apimachinery":            "v0.31.0",
	"k8s.io/apiserver":               "v0.31.0",
	"k8s.io/client-go":               "v0.31.0",
	"k8s.io/component-base":          "v0.31.0",
	"sigs.k8s.io/controller-runtime": "v0.19.0",
}

// goFloor is the newest go line a nested module may have: "1.23", which
// Go orders below "1.23.0", so that a user's `go 1.23` does not move to
// `go 1.23.0` under go mod tidy.
const goFloor = "1.23"

// nested are the nested modules, relative to the repository root.
var nested = []string{"runtime", "runtime/admission", "runtime/webhook"}

// TestFloors checks each nested module's go.mod against its floors: the go
// line, no toolchain line, and the shared modules' versions. Their vet and
// tests build against those floors' dependencies, which a new machine
// downloads and compiles (minutes cold), so they run in their own modules:
// `make test-modules` and .ci/run's step of that name
// (docs/testing.md).
func TestFloors(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range nested {
		t.Run(rel, func(t *testing.T) {
			dir := filepath.Join(root, filepath.FromSlash(rel))
			data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
			if err != nil {
				t.Fatal(err)
			}
			mf, err := modfile.Parse("go.mod", data, nil)
			if err != nil {
				t.Fatal(err)
			}
			if mf.Go == nil || version.Compare("go"+mf.Go.Version, "go"+goFloor) > 0 {
				t.Errorf("go.mod's go line is newer than %s", goFloor)
			}
			if mf.Toolchain != nil {
				t.Errorf("go.mod names a toolchain (%s): users would need it", mf.Toolchain.Name)
			}
			for _, r := range mf.Require {
				if floor, ok := floors[r.Mod.Path]; ok && semver.Compare(r.Mod.Version, floor) > 0 {
					t.Errorf("requires %s %s, newer than the floor %s", r.Mod.Path, r.Mod.Version, floor)
				}
			}
		})
	}
}

// TestModulesListed: the nested modules this package checks are the ones
// in the repository (every go.mod under runtime/), so that a new one is
// not left out of the floors check, nor of .ci/run's test-modules step,
// which reads the same list from the Makefile.
func TestModulesListed(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	err = filepath.WalkDir(filepath.Join(root, "runtime"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			found = append(found, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	if !slices.Equal(found, nested) {
		t.Errorf("nested modules under runtime/: %v; this package lists %v", found, nested)
	}
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	want := "RUNTIME_MODULES = " + strings.Join(nested, " ") + "\n"
	if !strings.Contains(string(mk), want) {
		t.Errorf("the Makefile does not say %q", want)
	}
}
