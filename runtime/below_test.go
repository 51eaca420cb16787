package runtime_test

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestValidateUpdateBelow: a Checker for a value below the kind's root
// (Field) checks what is marked there as the kind's Checker does, with
// paths under the caller's prefix, and evaluates its conditions on the
// kind's whole objects that ValidateUpdateBelow is given: the verdicts of
// the kind's Checker on the whole objects, every one.
func TestValidateUpdateBelow(t *testing.T) {
	kind := compileYAML(t, whenSchema)
	specChecker, err := kind.Field("spec")
	if err != nil {
		t.Fatal(err)
	}
	const reserved = `status: {conditions: [{type: QuotaReserved, status: "True"}]}`
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "condition true on the kind's objects", old: "spec: {queue: a}\n" + reserved, new: "spec: {queue: b}\n" + reserved,
			want: []string{`spec.queue: Invalid value: "b": field is immutable`}},
		{name: "condition false on the kind's objects", old: "spec: {queue: a}", new: "spec: {queue: b}"},
		{name: "condition reads self.spec", old: "spec: {template: {image: a}}", new: "spec: {template: {image: b}}",
			want: []string{`spec.template: Invalid value: {"image":"b"}: field is immutable`}},
		{name: "suspended", old: "spec: {suspend: true, template: {image: a}}", new: "spec: {suspend: true, template: {image: b}}"},
		{name: "condition fails on the kind's objects", old: "spec: {labels: {a: x}}", new: "spec: {labels: {a: x, b: y}}",
			want: []string{`spec: Invalid value: "object": no such key: status evaluating the condition of the immutability of spec.labels (x-immutable-gen-when: oldSelf.status.phase == 'Admitted')`}},
		{name: "unconditional", old: "spec: {owner: a}", new: "spec: {owner: b}",
			want: []string{`spec.owner: Invalid value: "b": field is immutable`}},
		{name: "unchanged", old: "spec: {owner: a, queue: a}\n" + reserved, new: "spec: {owner: a, queue: a}\n" + reserved},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj, old := object(t, tc.new), object(t, tc.old)
			spec, oldSpec := obj["spec"].(map[string]interface{}), old["spec"].(map[string]interface{})
			got := specChecker.ValidateUpdateBelow(spec, oldSpec, field.NewPath("spec"), obj, old)
			checkMessages(t, got, tc.want)
			// The kind's Checker on the whole objects finds the same
			// violations below spec (a condition's failure at its own
			// root).
			var whole []string
			for _, m := range messages(kind.ValidateUpdate(obj, old)) {
				whole = append(whole, strings.Replace(m, `: Invalid value: "object": no such key`, `spec: Invalid value: "object": no such key`, 1))
			}
			checkMessages(t, got, whole)
		})
	}
}

// TestFieldWithoutRoots: where a condition must be evaluated and the
// kind's objects were not given (ValidateUpdateAt on a Checker that Field
// made), the update is refused with an internal error that names the
// method to call; where no condition is needed the check is as usual.
func TestFieldWithoutRoots(t *testing.T) {
	kind := compileYAML(t, whenSchema)
	spec, err := kind.Field("spec")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "conditional field changed", old: "{queue: a}", new: "{queue: b}",
			want: []string{`spec: Internal error: the condition of the immutability of spec.queue (x-immutable-gen-when: has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')) reads the kind's whole objects, which were not given: a Checker that (*Checker).Field made checks conditions in ValidateUpdateBelow`}},
		{name: "conditional field unchanged", old: "{queue: a, owner: a}", new: "{queue: a, owner: a}"},
		{name: "unconditional field changed", old: "{owner: a}", new: "{owner: b}",
			want: []string{`spec.owner: Invalid value: "b": field is immutable`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := spec.ValidateUpdateAt(object(t, tc.new), object(t, tc.old), field.NewPath("spec"))
			checkMessages(t, got, tc.want)
		})
	}
}

// TestField: the path names properties of the schema, from the root or
// from another Checker that Field made.
func TestField(t *testing.T) {
	kind := compileYAML(t, whenSchema)
	cases := []struct {
		name string
		path []string
		want string // error, "" for none
	}{
		{name: "property", path: []string{"spec"}},
		{name: "nested", path: []string{"spec", "template"}},
		{name: "unknown", path: []string{"spec", "nope"}, want: `runtime: Field: spec has no property "nope"`},
		{name: "unknown at the root", path: []string{"nope"}, want: `runtime: Field: the root has no property "nope"`},
		{name: "inside a list", path: []string{"status", "conditions", "type"}, want: `runtime: Field: status.conditions has no property "type"`},
		{name: "empty", want: `runtime: Field: no path`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := kind.Field(tc.path...)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Field(%q): %v", tc.path, err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("Field(%q) = %v, want %s", tc.path, err, tc.want)
			}
		})
	}
	spec, _ := kind.Field("spec")
	if _, err := spec.Field("nope"); err == nil || err.Error() != `runtime: Field: spec has no property "nope"` {
		t.Fatalf("spec.Field(nope) = %v", err)
	}
	tmpl, err := spec.Field("template")
	if err != nil {
		t.Fatal(err)
	}
	// The template is conditional itself: the condition reads the kind's
	// objects.
	obj, old := object(t, "spec: {template: {image: b}}"), object(t, "spec: {template: {image: a}}")
	got := tmpl.ValidateUpdateBelow(obj["spec"].(map[string]interface{})["template"].(map[string]interface{}), old["spec"].(map[string]interface{})["template"].(map[string]interface{}), field.NewPath("spec", "template"), obj, old)
	checkMessages(t, got, []string{`spec.template: Invalid value: {"image":"b"}: field is immutable`})
	obj, old = object(t, "spec: {suspend: true, template: {image: b}}"), object(t, "spec: {suspend: true, template: {image: a}}")
	got = tmpl.ValidateUpdateBelow(obj["spec"].(map[string]interface{})["template"].(map[string]interface{}), old["spec"].(map[string]interface{})["template"].(map[string]interface{}), field.NewPath("spec", "template"), obj, old)
	checkMessages(t, got, nil)
}
