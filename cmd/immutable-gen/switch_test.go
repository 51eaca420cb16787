package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// asCLI makes the test binary act as the immutable-gen command, so that a
// Makefile can run it (as IMMUTABLE_GEN) without a separate build: main does
// nothing but this.
const asCLI = "IMMUTABLE_GEN_TEST_AS_CLI"

func init() {
	if os.Getenv(asCLI) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
}

// immutableGenBinary is the path of a program that runs as immutable-gen
// when asCLI is set in its environment: this test binary.
func immutableGenBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(asCLI, "1")
	return self
}

// copyExamples copies the examples module to a temporary directory, with its
// replace directive pointing at this repository, so that a Makefile can run
// there and write its output without touching the working tree.
func copyExamples(t *testing.T) string {
	t.Helper()
	src := filepath.Join(moduleRoot(t), "examples")
	dst := outDir(t)
	for rel, data := range readDir(t, src) {
		if rel == "go.mod" {
			re := regexp.MustCompile(`(?m)^replace github.com/immutable-gen/immutable-gen => \.\./?$`)
			if !re.Match(data) {
				t.Fatal("examples/go.mod has no replace directive for this repository")
			}
			data = re.ReplaceAll(data, []byte("replace github.com/immutable-gen/immutable-gen => "+moduleRoot(t)))
			// The nested modules it replaces too (runtime), by their
			// directories in this repository.
			nested := regexp.MustCompile(`(?m)^(replace github.com/immutable-gen/immutable-gen/\S+ => )\.\./(\S+)$`)
			data = nested.ReplaceAll(data, []byte("${1}"+moduleRoot(t)+"/${2}"))
		}
		p := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// runMake runs make with the given arguments in dir.
func runMake(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("make", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// removeGenerated deletes from dir every file the generators write, so that
// a test sees them written again.
func removeGenerated(t *testing.T, dir string) {
	t.Helper()
	for rel := range readDir(t, dir) {
		if strings.HasPrefix(rel, "config"+string(filepath.Separator)) || filepath.Base(rel) == "zz_generated.deepcopy.go" || filepath.Base(rel) == "zz_generated.immutable.go" {
			if err := os.Remove(filepath.Join(dir, rel)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// sameFiles reports every file that differs between want and got, and every
// file only one of them has.
func sameFiles(t *testing.T, wantName string, want map[string][]byte, gotName string, got map[string][]byte) {
	t.Helper()
	var names []string
	for name := range want {
		names = append(names, name)
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		w, inWant := want[name]
		g, inGot := got[name]
		switch {
		case !inGot:
			t.Errorf("%s: only %s has it", name, wantName)
		case !inWant:
			t.Errorf("%s: only %s has it", name, gotName)
		case !bytes.Equal(w, g):
			t.Errorf("%s: %s differs from %s:\n%s", name, gotName, wantName, golden.Diff(string(w), string(g)))
		}
	}
}

// TestSwitchFromControllerGen runs the Makefile of
// examples/from-controller-gen — a kubebuilder-style project whose only
// change for the switch is the binary CONTROLLER_GEN names — once with
// controller-gen and once with immutable-gen, and checks that both write the
// same files, byte for byte (deep-copy code, CRD, ClusterRole, webhook
// configuration), and that these are the committed ones.
func TestSwitchFromControllerGen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds controller-gen and immutable-gen")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make in PATH")
	}
	controllerGenBin, err := controllerGen()
	if err != nil {
		t.Fatal(err)
	}
	immutableGenBin := immutableGenBinary(t)
	const project = "from-controller-gen"
	generate := func(bin string) map[string][]byte {
		dir := filepath.Join(copyExamples(t), project)
		removeGenerated(t, dir)
		runMake(t, dir, "generate", "manifests", "CONTROLLER_GEN="+bin)
		return readDir(t, dir)
	}
	byControllerGen := generate(controllerGenBin)
	byImmutableGen := generate(immutableGenBin)
	for _, f := range []string{"api/v1/zz_generated.deepcopy.go", "config/crd/bases/shop.example.com_widgets.yaml", "config/rbac/role.yaml", "config/webhook/manifests.yaml"} {
		if _, ok := byControllerGen[filepath.FromSlash(f)]; !ok {
			t.Errorf("controller-gen did not write %s", f)
		}
	}
	sameFiles(t, "controller-gen's", byControllerGen, "immutable-gen's", byImmutableGen)
	committed := readDir(t, filepath.Join(moduleRoot(t), "examples", project))
	sameFiles(t, "the committed file", committed, "immutable-gen's", byImmutableGen)
}

// TestExamplesMakefile checks that examples/Makefile, the kubebuilder-style
// way to run the example's generators, writes exactly the committed files
// that go generate writes, and that its verify target (--check) passes on
// them and fails on a CRD that is not what the markers generate.
func TestExamplesMakefile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs make and the generators")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make in PATH")
	}
	bin := immutableGenBinary(t)
	dir := copyExamples(t)
	removeGenerated(t, filepath.Join(dir, "api"))
	for _, sub := range []string{"config/crd/bases", "config/crd/extensions"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			t.Fatal(err)
		}
	}
	runMake(t, dir, "all", "IMMUTABLE_GEN="+bin)
	got := readDir(t, dir)
	want := readDir(t, filepath.Join(moduleRoot(t), "examples"))
	delete(got, "go.mod") // rewritten by copyExamples
	delete(want, "go.mod")
	sameFiles(t, "the committed file", want, "make's", got)

	runMake(t, dir, "verify", "IMMUTABLE_GEN="+bin)
	crd := filepath.Join(dir, "config/crd/bases/cache.example.com_cacheclusters.yaml")
	if err := os.WriteFile(crd, []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("make", "-C", dir, "verify", "IMMUTABLE_GEN="+bin).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "config/crd/bases/cache.example.com_cacheclusters.yaml") {
		t.Errorf("make verify on a stale CRD: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(crd); string(b) != "stale\n" {
		t.Error("make verify rewrote the CRD")
	}
}
