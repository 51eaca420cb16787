package crdvalidation

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestErrorTextIsOneReadableLine: API server errors become one line with no
// dumped values and no CEL source excerpts.
func TestErrorTextIsOneReadableLine(t *testing.T) {
	type version struct {
		Name   string
		Schema map[string]any
	}
	huge := []version{{Name: "v1", Schema: map[string]any{"x": strings.Repeat("y", 100_000)}}, {Name: "v2"}}
	cases := []struct {
		name string
		err  *field.Error
		want string
	}{
		{"a struct value is not dumped", field.Invalid(field.NewPath("spec", "versions"), huge, "must have exactly one version marked as storage version"),
			"Invalid value: must have exactly one version marked as storage version"},
		{"a short scalar is kept", field.Invalid(field.NewPath("spec", "scope"), "Galaxy", "must be Cluster or Namespaced"),
			`Invalid value "Galaxy": must be Cluster or Namespaced`},
		{"CEL excerpts are dropped", field.Invalid(field.NewPath("rule"), map[string]any{"Rule": "self.x"}, "compilation failed: ERROR: <input>:1:5: undefined field 'x'\n | self.x\n | ....^"),
			"Invalid value: compilation failed: ERROR: <input>:1:5: undefined field 'x'"},
		{"forbidden", field.Forbidden(field.NewPath("spec"), "cost exceeds budget"), "Forbidden: cost exceeds budget"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := errorText(tc.err)
			if got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
