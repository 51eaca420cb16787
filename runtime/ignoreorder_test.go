package runtime_test

import (
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// ignoreOrderSchema has x-immutable-gen-ignore-order beside each form that
// compares a value whole: an immutable list map, a set-once list map, a
// struct holding list maps (one inside the items of another, one inside a
// map), and, through a $ref, a definition with the extension; and an
// immutable list map without it, which keeps the KEP's order.
const ignoreOrderSchema = `
type: object
definitions:
  Deps:
    type: array
    x-kubernetes-list-type: map
    x-kubernetes-list-map-keys: [name]
    x-kubernetes-immutable: true
    x-immutable-gen-ignore-order: true
    items:
      type: object
      properties:
        name: {type: string}
        status: {type: string}
properties:
  spec:
    type: object
    properties:
      deps:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        x-kubernetes-immutable: true
        x-immutable-gen-ignore-order: true
        items:
          type: object
          properties:
            name: {type: string}
            status: {type: string}
      onceDeps:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        x-immutable-gen-immutable-once: true
        x-immutable-gen-ignore-order: true
        items:
          type: object
          properties:
            name: {type: string}
      jobs:
        type: object
        x-kubernetes-immutable: true
        x-immutable-gen-ignore-order: true
        properties:
          list:
            type: array
            x-kubernetes-list-type: map
            x-kubernetes-list-map-keys: [name]
            items:
              type: object
              properties:
                name: {type: string}
                dependsOn:
                  type: array
                  x-kubernetes-list-type: map
                  x-kubernetes-list-map-keys: [name]
                  items:
                    type: object
                    properties:
                      name: {type: string}
                args: {type: array, items: {type: string}}
          byName:
            type: object
            additionalProperties:
              type: array
              x-kubernetes-list-type: map
              x-kubernetes-list-map-keys: [k]
              items: {type: object, properties: {k: {type: string}, v: {type: integer}}}
      ref:
        $ref: "#/definitions/Deps"
      ordered:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        x-kubernetes-immutable: true
        items:
          type: object
          properties:
            name: {type: string}
`

// TestIgnoreOrder: with x-immutable-gen-ignore-order, list maps in the
// value compare by key, their order ignored; every other change is still
// refused, and atomic lists inside keep their order.
func TestIgnoreOrder(t *testing.T) {
	c := compileYAML(t, ignoreOrderSchema)
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{name: "reordered", old: `{deps: [{name: a}, {name: b, status: x}]}`, new: `{deps: [{name: b, status: x}, {name: a}]}`},
		{name: "item changed after reorder", old: `{deps: [{name: a}, {name: b, status: x}]}`, new: `{deps: [{name: b, status: z}, {name: a}]}`,
			want: []string{`spec.deps: Invalid value: [{"name":"b","status":"z"},{"name":"a"}]: field is immutable`}},
		{name: "item added", old: `{deps: [{name: a}]}`, new: `{deps: [{name: a}, {name: b}]}`,
			want: []string{`spec.deps: Invalid value: [{"name":"a"},{"name":"b"}]: field is immutable`}},
		{name: "item replaced by another key", old: `{deps: [{name: a}, {name: b}]}`, new: `{deps: [{name: a}, {name: c}]}`,
			want: []string{`spec.deps: Invalid value: [{"name":"a"},{"name":"c"}]: field is immutable`}},
		{name: "once reordered", old: `{onceDeps: [{name: a}, {name: b}]}`, new: `{onceDeps: [{name: b}, {name: a}]}`},
		{name: "once set later", old: `{}`, new: `{onceDeps: [{name: b}, {name: a}]}`},
		{name: "once removed", old: `{onceDeps: [{name: a}]}`, new: `{}`,
			want: []string{`spec.onceDeps: Forbidden: field "onceDeps" is immutable once set and may not be removed`}},
		{name: "nested list maps reordered", old: `{jobs: {list: [{name: a, dependsOn: [{name: x}, {name: y}]}, {name: b}]}}`,
			new: `{jobs: {list: [{name: b}, {name: a, dependsOn: [{name: y}, {name: x}]}]}}`},
		{name: "atomic list inside keeps its order", old: `{jobs: {list: [{name: a, args: [p, q]}]}}`, new: `{jobs: {list: [{name: a, args: [q, p]}]}}`,
			want: []string{`spec.jobs: Invalid value: {"list":[{"args":["q","p"],"name":"a"}]}: field is immutable`}},
		{name: "list map in map values reordered", old: `{jobs: {byName: {m: [{k: a, v: 1}, {k: b, v: 2}]}}}`, new: `{jobs: {byName: {m: [{k: b, v: 2}, {k: a, v: 1}]}}}`},
		{name: "list map in map values changed", old: `{jobs: {byName: {m: [{k: a, v: 1}]}}}`, new: `{jobs: {byName: {m: [{k: a, v: 2}]}}}`,
			want: []string{`spec.jobs: Invalid value: {"byName":{"m":[{"k":"a","v":2}]}}: field is immutable`}},
		{name: "through a ref reordered", old: `{ref: [{name: a}, {name: b}]}`, new: `{ref: [{name: b}, {name: a}]}`},
		{name: "without the extension the order counts", old: `{ordered: [{name: a}, {name: b}]}`, new: `{ordered: [{name: b}, {name: a}]}`,
			want: []string{`spec.ordered: Invalid value: [{"name":"b"},{"name":"a"}]: field is immutable`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkMessages(t, c.ValidateUpdate(object(t, "spec: "+tc.new), object(t, "spec: "+tc.old)), tc.want)
		})
	}
}

// TestIgnoreOrderCompileErrors: the extension is the boolean true, beside
// a form that compares the value whole.
func TestIgnoreOrderCompileErrors(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"alone", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string}}}, x-immutable-gen-ignore-order: true}}}`,
			`properties[l]: x-immutable-gen-ignore-order has no effect without x-kubernetes-immutable or x-immutable-gen-immutable-once`},
		{"beside keys", `{type: object, properties: {l: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [k], items: {type: object, properties: {k: {type: string, x-kubernetes-immutable: true}}}, x-kubernetes-immutable-keys: true, x-immutable-gen-ignore-order: true}}}`,
			`x-immutable-gen-ignore-order has no effect without`},
		{"not true", `{type: object, properties: {s: {type: string, x-kubernetes-immutable: true, x-immutable-gen-ignore-order: "true"}}}`,
			`x-immutable-gen-ignore-order must be the boolean true`},
		{"inside allOf", `{type: object, properties: {s: {type: string, allOf: [{x-immutable-gen-ignore-order: true}]}}}`,
			`x-immutable-gen-ignore-order has no effect inside allOf`},
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
