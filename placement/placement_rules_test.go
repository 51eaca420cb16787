package placement

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/schema"
)

// asMarkers turns a schema whose immutability is written with the
// extensions into the one controller-tools leaves for the same markers:
// each extension becomes a carrier of the marker, on field Spec.F at
// types.go line 10, 11, … in the order of VisitJSON and of the forms.
func asMarkers(t *testing.T, js string) map[string]any {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatal(err)
	}
	line := 10
	schema.VisitJSON(raw, func(_ schema.Steps, s map[string]any) bool {
		for _, form := range []struct {
			ext string
			o   schema.Origin
		}{{extension.Immutable, schema.Origin{}}, {extension.ImmutableKeys, schema.Origin{Keys: true}}, {extension.ImmutableOnce, schema.Origin{Once: true}}} {
			if s[form.ext] != true {
				continue
			}
			delete(s, form.ext)
			o := form.o
			o.Type, o.Field = "example.com/v1.Spec", "F"
			o.Pos.Filename, o.Pos.Line, o.Pos.Column = "types.go", line, 2
			line++
			b, err := json.Marshal(o)
			if err != nil {
				t.Fatal(err)
			}
			rules, _ := s["x-kubernetes-validations"].([]any)
			s["x-kubernetes-validations"] = append(rules, map[string]any{"rule": "@immutable-gen:origin " + string(b)})
		}
		return true
	})
	return raw
}

// TestPlacementRules: each placement rule of docs/semantics.md 2.2 (and the rules
// of +immutable=once) as a named case, on a schema written with the
// extensions: read as a CRD manifest (schema.FromExtensions, the lint path)
// the finding speaks of extensions; built from the carriers of the same
// markers (schema.Build, the generator's path) it speaks of markers.
func TestPlacementRules(t *testing.T) {
	const (
		imm  = `"x-kubernetes-immutable": true`
		keys = `"x-kubernetes-immutable-keys": true`
		once = `"x-immutable-gen-immutable-once": true`
	)
	spec := func(props string) string {
		return `{"type": "object", "properties": {"spec": {"type": "object", "properties": {` + props + `}}}}`
	}
	type text struct{ message, fix string }
	cases := []struct {
		name     string
		schema   string
		rule     Rule
		severity diag.Severity
		path     string // of the node
		detail   string
		related  string // path of Related, "" for none
		marker   text
		ext      text
	}{{
		name: "1: not at the root", schema: `{"type": "object", ` + imm + `}`,
		rule: RuleForbiddenPlace, severity: diag.Error, path: "<root>", related: "<root>",
		marker: text{"not allowed on the root type of a kind: the whole object would be immutable, including its metadata and status (KEP: forbidden at the root)", "mark the fields of spec (or spec itself) instead"},
		ext:    text{"x-kubernetes-immutable is not allowed at the root of the schema: the whole object would be immutable, including its metadata and status (KEP: forbidden at the root)", "put it on the fields of spec (or spec itself) instead"},
	}, {
		name: "1: not inside metadata", schema: `{"type": "object", "properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string", ` + imm + `}}}}}`,
		rule: RuleForbiddenPlace, severity: diag.Error, path: "metadata.name", detail: "metadata", related: "<root>",
		marker: text{"not allowed on the object's metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)", "remove the marker"},
		ext:    text{"x-kubernetes-immutable is not allowed on the object's metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)", "remove it"},
	}, {
		name: "1: not on the kind of an embedded resource", schema: spec(`"template": {"type": "object", "x-kubernetes-embedded-resource": true, "properties": {"kind": {"type": "string", ` + once + `}}}`),
		rule: RuleForbiddenPlace, severity: diag.Error, path: "spec.template.kind", detail: "kind", related: "spec.template",
		marker: text{"not allowed on the embedded resource spec.template's kind: it is set by the API machinery, and immutable implicitly", "remove the marker"},
		ext:    text{"x-immutable-gen-immutable-once is not allowed on the embedded resource spec.template's kind: it is set by the API machinery, and immutable implicitly", "remove it"},
	}, {
		name: "2: keys not on an atomic map", schema: spec(`"labels": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}, ` + keys + `}`),
		rule: RuleNoKeys, severity: diag.Error, path: "spec.labels", detail: "atomic map",
		marker: text{"=keys is not allowed on an atomic map: it has no keys of its own to keep", "use +immutable, or drop +mapType=atomic"},
		ext:    text{"x-kubernetes-immutable-keys is not allowed on an atomic map: it has no keys of its own to keep", "use `x-kubernetes-immutable: true`, or drop x-kubernetes-map-type: atomic"},
	}, {
		name: "2: keys not on a set", schema: spec(`"zones": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}, ` + keys + `}`),
		rule: RuleNoKeys, severity: diag.Error, path: "spec.zones", detail: "set",
		marker: text{"=keys is not allowed on a +listType=set list (KEP: set items are keys, so only +immutable is allowed)", "use +immutable: the items of a set are their own keys"},
		ext:    text{"x-kubernetes-immutable-keys is not allowed on a set (KEP: set items are keys, so only x-kubernetes-immutable is allowed)", "use `x-kubernetes-immutable: true`: the items of a set are their own keys"},
	}, {
		name: "2: keys not on an atomic list", schema: spec(`"args": {"type": "array", "items": {"type": "string"}, ` + keys + `}`),
		rule: RuleNoKeys, severity: diag.Error, path: "spec.args", detail: "atomic list",
		marker: text{"=keys is not allowed on an atomic list: it has no keys", "use +immutable, or make it a list map with +listType=map and +listMapKey=<field>"},
		ext:    text{"x-kubernetes-immutable-keys is not allowed on an atomic list: it has no keys", "use `x-kubernetes-immutable: true`, or make it a list map with x-kubernetes-list-type: map and x-kubernetes-list-map-keys"},
	}, {
		name: "2: keys not on a struct", schema: spec(`"ref": {"type": "object", "properties": {"name": {"type": "string"}}, ` + keys + `}`),
		rule: RuleNoKeys, severity: diag.Error, path: "spec.ref", detail: "struct",
		marker: text{"=keys is not allowed on a struct: only maps and +listType=map lists have keys", "use +immutable on the struct or on its fields"},
		ext:    text{"x-kubernetes-immutable-keys is not allowed on a struct: only maps (additionalProperties) and list maps (x-kubernetes-list-type: map) have keys", "use `x-kubernetes-immutable: true` on the object or on its properties"},
	}, {
		name: "2: keys not on a scalar", schema: spec(`"size": {"type": "integer", ` + keys + `}`),
		rule: RuleNoKeys, severity: diag.Error, path: "spec.size", detail: "integer",
		marker: text{"=keys is not allowed on an integer value: only maps and +listType=map lists have keys", "use +immutable"},
		ext:    text{"x-kubernetes-immutable-keys is not allowed on an integer value: only maps (additionalProperties) and list maps (x-kubernetes-list-type: map) have keys", "use `x-kubernetes-immutable: true`"},
	}, {
		name: "3: +immutable and =keys exclude each other", schema: spec(`"labels": {"type": "object", "additionalProperties": {"type": "string"}, ` + imm + `, ` + keys + `}`),
		rule: RuleExclusive, severity: diag.Error, path: "spec.labels",
		marker: text{"+immutable and +immutable=keys are exclusive on one node, and +immutable=keys comes from field Spec.F at types.go:11:2", "keep one of them: +immutable already includes the keys"},
		ext:    text{"x-kubernetes-immutable and x-kubernetes-immutable-keys are exclusive on one node (KEP)", "keep one of them: x-kubernetes-immutable already includes the keys"},
	}, {
		name: "3: =once excludes the others", schema: spec(`"name": {"type": "string", ` + imm + `, ` + once + `}`),
		rule: RuleExclusive, severity: diag.Error, path: "spec.name",
		marker: text{"+immutable is exclusive with the other immutability forms on one node, and +immutable=once comes from field Spec.F at types.go:11:2", "keep one of them: +immutable forbids setting the value later, +immutable=once allows it once"},
		ext:    text{"x-kubernetes-immutable is exclusive with the other immutability forms on one node", "keep one of them: x-kubernetes-immutable forbids setting the value later, x-immutable-gen-immutable-once allows it once"},
	}, {
		name: "4: keys on a list map need an immutable key", schema: spec(`"ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}, ` + keys + `}`),
		rule: RuleListMapKey, severity: diag.Error, path: "spec.ports", detail: "name",
		marker: text{`=keys on a list map requires its key "name" to be immutable (KEP: the map keys are enforced immutable)`, `add // +immutable to the list map key field "name" of the item type`},
		ext:    text{`x-kubernetes-immutable-keys on a list map requires its key "name" to be immutable (KEP: the map keys are enforced immutable)`, "add `x-kubernetes-immutable: true` to the key property spec.ports[*].name"},
	}, {
		name: "5: redundant inside an immutable subtree", schema: spec(`"ref": {"type": "object", ` + imm + `, "properties": {"name": {"type": "string", ` + imm + `}}}`),
		rule: RuleRedundant, severity: diag.Note, path: "spec.ref.name", related: "spec.ref",
		marker: text{"redundant: spec.ref.name is already immutable as part of spec.ref", ""},
		ext:    text{"redundant x-kubernetes-immutable: spec.ref.name is already immutable as part of spec.ref", "remove it; it changes nothing"},
	}, {
		name: "5: redundant inside a set-once subtree", schema: spec(`"ref": {"type": "object", ` + once + `, "properties": {"name": {"type": "string", ` + imm + `}}}`),
		rule: RuleRedundant, severity: diag.Note, path: "spec.ref.name", related: "spec.ref",
		marker: text{"redundant: spec.ref.name is already immutable as part of spec.ref (+immutable=once: once set, its whole value is fixed)", ""},
		ext:    text{"redundant x-kubernetes-immutable: spec.ref.name is already immutable as part of spec.ref (x-immutable-gen-immutable-once: once set, its whole value is fixed)", "remove it; it changes nothing"},
	}, {
		name: "6: no effect inside the items of a set", schema: spec(`"hosts": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object", "properties": {"host": {"type": "string", ` + imm + `}}}}`),
		rule: RuleNoEffect, severity: diag.Warning, path: "spec.hosts[*].host", related: "spec.hosts",
		marker: text{"has no effect inside the items of the +listType=set list spec.hosts: set items are identities, they are added or removed, never changed", "mark the set spec.hosts itself with +immutable to forbid any change"},
		ext:    text{"x-kubernetes-immutable has no effect inside the items of the set spec.hosts: set items are identities, they are added or removed, never changed", "mark the set spec.hosts itself with `x-kubernetes-immutable: true` to forbid any change"},
	}, {
		name: "once: not on list items", schema: spec(`"serials": {"type": "array", "items": {"type": "string", ` + once + `}}`),
		rule: RuleOnceProperty, severity: diag.Error, path: "spec.serials[*]",
		marker: text{"+immutable=once is not allowed on list items (spec.serials[*]): items come and go with their index or key, so they are never set later", "put +immutable=once on the list field instead, or +immutable on the item type to fix each item"},
		ext:    text{"x-immutable-gen-immutable-once is not allowed on list items (spec.serials[*]): items come and go with their index or key, so they are never set later", "put x-immutable-gen-immutable-once on the list property instead, or x-kubernetes-immutable on the items to fix each item"},
	}, {
		name: "once: not on map values", schema: spec(`"labels": {"type": "object", "additionalProperties": {"type": "string", ` + once + `}}`),
		rule: RuleOnceProperty, severity: diag.Error, path: "spec.labels[*]",
		marker: text{"+immutable=once is not allowed on map values (spec.labels[*]): values come and go with their key, so they are never set later", "put +immutable=once on the map field instead, or +immutable on the value type to fix each value"},
		ext:    text{"x-immutable-gen-immutable-once is not allowed on map values (spec.labels[*]): values come and go with their key, so they are never set later", "put x-immutable-gen-immutable-once on the map property instead, or x-kubernetes-immutable on the values to fix each value"},
	}, {
		name: "once: on a required property it is +immutable", schema: `{"type": "object", "properties": {"spec": {"type": "object", "required": ["class"], "properties": {"class": {"type": "string", ` + once + `}}}}}`,
		rule: RuleOnceRequired, severity: diag.Note, path: "spec.class", related: "spec",
		marker: text{"spec.class is required, so it is set at creation: +immutable=once is the same as +immutable here", ""},
		ext:    text{"spec.class is required, so it is set at creation: x-immutable-gen-immutable-once is the same as x-kubernetes-immutable here", "nothing to do; or write x-kubernetes-immutable: true, which says the same"},
	}}
	for _, tc := range cases {
		for _, path := range []string{"extensions", "markers"} {
			t.Run(tc.name+"/"+path, func(t *testing.T) {
				var root *schema.Node
				want := tc.ext
				if path == "extensions" {
					var raw map[string]any
					if err := json.Unmarshal([]byte(tc.schema), &raw); err != nil {
						t.Fatal(err)
					}
					root = schema.FromExtensions(raw)
				} else {
					var err error
					if root, err = schema.Build(asMarkers(t, tc.schema)); err != nil {
						t.Fatal(err)
					}
					want = tc.marker
				}
				findings := Findings(root)
				if len(findings) == 0 {
					t.Fatal("no finding")
				}
				f := findings[0] // for rule 3, the one about the first origin
				related := ""
				if f.Related != nil {
					related = f.Related.Path()
				}
				got := fmt.Sprintf("rule %d %v at %s, detail %q, related %q", f.Rule, f.Severity, f.Node.Path(), f.Detail, related)
				if w := fmt.Sprintf("rule %d %v at %s, detail %q, related %q", tc.rule, tc.severity, tc.path, tc.detail, tc.related); got != w {
					t.Errorf("got  %s\nwant %s", got, w)
				}
				if f.Message != want.message {
					t.Errorf("message\ngot  %s\nwant %s", f.Message, want.message)
				}
				if f.Fix != want.fix {
					t.Errorf("fix\ngot  %s\nwant %s", f.Fix, want.fix)
				}
				if f.Origin.Extension != (path == "extensions") {
					t.Errorf("origin is an extension: %v", f.Origin.Extension)
				}
				for _, other := range findings[1:] {
					if other.Rule != tc.rule || !strings.Contains(tc.name, "exclude") {
						t.Errorf("unexpected second finding: rule %d at %s: %s", other.Rule, other.Node.Path(), other.Message)
					}
				}
			})
		}
	}
}
