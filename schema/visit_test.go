package schema

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
)

func TestVisitJSONOrderAndSteps(t *testing.T) {
	raw := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"b": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"a": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
			"x": "not a schema",
		},
		"allOf": []any{map[string]any{"required": []any{"a"}}, "not a schema", map[string]any{"not": map[string]any{}}},
		"anyOf": []any{map[string]any{}},
		"oneOf": []any{map[string]any{}},
	}
	var got []string
	VisitJSON(raw, func(at Steps, _ map[string]any) bool {
		got = append(got, at.String())
		return true
	})
	want := []string{"", "properties.a", "properties.a.additionalProperties", "properties.b", "properties.b.items",
		"allOf[0]", "allOf[2]", "allOf[2].not", "anyOf[0]", "oneOf[0]"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("visited\n%q\nwant\n%q", got, want)
	}

	got = nil
	VisitJSON(raw, func(at Steps, _ map[string]any) bool {
		got = append(got, at.String())
		return len(at) == 0 // only the root's children
	})
	if want := []string{"", "properties.a", "properties.b", "allOf[0]", "allOf[2]", "anyOf[0]", "oneOf[0]"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with fn false below the root, visited\n%q\nwant\n%q", got, want)
	}
}

func TestNodeStepsLookupJSON(t *testing.T) {
	raw := map[string]any{"type": "object", "properties": map[string]any{
		"ports": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
			"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
		}}},
	}}
	root, err := Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	var visited []string
	root.Visit(func(n *Node) bool {
		visited = append(visited, n.Path()+" = "+n.Steps().String())
		return n.Edge != Items // not below the items
	})
	if want := []string{"<root> = ", "ports = properties.ports", "ports[*] = properties.ports.items"}; !reflect.DeepEqual(visited, want) {
		t.Errorf("Visit:\n%q\nwant\n%q", visited, want)
	}
	values := root.Properties["ports"].Items.Properties["labels"].Values
	if got := LookupJSON(raw, values.Steps()); got == nil || got["type"] != "string" || values.Steps().String() != "properties.ports.items.properties.labels.additionalProperties" {
		t.Errorf("LookupJSON(%s) = %v", values.Steps(), got)
	}
	if got := LookupJSON(raw, Steps{{Edge: Property, Name: "missing"}, {Edge: Items}}); got != nil {
		t.Errorf("LookupJSON of a missing property = %v, want nil", got)
	}
	if got := LookupJSON(raw, Steps{{Edge: AllOf}}); got != nil {
		t.Errorf("LookupJSON through allOf = %v, want nil (the model has no value validations)", got)
	}
}

func TestVisitPropsWritesBack(t *testing.T) {
	s := &apiextensions.JSONSchemaProps{
		Properties: map[string]apiextensions.JSONSchemaProps{
			"a": {Items: &apiextensions.JSONSchemaPropsOrArray{Schema: &apiextensions.JSONSchemaProps{}}},
		},
		AllOf: []apiextensions.JSONSchemaProps{{}},
		Not:   &apiextensions.JSONSchemaProps{},
	}
	var at []string
	VisitProps(s, func(p Steps, s *apiextensions.JSONSchemaProps) bool {
		at = append(at, p.String())
		s.Description = "seen " + p.String()
		return true
	})
	if want := []string{"", "properties.a", "properties.a.items", "allOf[0]", "not"}; !reflect.DeepEqual(at, want) {
		t.Errorf("visited %q, want %q", at, want)
	}
	if got := s.Properties["a"].Description; got != "seen properties.a" {
		t.Errorf("a property's change was not written back: %q", got)
	}
	if got := s.Properties["a"].Items.Schema.Description; got != "seen properties.a.items" {
		t.Errorf("items: %q", got)
	}
	VisitProps(nil, func(Steps, *apiextensions.JSONSchemaProps) bool { t.Error("called on nil"); return true })
}

func TestBuildRefusesCarriersDeepInValueValidations(t *testing.T) {
	carrier := map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": carrierRule}}}
	deep := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "object", "oneOf": []any{map[string]any{"properties": map[string]any{"b": carrier}}}},
	}}
	if _, err := Build(deep); err == nil || !strings.Contains(err.Error(), "a: an immutability marker ended up inside oneOf") {
		t.Errorf("Build: want the oneOf error at a, got %v", err)
	}
	if n := FromExtensions(deep); n.Properties["a"] == nil || len(n.Properties["a"].Children()) != 0 {
		t.Errorf("FromExtensions must not follow oneOf: %+v", n.Properties["a"])
	}
}
