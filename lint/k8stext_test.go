package lint

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// k8sAPIVersions are the releases of k8s.io/api whose texts k8stext.txt
// holds: CRDs embed the templates of the k8s.io/api their project builds
// with, and the wording changes between releases.
var k8sAPIVersions = []string{"v0.26.0", "v0.27.0", "v0.28.0", "v0.29.0", "v0.30.0", "v0.31.0", "v0.32.0", "v0.33.0", "v0.34.0", "v0.35.0", "v0.36.0", "v0.37.1"}

// TestK8sText checks k8stext.txt, the immutability sentences of
// Kubernetes' own API types, against the k8s.io/api releases of
// k8sAPIVersions, downloaded through the Go module proxy (go test ./lint
// -run K8sText -update rewrites it; without -update the test needs only
// the releases already in the module cache): for each field of a type in
// k8s.io/api with a JSON name, the sentences of its doc comment (as
// controller-gen copies it into a CRD: marker lines left out) that
// describedImmutable matches.
func TestK8sText(t *testing.T) {
	lines := map[string]bool{}
	for _, v := range k8sAPIVersions {
		k8sTypeTexts(t, moduleDir(t, "k8s.io/api", v, "K8sText"), "", lines)
	}
	sorted := slices.Sorted(func(yield func(string) bool) {
		for l := range lines {
			if !yield(l) {
				return
			}
		}
	})
	got := "# k8s.io/api " + strings.Join(k8sAPIVersions, ", ") + ": go test ./lint -run K8sText -update\n" + strings.Join(sorted, "\n") + "\n"
	if golden.Updating() {
		if err := os.WriteFile("k8stext.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != k8sText {
		t.Errorf("k8stext.txt is not what k8s.io/api holds: go test ./lint -run K8sText -update")
	}
}

// moduleDir returns the directory of module@version in the module cache,
// downloaded through the Go module proxy with -update; without it the test
// (named by test, for the message) is skipped when the module is not there.
func moduleDir(t *testing.T, module, version, test string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	if !golden.Updating() {
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod")
	}
	out, _ := cmd.Output()
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Skipf("%s@%s is not in the module cache: go test ./lint -run %s -update downloads it", module, version, test)
	}
	return mod.Dir
}

// upstreamModules are the other projects whose types CRDs embed widely,
// with the API group of the project's own CRDs (where the sentences are the
// CRD's own promise) and the directory of their API types.
var upstreamModules = []struct{ module, version, group, dir string }{
	// Kubeflow Trainer's TrainingRuntime and ClusterTrainingRuntime embed
	// JobSetSpec (spec.template.spec), managedBy's text with it.
	{"sigs.k8s.io/jobset", "v0.10.1", "jobset.x-k8s.io", "api"},
}

// TestUpstreamText checks upstreamtext.txt, the immutability sentences of
// the types of upstreamModules, as TestK8sText checks k8stext.txt: one
// "group<TAB>jsonName<TAB>sentence" a line (go test ./lint -run
// UpstreamText -update rewrites it).
func TestUpstreamText(t *testing.T) {
	var all []string
	header := "# upstream types:"
	for _, m := range upstreamModules {
		header += " " + m.module + "@" + m.version + " (" + m.group + ")"
		lines := map[string]bool{}
		k8sTypeTexts(t, filepath.Join(moduleDir(t, m.module, m.version, "UpstreamText"), m.dir), m.group+"\t", lines)
		for l := range lines {
			all = append(all, l)
		}
	}
	slices.Sort(all)
	got := header + ": go test ./lint -run UpstreamText -update\n" + strings.Join(all, "\n") + "\n"
	if golden.Updating() {
		if err := os.WriteFile("upstreamtext.txt", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got != upstreamText {
		t.Errorf("upstreamtext.txt is not what the upstream modules hold: go test ./lint -run UpstreamText -update")
	}
	if len(all) == 0 {
		t.Errorf("no sentence in the upstream modules: the generator or describedImmutable changed")
	}
}

// k8sTypeTexts adds the immutability sentences of the types in the Go
// module at dir (k8s.io/api, or an upstream project's API types) to lines,
// each "prefix jsonName<TAB>sentence".
func k8sTypeTexts(t *testing.T, dir, prefix string, lines map[string]bool) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "types.go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, field := range st.Fields.List {
				if field.Doc == nil || field.Tag == nil {
					continue
				}
				tag, _ := strconv.Unquote(field.Tag.Value)
				name, _, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
				if name == "" || name == "-" {
					continue
				}
				var doc []string
				for _, l := range strings.Split(field.Doc.Text(), "\n") {
					if !strings.HasPrefix(strings.TrimSpace(l), "+") {
						doc = append(doc, l)
					}
				}
				desc := strings.Join(doc, "\n")
				for _, loc := range describedImmutable().FindAllStringIndex(desc, -1) {
					lines[prefix+name+"\t"+sentenceAt(desc, loc)] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
