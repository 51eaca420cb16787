package runtime_test

import (
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// TestNoModify: x-immutable-gen-no-modify (validation-gen's
// +k8s:update=NoModify alone, Kueue's clusterName): fixed while present in
// the old and the new object; it may be set, cleared and set again.
func TestNoModify(t *testing.T) {
	c := compileYAML(t, `
type: object
properties:
  status:
    type: object
    properties:
      clusterName: {type: string, x-immutable-gen-no-modify: true}
      placement:
        type: object
        x-immutable-gen-no-modify: true
        properties:
          zones: {type: array, items: {type: string}}
`)
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "set", old: `{}`, new: `{clusterName: a}`},
		{name: "unchanged", old: `{clusterName: a}`, new: `{clusterName: a}`},
		{name: "cleared", old: `{clusterName: a}`, new: `{}`},
		{name: "changed", old: `{clusterName: a}`, new: `{clusterName: b}`,
			want: []string{`status.clusterName: Invalid value: "b": field is immutable`}},
		{name: "struct changed inside", old: `{placement: {zones: [a]}}`, new: `{placement: {zones: [a, b]}}`,
			want: []string{`status.placement: Invalid value: {"zones":["a","b"]}: field is immutable`}},
		{name: "struct cleared and set", old: `{}`, new: `{placement: {zones: [b]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkMessages(t, c.ValidateUpdate(object(t, "status: "+tc.new), object(t, "status: "+tc.old)), tc.want)
		})
	}
	_, err := runtime.Compile(schemaFromYAML(t, `{type: object, properties: {l: {type: array, items: {type: string, x-immutable-gen-no-modify: true}}}}`))
	if err == nil || !strings.Contains(err.Error(), "properties[l].items: x-immutable-gen-no-modify is not allowed on list items") {
		t.Errorf("on list items: %v", err)
	}
}

// TestNoSetNoUnset: x-immutable-gen-no-set and x-immutable-gen-no-unset
// (validation-gen's +k8s:update=NoSet, =NoUnset where no other form says
// the same, k8s.io/api's Job scheduling): presence only, alone or with
// x-immutable-gen-no-modify; marks below are still checked.
func TestNoSetNoUnset(t *testing.T) {
	c := compileYAML(t, `
type: object
properties:
  spec:
    type: object
    properties:
      scheduling:
        type: object
        x-immutable-gen-no-set: true
        x-immutable-gen-no-unset: true
        properties:
          policy: {type: string}
          name: {type: string, x-kubernetes-immutable: true}
      late: {type: string, x-immutable-gen-no-set: true}
      kept: {type: string, x-immutable-gen-no-unset: true}
      pinned: {type: string, x-immutable-gen-no-set: true, x-immutable-gen-no-modify: true}
`)
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "value inside changes", old: `{scheduling: {policy: a}}`, new: `{scheduling: {policy: b}}`},
		{name: "mark inside holds", old: `{scheduling: {name: a}}`, new: `{scheduling: {name: b}}`,
			want: []string{`spec.scheduling.name: Invalid value: "b": field is immutable`}},
		{name: "added", old: `{}`, new: `{scheduling: {}}`,
			want: []string{`spec.scheduling: Forbidden: field "scheduling" is immutable and may not be added`}},
		{name: "removed", old: `{scheduling: {}}`, new: `{}`,
			want: []string{`spec.scheduling: Forbidden: field "scheduling" is immutable and may not be removed`}},
		{name: "NoSet: removed", old: `{late: a}`, new: `{}`},
		{name: "NoSet: changed", old: `{late: a}`, new: `{late: b}`},
		{name: "NoSet: added", old: `{}`, new: `{late: a}`,
			want: []string{`spec.late: Forbidden: field "late" is immutable and may not be added`}},
		{name: "NoUnset: added", old: `{}`, new: `{kept: a}`},
		{name: "NoUnset: removed", old: `{kept: a}`, new: `{}`,
			want: []string{`spec.kept: Forbidden: field "kept" is immutable once set and may not be removed`}},
		{name: "NoSet,NoModify: changed", old: `{pinned: a}`, new: `{pinned: b}`,
			want: []string{`spec.pinned: Invalid value: "b": field is immutable`}},
		{name: "NoSet,NoModify: removed", old: `{pinned: a}`, new: `{}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkMessages(t, c.ValidateUpdate(object(t, "spec: "+tc.new), object(t, "spec: "+tc.old)), tc.want)
		})
	}
}
