package crdgen

import (
	"strings"
	"testing"
)

// TestNoForcedAPIChanges: the generator never asks for a bound inside a
// type declared outside the user's module (k8s.io/api); where the KEP's
// strict order would need one there, +immutable:ignoreOrder makes the rule
// self == oldSelf, which fits as a hand-written rule does. A bound it does
// suggest on the user's own type says what a bound costs.
func TestNoForcedAPIChanges(t *testing.T) {
	cases := []ruleCase{{
		name: "pod template and claims in a list, order ignored",
		types: `type ClaimTemplate struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
	// +immutable
	// +immutable:ignoreOrder
	Claim corev1.PersistentVolumeClaim ` + "`json:\"claim\"`" + `
}
type Spec struct {
	// +optional
	// +immutable
	// +immutable:ignoreOrder
	Template *corev1.PodTemplateSpec ` + "`json:\"template,omitempty\"`" + `
	// +optional
	// +listType=map
	// +listMapKey=name
	ClaimTemplates []ClaimTemplate ` + "`json:\"claimTemplates,omitempty\"`" + `
}` + kind,
	}, {
		name: "a bound on the user's own type says what it costs",
		types: `type Route struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
	// +optional
	// +listType=map
	// +listMapKey=name
	Rules []Rule ` + "`json:\"rules,omitempty\"`" + `
}
type Rule struct {
	// +kubebuilder:validation:MaxLength=63
	Name string ` + "`json:\"name\"`" + `
}
type Spec struct {
	// +optional
	// +listType=map
	// +listMapKey=name
	// +immutable
	Routes []Route ` + "`json:\"routes,omitempty\"`" + `
}` + kind,
		diags: []string{`error\[IG\d+\]: \+immutable .*spec.routes\): the CEL rules for this marker put the CRD over the API server's CEL cost budget.*fix: add \+kubebuilder:validation:MaxItems=64 on spec.routes.*; a bound refuses every update of an object stored with more than it allows, so check the stored objects first; if the bounds are only there for the order of the list maps under the marker, \+immutable:ignoreOrder needs none; or generate with crd:immutability=extensions`},
	}}
	dir := writeCases(t, cases)
	_, lines, _ := generateCasesWith(t, dir, Generator{})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := caseLines(lines, i)
			checkDiags(t, got, c.diags)
			for _, g := range got {
				if strings.Contains(g, "k8s.io/api") && strings.Contains(g, "+kubebuilder:validation:Max") {
					t.Errorf("a bound asked for inside k8s.io/api: %s", g)
				}
			}
		})
	}
}
