package runtime_test

import (
	"testing"
)

// TestRules has one case per rule of the update semantics (docs/semantics.md 2.3),
// on testdata/widget-schema.yaml. old and new are the spec of the object.
func TestRules(t *testing.T) {
	c := widget(t)
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		// Presence.
		{name: "unchanged immutable field", old: `name: a`, new: `name: a`},
		{name: "changed immutable field", old: `name: a`, new: `name: b`,
			want: []string{`spec.name: Invalid value: "b": field is immutable`}},
		{name: "immutable field added", old: `{}`, new: `name: a`,
			want: []string{`spec.name: Forbidden: field "name" is immutable and may not be added`}},
		{name: "immutable field removed", old: `name: a`, new: `{}`,
			want: []string{`spec.name: Forbidden: field "name" is immutable and may not be removed`}},
		{name: "mutable field changes freely", old: `{mutable: a, name: x}`, new: `{mutable: b, name: x}`},

		// Parent absent.
		{name: "optional parent added with immutable child", old: `{}`, new: `opt: {x: a}`},
		{name: "optional parent removed with immutable child", old: `opt: {x: a}`, new: `{}`},
		{name: "optional parent null in old", old: `opt: null`, new: `opt: {x: a}`},
		{name: "immutable child added under present parent", old: `opt: {note: a}`, new: `opt: {x: a, note: a}`,
			want: []string{`spec.opt.x: Forbidden: field "x" is immutable and may not be added`}},
		{name: "whole spec absent in old", old: ``, new: `name: a`},

		// Numbers.
		{name: "1 equals 1.0", old: `replicas: 1`, new: `replicas: 1.0`},
		{name: "1 differs from 2", old: `replicas: 1`, new: `replicas: 2`,
			want: []string{`spec.replicas: Invalid value: 2: field is immutable`}},
		{name: "0.5 equals 5e-1", old: `ratio: 0.5`, new: `ratio: 5e-1`},
		{name: "number differs from string", old: `replicas: 1`, new: `replicas: "1"`,
			want: []string{`spec.replicas: Invalid value: "1": field is immutable`}},

		// Null, empty and absent.
		{name: "null equals null", old: `nullable: null`, new: `nullable: null`},
		{name: "null vs absent", old: `nullable: null`, new: `{}`,
			want: []string{`spec.nullable: Forbidden: field "nullable" is immutable and may not be removed`}},
		{name: "absent vs null", old: `{}`, new: `nullable: null`,
			want: []string{`spec.nullable: Forbidden: field "nullable" is immutable and may not be added`}},
		{name: "null vs value", old: `nullable: null`, new: `nullable: ""`,
			want: []string{`spec.nullable: Invalid value: "": field is immutable`}},
		{name: "empty list vs absent", old: `{}`, new: `tags: []`,
			want: []string{`spec.tags: Forbidden: field "tags" is immutable and may not be added`}},
		{name: "empty list vs null", old: `tags: null`, new: `tags: []`,
			want: []string{`spec.tags: Invalid value: []: field is immutable`}},
		{name: "empty object vs absent", old: `config: {}`, new: `{}`,
			want: []string{`spec.config: Forbidden: field "config" is immutable and may not be removed`}},

		// Sets.
		{name: "set permutation", old: `tags: [a, b, c]`, new: `tags: [c, a, b]`},
		{name: "set item changed", old: `tags: [a, b, c]`, new: `tags: [a, b, d]`,
			want: []string{`spec.tags: Invalid value: ["a","b","d"]: field is immutable`}},
		{name: "set item added", old: `tags: [a, b]`, new: `tags: [a, b, c]`,
			want: []string{`spec.tags: Invalid value: ["a","b","c"]: field is immutable`}},
		{name: "duplicate set items compare as a multiset", old: `tags: [a, a, b]`, new: `tags: [a, b, b]`,
			want: []string{`spec.tags: Invalid value: ["a","b","b"]: field is immutable`}},
		{name: "duplicate set items permuted", old: `tags: [a, b, a]`, new: `tags: [b, a, a]`},
		{name: "nested sets permuted", old: `groups: [{name: x, members: [a, b]}, {name: w, members: [c]}]`,
			new: `groups: [{name: w, members: [c]}, {members: [b, a], name: x}]`},
		{name: "mutable set changes freely", old: `aliases: [a]`, new: `aliases: [b, c]`},

		// List maps.
		{name: "list map item added and removed", old: `ports: [{name: a, protocol: TCP, port: 1}, {name: b, protocol: TCP, port: 2}]`,
			new: `ports: [{name: b, protocol: TCP, port: 2}, {name: c, protocol: TCP, port: 3}]`},
		{name: "list map reordered", old: `ports: [{name: a, protocol: TCP, port: 1}, {name: b, protocol: TCP, port: 2}]`,
			new: `ports: [{name: b, protocol: TCP, port: 2}, {name: a, protocol: TCP, port: 1}]`},
		{name: "list map item changed, reported at the new index", old: `ports: [{name: a, protocol: TCP, port: 1}, {name: b, protocol: TCP, port: 2}]`,
			new:  `ports: [{name: c, protocol: UDP, port: 9}, {name: b, protocol: TCP, port: 3}, {name: a, protocol: TCP, port: 1}]`,
			want: []string{`spec.ports[1]: Invalid value: {"name":"b","port":3,"protocol":"TCP"}: field is immutable`}},
		{name: "list map composite key", old: `ports: [{name: a, protocol: TCP, port: 1}]`,
			new: `ports: [{name: a, protocol: UDP, port: 2}]`},
		{name: "immutable list map order counts", old: `fixedPorts: [{name: a}, {name: b}]`, new: `fixedPorts: [{name: b}, {name: a}]`,
			want: []string{`spec.fixedPorts: Invalid value: [{"name":"b"},{"name":"a"}]: field is immutable`}},

		// Immutable keys.
		{name: "map keys reordered values changed", old: `labels: {a: "1", b: "2"}`, new: `labels: {b: "3", a: "4"}`},
		{name: "map key added and removed", old: `labels: {a: "1", c: "3"}`, new: `labels: {b: "2", c: "3"}`,
			want: []string{
				`spec.labels: Forbidden: key "a" may not be removed: keys are immutable`,
				`spec.labels: Forbidden: key "b" may not be added: keys are immutable`,
			}},
		{name: "map with immutable keys removed", old: `labels: {}`, new: `{}`,
			want: []string{`spec.labels: Forbidden: field "labels" has immutable keys and may not be removed`}},
		{name: "list map keys reordered, mutable field changed", old: `volumes: [{name: a, path: /a, size: 1G}, {name: b, path: /b}]`,
			new: `volumes: [{name: b, path: /b, size: 2G}, {name: a, path: /a}]`},
		{name: "list map key added and removed", old: `volumes: [{name: a, path: /a}, {name: b, path: /b}]`,
			new: `volumes: [{name: b, path: /b}, {name: c, path: /c}]`,
			want: []string{
				`spec.volumes: Forbidden: key {"name":"a"} may not be removed: keys are immutable`,
				`spec.volumes: Forbidden: key {"name":"c"} may not be added: keys are immutable`,
			}},
		{name: "list map with immutable keys descends", old: `volumes: [{name: a, path: /a}, {name: b, path: /b}]`,
			new:  `volumes: [{name: b, path: /x}, {name: a, path: /a}]`,
			want: []string{`spec.volumes[0].path: Invalid value: "/x": field is immutable`}},

		// Atomic lists.
		{name: "atomic list item changed", old: `args: [a, b, c]`, new: `args: [a, x, c]`,
			want: []string{`spec.args[1]: Invalid value: "x": field is immutable`}},
		{name: "atomic list appended", old: `args: [a, b]`, new: `args: [a, b, c]`},
		{name: "atomic list truncated", old: `args: [a, b, c]`, new: `args: [a]`},
		{name: "atomic list middle removal is a change", old: `args: [a, b, c]`, new: `args: [a, c]`,
			want: []string{`spec.args[1]: Invalid value: "c": field is immutable`}},
		{name: "atomic list of objects by index", old: `steps: [{image: a, retries: 1}, {image: b}]`,
			new:  `steps: [{image: a, retries: 2}, {image: c}]`,
			want: []string{`spec.steps[1].image: Invalid value: "c": field is immutable`}},

		// Maps.
		{name: "map values by key", old: `selectors: {a: x, b: v}`, new: `selectors: {b: v, a: z, c: w}`,
			want: []string{`spec.selectors[a]: Invalid value: "z": field is immutable`}},
		{name: "map keys added and removed with immutable values", old: `selectors: {a: x}`, new: `selectors: {b: v}`},
		{name: "map of objects", old: `mounts: {m: {source: s, readOnly: true}}`, new: `mounts: {m: {source: t, readOnly: false}}`,
			want: []string{`spec.mounts[m].source: Invalid value: "t": field is immutable`}},

		// Free-form subtrees and embedded resources.
		{name: "preserve-unknown-fields subtree equal", old: `config: {a: [1, {b: 2}], c: null}`, new: `config: {c: null, a: [1.0, {b: 2}]}`},
		{name: "preserve-unknown-fields subtree list order", old: `config: {a: [1, 2]}`, new: `config: {a: [2, 1]}`,
			want: []string{`spec.config: Invalid value: {"a":[2,1]}: field is immutable`}},
		{name: "preserve-unknown-fields known immutable field", old: `extra: {id: a, other: 1}`, new: `extra: {id: b, other: 2}`,
			want: []string{`spec.extra.id: Invalid value: "b": field is immutable`}},
		{name: "embedded resource changed", old: `template: {apiVersion: v1, kind: Pod, metadata: {name: a}}`,
			new:  `template: {apiVersion: v1, kind: Pod, metadata: {name: b}}`,
			want: []string{`spec.template: Invalid value: {"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}}: field is immutable`}},

		// Type mismatches.
		{name: "type mismatch under immutable", old: `name: a`, new: `name: {a: b}`,
			want: []string{`spec.name: Invalid value: {"a":"b"}: field is immutable`}},
		{name: "mistyped old parent is like an absent one", old: `opt: "x"`, new: `opt: {x: a}`},
		{name: "mistyped new parent is like an absent one", old: `opt: {x: a}`, new: `opt: [1]`},
		{name: "mistyped map with immutable keys compares as a value", old: `labels: [a]`, new: `labels: {a: b}`,
			want: []string{`spec.labels: Invalid value: {"a":"b"}: field is immutable`}},

		// Nesting.
		{name: "nested immutable inside immutable, one report", old: `nested: {inner: a, set: [1, 2]}`, new: `nested: {inner: b, set: [2, 1]}`,
			want: []string{`spec.nested: Invalid value: {"inner":"b","set":[2,1]}: field is immutable`}},
		{name: "set inside immutable object permuted", old: `nested: {inner: a, set: [1, 2, 3]}`, new: `nested: {set: [3, 1, 2], inner: a}`},
		{name: "atomic list inside immutable object in order", old: `nested: {list: [1, 2]}`, new: `nested: {list: [2, 1]}`,
			want: []string{`spec.nested: Invalid value: {"list":[2,1]}: field is immutable`}},

		// All violations.
		{name: "multiple violations all reported in order",
			old: `{name: a, replicas: 1, labels: {a: x}, args: [a, b], selectors: {k1: a, k2: b}, opt: {x: a}}`,
			new: `{name: b, labels: {b: x}, args: [x, z], selectors: {k2: c, k1: d}, opt: {}}`,
			want: []string{
				`spec.args[0]: Invalid value: "x": field is immutable`,
				`spec.args[1]: Invalid value: "z": field is immutable`,
				`spec.labels: Forbidden: key "a" may not be removed: keys are immutable`,
				`spec.labels: Forbidden: key "b" may not be added: keys are immutable`,
				`spec.name: Invalid value: "b": field is immutable`,
				`spec.opt.x: Forbidden: field "x" is immutable and may not be removed`,
				`spec.replicas: Forbidden: field "replicas" is immutable and may not be removed`,
				`spec.selectors[k1]: Invalid value: "d": field is immutable`,
				`spec.selectors[k2]: Invalid value: "c": field is immutable`,
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			oldObj := object(t, "kind: Widget\n"+specOf(tc.old))
			newObj := object(t, "kind: Widget\n"+specOf(tc.new))
			checkMessages(t, c.ValidateUpdate(newObj, oldObj), tc.want)
		})
	}
}

// specOf wraps the YAML of a spec; an empty string means no spec.
func specOf(y string) string {
	if y == "" {
		return ""
	}
	return "spec:\n  " + y
}
