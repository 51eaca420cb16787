package lint

import (
	"bytes"
	"encoding/json"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
)

// root is the module root.
const root = ".."

// expectedPath is the schema path of each seeded defect.
var expectedPath = map[diag.ID]string{
	IDExtensionValue:     "spec.name",
	IDExtensionForbidden: "metadata",
	IDKeysWithoutKeys:    "spec.zones",
	IDExtensionsBoth:     "spec.labels",
	IDListMapKey:         "spec.ports",
	IDInsideSet:          "spec.endpoints[*].host",
	IDRedundant:          "spec.network.vpc",
	IDKubectlApply:       "spec.engine",
	IDExtensionIgnored:   "spec.name",
	IDPresence:           "spec.owner",
	IDOnceSet:            "spec.targetPort",
	IDListMapOrder:       "spec.ports",
	IDOptionalAncestor:   "spec",
	IDVersionSkew:        "spec.size",
	IDOptionalObject:     "spec.backup",
	IDRatcheting:         "spec.size",
	IDAbsentError:        "<root>",
	IDDescribedOnly:      "spec.volumeRef",
	IDUncorrelatable:     "spec.args[*].value",
	IDCost:               "spec.args",
	IDOptionalOldSelf:    "spec.replicas",
	IDRuleInvalid:        "spec.name",
	IDOnceNotProperty:    "spec.serials[*]",
	IDOnceRequired:       "spec.class",
	IDRefused:            "spec.ports[*].name",
}

// TestDefects: each seeded defect produces exactly its finding, at its
// path, besides IG008 for every CRD that carries extensions.
func TestDefects(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "testdata/lint/defects/*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[diag.ID]bool{}
	for _, file := range files {
		id := diag.ID(strings.SplitN(filepath.Base(file), "-", 2)[0])
		covered[id] = true
		t.Run(string(id), func(t *testing.T) {
			res, err := Files([]string{file})
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(file)
			carries := bytes.Contains(data, []byte("x-kubernetes-immutable")) || bytes.Contains(data, []byte("x-immutable-gen-immutable-once"))
			var got []string
			sawApply := false
			for _, f := range res.Findings {
				if f.ID == IDKubectlApply && id != IDKubectlApply {
					sawApply = true
					continue
				}
				got = append(got, string(f.ID)+" "+f.Path)
				wantVersion := "v1"
				if id == IDVersionSkew {
					wantVersion = "v1beta1"
				}
				if f.Fix == "" || f.Message == "" || f.Version != wantVersion || f.CRD != "widgets.example.com" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
			if want := []string{string(id) + " " + expectedPath[id]}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			if sawApply != (carries && id != IDKubectlApply) {
				t.Errorf("IG008 reported: %v, CRD carries extensions: %v", sawApply, carries)
			}
		})
	}
	for _, c := range Catalog() {
		if slices.ContainsFunc(evolveChecks(), func(e Check) bool { return e.ID == c.ID }) {
			continue // a change between two revisions: TestEvolveDefects
		}
		if !covered[c.ID] {
			t.Errorf("no seeded defect testdata/lint/defects/%s-*.yaml", c.ID)
		}
		if expectedPath[c.ID] == "" {
			t.Errorf("%s: no expected path", c.ID)
		}
	}
}

// TestGeneratedCRDs: no false alarms on the CRDs this project generates.
// Extensions CRDs get IG008 (true: kubectl apply rejects them) and the
// redundant marker of celshapes IG007 (true: the test API has one); the
// plain test API carries a hand-written `self == oldSelf` on an optional
// field (it is controller-gen's output, passed through), a real hole.
func TestGeneratedCRDs(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/golden/crd/*/*.yaml", "examples/config/crd/*/*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 8 {
		t.Fatalf("found only %d generated CRDs", len(files))
	}
	res, err := Files(files)
	if err != nil {
		t.Fatal(err)
	}
	expected := func(f diag.Diagnostic) bool {
		dir := filepath.Base(filepath.Dir(f.Pos.Filename))
		switch {
		case f.ID == IDKubectlApply:
			return strings.Contains(dir, "extensions") || dir == "basic"
		case f.ID == IDRedundant:
			return dir == "celshapes-extensions" && f.Path == "spec.ordered[*].name"
		case f.ID == IDListMapOrder:
			// +immutable:ignoreOrder: self == oldSelf ignores the order on purpose.
			return dir == "ignoreorder"
		case f.ID == IDOnceRequired:
			return dir == "once-extensions" && f.Path == "spec.class" // the test API's required set-once field
		case f.ID == IDPresence:
			return strings.HasPrefix(dir, "plain") && f.CRD == "databases.plain.example.com" && f.Path == "spec.owner"
		case f.ID == IDOptionalObject:
			// By the KEP's semantics an optional parent of immutable fields
			// may come and go, and the generator lowers exactly that; lint
			// says so (info).
			return (dir == "celshapes" && f.Path == "spec.parent") || (dir == "bases" && f.Path == "spec.backup")
		case f.ID == IDOptionalAncestor:
			// The test APIs keep spec optional on purpose (the generator
			// warns about it); the example's spec is required.
			return strings.Contains(f.Pos.Filename, "testdata/golden/crd/")
		}
		return false
	}
	ancestors := 0
	for _, f := range res.Findings {
		if !expected(f) {
			t.Errorf("unexpected finding: %s", f)
		}
		if f.ID == IDOptionalAncestor {
			ancestors++
		}
	}
	if ancestors == 0 {
		t.Errorf("no IG013 on the test APIs' optional spec")
	}
	// Every CEL CRD immutable-gen writes is clean, but for the optional spec
	// of the test API.
	for _, f := range res.Findings {
		if dir := filepath.Base(filepath.Dir(f.Pos.Filename)); f.ID != IDOptionalObject && ((dir == "celshapes" && f.ID != IDOptionalAncestor) || dir == "bases") {
			t.Errorf("finding on a CEL CRD: %s", f)
		}
	}
}

// TestWellKnown: CRD shapes written after public APIs lint clean, but for
// one true hole: Karpenter's EC2NodeClass (karpenter-provider-aws v1.3.3)
// keeps spec optional, so its immutable role can change by removing spec
// and adding it back.
func TestWellKnown(t *testing.T) {
	res, err := Files([]string{filepath.Join(root, "testdata/lint/wellknown")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.ID == IDOptionalAncestor && f.CRD == "ec2nodeclasses.karpenter.k8s.aws" && f.Path == "spec" {
			continue
		}
		t.Errorf("unexpected finding: %s", f)
	}
	if len(res.Skipped) != 0 {
		t.Errorf("skipped: %q", res.Skipped)
	}
}

func TestUnusable(t *testing.T) {
	dir := filepath.Join(root, "testdata/lint/unusable")
	for _, tc := range []struct{ file, want string }{
		{"invalid.yaml", "document 1: invalid YAML: yaml: line 6"},
		{"undecodable.yaml", `CustomResourceDefinition "widgets.example.com" cannot be decoded`},
		{"v1beta1.yaml", "apiextensions.k8s.io/v1beta1 CustomResourceDefinitions are not supported"},
		{"missing.yaml", "no such file or directory"},
	} {
		path := filepath.Join(dir, tc.file)
		_, err := Files([]string{path})
		if err == nil || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming the file and %q", tc.file, err, tc.want)
		}
	}
}

// TestDirectoriesAndDocuments: directories are searched for manifests,
// documents that are not CRDs are skipped, Lists are opened, every version
// is linted, and the findings keep input order.
func TestDirectoriesAndDocuments(t *testing.T) {
	res, err := Files([]string{filepath.Join(root, "testdata/lint/misc")})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, filepath.Base(f.Pos.Filename)+" "+f.CRD+"/"+f.Version+" "+f.Path+" "+string(f.ID))
	}
	want := []string{
		"mixed.yaml widgets.example.com/v1 spec IG013",
		"mixed.yaml widgets.example.com/v1 spec.owner IG010",
		"mixed.yaml gadgets.example.com/v1 spec IG013",
		"mixed.yaml gadgets.example.com/v1 spec.size IG011",
		"sprocket.json sprockets.example.com/v1 spec.teeth IG001",
		"sprocket.json sprockets.example.com/v1 spec.teeth IG008",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0], "document 1 (v1 Namespace) is not a CustomResourceDefinition") {
		t.Errorf("skipped: %q", res.Skipped)
	}
}

func TestJSON(t *testing.T) {
	var empty struct {
		Findings []any
		Errors   []any
	}
	b, err := Result{}.JSON()
	if err != nil || json.Unmarshal(b, &empty) != nil || empty.Findings == nil || empty.Errors == nil {
		t.Errorf("empty result: %s %v", b, err)
	}
	res := Result{
		Findings: []diag.Diagnostic{{Pos: token.Position{Filename: "f.yaml", Line: 7}, CRD: "a.b", Version: "v1", Path: "spec.x", ID: IDPresence, Severity: Warning, Message: "m", Fix: "x"}},
		Errors:   []InputError{{File: "g.yaml", Message: "g.yaml: document 1: invalid YAML"}},
	}
	b, err = res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Findings []map[string]any
		Errors   []map[string]any
		Summary  map[string]any
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"file": "f.yaml", "line": 7.0, "crd": "a.b", "version": "v1", "path": "spec.x", "id": "IG010", "severity": "warning", "message": "m", "fix": "x"}
	if len(back.Findings) != 1 || len(back.Findings[0]) != len(want)+1 {
		t.Fatalf("got %v", back.Findings)
	}
	if rules, ok := back.Findings[0]["rules"].([]any); !ok || len(rules) != 0 {
		t.Errorf("rules: got %v, want []", back.Findings[0]["rules"])
	}
	for k, v := range want {
		if back.Findings[0][k] != v {
			t.Errorf("%s: got %v, want %v", k, back.Findings[0][k], v)
		}
	}
	if len(back.Errors) != 1 || back.Errors[0]["file"] != "g.yaml" || back.Summary["warnings"] != 1.0 || back.Summary["unusable"] != 1.0 {
		t.Errorf("errors %v, summary %v", back.Errors, back.Summary)
	}
}

// TestCatalogDocumented: docs/lint.md documents every finding.
func TestCatalogDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs/lint.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[diag.ID]bool{}
	for _, c := range Catalog() {
		if seen[c.ID] {
			t.Errorf("%s twice in the catalog", c.ID)
		}
		seen[c.ID] = true
		if !bytes.Contains(doc, []byte("### "+string(c.ID))) {
			t.Errorf("docs/lint.md has no section ### %s", c.ID)
		}
	}
}

// TestKustomize: a config/crd directory as kubebuilder scaffolds it —
// kustomization.yaml, kustomizeconfig.yaml, patches that are partial CRDs
// (v1 and v1beta1), a JSON 6902 patch — lints only the whole CRD, and says
// which documents it skipped.
func TestKustomize(t *testing.T) {
	res, err := Files([]string{filepath.Join(root, "testdata/lint/kustomize")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 0 {
		t.Errorf("findings: %v", res.Findings)
	}
	if res.CRDs != 1 {
		t.Errorf("%d CRDs linted, want 1", res.CRDs)
	}
	if res.Partial != 3 {
		t.Errorf("%d partial CRDs, want 3: %q", res.Partial, res.Skipped)
	}
	for _, want := range []string{
		"kustomization.yaml: document 1 (a kustomization) is not a CustomResourceDefinition",
		`webhook_in_widgets.yaml: document 1 (apiextensions.k8s.io/v1 CustomResourceDefinition "widgets.example.com") is a partial CustomResourceDefinition, a kustomize patch: it has no spec.group, spec.names, spec.versions`,
		`webhook_in_gadgets.yaml: document 1 (apiextensions.k8s.io/v1beta1 CustomResourceDefinition "gadgets.example.com") is a partial`,
		"cainjection_in_widgets.yaml: document 1",
	} {
		if !slices.ContainsFunc(res.Skipped, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no skipped document %q in %q", want, res.Skipped)
		}
	}
}

// TestPartialCRD: which CRD documents are patches and which are CRDs the
// API server refuses.
func TestPartialCRD(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		partial    bool
	}{
		{"no spec", ``, true},
		{"conversion only", `"spec": {"conversion": {"strategy": "None"}}`, true},
		{"versions only", `"spec": {"versions": [{"name": "v1", "served": false}]}`, true},
		{"no group (a broken CRD)", `"spec": {"names": {"kind": "W", "plural": "ws"}, "scope": "Namespaced", "versions": []}`, false},
		{"no versions (a broken CRD)", `"spec": {"group": "example.com", "names": {"kind": "W", "plural": "ws"}, "scope": "Namespaced"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := `{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "ws.example.com"}`
			if tc.spec != "" {
				doc += ", " + tc.spec
			}
			doc += "}"
			res, err := Manifest("crd.json", []byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Partial == 1; got != tc.partial {
				t.Errorf("partial: %v, want %v (findings %v, skipped %q)", got, tc.partial, res.Findings, res.Skipped)
			}
			if !tc.partial && res.Count(Error) == 0 {
				t.Errorf("a broken CRD without findings")
			}
		})
	}
}

// TestDescribedOnceEnforced: a description that says "immutable once set",
// on a property with the set-once extension, is enforced (no IG014).
func TestDescribedOnceEnforced(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "testdata/lint/defects/IG014-described.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), "description: VolumeRef names the volume. This field is immutable.",
		"description: VolumeRef names the volume. It is immutable once set.\n                x-immutable-gen-immutable-once: true", 1)
	if src == string(data) {
		t.Fatal("the seeded defect changed; update this test")
	}
	res, err := Manifest("described-once.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.ID != IDKubectlApply {
			t.Errorf("unexpected finding: %s", f)
		}
	}
}
