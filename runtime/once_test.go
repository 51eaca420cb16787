package runtime_test

import (
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// onceSchema has immutable-once properties of each shape: a scalar, a
// struct, a set, a required scalar, a list map whose items hold one, and
// one nested under an optional parent.
const onceSchema = `
type: object
properties:
  spec:
    type: object
    required: [id]
    properties:
      id: {type: string, x-immutable-gen-immutable-once: true}
      volume: {type: string, x-immutable-gen-immutable-once: true}
      endpoint:
        type: object
        x-immutable-gen-immutable-once: true
        properties:
          host: {type: string}
          port: {type: integer}
      zones:
        type: array
        x-kubernetes-list-type: set
        x-immutable-gen-immutable-once: true
        items: {type: string}
      ports:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          properties:
            name: {type: string}
            nodePort: {type: integer, x-immutable-gen-immutable-once: true}
      opt:
        type: object
        properties:
          ref: {type: string, x-immutable-gen-immutable-once: true}
`

// TestOnceRules has one case per rule of +immutable=once (docs/semantics.md 2.3):
// if present in old, present in new and equal; if absent in old, anything
// goes; nothing below is compared on its own.
func TestOnceRules(t *testing.T) {
	c := compileYAML(t, onceSchema)
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "set when absent", old: `{id: a}`, new: `{id: a, volume: v1}`},
		{name: "stays absent", old: `{id: a}`, new: `{id: a}`},
		{name: "unchanged once set", old: `{id: a, volume: v1}`, new: `{id: a, volume: v1}`},
		{name: "changed once set", old: `{id: a, volume: v1}`, new: `{id: a, volume: v2}`,
			want: []string{`spec.volume: Invalid value: "v2": field is immutable`}},
		{name: "removed once set", old: `{id: a, volume: v1}`, new: `{id: a}`,
			want: []string{`spec.volume: Forbidden: field "volume" is immutable once set and may not be removed`}},
		{name: "null once set may not become a value", old: `{id: a, volume: null}`, new: `{id: a, volume: v}`,
			want: []string{`spec.volume: Invalid value: "v": field is immutable`}},
		{name: "struct set when absent", old: `{id: a}`, new: `{id: a, endpoint: {host: h}}`},
		{name: "struct field added inside once set", old: `{id: a, endpoint: {host: h}}`, new: `{id: a, endpoint: {host: h, port: 1}}`,
			want: []string{`spec.endpoint: Invalid value: {"host":"h","port":1}: field is immutable`}},
		{name: "empty struct counts as set", old: `{id: a, endpoint: {}}`, new: `{id: a, endpoint: {host: h}}`,
			want: []string{`spec.endpoint: Invalid value: {"host":"h"}: field is immutable`}},
		{name: "set permuted once set", old: `{id: a, zones: [p, q]}`, new: `{id: a, zones: [q, p]}`},
		{name: "set item added once set", old: `{id: a, zones: [x]}`, new: `{id: a, zones: [x, q]}`,
			want: []string{`spec.zones: Invalid value: ["x","q"]: field is immutable`}},
		{name: "set given when absent", old: `{id: a}`, new: `{id: a, zones: [x, y]}`},
		{name: "required once set is immutable", old: `{id: a}`, new: `{id: b}`,
			want: []string{`spec.id: Invalid value: "b": field is immutable`}},
		{name: "list map item field set later", old: `{id: a, ports: [{name: http}]}`, new: `{id: a, ports: [{name: http, nodePort: 30080}]}`},
		{name: "list map item field changed", old: `{id: a, ports: [{name: http, nodePort: 1}]}`, new: `{id: a, ports: [{name: http, nodePort: 2}]}`,
			want: []string{`spec.ports[0].nodePort: Invalid value: 2: field is immutable`}},
		{name: "list map item removed with its once field", old: `{id: a, ports: [{name: http, nodePort: 1}]}`, new: `{id: a, ports: []}`},
		{name: "optional parent removed", old: `{id: a, opt: {ref: r}}`, new: `{id: a}`},
		{name: "optional parent added", old: `{id: a}`, new: `{id: a, opt: {ref: r}}`},
		{name: "under present parent removed", old: `{id: a, opt: {ref: r}}`, new: `{id: a, opt: {}}`,
			want: []string{`spec.opt.ref: Forbidden: field "ref" is immutable once set and may not be removed`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkMessages(t, c.ValidateUpdate(object(t, "spec: "+tc.new), object(t, "spec: "+tc.old)), tc.want)
		})
	}
}

// TestOnceCompileErrors: the extension is a boolean true on a property.
func TestOnceCompileErrors(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"on list items", `{type: object, properties: {l: {type: array, items: {type: string, x-immutable-gen-immutable-once: true}}}}`,
			`properties[l].items: x-immutable-gen-immutable-once is not allowed on list items`},
		{"on map values", `{type: object, properties: {m: {type: object, additionalProperties: {type: string, x-immutable-gen-immutable-once: true}}}}`,
			`properties[m].additionalProperties: x-immutable-gen-immutable-once is not allowed on map values`},
		{"on list items through a ref", `{type: object, definitions: {S: {type: string, x-immutable-gen-immutable-once: true}}, properties: {l: {type: array, items: {$ref: "#/definitions/S"}}}}`,
			`properties[l].items: x-immutable-gen-immutable-once is not allowed on list items`},
		{"not true", `{type: object, properties: {s: {type: string, x-immutable-gen-immutable-once: "true"}}}`,
			`x-immutable-gen-immutable-once must be the boolean true`},
		{"misspelled case", `{type: object, properties: {s: {type: string, X-Immutable-Gen-Immutable-Once: true}}}`,
			`the extension is spelled x-immutable-gen-immutable-once`},
		{"inside anyOf", `{type: object, properties: {s: {anyOf: [{type: string, x-immutable-gen-immutable-once: true}]}}}`,
			`x-immutable-gen-immutable-once has no effect inside anyOf`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.Compile(schemaFromYAML(t, tc.schema))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
