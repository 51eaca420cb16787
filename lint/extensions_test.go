package lint

import (
	"fmt"
	"slices"
	"testing"
)

// schemaCRD returns a CRD with the given openAPIV3Schema (JSON).
func schemaCRD(schema string) string {
	return fmt.Sprintf(`{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": %s}}]}}`, schema)
}

func spec(props string) string {
	return fmt.Sprintf(`{"type": "object", "properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
 "spec": {"type": "object", "properties": %s}}}`, props)
}

// TestExtensionPlacement covers the placement findings beyond the seeded
// defects: every place rule 1 forbids, every node rule 2 refuses, and the
// values rule IG001 refuses.
func TestExtensionPlacement(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string
	}{
		{"root", `{"type": "object", "x-kubernetes-immutable": true, "properties": {"spec": {"type": "object"}}}`, []string{"IG002 <root>"}},
		{"root keys", `{"type": "object", "x-kubernetes-immutable-keys": true, "properties": {"spec": {"type": "object"}}}`, []string{"IG002 <root>", "IG003 <root>"}},
		{"inside metadata", `{"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string", "x-kubernetes-immutable": true}}}}}`, []string{"IG002 metadata.name"}},
		{"kind", `{"type": "object", "properties": {"kind": {"type": "string", "x-kubernetes-immutable": true}}}`, []string{"IG002 kind"}},
		{"apiVersion", `{"type": "object", "properties": {"apiVersion": {"type": "string", "x-kubernetes-immutable": true}}}`, []string{"IG002 apiVersion"}},
		{"embedded resource metadata", spec(`{"template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true,
 "properties": {"metadata": {"type": "object", "x-kubernetes-immutable": true}}}}`), []string{"IG002 spec.template.metadata"}},
		{"embedded resource itself", spec(`{"template": {"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true, "x-kubernetes-immutable": true}}`), nil},
		{"keys on an atomic list", spec(`{"l": {"type": "array", "items": {"type": "string"}, "x-kubernetes-immutable-keys": true}}`), []string{"IG003 spec.l"}},
		{"keys on a struct", spec(`{"s": {"type": "object", "properties": {"a": {"type": "string"}}, "x-kubernetes-immutable-keys": true}}`), []string{"IG003 spec.s"}},
		{"keys on a scalar", spec(`{"n": {"type": "integer", "x-kubernetes-immutable-keys": true}}`), []string{"IG003 spec.n"}},
		{"keys on an atomic map", spec(`{"m": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}, "x-kubernetes-immutable-keys": true}}`), []string{"IG003 spec.m"}},
		{"keys on a map", spec(`{"m": {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-immutable-keys": true}}`), nil},
		{"keys on a list map with an immutable key", spec(`{"p": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-immutable-keys": true,
 "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "x-kubernetes-immutable": true}}}}}`), nil},
		{"keys on a list map with immutable items", spec(`{"p": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "x-kubernetes-immutable-keys": true,
 "items": {"type": "object", "x-kubernetes-immutable": true, "required": ["name"], "properties": {"name": {"type": "string"}}}}}`), nil},
		{"false", spec(`{"a": {"type": "string", "x-kubernetes-immutable": false}}`), []string{"IG001 spec.a"}},
		{"a number", spec(`{"a": {"type": "string", "x-kubernetes-immutable-keys": 1}}`), []string{"IG001 spec.a"}},
		{"a condition", spec(`{"a": {"type": "string", "x-kubernetes-immutable": true, "x-immutable-gen-when": "has(oldSelf.spec.a)"}}`), nil},
		{"a condition not a string", spec(`{"a": {"type": "string", "x-kubernetes-immutable": true, "x-immutable-gen-when": true}}`), []string{"IG001 spec.a"}},
		{"a condition alone", spec(`{"a": {"type": "string", "x-immutable-gen-when": "true"}}`), []string{"IG001 spec.a"}},
		{"a condition reading an optional field without has()", spec(`{"a": {"type": "string", "x-kubernetes-immutable": true, "x-immutable-gen-when": "oldSelf.spec.b == 'x'"}, "b": {"type": "string"}}`), []string{"IG038 spec.a"}},
		{"a condition reading an optional field guarded", spec(`{"a": {"type": "string", "x-kubernetes-immutable": true, "x-immutable-gen-when": "has(oldSelf.spec.b) && oldSelf.spec.b == 'x'"}, "b": {"type": "string"}}`), nil},
		{"a condition outside the subset", spec(`{"a": {"type": "string", "x-kubernetes-immutable": true, "x-immutable-gen-when": "self.spec.a.matches('x')"}}`), []string{"IG001 spec.a"}},
		{"inside anyOf", spec(`{"a": {"type": "string", "anyOf": [{"maxLength": 3}, {"x-kubernetes-immutable": true}]}}`), []string{"IG009 spec.a"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range findings(t, schemaCRD(tc.schema)) {
				if f[:5] != string(IDKubectlApply) {
					got = append(got, f)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
