package runtime_test

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/immutable-gen/immutable-gen/runtime/immutable"
)

// TestValidateUpdateAt checks the fldPath convention: every path starts with
// the caller's prefix, rendered as field.Path renders it, and a nil prefix is
// ValidateUpdate.
func TestValidateUpdateAt(t *testing.T) {
	c := widget(t)
	cases := []struct {
		name     string
		old, new string
		fldPath  *field.Path
		want     []string
	}{
		{name: "nil prefix is the object root", fldPath: nil,
			old: `{name: a, args: [a, b]}`, new: `{name: b, args: [a, x]}`,
			want: []string{
				`spec.args[1]: Invalid value: "x": field is immutable`,
				`spec.name: Invalid value: "b": field is immutable`,
			}},
		{name: "child prefix", fldPath: field.NewPath("spec").Child("template"),
			old: `{name: a, args: [a, b]}`, new: `{name: b, args: [a, x]}`,
			want: []string{
				`spec.template.spec.args[1]: Invalid value: "x": field is immutable`,
				`spec.template.spec.name: Invalid value: "b": field is immutable`,
			}},
		{name: "index prefix", fldPath: field.NewPath("items").Index(3),
			old: `{ports: [{name: a, protocol: TCP, port: 1}, {name: b, protocol: TCP, port: 2}]}`,
			new: `{ports: [{name: a, protocol: TCP, port: 1}, {name: b, protocol: TCP, port: 3}]}`,
			want: []string{
				`items[3].spec.ports[1]: Invalid value: {"name":"b","port":3,"protocol":"TCP"}: field is immutable`,
			}},
		{name: "key prefix", fldPath: field.NewPath("widgets").Key("w1"),
			old: `{labels: {a: x}, selectors: {a: b}, mounts: {m: {source: s}}}`,
			new: `{labels: {b: x}, selectors: {a: z}, mounts: {m: {source: t}}}`,
			want: []string{
				`widgets[w1].spec.labels: Forbidden: key "a" may not be removed: keys are immutable`,
				`widgets[w1].spec.labels: Forbidden: key "b" may not be added: keys are immutable`,
				`widgets[w1].spec.mounts[m].source: Invalid value: "t": field is immutable`,
				`widgets[w1].spec.selectors[a]: Invalid value: "z": field is immutable`,
			}},
		{name: "presence below a prefix", fldPath: field.NewPath("spec", "template"),
			old: `{opt: {note: a}}`, new: `{opt: {x: a, note: a}}`,
			want: []string{
				`spec.template.spec.opt.x: Forbidden: field "x" is immutable and may not be added`,
			}},
		{name: "unchanged below a prefix", fldPath: field.NewPath("spec", "template"),
			old: `{name: a}`, new: `{name: a}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldObj := object(t, "kind: Widget\n"+specOf(tc.old))
			newObj := object(t, "kind: Widget\n"+specOf(tc.new))
			errs := c.ValidateUpdateAt(newObj, oldObj, tc.fldPath)
			checkMessages(t, errs, tc.want)
			// field.Error has an origin from apimachinery v0.34 on.
			wantOrigin := ""
			if _, ok := reflect.TypeOf(field.Error{}).FieldByName("Origin"); ok {
				wantOrigin = "immutable"
			}
			for _, e := range errs {
				if got := immutable.OriginOf(e); got != wantOrigin {
					t.Errorf("%s: origin %q, want %q", e.Field, got, wantOrigin)
				}
			}
		})
	}
}

// TestValidateUpdateIsAtNil checks that ValidateUpdate is ValidateUpdateAt
// with a nil fldPath, error for error, including a violation of the root
// itself, whose path is "" without a prefix and the prefix with one.
func TestValidateUpdateIsAtNil(t *testing.T) {
	c := widget(t)
	oldObj := object(t, "kind: Widget\nspec: {name: a, labels: {a: x}, args: [a, b], opt: {x: a}}")
	newObj := object(t, "kind: Widget\nspec: {name: b, labels: {b: x}, args: [x], opt: {}}")
	got, want := c.ValidateUpdate(newObj, oldObj), c.ValidateUpdateAt(newObj, oldObj, nil)
	if len(want) == 0 {
		t.Fatal("no violation: the case checks nothing")
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ValidateUpdate = %v, ValidateUpdateAt(nil) = %v", got, want)
	}

	root := compileYAML(t, `
type: object
x-kubernetes-immutable: true
properties:
  a: {type: string}`)
	o, n := map[string]interface{}{"a": "x"}, map[string]interface{}{"a": "y"}
	checkMessages(t, root.ValidateUpdate(n, o), []string{`: Invalid value: {"a":"y"}: field is immutable`})
	checkMessages(t, root.ValidateUpdateAt(n, o, nil), []string{`: Invalid value: {"a":"y"}: field is immutable`})
	checkMessages(t, root.ValidateUpdateAt(n, o, field.NewPath("spec", "template")),
		[]string{`spec.template: Invalid value: {"a":"y"}: field is immutable`})
}

// TestValidateUpdateAtNoAllocation checks that a prefix costs nothing when
// nothing changed: paths are built only for a violation.
func TestValidateUpdateAtNoAllocation(t *testing.T) {
	c := database(t)
	oldObj, newObj := realisticPair(t)
	prefix := field.NewPath("spec", "template")
	if errs := c.ValidateUpdateAt(newObj, oldObj, prefix); len(errs) != 0 {
		t.Fatalf("unchanged object: %v", errs)
	}
	if n := testing.AllocsPerRun(100, func() { c.ValidateUpdateAt(newObj, oldObj, prefix) }); n != 0 {
		t.Errorf("ValidateUpdateAt allocates %v times per unchanged update, want 0", n)
	}
}

// TestEmptyPropertyNamePath pins how a property named "" renders: as
// field.Path renders it ("spec[]"), like every other path.
func TestEmptyPropertyNamePath(t *testing.T) {
	c := compileYAML(t, `
type: object
properties:
  spec:
    type: object
    properties:
      "":
        type: string
        x-kubernetes-immutable: true`)
	o := map[string]interface{}{"spec": map[string]interface{}{"": "a"}}
	n := map[string]interface{}{"spec": map[string]interface{}{"": "b"}}
	checkMessages(t, c.ValidateUpdate(n, o), []string{`spec[]: Invalid value: "b": field is immutable`})
}
