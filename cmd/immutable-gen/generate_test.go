package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/internal/proofsize"
)

// TestGenerateGolden runs the crd generator on the test APIs under
// testdata/apis/crd and compares the CRDs it writes, its diagnostics and its
// exit status with testdata/golden/crd/<case>/.
func TestGenerateGolden(t *testing.T) {
	t.Parallel() // beside the other long ones, after the tests that change directory
	cases := []struct {
		name string // golden directory
		api  string // testdata/apis/crd/<api>
		gen  string // generator option
	}{
		{"basic", "basic", "crd:immutability=extensions"},
		{"basic-cel", "basic", "crd"},
		{"misplaced", "misplaced", "crd:immutability=extensions"},
		{"plain", "plain", "crd"},
		{"plain-extensions", "plain", "crd:immutability=extensions"},
		{"celshapes", "celshapes", "crd"},
		{"celshapes-extensions", "celshapes", "crd:immutability=extensions"},
		{"celshapes-kube1.32", "celshapes", "crd:kubeVersion=1.32"},
		{"celrefused", "celrefused", "crd:immutability=cel,kubeVersion=1.32"},
		{"apirefused", "apirefused", "crd"},
		{"once", "once", "crd"},
		{"once-extensions", "once", "crd:immutability=extensions"},
		{"oncemisplaced", "oncemisplaced", "crd"},
		{"formats", "formats", "crd"},
		{"ignoreorder", "ignoreorder", "crd"},
		{"ignoreorder-extensions", "ignoreorder", "crd:immutability=extensions"},
		{"external", "external", "crd"},
		{"upstream", "upstream", "crd"},
		{"upstream-extensions", "upstream", "crd:immutability=extensions"},
		{"when", "when", "crd"},
		{"when-extensions", "when", "crd:immutability=extensions"},
		// Each diagnostic of a condition at its place in the user's text
		// (IG045, IG046; IG049 in the extensions output).
		{"whenerrors", "whenerrors", "crd"},
		{"whenerrors-extensions", "whenerrors", "crd:immutability=extensions"},
		{"floor", "floor", "crd"},
		{"floor-kube1.32", "floor", "crd:kubeVersion=1.32"},
		{"floor-kube1.27", "floor", "crd:kubeVersion=1.27"},
		{"floor-kube1.33", "floor", "crd:kubeVersion=1.33"},
		{"parseerror", "parseerror", "crd"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := outDir(t)
			// An existing output file that a failing run must leave alone.
			const keep = "existing output\n"
			keepPath := filepath.Join(out, "existing.yaml")
			if err := os.WriteFile(keepPath, []byte(keep), 0o644); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := run([]string{tc.gen, "paths=../../testdata/apis/crd/" + tc.api + "/...", "output:crd:dir=" + out}, &stdout, &stderr)

			files := readDir(t, out)
			if got := string(files["existing.yaml"]); got != keep {
				t.Errorf("existing output file was changed to %q", got)
			}
			delete(files, "existing.yaml")
			if code != 0 && len(files) != 0 {
				t.Errorf("failing run (exit %d) wrote %d files", code, len(files))
			}

			dir := filepath.Join("testdata", "golden", "crd", tc.name)
			assertFindingsHaveIDs(t, stderr.String())
			report := fmt.Sprintf("exit: %d\n%s", code, normalize(t, stderr.Bytes()))
			golden.Check(t, filepath.Join(moduleRoot(t), filepath.Join(dir, "stderr.txt")), []byte(report))
			for name, data := range files {
				golden.Check(t, filepath.Join(moduleRoot(t), filepath.Join(dir, name)), data)
			}
			// No golden CRD may be missing from the output.
			entries, _ := os.ReadDir(filepath.Join(moduleRoot(t), dir))
			for _, e := range entries {
				if _, ok := files[e.Name()]; !ok && e.Name() != "stderr.txt" && !golden.Updating() {
					t.Errorf("golden %s was not generated", e.Name())
				}
				if _, ok := files[e.Name()]; !ok && e.Name() != "stderr.txt" && golden.Updating() {
					os.Remove(filepath.Join(moduleRoot(t), dir, e.Name()))
				}
			}
		})
	}
}

var controllerGen = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "controller-gen")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "controller-gen")
	// The release binary carries its version in the CRD annotation.
	cmd := exec.Command("go", "build", "-ldflags=-X=sigs.k8s.io/controller-tools/pkg/version.version="+controllerToolsVersion(), "-o", bin, "sigs.k8s.io/controller-tools/cmd/controller-gen")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building controller-gen: %v\n%s", err, out)
	}
	return bin, nil
})

func controllerToolsVersion() string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", "sigs.k8s.io/controller-tools").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// TestDropInForControllerGen checks the contract that on packages without
// immutability markers immutable-gen writes byte for byte what controller-gen
// of the pinned controller-tools release writes, in every mode: on a test API
// that uses many controller-tools markers and on real Kubernetes API packages.
func TestDropInForControllerGen(t *testing.T) {
	t.Parallel() // beside the other long ones, after the tests that change directory
	if testing.Short() {
		t.Skip("builds controller-gen")
	}
	bin, err := controllerGen()
	if err != nil {
		t.Fatal(err)
	}
	type dropIn struct{ paths, gen string }
	var all []dropIn
	for _, paths := range []string{"../../testdata/apis/crd/plain/...", "k8s.io/api/apps/v1", "k8s.io/api/batch/v1"} {
		for _, gen := range []string{"crd", "crd:immutability=extensions", "crd:maxDescLen=0,crdVersions=v1"} {
			all = append(all, dropIn{paths, gen})
		}
	}
	// The sample keeps each package and each mode once: the diagonal.
	for _, c := range proofsize.Pick(t, "packages × modes", all, 0, 4, 8) {
		paths, gen := c.paths, c.gen
		t.Run(paths+" "+gen, func(t *testing.T) {
			upstreamGen := strings.TrimSuffix(strings.Replace(gen, "immutability=extensions", "", 1), ":")
			want := outDir(t)
			cmd := exec.Command(bin, upstreamGen, "paths="+paths, "output:crd:dir="+want)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("controller-gen: %v\n%s", err, out)
			}
			got := outDir(t)
			var stdout, stderr bytes.Buffer
			if code := run([]string{gen, "paths=" + paths, "output:crd:dir=" + got}, &stdout, &stderr); code != 0 {
				t.Fatalf("immutable-gen exit %d:\n%s", code, stderr.String())
			}
			wantFiles, gotFiles := readDir(t, want), readDir(t, got)
			if len(wantFiles) == 0 {
				t.Fatal("controller-gen generated nothing")
			}
			var names []string
			for name := range wantFiles {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if !bytes.Equal(wantFiles[name], gotFiles[name]) {
					t.Errorf("%s differs from controller-gen's:\n%s", name, golden.Diff(string(wantFiles[name]), string(gotFiles[name])))
				}
			}
			if len(gotFiles) != len(wantFiles) {
				t.Errorf("immutable-gen wrote %d files, controller-gen %d", len(gotFiles), len(wantFiles))
			}
		})
	}
}

// TestExampleUpToDate regenerates the bundled example's CRD and compares it
// with the committed one, as a new user would after the quick start.
func TestExampleUpToDate(t *testing.T) {
	for gen, dir := range map[string]string{"crd": "bases", "crd:immutability=extensions": "extensions"} {
		out := outDir(t)
		var stdout, stderr bytes.Buffer
		if code := run([]string{gen, "paths=../../examples/api/...", "output:crd:dir=" + out}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d:\n%s", gen, code, stderr.String())
		}
		got := readDir(t, out)
		want := readDir(t, "../../examples/config/crd/"+dir)
		if len(got) != len(want) {
			t.Fatalf("%s: generated %d CRDs, committed %d", gen, len(got), len(want))
		}
		for name, w := range want {
			if !bytes.Equal(got[name], w) {
				t.Errorf("%s is out of date: run (cd examples && go generate ./...):\n%s", name, golden.Diff(string(w), string(got[name])))
			}
		}
	}
}
