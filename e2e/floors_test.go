package e2e

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// floorPins are the requirements of the floors module (e2e/floors), the
// oldest versions the generated code and the runtime libraries support
// (docs/architecture.md, "Modules"): nothing may move them.
var floorPins = []string{
	"go 1.23",
	"k8s.io/api v0.31.0",
	"k8s.io/apimachinery v0.31.0",
	"k8s.io/kube-openapi v0.0.0-20240228011516-70dd3763d340",
	"sigs.k8s.io/controller-runtime v0.19.0",
}

// TestFloors: in a copy of the floors module, pinned to Go 1.23 and
// k8s.io/* v0.31 and controller-runtime v0.19, the repository's
// immutable-gen writes the deep copy, typed validators, kube-openapi
// extensions and CRD of its API types (the same bytes as committed); then
// `go mod tidy -diff` finds nothing to change, `go vet`, `go build` and
// `go test` pass (the typed validator and the unstructured handler of
// runtime/webhook served through controller-runtime v0.19's webhook), and
// go.mod and go.sum are byte for byte what they were.
func TestFloors(t *testing.T) {
	t.Parallel() // after the tests that serve an API server or set variables, beside the other long ones
	if testing.Short() {
		t.Skip("builds immutable-gen and a module at old Kubernetes versions")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "immutable-gen")
	goIn(t, root, "build", "-o", bin, "./cmd/immutable-gen")

	src := filepath.Join(root, "e2e", "floors")
	dir := filepath.Join(t.TempDir(), "floors")
	copyTree(t, src, dir)
	// The copy's replacements point at the repository's runtime modules.
	goIn(t, dir, "mod", "edit",
		"-replace=github.com/immutable-gen/immutable-gen/runtime="+filepath.Join(root, "runtime"),
		"-replace=github.com/immutable-gen/immutable-gen/runtime/webhook="+filepath.Join(root, "runtime", "webhook"))
	goMod, goSum := readFile(t, filepath.Join(dir, "go.mod")), readFile(t, filepath.Join(dir, "go.sum"))
	for _, pin := range floorPins {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(pin) + `$`).Match(goMod) {
			t.Fatalf("e2e/floors/go.mod does not pin %q", pin)
		}
	}

	generated := []string{
		"api/v1/zz_generated.deepcopy.go",
		"api/v1/zz_generated.immutable.go",
		"api/v1/zz_generated.immutable_openapi.go",
		"config/crd/floors.example.com_volumes.yaml",
	}
	for _, f := range generated {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	run(t, dir, floorsEnv(), bin, "object", "validators", "openapi", "crd:immutability=extensions",
		"paths=./...", "output:crd:dir=config/crd")
	for _, f := range generated {
		if got, want := readFile(t, filepath.Join(dir, f)), readFile(t, filepath.Join(src, f)); !bytes.Equal(got, want) {
			t.Errorf("e2e/floors/%s is not what immutable-gen writes: regenerate it (in e2e/floors: go run ../../cmd/immutable-gen object validators openapi crd:immutability=extensions paths=./... output:crd:dir=config/crd)", f)
		}
	}

	goIn(t, dir, "mod", "tidy", "-diff")
	goIn(t, dir, "vet", "./...")
	goIn(t, dir, "build", "./...")
	goIn(t, dir, "test", "-count=1", "./...")
	if !bytes.Equal(readFile(t, filepath.Join(dir, "go.mod")), goMod) || !bytes.Equal(readFile(t, filepath.Join(dir, "go.sum")), goSum) {
		t.Errorf("go.mod or go.sum of the floors module changed:\n%s", readFile(t, filepath.Join(dir, "go.mod")))
	}
}

// floorsEnv is the environment of every command in the floors module: no
// workspace, no flags of the caller's, no toolchain switch, and no go.mod
// or go.sum updates (a command that needs one fails).
func floorsEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local")
}

// goIn runs the go command in dir with floorsEnv.
func goIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	run(t, dir, floorsEnv(), "go", args...)
}

// run runs name in dir with env and fails the test with its output when it
// fails.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
