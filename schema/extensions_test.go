package schema

import (
	"fmt"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

func TestFromExtensions(t *testing.T) {
	raw := map[string]any{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "properties": map[string]any{
			"name":   map[string]any{"type": "string", extension.Immutable: true},
			"labels": map[string]any{"type": "object", extension.ImmutableKeys: true, "additionalProperties": map[string]any{"type": "string"}},
			"both":   map[string]any{"type": "object", extension.Immutable: true, extension.ImmutableKeys: true, "additionalProperties": map[string]any{"type": "string"}},
			"str":    map[string]any{"type": "string", extension.Immutable: "true"},
			"off":    map[string]any{"type": "string", extension.Immutable: false},
			"ports": map[string]any{"type": "array", "items": map[string]any{"type": "object", extension.Immutable: true,
				"x-kubernetes-validations": []any{map[string]any{"rule": carrierRule}}}},
		}},
	}}
	root := FromExtensions(raw)
	var got []string
	root.Walk(func(n *Node) {
		if len(n.Origins) > 0 {
			got = append(got, fmt.Sprintf("%s:%v/%v", n.Path(), n.Immutable(), n.ImmutableKeys()))
		}
		for _, o := range n.Origins {
			if o.Pos.IsValid() {
				t.Errorf("%s: origin with a Go position %v", n.Path(), o.Pos)
			}
		}
	})
	want := "spec.both:true/true spec.labels:false/true spec.name:true/false spec.ports[*]:true/false"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	// Carriers are not read and stay in place.
	if rules := raw["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)["ports"].(map[string]any)["items"].(map[string]any)["x-kubernetes-validations"].([]any); len(rules) != 1 {
		t.Errorf("FromExtensions changed the rules: %v", rules)
	}
}

// TestFromExtensionsRoundTrip: the model read back from emitted extensions
// marks exactly the nodes the carriers marked.
func TestFromExtensionsRoundTrip(t *testing.T) {
	keysCarrier := strings.Replace(carrierRule, `"type"`, `"keys":true,"type"`, 1)
	raw := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "string", "x-kubernetes-validations": []any{map[string]any{"rule": carrierRule}}},
		"m": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"},
			"x-kubernetes-validations": []any{map[string]any{"rule": keysCarrier}}},
		"b": map[string]any{"type": "string"},
	}}
	built, err := Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	EmitExtensions(built)
	read := FromExtensions(raw)
	for _, name := range []string{"a", "m", "b"} {
		b, r := built.Properties[name], read.Properties[name]
		if b.Immutable() != r.Immutable() || b.ImmutableKeys() != r.ImmutableKeys() {
			t.Errorf("%s: built %v/%v, read %v/%v", name, b.Immutable(), b.ImmutableKeys(), r.Immutable(), r.ImmutableKeys())
		}
	}
	if !read.Properties["m"].ImmutableKeys() {
		t.Error("m: keys not read back")
	}
}

// TestIgnoreOrderExtension: +immutable:ignoreOrder is written as
// x-immutable-gen-ignore-order beside the form, and read back onto the
// origins of the forms beside it; alone it names nothing.
func TestIgnoreOrderExtension(t *testing.T) {
	ordered := strings.Replace(carrierRule, `"type"`, `"ignoreOrder":true,"type"`, 1)
	raw := map[string]any{"type": "object", "properties": map[string]any{
		"l": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"k"},
			"items":                    map[string]any{"type": "object", "properties": map[string]any{"k": map[string]any{"type": "string"}}},
			"x-kubernetes-validations": []any{map[string]any{"rule": ordered}}},
		"alone": map[string]any{"type": "string", extension.IgnoreOrder: true},
	}}
	built, err := Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !built.Properties["l"].IgnoreOrder() {
		t.Fatal("the carrier's ignoreOrder was not read")
	}
	EmitExtensions(built)
	l := raw["properties"].(map[string]any)["l"].(map[string]any)
	if l[extension.IgnoreOrder] != true || l[extension.Immutable] != true {
		t.Fatalf("extensions not written: %v", l)
	}
	read := FromExtensions(raw)
	if !read.Properties["l"].IgnoreOrder() || !read.Properties["l"].Immutable() {
		t.Errorf("read back: ignoreOrder %v, immutable %v", read.Properties["l"].IgnoreOrder(), read.Properties["l"].Immutable())
	}
	if len(read.Properties["alone"].Origins) != 0 {
		t.Errorf("the extension alone made origins: %+v", read.Properties["alone"].Origins)
	}
}
