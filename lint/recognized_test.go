package lint

import (
	"encoding/json"
	"fmt"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/celform"
	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// TestRecognizedForms: where the one CEL form (celform.Read) takes a
// version's rules, lint reasons on the recognised constraints: an object
// above a field that may not change at all keeps the field's presence, and
// an optional object whose rules are only immutability and presence rules
// is IG018 (the KEP's semantics), whoever wrote them. Each case's claim
// about the API server is checked on its validator (preflight).
func TestRecognizedForms(t *testing.T) {
	runServerCases(t, []serverCase{
		{
			name: "an ancestor compared whole keeps its fields' presence",
			spec: `{"type": "object", "properties": {"anc": {"type": "object", "properties": {"x": ` + immutableString + `},
			  "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}},
			  "x-kubernetes-validations": [{"rule": "has(self.anc) == has(oldSelf.anc)"}]}`,
			refused: [][2]string{
				{`{"anc": {"x": "a"}}`, `{"anc": {}}`},
				{`{"anc": {}}`, `{"anc": {"x": "b"}}`},
			},
		},
		{
			name: "an ancestor compared whole but optional is the hole",
			spec: `{"type": "object", "properties": {"anc": {"type": "object", "properties": {"x": ` + immutableString + `},
			  "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}`,
			want:    []string{"IG010 spec.anc"},
			refused: [][2]string{{`{"anc": {"x": "a"}}`, `{"anc": {}}`}},
			allowed: [][2]string{{`{"anc": {"x": "a"}}`, `{}`}, {`{}`, `{"anc": {"x": "b"}}`}},
		},
		{
			name: "an optional object holding only immutability and presence rules is IG018 (written by hand)",
			spec: `{"type": "object", "properties": {"bar": {"type": "object", "properties": {"x": ` + immutableString + `, "y": ` + immutableString + `},
			  "x-kubernetes-validations": [{"rule": "has(self.x) == has(oldSelf.x)"}, {"rule": "has(self.y) == has(oldSelf.y)"}]}}}`,
			want:    []string{"IG018 spec.bar"},
			refused: [][2]string{{`{"bar": {"x": "a"}}`, `{"bar": {}}`}, {`{"bar": {"x": "a"}}`, `{"bar": {"x": "b"}}`}},
			allowed: [][2]string{{`{"bar": {"x": "a"}}`, `{}`}, {`{}`, `{"bar": {"x": "b"}}`}},
		},
		{
			name: "an optional object holding a rule that is not immutability is IG013",
			spec: `{"type": "object", "properties": {"bar": {"type": "object", "properties": {"x": ` + immutableString + `, "n": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf"}]}},
			  "required": ["n"], "x-kubernetes-validations": [{"rule": "has(self.x) == has(oldSelf.x)"}]}}}`,
			want:    []string{"IG013 spec.bar"},
			allowed: [][2]string{{`{"bar": {"n": 5}}`, `{}`}, {`{}`, `{"bar": {"n": 1}}`}},
		},
	})
}

// immutableString is a string property whose rule fixes it.
const immutableString = `{"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}`

// TestDeeperPresenceRule: removing an optional object goes around the
// rules below it only where it takes their field's value with it; a
// presence rule over the deeper path, `(has(self.p) && has(self.p.f)) ==
// (has(oldSelf.p) && has(oldSelf.p.f))`, refuses exactly that, so p is
// no way around f's rule (issue 31: reported before).
func TestDeeperPresenceRule(t *testing.T) {
	deep := `{"type": "object", "properties": {"p": {"type": "object", "properties": {"f": ` + immutableString + `, "g": {"type": "string", "maxLength": 10}}}},
	  "x-kubernetes-validations": [{"rule": %q}]}`
	runServerCases(t, []serverCase{
		{
			name:    "the deeper path's presence kept",
			spec:    fmt.Sprintf(deep, "(has(self.p) && has(self.p.f)) == (has(oldSelf.p) && has(oldSelf.p.f))"),
			refused: [][2]string{{`{"p": {"f": "a"}}`, `{}`}, {`{}`, `{"p": {"f": "b"}}`}, {`{"p": {"f": "a"}}`, `{"p": {}}`}},
			allowed: [][2]string{{`{"p": {"g": "a"}}`, `{}`}},
		},
		{
			name:    "only the removal of the deeper path refused",
			spec:    fmt.Sprintf(deep, "!(has(oldSelf.p) && has(oldSelf.p.f)) || (has(self.p) && has(self.p.f))"),
			want:    []string{"IG011 spec.p.f"},
			refused: [][2]string{{`{"p": {"f": "a"}}`, `{}`}, {`{"p": {"f": "a"}}`, `{"p": {}}`}},
			allowed: [][2]string{{`{}`, `{"p": {"f": "b"}}`}},
		},
		{
			name:    "the object's presence alone is not the field's",
			spec:    fmt.Sprintf(deep, "has(self.p) == has(oldSelf.p)"),
			want:    []string{"IG010 spec.p.f"},
			allowed: [][2]string{{`{"p": {"f": "a"}}`, `{"p": {}}`}},
		},
	})
}

// TestDiscriminator: an immutable, defaulted discriminator reads the same
// in the old and the new object, so a rule that makes a field's presence
// follow it keeps the field present (Crossplane's managementPolicy and
// resource, reported on 19 kinds before); a mutable one does not.
func TestDiscriminator(t *testing.T) {
	disc := `{"type": "object", "properties": {
	  "managementPolicy": {"type": "string", "default": "managed", "enum": ["managed", "unmanaged"]%s},
	  "resource": {"type": "object", "required": ["id"], "properties": {"id": ` + immutableString + `}}},
	  "x-kubernetes-validations": [{"rule": "self.managementPolicy == 'managed' ? has(self.resource) : !has(self.resource)"}]}`
	runServerCases(t, []serverCase{
		{
			name: "immutable and defaulted",
			spec: fmt.Sprintf(disc, `, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]`),
			refused: [][2]string{
				{`{"resource": {"id": "a"}}`, `{}`},
				{`{"managementPolicy": "managed", "resource": {"id": "a"}}`, `{"managementPolicy": "unmanaged"}`},
				{`{"managementPolicy": "unmanaged"}`, `{"managementPolicy": "unmanaged", "resource": {"id": "b"}}`},
			},
		},
		{
			// ORC: one rule per value of a two-valued enum.
			name: "immutable and defaulted, a rule for each of its two values",
			spec: strings.Replace(fmt.Sprintf(disc, `, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]`),
				`[{"rule": "self.managementPolicy == 'managed' ? has(self.resource) : !has(self.resource)"}]`,
				`[{"rule": "self.managementPolicy == 'managed' ? has(self.resource) : true"}, {"rule": "self.managementPolicy == 'unmanaged' ? !has(self.resource) : true"}]`, 1),
			refused: [][2]string{
				{`{"resource": {"id": "a"}}`, `{}`},
				{`{"managementPolicy": "unmanaged"}`, `{"managementPolicy": "unmanaged", "resource": {"id": "b"}}`},
			},
		},
		{
			name:    "mutable",
			spec:    fmt.Sprintf(disc, ``),
			want:    []string{"IG018 spec.resource"},
			allowed: [][2]string{{`{"managementPolicy": "managed", "resource": {"id": "a"}}`, `{"managementPolicy": "unmanaged"}`}, {`{"managementPolicy": "unmanaged"}`, `{"managementPolicy": "managed", "resource": {"id": "b"}}`}},
		},
	})
}

// serverCase is a CRD's spec schema, lint's findings on it, and the
// updates the API server's validator refuses and allows that show them
// right.
type serverCase struct {
	name string
	// spec is the schema of spec (JSON; spec is required).
	spec string
	want []string
	// refused are updates of spec (old, new) the API server refuses:
	// the ways around that lint does not report.
	refused [][2]string
	// allowed are updates it accepts: the ways around that lint does
	// report.
	allowed [][2]string
}

func runServerCases(t *testing.T, cases []serverCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			manifest := crdOfSpec(t, tc.spec)
			got := findings(t, manifest)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			c, err := preflight.NewChecker([]preflight.CRD{{Source: "test", Raw: []byte(manifest)}})
			if err != nil {
				t.Fatal(err)
			}
			for _, u := range tc.refused {
				if serverAllows(t, c, u) {
					t.Errorf("the API server allows %s → %s, which the case says it refuses", u[0], u[1])
				}
			}
			for _, u := range tc.allowed {
				if !serverAllows(t, c, u) {
					t.Errorf("the API server refuses %s → %s, which the case says it allows", u[0], u[1])
				}
			}
		})
	}
}

// TestGeneratedOptionalObject: the generator's own CEL output for an
// optional object holding immutable fields (the markers lowered by
// celform.Lower) is IG018, the KEP's semantics, not a warning.
func TestGeneratedOptionalObject(t *testing.T) {
	carrier := func(line int, f form.Form) []any {
		pos := token.Position{Filename: "types.go", Line: line, Column: 2}
		o := schema.Origin{Pos: pos, DeclPos: pos, Type: "v1.Bar", Field: "X", JSONName: "x"}.WithForm(f)
		return []any{map[string]any{"rule": o.Carrier()}}
	}
	for _, k := range form.Kinds() {
		if !k.Places.Properties || k.Change == form.NoKeyChange {
			continue
		}
		t.Run(k.Name, func(t *testing.T) {
			f := form.Form{Presence: k.Presence, Change: k.Change}
			leaf := func(line int) map[string]any {
				return map[string]any{"type": "string", "maxLength": 10, "x-kubernetes-validations": carrier(line, f)}
			}
			spec := map[string]any{"type": "object", "properties": map[string]any{
				"bar": map[string]any{"type": "object", "properties": map[string]any{"x": leaf(1), "y": leaf(2)}},
			}}
			var raw map[string]any
			if err := json.Unmarshal(mustJSON(t, map[string]any{"type": "object", "required": []any{"spec"}, "properties": map[string]any{"spec": spec}}), &raw); err != nil {
				t.Fatal(err)
			}
			model, err := schema.Build(raw)
			if err != nil {
				t.Fatal(err)
			}
			if res := celform.Lower(model); len(res.Inexpressible) > 0 {
				t.Fatal(res.Inexpressible[0].Reason)
			}
			specJSON := mustJSON(t, raw["properties"].(map[string]any)["spec"])
			got := findings(t, crdOfSpec(t, string(specJSON)))
			for _, g := range got {
				if g == "IG013 spec.bar" {
					t.Errorf("the generator's output for %s gets %s; want IG018 (info)", k.Name, g)
				}
			}
			want := []string{"IG018 spec.bar"}
			if k.Name == "noModify" {
				// Fixed while present, removable on purpose: its rules say
				// nothing of presence.
				want = nil
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// crdOfSpec is a CRD whose required spec has the given schema (JSON).
func crdOfSpec(t *testing.T, spec string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(spec), &v); err != nil {
		t.Fatalf("spec %s: %v", spec, err)
	}
	return fmt.Sprintf(`{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "properties": {
   "spec": %s}}}}]}}`, spec)
}

// serverAllows reports whether the API server's validator allows the update
// of spec from u[0] to u[1].
func serverAllows(t *testing.T, c *preflight.Checker, u [2]string) bool {
	t.Helper()
	obj := func(spec string) map[string]any {
		var s map[string]any
		if err := json.Unmarshal([]byte(spec), &s); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": s}
	}
	res, err := c.Update(obj(u[1]), obj(u[0]))
	if err != nil {
		t.Fatal(err)
	}
	return res.Allowed()
}
