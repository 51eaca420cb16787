package placement_test

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/lint"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/preflight"
)

// presenceAPI is the test API of the presence-hole fixes.
const presenceAPI = "testdata/apis/presence/v1"

// TestPresenceFixes checks the one fix for a presence hole
// (placement.PresenceFix) as the generator and lint give it, and that
// following either leaves the life of an object working on the API
// server's own strategy and validation (package preflight): a create
// (which drops status: the status subresource is on), the first status
// write, and an allowed update of spec — while removing spec or status is
// refused. The fixes the generator and lint no longer give (+required and
// `has(self.status) == has(oldSelf.status)` at status) are checked to break
// a create or the first status write.
func TestPresenceFixes(t *testing.T) {
	diags, files := generate(t, crdgen.Generator{}, presenceAPI)
	crds := map[string]map[string]any{}
	for _, kind := range []string{"opens", "closeds", "kepts"} {
		data := files["presence.example.com_"+kind+".yaml"]
		if data == nil {
			t.Fatalf("no CRD for %s among %v", kind, keys(files))
		}
		var crd map[string]any
		if err := yaml.Unmarshal(data, &crd); err != nil {
			t.Fatal(err)
		}
		crds[kind] = crd
	}

	// The generator: one finding per hole, at Open only; the options the
	// owner gives, in Go markers.
	generated := map[string]string{} // path → fix
	for _, d := range diags {
		if d.ID != placement.IDOptionalAncestor {
			continue
		}
		if d.CRD != "opens.presence.example.com" {
			t.Errorf("a presence finding on a closed hole: %s", d)
		}
		generated[strings.SplitN(d.Path, ".", 2)[0]] = d.Fix
	}
	// lint on the same CRD: the same options, for a manifest.
	linted := map[string]string{}
	for _, f := range lintCRD(t, crds["opens"]) {
		if f.ID == lint.IDOptionalAncestor || f.ID == lint.IDPresence {
			linted[f.Path] = f.Fix
		}
	}
	for _, tc := range []struct {
		name, path string
		want       map[string][]string // generator or lint → phrases of the fix
		not        []string
	}{
		{"spec: required, or its presence kept", "spec", map[string][]string{
			"generator": {"// +required", "// +k8s:update=NoSet and // +k8s:update=NoUnset", "NoUnset alone if spec may be set after creation"},
			"lint":      {"has(self.spec) == has(oldSelf.spec)", "!has(oldSelf.spec) || has(self.spec)` if spec may be set after creation", "make spec required"},
		}, nil},
		{"status: kept once set, never required nor fixed at creation", "status", map[string][]string{
			"generator": {"add // +k8s:update=NoUnset to the field \"status\""},
			"lint":      {"add the rule `!has(oldSelf.status) || has(self.status)` to the x-kubernetes-validations of the root schema"},
		}, []string{"or // +required", "or make status required", "add the rule `has(self.status) == has(oldSelf.status)`", "required: [status]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for who, fix := range map[string]string{"generator": generated[tc.path], "lint": linted[tc.path]} {
				if fix == "" {
					t.Errorf("%s gives no fix at %s", who, tc.path)
				}
				for _, want := range tc.want[who] {
					if !strings.Contains(fix, want) {
						t.Errorf("%s's fix at %s lacks %q: %s", who, tc.path, want, fix)
					}
				}
				for _, not := range tc.not {
					if strings.Contains(fix, not) {
						t.Errorf("%s's fix at %s offers %q: %s", who, tc.path, not, fix)
					}
				}
			}
		})
	}

	// Following the fixes: the generator's (Closed, Kept), lint's (Open
	// with the rules lint adds), and the wrong ones.
	fixedByLint := clone(t, crds["opens"])
	for _, f := range lintCRD(t, fixedByLint) {
		if f.ID == lint.IDOptionalAncestor && !lint.ApplyFix(fixedByLint, f) {
			t.Fatalf("lint's fix does not apply: %s", lint.Format(f))
		}
	}
	requiredStatus := clone(t, crds["opens"])
	rootSchema(requiredStatus)["required"] = []any{"status"}
	strictStatus := clone(t, crds["opens"])
	rootSchema(strictStatus)["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.status) == has(oldSelf.status)"}}
	for _, tc := range []struct {
		name, kind string
		crd        map[string]any
		// refused is the step the server refuses, "" for none.
		refused string
		closed  bool // removing spec or status is refused
	}{
		{"the generator's fixes: +required spec, +k8s:update=NoUnset status", "Closed", crds["closeds"], "", true},
		{"the generator's other fix: spec's presence kept", "Kept", crds["kepts"], "", true},
		{"lint's fixes, applied", "Open", fixedByLint, "", true},
		{"no fix: the holes are open", "Open", crds["opens"], "", false},
		{"required status: every create fails", "Open", requiredStatus, "create", false},
		{"status's presence fixed at creation: the first status write fails", "Open", strictStatus, "status write", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refused, closed := lifecycle(t, tc.crd, tc.kind)
			if refused != tc.refused {
				t.Errorf("refused step %q, want %q", refused, tc.refused)
			}
			if tc.refused == "" && closed != tc.closed {
				t.Errorf("removing spec or status refused: %v, want %v", closed, tc.closed)
			}
			if tc.closed {
				for _, f := range lintCRD(t, tc.crd) {
					if f.ID == lint.IDOptionalAncestor || f.ID == lint.IDPresence {
						t.Errorf("lint still finds a hole: %s", lint.Format(f))
					}
				}
			}
		})
	}
}

// lifecycle runs an object of kind through the server's strategy for crd:
// a create with a status (which the server drops), the first status write,
// an update of spec.size; it returns the first step refused ("" for none)
// and whether removing status (a status write) and spec (an update) are
// both refused.
func lifecycle(t *testing.T, crd map[string]any, kind string) (refused string, closed bool) {
	t.Helper()
	main := checker(t, crd)
	// The status subresource's strategy validates the whole object with
	// the new status and the old rest (the API server's statusStrategy):
	// an update of the same CRD without the subresource, where only status
	// changes.
	noStatus := clone(t, crd)
	for _, v := range noStatus["spec"].(map[string]any)["versions"].([]any) {
		delete(v.(map[string]any), "subresources")
	}
	status := checker(t, noStatus)

	object := func(spec, st map[string]any) map[string]any {
		o := map[string]any{
			"apiVersion": "presence.example.com/v1",
			"kind":       kind,
			"metadata":   map[string]any{"name": "one", "namespace": "default"},
		}
		if spec != nil {
			o["spec"] = spec
		}
		if st != nil {
			o["status"] = st
		}
		return o
	}
	spec := map[string]any{"class": "gold", "size": 1}
	st := map[string]any{"id": "a1", "phase": "Running"}
	allowed := func(step string, res preflight.Result, err error) bool {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if !res.Allowed() && refused == "" {
			refused = step
			t.Logf("%s refused: %v", step, res.Errors)
		}
		return res.Allowed()
	}
	res, err := main.Create(object(spec, st))
	if !allowed("create", res, err) {
		return refused, false
	}
	created := object(spec, nil)
	withStatus := object(spec, st)
	res, err = status.Update(withStatus, created)
	if !allowed("status write", res, err) {
		return refused, false
	}
	res, err = main.Update(object(map[string]any{"class": "gold", "size": 2}, st), withStatus)
	if !allowed("update", res, err) {
		return refused, false
	}
	noSpec, err := main.Update(object(nil, st), withStatus)
	if err != nil {
		t.Fatal(err)
	}
	statusRemoved, err := status.Update(created, withStatus)
	if err != nil {
		t.Fatal(err)
	}
	return "", !noSpec.Allowed() && !statusRemoved.Allowed()
}

func checker(t *testing.T, crd map[string]any) *preflight.Checker {
	t.Helper()
	raw, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	c, err := preflight.NewChecker([]preflight.CRD{{Source: "test", Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lintCRD lints one CRD and returns its findings.
func lintCRD(t *testing.T, crd map[string]any) []diag.Diagnostic {
	t.Helper()
	data, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Manifest("crd.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return res.Findings
}

// rootSchema is the openAPIV3Schema of the CRD's only version.
func rootSchema(crd map[string]any) map[string]any {
	v := crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	return v["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
}

func clone(t *testing.T, crd map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
