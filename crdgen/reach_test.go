package crdgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOtherKinds: a marker on a type shared with a kind of another package
// notes, at the marker and once per run, each such kind and path
// (LeaderWorkerSet's SubGroupPolicy, used by DisaggregatedSet); kinds of
// the marker's own package are not named.
func TestOtherKinds(t *testing.T) {
	dir := writeCases(t, []ruleCase{{
		name: "the kind owning the shared type",
		types: `// SubGroupPolicy is shared.
type SubGroupPolicy struct {
	// +immutable
	SubGroupSize int32 ` + "`json:\"subGroupSize\"`" + `
}
type Spec struct {
	// +optional
	SubGroupPolicy *SubGroupPolicy ` + "`json:\"subGroupPolicy,omitempty\"`" + `
}` + kind,
	}})
	other := filepath.Join(dir, "disagg")
	must(t, os.MkdirAll(other, 0o755))
	must(t, os.WriteFile(filepath.Join(other, "doc.go"), []byte("// Package v1 uses a type of caa.\n// +groupName=disagg.example.com\npackage v1\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(other, "types.go"), []byte(`package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	lws "example.com/rules/caa"
)

type Role struct {
	Name string `+"`json:\"name\"`"+`
	// +optional
	SubGroupPolicy *lws.SubGroupPolicy `+"`json:\"subGroupPolicy,omitempty\"`"+`
}

type DisaggregatedSetSpec struct {
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Roles []Role `+"`json:\"roles,omitempty\"`"+`
}

// +kubebuilder:object:root=true
type DisaggregatedSet struct {
	metav1.TypeMeta   `+"`json:\",inline\"`"+`
	metav1.ObjectMeta `+"`json:\"metadata,omitempty\"`"+`
	Spec DisaggregatedSetSpec `+"`json:\"spec,omitempty\"`"+`
}
`), 0o644))
	_, lines, _ := generateCases(t, dir)
	var notes []string
	for _, l := range lines {
		if strings.Contains(l, "reaches kinds declared elsewhere") {
			notes = append(notes, l)
		}
	}
	if len(notes) != 1 {
		t.Fatalf("%d notes about other kinds, want 1:\n%s", len(notes), strings.Join(lines, "\n"))
	}
	n := notes[0]
	for _, want := range []string{"/caa/types.go:7:", "info[IG034]: +immutable on field SubGroupPolicy.SubGroupSize in package example.com/rules/caa", "DisaggregatedSet (disagg.example.com/v1, package example.com/rules/disagg) at spec.roles[*].subGroupPolicy.subGroupSize"} {
		if !strings.Contains(n, want) {
			t.Errorf("the note lacks %q: %s", want, n)
		}
	}
	if strings.Contains(n, "Kind (") {
		t.Errorf("the note names the marker's own kind: %s", n)
	}
}
