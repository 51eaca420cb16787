package modules

import (
	"go/version"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
var nested = []string{"runtime", "runtime/webhook", "runtime/admission"}

func TestNestedModules(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range nested {
		t.Run(rel, func(t *testing.T) {
			dir := filepath.Join(root, filepath.FromSlash(rel))
			// Read every file of the module, so that go test's cache keys
			// this test's result on them (the go commands below read
			// them in other processes, which the cache does not see).
			readTree(t, dir)
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
			for _, args := range [][]string{{"vet", "./..."}, {"test", "./..."}} {
				cmd := exec.Command("go", args...)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), rel, err, out)
				}
				if testing.Verbose() {
					t.Logf("go %s in %s:\n%s", strings.Join(args, " "), rel, out)
				}
			}
		})
	}
}

// readTree reads every regular file under dir, but for nested modules' own.
func readTree(t *testing.T, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return fs.SkipDir
				}
			}
			return nil
		}
		_, err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
