package lint

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
)

// TestSetLaterFix: where the CRD says a field is filled in after creation
// — a providerID, a description naming the controller that sets it, a
// field under status — IG010's fix keeps it once set first
// (placement.FilledLater; docs/lint.md, "Set-once first"); elsewhere the
// strict presence rule stays first. Applied (ApplyFix), the fixes let a
// controller set those fields after creation, on the API server's
// validator (preflight), and refuse their removal.
func TestSetLaterFix(t *testing.T) {
	file := filepath.Join("..", "testdata", "lint", "setlater", "machines.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Manifest(file, data)
	if err != nil {
		t.Fatal(err)
	}
	wantFix := map[string]string{
		"spec.providerID":     "add the rule `!has(oldSelf.providerID) || has(self.providerID)` to the x-kubernetes-validations of spec (providerID may then be set after creation, never removed — a provider fills a providerID in once the machine exists;",
		"spec.nodeName":       "add the rule `!has(oldSelf.nodeName) || has(self.nodeName)` to the x-kubernetes-validations of spec (nodeName may then be set after creation, never removed — its description says who fills it in;",
		"spec.failureDomain":  "add the rule `has(self.failureDomain) == has(oldSelf.failureDomain)` to the x-kubernetes-validations of spec (`!has(oldSelf.failureDomain) || has(self.failureDomain)` if failureDomain may be set after creation)",
		"status.bootstrapRef": "add the rule `!has(oldSelf.bootstrapRef) || has(self.bootstrapRef)` to the x-kubernetes-validations of status (bootstrapRef may then be set after creation, never removed — a controller adds it in a status write;",
	}
	var crd map[string]any
	if err := sigsyaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, f := range res.Findings {
		want, ok := wantFix[f.Path]
		if !ok || f.ID != IDPresence {
			t.Errorf("unexpected finding %s", Format(f))
			continue
		}
		seen[f.Path] = true
		if !strings.HasPrefix(f.Fix, want) {
			t.Errorf("%s: fix %q, want it to open with %q", f.Path, f.Fix, want)
		}
		if !ApplyFix(crd, f) {
			t.Errorf("%s: the fix does not apply: %s", f.Path, f.Fix)
		}
	}
	for path := range wantFix {
		if !seen[path] {
			t.Errorf("no IG010 at %s", path)
		}
	}

	// The fixed CRD on the API server's validator: the main resource, and
	// the same CRD without the status subresource to write status as a
	// controller does through it (an update that changes only status).
	raw, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	main, err := preflight.NewChecker([]preflight.CRD{{Source: file, Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	versions := crd["spec"].(map[string]any)["versions"].([]any)
	delete(versions[0].(map[string]any), "subresources")
	raw, err = json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	statusWriter, err := preflight.NewChecker([]preflight.CRD{{Source: file, Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	object := func(spec, status string) map[string]any {
		doc := `{"apiVersion": "example.com/v1", "kind": "Machine", "metadata": {"name": "m", "namespace": "default"}, "spec": ` + spec
		if status != "" {
			doc += `, "status": ` + status
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(doc+"}"), &obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}
	created := object(`{"clusterName": "c"}`, "")
	if r, err := main.Create(created); err != nil || !r.Allowed() {
		t.Fatalf("create: %v %v", r.Errors, err)
	}
	for _, tc := range []struct {
		name     string
		checker  *preflight.Checker
		old, new map[string]any
		allowed  bool
	}{
		{"the provider sets providerID after creation", main, created, object(`{"clusterName": "c", "providerID": "aws:///i-1"}`, ""), true},
		{"providerID is never removed", main, object(`{"clusterName": "c", "providerID": "aws:///i-1"}`, ""), created, false},
		{"providerID never changes", main, object(`{"clusterName": "c", "providerID": "aws:///i-1"}`, ""), object(`{"clusterName": "c", "providerID": "aws:///i-2"}`, ""), false},
		{"the controller sets nodeName after creation", main, created, object(`{"clusterName": "c", "nodeName": "n"}`, ""), true},
		{"failureDomain is fixed at creation", main, created, object(`{"clusterName": "c", "failureDomain": "a"}`, ""), false},
		{"the first status write", statusWriter, created, object(`{"clusterName": "c"}`, `{"phase": "Pending"}`), true},
		{"a later status write adds bootstrapRef", statusWriter, object(`{"clusterName": "c"}`, `{"phase": "Pending"}`), object(`{"clusterName": "c"}`, `{"phase": "Running", "bootstrapRef": "b"}`), true},
		{"bootstrapRef is never removed", statusWriter, object(`{"clusterName": "c"}`, `{"phase": "Running", "bootstrapRef": "b"}`), object(`{"clusterName": "c"}`, `{"phase": "Running"}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tc.checker.Update(tc.new, tc.old)
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed() != tc.allowed {
				t.Errorf("allowed %v, want %v: %v", r.Allowed(), tc.allowed, r.Errors)
			}
		})
	}
}
