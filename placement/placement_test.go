package placement

import (
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// carrier returns the x-kubernetes-validations entry ApplyToSchema leaves
// for a marker at the given line.
func carrier(t *testing.T, keys bool, line int) map[string]any {
	t.Helper()
	o := schema.Origin{Keys: keys, Type: "example.com/v1.Spec", Field: "F"}
	o.Pos.Filename, o.Pos.Line, o.Pos.Column = "types.go", line, 2
	return map[string]any{"rule": o.Carrier()}
}

func mark(t *testing.T, n map[string]any, keys bool, line int) map[string]any {
	n["x-kubernetes-validations"] = []any{carrier(t, keys, line)}
	return n
}

// markOnce marks n with a +immutable=once carrier at the given line.
func markOnce(t *testing.T, n map[string]any, line int) map[string]any {
	t.Helper()
	o := schema.Origin{Once: true, Type: "example.com/v1.Spec", Field: "F"}
	o.Pos.Filename, o.Pos.Line, o.Pos.Column = "types.go", line, 2
	rules, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rules, map[string]any{"rule": o.Carrier()})
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
	}, {
		name: "once on a property is allowed",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(map[string]any{"volume": markOnce(t, str(), 20)})})
		},
	}, {
		name: "once on list items is an error with the fix",
		schema: func(t *testing.T) map[string]any {
			list := map[string]any{"type": "array", "items": markOnce(t, str(), 21)}
			return obj(map[string]any{"spec": obj(map[string]any{"l": list})})
		},
		want: []string{"types.go:21:2: error", "not allowed on list items (spec.l[*])", "fix: put +immutable=once on the list field instead"},
	}, {
		name: "once on map values is an error with the fix",
		schema: func(t *testing.T) map[string]any {
			m := map[string]any{"type": "object", "additionalProperties": markOnce(t, str(), 22)}
			return obj(map[string]any{"spec": obj(map[string]any{"m": m})})
		},
		want: []string{"types.go:22:2: error", "not allowed on map values (spec.m[*])", "fix: put +immutable=once on the map field instead"},
	}, {
		name: "once and immutable are exclusive",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(map[string]any{"f": markOnce(t, mark(t, str(), false, 23), 24)})})
		},
		want: []string{"types.go:23:2: error[IG004]: +immutable", "+immutable=once comes from", "types.go:24:2: error[IG004]: +immutable=once", "+immutable comes from"},
	}, {
		name: "once and keys are exclusive",
		schema: func(t *testing.T) map[string]any {
			m := map[string]any{"type": "object", "additionalProperties": str()}
			return obj(map[string]any{"spec": obj(map[string]any{"m": markOnce(t, mark(t, m, true, 25), 26)})})
		},
		want: []string{"types.go:25:2: error[IG004]: +immutable=keys", "types.go:26:2: error[IG004]: +immutable=once", "+immutable=keys comes from"},
	}, {
		name: "once at the root is forbidden",
		schema: func(t *testing.T) map[string]any {
			return markOnce(t, obj(map[string]any{"spec": obj(nil)}), 27)
		},
		want: []string{"types.go:27:2: error", "not allowed on the root type of a kind"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(tc.schema(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range Check("test", "v1", root).Sort() {
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

// TestPlacementOnceNotes: the notes and warnings of +immutable=once.
func TestPlacementOnceNotes(t *testing.T) {
	cases := []struct {
		name   string
		schema func(t *testing.T) map[string]any
		want   string // a substring of the only diagnostic
		sev    diag.Severity
	}{{
		name: "once on a required property is +immutable",
		schema: func(t *testing.T) map[string]any {
			spec := obj(map[string]any{"class": markOnce(t, str(), 30)})
			spec["required"] = []any{"class"}
			return obj(map[string]any{"spec": spec})
		},
		want: "spec.class is required, so it is set at creation: +immutable=once is the same as +immutable here",
		sev:  diag.Note,
	}, {
		name: "a marker inside a set-once struct is redundant",
		schema: func(t *testing.T) map[string]any {
			inner := markOnce(t, obj(map[string]any{"name": mark(t, str(), false, 32)}), 31)
			return obj(map[string]any{"spec": obj(map[string]any{"outer": inner})})
		},
		want: "redundant: spec.outer.name is already immutable as part of spec.outer (+immutable=once",
		sev:  diag.Note,
	}, {
		name: "once inside set items has no effect",
		schema: func(t *testing.T) map[string]any {
			set := map[string]any{"type": "array", "x-kubernetes-list-type": "set", "items": obj(map[string]any{"s": markOnce(t, str(), 33)})}
			return obj(map[string]any{"spec": obj(map[string]any{"set": set})})
		},
		want: "has no effect inside the items of the +listType=set list spec.set",
		sev:  diag.Warning,
	}, {
		name: "immutable on status refuses the first status write",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(nil), "status": mark(t, obj(map[string]any{"phase": str()}), false, 34)})
		},
		want: "forbids setting status after creation, but with the status subresource the API server drops status on create and the first status write sets it",
		sev:  diag.Warning,
	}, {
		name: "keys on status likewise",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(nil), "status": mark(t, map[string]any{"type": "object", "additionalProperties": str()}, true, 35)})
		},
		want: "forbids setting status after creation",
		sev:  diag.Warning,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(tc.schema(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []diag.Diagnostic
			for _, d := range Findings(root) {
				got = append(got, diag.Diagnostic{Severity: d.Severity, Message: d.Message})
			}
			if len(got) != 1 || got[0].Severity != tc.sev || !strings.Contains(got[0].Message, tc.want) {
				t.Fatalf("got %+v, want one %v containing %q", got, tc.sev, tc.want)
			}
		})
	}
}

// TestSetOnCreateFix: the fix of IG036 is the set-once form, in the
// origin's terms; =once and presence-only forms that allow setting status
// later are not reported.
func TestSetOnCreateFix(t *testing.T) {
	root, err := schema.Build(obj(map[string]any{"spec": obj(nil), "status": mark(t, obj(nil), false, 36)}))
	if err != nil {
		t.Fatal(err)
	}
	f := Findings(root)
	if len(f) != 1 || f[0].Rule != RuleSetOnCreate || !strings.Contains(f[0].Fix, "+immutable=once (set by the first status write") {
		t.Fatalf("got %+v", f)
	}
	ext := schema.FromExtensions(obj(map[string]any{"spec": obj(nil), "status": map[string]any{"type": "object", "x-kubernetes-immutable": true}}))
	if f := Findings(ext); len(f) != 1 || !strings.Contains(f[0].Message, "x-kubernetes-immutable forbids setting status") || !strings.Contains(f[0].Fix, "`x-immutable-gen-immutable-once: true`") {
		t.Fatalf("extensions: got %+v", f)
	}
	for _, fine := range []func() map[string]any{
		func() map[string]any { return markOnce(t, obj(nil), 37) },
		func() map[string]any { return obj(map[string]any{"phase": mark(t, str(), false, 38)}) },
	} {
		root, err := schema.Build(obj(map[string]any{"spec": obj(nil), "status": fine()}))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range Findings(root) {
			if f.Rule == RuleSetOnCreate {
				t.Errorf("reported: %+v", f)
			}
		}
	}
}

// TestPartPlacement: a part (an OpenAPI definition of a type that is not a
// kind) is not an object, so rule 1 does not apply at its root, its
// metadata, apiVersion or kind, but does below an embedded resource in it;
// every other rule applies as in an object.
func TestPartPlacement(t *testing.T) {
	cases := []struct {
		name   string
		schema func(t *testing.T) map[string]any
		want   []Rule // the rules found, in order
	}{{
		name: "a marker on the part itself",
		schema: func(t *testing.T) map[string]any {
			return mark(t, obj(map[string]any{"name": str()}), false, 40)
		},
	}, {
		name: "metadata, apiVersion and kind of a part are ordinary properties",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{
				"apiVersion": mark(t, str(), false, 41),
				"kind":       mark(t, str(), false, 42),
				"metadata":   obj(map[string]any{"name": mark(t, str(), false, 43)}),
			})
		},
	}, {
		name: "an embedded resource's metadata in a part",
		schema: func(t *testing.T) map[string]any {
			inner := obj(map[string]any{"metadata": mark(t, obj(nil), false, 44)})
			inner["x-kubernetes-embedded-resource"] = true
			return obj(map[string]any{"template": inner})
		},
		want: []Rule{RuleForbiddenPlace},
	}, {
		name: "keys on a struct part",
		schema: func(t *testing.T) map[string]any {
			return mark(t, obj(map[string]any{"name": str()}), true, 45)
		},
		want: []Rule{RuleNoKeys},
	}, {
		name: "redundant inside the part",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"outer": mark(t, obj(map[string]any{"name": mark(t, str(), false, 47)}), false, 46)})
		},
		want: []Rule{RuleRedundant},
	}, {
		name: "once on the part's root is for its uses to check",
		schema: func(t *testing.T) map[string]any {
			return markOnce(t, obj(map[string]any{"name": str()}), 48)
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(tc.schema(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []Rule
			for _, f := range PartFindings(root) {
				got = append(got, f.Rule)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("rules %v, want %v", got, tc.want)
			}
		})
	}
}
