package validation

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
)

// carrier returns the x-kubernetes-validations entry ApplyToSchema leaves
// for a marker at the given line.
func carrier(t *testing.T, keys bool, line int) map[string]any {
	t.Helper()
	o := markers.Origin{Keys: keys, Type: "example.com/v1.Spec", Field: "F"}
	o.Pos.Filename, o.Pos.Line, o.Pos.Column = "types.go", line, 2
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"rule": "@immutable-gen:origin " + string(b)}
}

func mark(t *testing.T, n map[string]any, keys bool, line int) map[string]any {
	n["x-kubernetes-validations"] = []any{carrier(t, keys, line)}
	return n
}

func obj(props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props}
}

func str() map[string]any { return map[string]any{"type": "string"} }

// TestPlacementSchemaRules checks the placement rules on schema trees built
// by hand, for the shapes Go types rarely produce directly.
func TestPlacementSchemaRules(t *testing.T) {
	cases := []struct {
		name   string
		schema func(t *testing.T) map[string]any
		want   []string // substrings, one per expected diagnostic, in order
	}{{
		name: "embedded resource metadata is forbidden",
		schema: func(t *testing.T) map[string]any {
			inner := obj(map[string]any{"metadata": mark(t, obj(map[string]any{"name": str()}), false, 10), "spec": obj(nil)})
			inner["x-kubernetes-embedded-resource"] = true
			return obj(map[string]any{"spec": obj(map[string]any{"template": inner})})
		},
		want: []string{"types.go:10:2: error", "the embedded resource spec.template's metadata"},
	}, {
		name: "inside embedded resource metadata is forbidden",
		schema: func(t *testing.T) map[string]any {
			inner := obj(map[string]any{"metadata": obj(map[string]any{"name": mark(t, str(), false, 11)})})
			inner["x-kubernetes-embedded-resource"] = true
			return obj(map[string]any{"spec": obj(map[string]any{"template": inner})})
		},
		want: []string{"types.go:11:2: error", "metadata or anything inside it"},
	}, {
		name: "embedded resource kind is forbidden",
		schema: func(t *testing.T) map[string]any {
			inner := obj(map[string]any{"kind": mark(t, str(), false, 12)})
			inner["x-kubernetes-embedded-resource"] = true
			return obj(map[string]any{"spec": obj(map[string]any{"template": inner})})
		},
		want: []string{"types.go:12:2: error", "embedded resource spec.template's kind"},
	}, {
		name: "the embedded resource itself may be immutable",
		schema: func(t *testing.T) map[string]any {
			inner := mark(t, obj(map[string]any{"kind": str()}), false, 13)
			inner["x-kubernetes-embedded-resource"] = true
			return obj(map[string]any{"spec": obj(map[string]any{"template": inner})})
		},
	}, {
		name: "root apiVersion is forbidden",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"apiVersion": mark(t, str(), false, 14)})
		},
		want: []string{"types.go:14:2: error", "the object's apiVersion"},
	}, {
		name: "keys on preserve-unknown-fields object without additionalProperties",
		schema: func(t *testing.T) map[string]any {
			n := map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
			return obj(map[string]any{"spec": obj(map[string]any{"raw": mark(t, n, true, 15)})})
		},
		want: []string{"types.go:15:2: error", "not allowed on a struct"},
	}, {
		name: "keys on a list map with a key missing from the items is left to the API server",
		schema: func(t *testing.T) map[string]any {
			list := map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"id"}, "items": obj(map[string]any{"name": str()})}
			return obj(map[string]any{"spec": obj(map[string]any{"l": mark(t, list, true, 16)})})
		},
	}, {
		name: "keys on a list map with the key immutable through an intermediate node",
		schema: func(t *testing.T) map[string]any {
			list := map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"}, "items": mark(t, obj(map[string]any{"name": str()}), false, 17)}
			return obj(map[string]any{"spec": obj(map[string]any{"l": mark(t, list, true, 18)})})
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(tc.schema(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range Placement("test v1", root).Sort() {
				if d.Severity == diag.Error {
					got = append(got, d.String())
				}
			}
			if len(tc.want) == 0 && len(got) > 0 {
				t.Fatalf("unexpected errors:\n%s", strings.Join(got, "\n"))
			}
			all := strings.Join(got, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("want %q in:\n%s", w, all)
				}
			}
		})
	}
}
