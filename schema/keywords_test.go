package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

func TestKeywordAccessors(t *testing.T) {
	raw := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":  map[string]any{"type": "string", "format": "hostname", "description": "The name.", "maxLength": json.Number("253"), "default": ""},
			"ports": map[string]any{"type": "array", "maxItems": float64(16), "items": map[string]any{"type": "integer"}},
			"labels": map[string]any{
				"type": "object", "maxProperties": int64(8), "additionalProperties": map[string]any{"type": "string"},
				"x-kubernetes-validations": []any{
					map[string]any{"rule": "self == oldSelf", "message": "immutable", "reason": "FieldValueForbidden", "fieldPath": ".a"},
					map[string]any{"rule": "self.size() < 9", "messageExpression": "'too many'", "optionalOldSelf": true},
					"not an object",
				},
				extension.Immutable: true, extension.ImmutableKeys: "true",
			},
			"half": map[string]any{"type": "array", "maxItems": 1.5},
		},
	}
	root, err := Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	name, ports, labels, half := root.Properties["name"], root.Properties["ports"], root.Properties["labels"], root.Properties["half"]

	if got := name.Description(); got != "The name." {
		t.Errorf("Description = %q", got)
	}
	if got := name.Format(); got != "hostname" {
		t.Errorf("Format = %q", got)
	}
	if !name.AlwaysPresent() || ports.AlwaysPresent() || root.AlwaysPresent() || ports.Items.AlwaysPresent() {
		t.Error("AlwaysPresent: only name (defaulted) is")
	}
	if !name.HasDefault() || ports.HasDefault() {
		t.Errorf("HasDefault: name %v, ports %v; want true, false", name.HasDefault(), ports.HasDefault())
	}
	for _, tc := range []struct {
		what string
		get  func() (int64, bool)
		want int64
		ok   bool
	}{
		{"name.MaxLength (json.Number)", name.MaxLength, 253, true},
		{"ports.MaxItems (float64)", ports.MaxItems, 16, true},
		{"labels.MaxProperties (int64)", labels.MaxProperties, 8, true},
		{"half.MaxItems (not whole)", half.MaxItems, 0, false},
		{"name.MaxItems (absent)", name.MaxItems, 0, false},
	} {
		if got, ok := tc.get(); got != tc.want || ok != tc.ok {
			t.Errorf("%s = %d, %v; want %d, %v", tc.what, got, ok, tc.want, tc.ok)
		}
	}
	if !labels.Has("x-kubernetes-validations") || name.Has("x-kubernetes-validations") || !half.Has("maxItems") {
		t.Error("Has: wrong presence")
	}
	if v, ok := labels.Extension(extension.ImmutableKeys); !ok || v != "true" {
		t.Errorf("Extension(%s) = %#v, %v", extension.ImmutableKeys, v, ok)
	}
	if !labels.ExtensionTrue(extension.Immutable) || labels.ExtensionTrue(extension.ImmutableKeys) || name.ExtensionTrue(extension.Immutable) {
		t.Error("ExtensionTrue: only the boolean true on labels counts")
	}
	want := []Rule{
		{Rule: "self == oldSelf", Message: "immutable", Reason: "FieldValueForbidden", FieldPath: ".a"},
		{Rule: "self.size() < 9", MessageExpression: "'too many'", OptionalOldSelf: true},
		{},
	}
	if got := labels.Rules(); !reflect.DeepEqual(got, want) {
		t.Errorf("Rules =\n%+v\nwant\n%+v", got, want)
	}
	if got := name.Rules(); got != nil {
		t.Errorf("Rules without x-kubernetes-validations = %+v, want nil", got)
	}
}

func TestHiddenExtensions(t *testing.T) {
	raw := map[string]any{
		"type": "object",
		"not":  map[string]any{extension.Immutable: true},
		"allOf": []any{
			map[string]any{"properties": map[string]any{"b": map[string]any{extension.ImmutableKeys: true}, "a": map[string]any{extension.Immutable: true}}},
			map[string]any{"other": extension.Immutable},
		},
	}
	got := FromExtensions(raw).HiddenExtensions(extension.Immutable, extension.ImmutableKeys)
	want := []Hidden{
		{Keyword: "allOf", Where: "allOf[0].properties.a", Extension: extension.Immutable},
		{Keyword: "allOf", Where: "allOf[0].properties.b", Extension: extension.ImmutableKeys},
		{Keyword: "not", Where: "not", Extension: extension.Immutable},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HiddenExtensions =\n%+v\nwant\n%+v", got, want)
	}
	if got := FromExtensions(raw).HiddenExtensions(extension.ImmutableOnce); got != nil {
		t.Errorf("HiddenExtensions(%s) = %+v, want none", extension.ImmutableOnce, got)
	}
}
