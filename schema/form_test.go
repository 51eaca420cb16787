package schema_test

import (
	"encoding/json"
	"go/token"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// TestEveryFormLowered: both emitters implement every form of the form
// table (runtime/form): for each form, on an optional property and (where
// the table allows it) on map values, the CEL rules EmitCEL writes, run by
// the API server's own validator, and the extensions EmitExtensions writes,
// run by the runtime, give the verdicts the table's Presence and Change
// rules say on each kind of update. A form an emitter drops, or lowers to
// other verdicts, fails here.
func TestEveryFormLowered(t *testing.T) {
	type transition struct {
		name     string
		old, new string // the node's JSON, "" for absent
		refused  func(form.Form) bool
	}
	never := func(form.Form) bool { return false }
	transitions := []transition{
		{"set later", "", `{"a":"1"}`, func(f form.Form) bool { return f.Presence&form.NoSet != 0 }},
		{"removed", `{"a":"1"}`, "", func(f form.Form) bool { return f.Presence&form.NoUnset != 0 }},
		{"a value changed", `{"a":"1"}`, `{"a":"2"}`, func(f form.Form) bool { return f.Change == form.NoChange }},
		{"a key added", `{"a":"1"}`, `{"a":"1","b":"2"}`, func(f form.Form) bool { return f.Change != form.AnyChange }},
		{"a key removed", `{"a":"1","b":"2"}`, `{"a":"1"}`, func(f form.Form) bool { return f.Change != form.AnyChange }},
		{"unchanged", `{"a":"1"}`, `{"a":"1"}`, never},
		{"absent in both", "", "", never},
	}
	strMap := func() map[string]any {
		return map[string]any{"type": "object", "maxProperties": 8, "additionalProperties": map[string]any{"type": "string", "maxLength": 16}}
	}
	for i, k := range form.Kinds() {
		f := form.Form{Presence: k.Presence, Change: k.Change}
		pos := token.Position{Filename: "types.go", Line: 10 + i, Column: 2}
		carrier := func() []any {
			o := schema.Origin{Pos: pos, DeclPos: pos, Type: "x.T", Field: "M", JSONName: "m"}.WithForm(f)
			return []any{map[string]any{"rule": o.Carrier()}}
		}
		check := func(t *testing.T, raw map[string]any, wrap func(string) string, f form.Form, elements bool) {
			c, ok := compileBoth(t, raw, 0)
			if !ok {
				t.Fatalf("the API server's cost estimate refused the rules of %s", k.Name)
			}
			for _, tr := range transitions {
				if elements && (tr.old == "" || tr.new == "") {
					continue
				}
				old, obj := objectOf(t, wrap(tr.old)), objectOf(t, wrap(tr.new))
				want := tr.refused(f)
				if rt := c.checker.ValidateUpdate(obj, old); (len(rt) > 0) != want {
					t.Errorf("extensions, %s: refused %v (%v), the table says %v", tr.name, len(rt) > 0, rt, want)
				}
				if ce := c.validateCEL(obj, old); (len(ce) > 0) != want {
					t.Errorf("CEL, %s: refused %v (%v), the table says %v\nschema: %s", tr.name, len(ce) > 0, ce, want, js(c.celSchema))
				}
			}
		}
		t.Run(k.Name+"/property", func(t *testing.T) {
			m := strMap()
			m["x-kubernetes-validations"] = carrier()
			raw := map[string]any{"type": "object", "properties": map[string]any{
				"spec": map[string]any{"type": "object", "properties": map[string]any{"m": m}},
			}}
			check(t, raw, func(v string) string {
				if v == "" {
					return `{"spec":{}}`
				}
				return `{"spec":{"m":` + v + `}}`
			}, f, false)
		})
		if !k.Places.Elements {
			continue
		}
		t.Run(k.Name+"/values", func(t *testing.T) {
			v := strMap()
			v["x-kubernetes-validations"] = carrier()
			raw := map[string]any{"type": "object", "properties": map[string]any{
				"spec": map[string]any{"type": "object", "properties": map[string]any{
					"m": map[string]any{"type": "object", "maxProperties": 8, "additionalProperties": v},
				}},
			}}
			check(t, raw, func(v string) string { return `{"spec":{"m":{"v":` + v + `}}}` }, f.Canonical(true), true)
		})
	}
}

// objectOf decodes an object's JSON.
func objectOf(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}
