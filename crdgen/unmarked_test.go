package crdgen

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/lint"
)

// TestUnmarkedNotValidated checks the decision of docs/semantics.md (rule
// 7): a CRD without markers is controller-gen's CRD and is written without
// the API server's CRD validation, so a rule the server would refuse gives
// no diagnostic — and `immutable-gen lint` on the written CRD reports it.
func TestUnmarkedNotValidated(t *testing.T) {
	mod := writeCases(t, []ruleCase{{name: "unmarked", types: `type Spec struct {
	// +kubebuilder:validation:XValidation:rule="self.size() >",message="broken"
	Name string ` + "`json:\"name\"`" + `
}` + kind}})
	crds, lines, ok := generateCases(t, mod)
	if !ok || len(crds) != 1 {
		t.Fatalf("run failed or generated %d CRDs:\n%s", len(crds), strings.Join(lines, "\n"))
	}
	if len(lines) != 0 {
		t.Errorf("diagnostics on a CRD without markers:\n%s", strings.Join(lines, "\n"))
	}
	data, err := yaml.Marshal(crds[groupOf(0)])
	if err != nil {
		t.Fatal(err)
	}
	res, err := lint.Manifest("kinds.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Text(); !strings.Contains(text, "spec.name") || !strings.Contains(text, "compilation failed") {
		t.Errorf("lint on the written CRD does not report the rule the API server refuses:\n%s", text)
	}
}
