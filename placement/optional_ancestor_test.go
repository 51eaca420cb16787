package placement

import (
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/schema"
)

func required(n map[string]any, names ...any) map[string]any {
	n["required"] = names
	return n
}

// update marks n with validation-gen's +k8s:update=NoSet and/or =NoUnset
// at the given line.
func update(t *testing.T, n map[string]any, noSet, noUnset bool, line int) map[string]any {
	t.Helper()
	o := schema.Origin{NoSet: noSet, NoUnset: noUnset, Type: "example.com/v1.Kind", Field: "F"}
	o.Pos.Filename, o.Pos.Line, o.Pos.Column = "types.go", line, 2
	rules, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rules, map[string]any{"rule": o.Carrier()})
	return n
}

// TestOptionalAncestors: markers whose only way to change is removing an
// optional spec get one warning per spec, at the first marker.
func TestOptionalAncestors(t *testing.T) {
	cases := []struct {
		name   string
		schema func(t *testing.T) map[string]any
		want   string // "" no warning, else a substring of the only one
	}{{
		name: "optional spec",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(map[string]any{"a": mark(t, str(), false, 10), "b": mark(t, str(), false, 11)})})
		},
		want: "types.go:10:2: warning[IG013]: +immutable (test v1: spec.a): spec is optional: removing spec and adding it back changes the immutable fields under it (spec.a, spec.b); an optional parent may come and go with its immutable fields (KEP), which authors rarely mean for spec; fix: add // +required to the field \"spec\"",
	}, {
		name: "more than three marked fields",
		schema: func(t *testing.T) map[string]any {
			props := map[string]any{}
			for i, n := range []string{"a", "b", "c", "d", "e"} {
				props[n] = mark(t, str(), false, 10+i)
			}
			return obj(map[string]any{"spec": obj(props)})
		},
		want: "(spec.a, spec.b, spec.c and 2 more)",
	}, {
		name: "required spec",
		schema: func(t *testing.T) map[string]any {
			return required(obj(map[string]any{"spec": obj(map[string]any{"a": mark(t, str(), false, 10)})}), "spec")
		},
	}, {
		name: "defaulted spec",
		schema: func(t *testing.T) map[string]any {
			spec := obj(map[string]any{"a": mark(t, str(), false, 10)})
			spec["default"] = map[string]any{}
			return obj(map[string]any{"spec": spec})
		},
	}, {
		name: "presence rule on the root",
		schema: func(t *testing.T) map[string]any {
			root := obj(map[string]any{"spec": obj(map[string]any{"a": mark(t, str(), false, 10)})})
			root["x-kubernetes-validations"] = []any{map[string]any{"rule": "has(self.spec) == has(oldSelf.spec)"}}
			return root
		},
	}, {
		name: "the marker on spec itself",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": mark(t, obj(map[string]any{"a": str()}), false, 10)})
		},
	}, {
		name: "under an optional object: it may come and go anyway",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(map[string]any{"backup": obj(map[string]any{"a": mark(t, str(), false, 10)})})})
		},
	}, {
		name: "under a required object",
		schema: func(t *testing.T) map[string]any {
			backup := obj(map[string]any{"a": mark(t, str(), false, 10)})
			return obj(map[string]any{"spec": required(obj(map[string]any{"backup": backup}), "backup")})
		},
		want: "(spec.backup.a)",
	}, {
		name: "under list items",
		schema: func(t *testing.T) map[string]any {
			list := map[string]any{"type": "array", "items": obj(map[string]any{"a": mark(t, str(), false, 10)})}
			return obj(map[string]any{"spec": required(obj(map[string]any{"l": list}), "l")})
		},
	}, {
		name: "optional status: kept once set, never required",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"status": obj(map[string]any{"id": markOnce(t, str(), 10)})})
		},
		want: "fix: add // +k8s:update=NoUnset to the field \"status\" of the kind's root type: status may then be set after creation (the status subresource drops it on create) and never removed; not +required, which fails every create, nor +k8s:update=NoSet, which fails the first status write",
	}, {
		name: "optional spec, every marker set once: NoUnset first",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(map[string]any{"id": markOnce(t, str(), 10)})})
		},
		want: "fix: add // +k8s:update=NoUnset to the field \"spec\" of the kind's root type (spec may then be set after creation, never removed; with // +k8s:update=NoSet too if only at creation), or // +required",
	}, {
		name: "status closed by +k8s:update=NoUnset",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"status": update(t, obj(map[string]any{"id": markOnce(t, str(), 10)}), false, true, 9)})
		},
	}, {
		name: "spec closed by +k8s:update=NoSet and =NoUnset",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": update(t, obj(map[string]any{"a": mark(t, str(), false, 10)}), true, true, 9)})
		},
	}, {
		name: "status closed by the set-once rule on the root",
		schema: func(t *testing.T) map[string]any {
			root := obj(map[string]any{"status": obj(map[string]any{"id": markOnce(t, str(), 10)})})
			root["x-kubernetes-validations"] = []any{map[string]any{"rule": "!has(oldSelf.status) || has(self.status)"}}
			return root
		},
	}, {
		name: "a redundant marker counts once",
		schema: func(t *testing.T) map[string]any {
			return obj(map[string]any{"spec": obj(map[string]any{"n": mark(t, obj(map[string]any{"a": mark(t, str(), false, 11)}), false, 10)})})
		},
		want: "(spec.n)",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(tc.schema(t))
			if err != nil {
				t.Fatal(err)
			}
			got := OptionalAncestors("test", "v1", root)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("unexpected: %s", got[0])
			case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0].String(), tc.want)):
				t.Errorf("got %v, want one holding %q", got, tc.want)
			}
		})
	}
}
