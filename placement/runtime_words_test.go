package placement

import (
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// TestRuntimeSaysWhatPlacementSays: the placement rules that runtime.Compile
// checks again on a schema it is given are worded once (runtime/extension):
// on the same schema, read as a manifest, the runtime's error carries
// placement's message and fix word for word.
func TestRuntimeSaysWhatPlacementSays(t *testing.T) {
	spec1 := func(prop string) string {
		return `{"type": "object", "properties": {"spec": {"type": "object", "properties": {"f": ` + prop + `}}}}`
	}
	cases := []struct {
		name, schema string
		rule         Rule
	}{
		{"keys on a struct", spec1(`{"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-immutable-keys": true}`), RuleNoKeys},
		{"keys on a set", spec1(`{"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}, "x-kubernetes-immutable-keys": true}`), RuleNoKeys},
		{"keys on an atomic list", spec1(`{"type": "array", "items": {"type": "string"}, "x-kubernetes-immutable-keys": true}`), RuleNoKeys},
		{"keys on a string", spec1(`{"type": "string", "x-kubernetes-immutable-keys": true}`), RuleNoKeys},
		{"keys on an integer", spec1(`{"type": "integer", "x-kubernetes-immutable-keys": true}`), RuleNoKeys},
		{"once on list items", spec1(`{"type": "array", "items": {"type": "string", "x-immutable-gen-immutable-once": true}}`), RuleOnceProperty},
		{"once on map values", spec1(`{"type": "object", "additionalProperties": {"type": "string", "x-immutable-gen-immutable-once": true}}`), RuleOnceProperty},
		{"no-modify on list items", spec1(`{"type": "array", "items": {"type": "string", "x-immutable-gen-no-modify": true}}`), RuleOnceProperty},
		{"no-set on map values", spec1(`{"type": "object", "additionalProperties": {"type": "string", "x-immutable-gen-no-set": true}}`), RuleOnceProperty},
		{"no-unset on list items", spec1(`{"type": "array", "items": {"type": "object", "x-immutable-gen-no-unset": true}}`), RuleOnceProperty},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var raw map[string]any
			if err := json.Unmarshal([]byte(tc.schema), &raw); err != nil {
				t.Fatal(err)
			}
			findings := Findings(schema.FromExtensions(raw))
			if len(findings) != 1 || findings[0].Rule != tc.rule {
				t.Fatalf("placement: %+v, want one finding of rule %d", findings, tc.rule)
			}
			var s spec.Schema
			if err := json.Unmarshal([]byte(tc.schema), &s); err != nil {
				t.Fatal(err)
			}
			_, err := runtime.Compile(&s)
			if err == nil {
				t.Fatal("runtime.Compile accepted it")
			}
			// The runtime names the node by its schema path, placement by
			// its object path; the rest is the same words.
			msg := strings.Replace(findings[0].Message, " (spec.f[*])", "", 1)
			if want := msg + "; " + findings[0].Fix; !strings.Contains(err.Error(), want) {
				t.Errorf("runtime:   %v\nplacement: %s", err, want)
			}
		})
	}
}

// TestElementsAsTheTableSays: on list items and map values, placement
// refuses exactly the forms the form table keeps off them (Places.Elements
// false), one finding per extension of the form, and runtime.Compile
// refuses them too; the forms the table allows there are not refused.
func TestElementsAsTheTableSays(t *testing.T) {
	for _, k := range form.Kinds() {
		if k.Places.KeyedOnly {
			continue // keys need a map value that is a map: RuleNoKeys's cases
		}
		for _, where := range []string{"items", "additionalProperties"} {
			value := map[string]any{"type": "string"}
			for _, e := range k.Extensions {
				value[e] = true
			}
			container := map[string]any{"type": "object", where: value}
			if where == "items" {
				container["type"] = "array"
			}
			raw := map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{"f": container}}}}
			b, _ := json.Marshal(raw)
			var s spec.Schema
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			_, compileErr := runtime.Compile(&s)
			refused := 0
			for _, f := range Findings(schema.FromExtensions(raw)) {
				if f.Rule == RuleOnceProperty {
					refused++
				}
			}
			want := 0
			if !k.Places.Elements {
				want = len(k.Extensions)
			}
			if refused != want || (compileErr != nil) != (want > 0) {
				t.Errorf("%s on %s: %d findings (want %d), runtime: %v", k.Name, where, refused, want, compileErr)
			}
		}
	}
}
