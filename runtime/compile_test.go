package runtime_test

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
)

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string // substrings of the error, in order
	}{
		{"string true", `
properties:
  spec:
    properties:
      a: {type: string, x-kubernetes-immutable: "true"}`,
			[]string{`properties[spec].properties[a]: x-kubernetes-immutable must be the boolean true, not the string "true"`}},
		{"false", `
properties:
  a: {type: string, x-kubernetes-immutable: false}`,
			[]string{`properties[a]: x-kubernetes-immutable must be the boolean true, not false`}},
		{"number", `
properties:
  a: {type: object, additionalProperties: {type: string}, x-kubernetes-immutable-keys: 1}`,
			[]string{`properties[a]: x-kubernetes-immutable-keys must be the boolean true, not 1`}},
		{"keys on a struct", `
properties:
  a: {type: object, properties: {b: {type: string}}, x-kubernetes-immutable-keys: true}`,
			[]string{`properties[a]: x-kubernetes-immutable-keys is not allowed on a struct`}},
		{"keys on a set", `
properties:
  a: {type: array, x-kubernetes-list-type: set, items: {type: string}, x-kubernetes-immutable-keys: true}`,
			[]string{`properties[a]: x-kubernetes-immutable-keys is not allowed on a set`}},
		{"keys on an atomic list", `
properties:
  a: {type: array, items: {type: string}, x-kubernetes-immutable-keys: true}`,
			[]string{`properties[a]: x-kubernetes-immutable-keys is not allowed on an atomic list`}},
		{"keys on a scalar", `
properties:
  a: {type: string, x-kubernetes-immutable-keys: true}`,
			[]string{`properties[a]: x-kubernetes-immutable-keys is not allowed on a string value`}},
		{"list map without keys", `
properties:
  a: {type: array, x-kubernetes-list-type: map, items: {type: object}}`,
			[]string{`properties[a]: x-kubernetes-list-type map requires a non-empty x-kubernetes-list-map-keys`}},
		{"unknown list type", `
properties:
  a: {type: array, x-kubernetes-list-type: bag, items: {type: string}}`,
			[]string{`properties[a]: x-kubernetes-list-type must be one of ["atomic" "set" "map"], not the string "bag"`}},
		{"misspelled case", `
properties:
  a: {type: string, X-Kubernetes-Immutable: true}`,
			[]string{`properties[a]: unknown extension X-Kubernetes-Immutable: the extension is spelled x-kubernetes-immutable`}},
		{"inside allOf", `
properties:
  a:
    type: object
    properties: {b: {type: string}}
    allOf:
    - properties: {b: {x-kubernetes-immutable: true}}`,
			[]string{`properties[a].allOf[0].properties[b]: x-kubernetes-immutable has no effect inside allOf`}},
		{"inside anyOf", `
properties:
  a:
    anyOf:
    - {type: string, x-kubernetes-immutable: true}
    - {type: integer}`,
			[]string{`properties[a].anyOf[0]: x-kubernetes-immutable has no effect inside anyOf`}},
		{"unresolved ref", `
properties:
  a: {$ref: "#/definitions/Missing"}`,
			[]string{`properties[a]: cannot resolve $ref "#/definitions/Missing"`}},
		{"all errors reported", `
properties:
  a: {type: string, x-kubernetes-immutable: "true"}
  b: {type: string, x-kubernetes-immutable-keys: true}`,
			[]string{`properties[a]: x-kubernetes-immutable must be the boolean true`, `properties[b]: x-kubernetes-immutable-keys is not allowed on a string value`}},
		{"root", `
type: object
x-kubernetes-immutable: yes please`,
			[]string{`<root>: x-kubernetes-immutable must be the boolean true, not the string "yes please"`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runtime.Compile(schemaFromYAML(t, tc.schema))
			if err == nil {
				t.Fatalf("Compile succeeded, want an error containing %q", tc.want)
			}
			msg := err.Error()
			rest := msg
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("error %q does not contain %q (in order)", msg, w)
				}
				rest = rest[i+len(w):]
			}
			var se *runtime.SchemaError
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *runtime.SchemaError", err)
			}
		})
	}
}

func TestCompileNil(t *testing.T) {
	if _, err := runtime.Compile(nil); err == nil {
		t.Error("Compile(nil) succeeded")
	}
	var c *runtime.Checker
	if errs := c.ValidateUpdate(map[string]interface{}{}, map[string]interface{}{}); errs != nil {
		t.Errorf("nil Checker: %v", errs)
	}
}

// TestCompileDoesNotModify checks that Compile only reads its schema.
func TestCompileDoesNotModify(t *testing.T) {
	s := schemaFromYAML(t, `
properties:
  a: {type: string, x-kubernetes-immutable: true}
  m: {type: object, x-kubernetes-immutable-keys: true, additionalProperties: {type: string}}`)
	before, _ := s.MarshalJSON()
	if _, err := runtime.Compile(s); err != nil {
		t.Fatal(err)
	}
	after, _ := s.MarshalJSON()
	if string(before) != string(after) {
		t.Errorf("Compile modified the schema:\n%s\n%s", before, after)
	}
}

func TestBothExtensionsImmutableWins(t *testing.T) {
	c := compileYAML(t, `
properties:
  m: {type: object, x-kubernetes-immutable: true, x-kubernetes-immutable-keys: true, additionalProperties: {type: string}}`)
	checkMessages(t, c.ValidateUpdate(object(t, `m: {a: "2"}`), object(t, `m: {a: "1"}`)),
		[]string{`m: Invalid value: {"a":"2"}: field is immutable`})
}

func TestRootImmutable(t *testing.T) {
	c := compileYAML(t, `
type: object
x-kubernetes-immutable: true
properties:
  a: {type: string}`)
	checkMessages(t, c.ValidateUpdate(object(t, `a: x`), object(t, `a: x`)), nil)
	checkMessages(t, c.ValidateUpdate(object(t, `a: w`), object(t, `a: x`)),
		[]string{`: Invalid value: {"a":"w"}: field is immutable`})
}

func TestRootMap(t *testing.T) {
	c := compileYAML(t, `
type: object
x-kubernetes-immutable-keys: true
additionalProperties: {type: string, x-kubernetes-immutable: true}`)
	checkMessages(t, c.ValidateUpdate(object(t, `{a: w, c: z}`), object(t, `{a: x, b: z}`)), []string{
		`: Forbidden: key "b" may not be removed: keys are immutable`,
		`: Forbidden: key "c" may not be added: keys are immutable`,
		`[a]: Invalid value: "w": field is immutable`,
	})
}

// TestRefs covers $ref resolution: definitions, flags next to a $ref and on
// the definition, the allOf wrapping of kube-openapi v3, and recursion.
func TestRefs(t *testing.T) {
	c := compileYAML(t, `
type: object
definitions:
  Port:
    type: object
    x-kubernetes-immutable: true
    properties: {port: {type: integer}}
  Node:
    type: object
    properties:
      id: {type: string, x-kubernetes-immutable: true}
      children: {type: array, items: {$ref: "#/definitions/Node"}}
  Labels:
    type: object
    additionalProperties: {type: string}
properties:
  port: {$ref: "#/definitions/Port"}
  labels: {$ref: "#/definitions/Labels", x-kubernetes-immutable-keys: true}
  wrapped:
    allOf: [{$ref: "#/definitions/Labels"}]
    default: {}
    x-kubernetes-immutable: true
  tree: {$ref: "#/definitions/Node"}`)
	checkMessages(t, c.ValidateUpdate(
		object(t, `{port: {port: 2}, labels: {b: x}, wrapped: {a: b}, tree: {id: r, children: [{id: a, children: [{id: z}]}]}}`),
		object(t, `{port: {port: 1}, labels: {a: x}, wrapped: {a: a}, tree: {id: r, children: [{id: a, children: [{id: b}]}]}}`)),
		[]string{
			`labels: Forbidden: key "a" may not be removed: keys are immutable`,
			`labels: Forbidden: key "b" may not be added: keys are immutable`,
			`port: Invalid value: {"port":2}: field is immutable`,
			`tree.children[0].children[0].id: Invalid value: "z": field is immutable`,
			`wrapped: Invalid value: {"a":"b"}: field is immutable`,
		})
}

func TestRefCycleWithoutSchema(t *testing.T) {
	_, err := runtime.Compile(schemaFromYAML(t, `
definitions:
  A: {$ref: "#/definitions/B"}
  B: {$ref: "#/definitions/A"}
properties:
  a: {$ref: "#/definitions/A", x-kubernetes-immutable: true}`))
	if err == nil || !strings.Contains(err.Error(), "circular $ref") {
		t.Errorf("got %v, want a circular $ref error", err)
	}
}

func TestCompileWithDefinitions(t *testing.T) {
	defs := spec.Definitions{
		"io.example.v1.Spec": *spec.MapProperty(spec.StringProperty()),
	}
	s := &spec.Schema{SchemaProps: spec.SchemaProps{Properties: map[string]spec.Schema{
		"spec": {
			SchemaProps:      spec.SchemaProps{Ref: spec.MustCreateRef("#/components/schemas/io.example.v1.Spec")},
			VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{runtime.ExtImmutableKeys: true}},
		},
	}}}
	c, err := runtime.CompileWithDefinitions(s, defs)
	if err != nil {
		t.Fatal(err)
	}
	checkMessages(t, c.ValidateUpdate(object(t, `spec: {b: x}`), object(t, `spec: {a: x}`)), []string{
		`spec: Forbidden: key "a" may not be removed: keys are immutable`,
		`spec: Forbidden: key "b" may not be added: keys are immutable`,
	})
}

// TestDeepSchema checks that a deeply nested literal schema does not crash
// Compile.
func TestDeepSchema(t *testing.T) {
	s := &spec.Schema{}
	cur := s
	for i := 0; i < runtime.MaxDepth+10; i++ {
		next := &spec.Schema{}
		cur.Items = &spec.SchemaOrArray{Schema: next}
		cur = next
	}
	if _, err := runtime.Compile(s); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("got %v, want a too-deep error", err)
	}
}

// TestEmpty: a Checker is empty exactly when no immutability extension of
// its schema applies, wherever it sits (a property, a map value, a list
// item, the root, a definition reached through $ref); every form counts.
func TestEmpty(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		empty        bool
	}{
		{"no extensions", `{type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}`, true},
		{"only CEL rules", `{type: object, properties: {a: {type: string, x-kubernetes-validations: [{rule: "self == oldSelf", message: field is immutable}]}}}`, true},
		{"extensions only in an unused definition", `{type: object, definitions: {A: {type: string, x-kubernetes-immutable: true}}, properties: {a: {type: string}}}`, true},
		{"immutable", `{type: object, properties: {a: {type: string, x-kubernetes-immutable: true}}}`, false},
		{"immutable keys", `{type: object, properties: {m: {type: object, additionalProperties: {type: string}, x-kubernetes-immutable-keys: true}}}`, false},
		{"immutable once", `{type: object, properties: {a: {type: string, x-immutable-gen-immutable-once: true}}}`, false},
		{"no modify", `{type: object, properties: {a: {type: string, x-immutable-gen-no-modify: true}}}`, false},
		{"no set", `{type: object, properties: {a: {type: string, x-immutable-gen-no-set: true}}}`, false},
		{"no unset", `{type: object, properties: {a: {type: string, x-immutable-gen-no-unset: true}}}`, false},
		{"on the root", `{type: object, x-kubernetes-immutable: true}`, false},
		{"on map values", `{type: object, properties: {m: {type: object, additionalProperties: {type: string, x-kubernetes-immutable: true}}}}`, false},
		{"on list items", `{type: object, properties: {l: {type: array, items: {type: string, x-kubernetes-immutable: true}}}}`, false},
		{"through a $ref", `{type: object, definitions: {A: {type: string, x-kubernetes-immutable: true}}, properties: {a: {$ref: "#/definitions/A"}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := compileYAML(t, tc.schema).Empty(); got != tc.empty {
				t.Errorf("Empty() = %v, want %v", got, tc.empty)
			}
		})
	}
	var nilChecker *runtime.Checker
	if !nilChecker.Empty() {
		t.Error("a nil Checker is not empty")
	}
}
