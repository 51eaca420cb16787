package schema

import (
	"errors"
	"go/token"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
)

const carrierRule = `@immutable-gen:origin {"pos":{"Filename":"types.go","Offset":0,"Line":3,"Column":2},"decl":{"Filename":"types.go","Offset":0,"Line":4,"Column":2},"type":"x.Spec","field":"A"}`

func TestBuildTakesCarriers(t *testing.T) {
	kept := map[string]any{"rule": "self.size() > 0"}
	raw := map[string]any{"type": "object", "properties": map[string]any{
		"a": map[string]any{"type": "string", "x-kubernetes-validations": []any{map[string]any{"rule": carrierRule}}},
		"b": map[string]any{"type": "string", "x-kubernetes-validations": []any{kept, map[string]any{"rule": carrierRule}}},
	}}
	root, err := Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	a, b := root.Properties["a"], root.Properties["b"]
	if !a.Immutable() || a.ImmutableKeys() || a.Path() != "a" || a.Origins[0].Pos.Line != 3 {
		t.Errorf("a: %+v", a)
	}
	if _, ok := a.raw["x-kubernetes-validations"]; ok {
		t.Error("a: the carrier-only rules list was not removed")
	}
	if rules := b.raw["x-kubernetes-validations"].([]any); len(rules) != 1 || rules[0].(map[string]any)["rule"] != "self.size() > 0" {
		t.Errorf("b: other rules must stay: %v", rules)
	}
	EmitExtensions(root)
	if a.raw[extension.Immutable] != true {
		t.Errorf("a: extension not emitted as boolean true: %#v", a.raw[extension.Immutable])
	}
}

func TestBuildRefusesCarrierInAllOf(t *testing.T) {
	raw := map[string]any{"type": "object", "allOf": []any{map[string]any{"x-kubernetes-validations": []any{map[string]any{"rule": carrierRule}}}}}
	if _, err := Build(raw); err == nil || !strings.Contains(err.Error(), "inside allOf") {
		t.Fatalf("want an allOf error, got %v", err)
	}
}

func TestBuildCorruptCarrier(t *testing.T) {
	raw := map[string]any{"type": "string", "x-kubernetes-validations": []any{map[string]any{"rule": "@immutable-gen:origin {"}}}
	if _, err := Build(raw); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Fatalf("want a corrupt-carrier error, got %v", err)
	}
}

func TestPaths(t *testing.T) {
	raw := map[string]any{"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object", "properties": map[string]any{
		"l": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}},
		"m": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
	}}}}
	root, err := Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	root.Walk(func(n *Node) { paths = append(paths, n.Path()) })
	if got, want := strings.Join(paths, " "), "<root> spec spec.l spec.l[*] spec.l[*].x spec.m spec.m[*]"; got != want {
		t.Errorf("paths %q, want %q", got, want)
	}
}

func TestBuildWith(t *testing.T) {
	origin := func(line int, keys bool) Origin {
		return Origin{Keys: keys, Pos: token.Position{Filename: "types.go", Line: line, Column: 2}}
	}
	known := map[string][]Origin{
		"labels": {origin(9, false), origin(3, true), origin(9, false)},
	}
	raw := map[string]any{"type": "object", "properties": map[string]any{
		"labels": map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "name": "labels"},
		"a/b~c":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	}}
	root, err := BuildWith(raw, func(raw map[string]any) ([]Origin, error) {
		name, _ := raw["name"].(string)
		delete(raw, "name")
		return known[name], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	labels := root.Properties["labels"]
	if got := labels.Origins; len(got) != 2 || got[0].Pos.Line != 3 || got[1].Pos.Line != 9 {
		t.Errorf("origins %+v, want lines 3 and 9, in Build's order and without the repeat", got)
	}
	if !labels.Immutable() || !labels.ImmutableKeys() || !labels.IsMap() || len(root.Origins) != 0 {
		t.Errorf("labels: %+v", labels)
	}
	for n, want := range map[*Node]string{
		root:                           "",
		labels:                         "/properties/labels",
		labels.Values:                  "/properties/labels/additionalProperties",
		root.Properties["a/b~c"].Items: "/properties/a~1b~0c/items",
	} {
		if got := n.Pointer(); got != want {
			t.Errorf("Pointer() = %q, want %q", got, want)
		}
	}
}

func TestBuildWithError(t *testing.T) {
	raw := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}}
	_, err := BuildWith(raw, func(raw map[string]any) ([]Origin, error) {
		if raw["type"] == "string" {
			return nil, errors.New("unreadable")
		}
		return nil, nil
	})
	if err == nil || err.Error() != "a: unreadable" {
		t.Fatalf("err = %v, want the node's path and the reader's error", err)
	}
}
