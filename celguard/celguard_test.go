package celguard_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/parser"

	"github.com/immutable-gen/immutable-gen/celguard"
	"github.com/immutable-gen/immutable-gen/schema"
)

// root is a kind's schema: spec required with a required name, an
// optional suspend, a defaulted mode and an optional nested ref; status
// optional with optional conditions whose items require type and status.
const root = `{"type": "object", "required": ["spec"], "properties": {
  "metadata": {"type": "object"},
  "spec": {"type": "object", "required": ["name"], "properties": {
    "name": {"type": "string"},
    "suspend": {"type": "boolean"},
    "mode": {"type": "string", "default": "a"},
    "nullableName": {"type": "string", "nullable": true},
    "ref": {"type": "object", "required": ["group"], "properties": {"group": {"type": "string"}, "kind": {"type": "string"}}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
  "status": {"type": "object", "properties": {
    "phase": {"type": "string"},
    "conditions": {"type": "array", "items": {"type": "object", "required": ["type", "status"], "properties": {
      "type": {"type": "string"}, "status": {"type": "string"}, "reason": {"type": "string"}}}}}}}}`

// TestRoot: each read of an optional field either decides nothing where
// the field is absent (a has() on the way, by CEL's rules for && || ?:) or
// is reported at its column.
func TestRoot(t *testing.T) {
	var raw map[string]any
	if err := json.Unmarshal([]byte(root), &raw); err != nil {
		t.Fatal(err)
	}
	model, err := schema.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, expr string
		want       []string // "field@column"
	}{
		{"required fields", `self.spec.name == oldSelf.spec.name`, nil},
		{"defaulted field", `oldSelf.spec.mode == 'a'`, nil},
		{"optional field unguarded (the guide's old example)", `oldSelf.status.conditions.exists(c, c.type == 'Ready')`, []string{"oldSelf.status@1"}},
		{"optional boolean unguarded", `!oldSelf.spec.suspend`, []string{"oldSelf.spec.suspend@2"}},
		{"guarded with has() before &&", `has(oldSelf.spec.suspend) && oldSelf.spec.suspend`, nil},
		{"guarded with has() after && (CEL: false && error is false)", `oldSelf.spec.suspend && has(oldSelf.spec.suspend)`, nil},
		{"guarded with !has() before ||", `!has(oldSelf.spec.suspend) || !oldSelf.spec.suspend`, nil},
		{"guarded by a ternary", `has(oldSelf.status) ? oldSelf.status.phase == 'Ready' : false`, []string{"oldSelf.status.phase@23"}},
		{"guarded by a ternary, both steps", `has(oldSelf.status) && has(oldSelf.status.phase) ? oldSelf.status.phase == 'Ready' : false`, nil},
		{"the else branch of a ternary is not guarded", `has(oldSelf.status) ? true : oldSelf.status.phase == 'x'`, []string{"oldSelf.status@30"}},
		{"Kueue QuotaReserved", `has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')`, nil},
		{"has of a child reads its parent", `has(oldSelf.status.phase)`, []string{"oldSelf.status@5"}},
		{"a has() of a deeper field guards its parents", `has(oldSelf.status.conditions) && oldSelf.status.conditions.size() > 0`, []string{"oldSelf.status@5"}},
		{"optional field of list items", `has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.reason == 'x')`, []string{"c.reason@94"}},
		{"optional field of list items, guarded", `has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, has(c.reason) && c.reason == 'x')`, nil},
		{"nullable is optional", `self.spec.nullableName == 'x'`, []string{"self.spec.nullableName@1"}},
		{"required field of an optional object", `has(self.spec.ref) && self.spec.ref.group == 'g'`, nil},
		{"required field of an optional object, unguarded", `self.spec.ref.group == 'g'`, []string{"self.spec.ref@1"}},
		{"a guard on self does not guard oldSelf", `has(self.spec.suspend) && oldSelf.spec.suspend`, []string{"oldSelf.spec.suspend@27"}},
		{"in on an optional map", `'a' in self.spec.labels`, []string{"self.spec.labels@8"}},
		{"size of an optional list", `size(oldSelf.status.conditions) > 0`, []string{"oldSelf.status@6"}},
		{"metadata is the API server's", `self.metadata.name == oldSelf.metadata.name`, nil},
		{"each read once, in order", `oldSelf.spec.suspend || oldSelf.status.phase == 'x'`, []string{"oldSelf.spec.suspend@1", "oldSelf.status@25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			found, err := celguard.Root(c.expr, model)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, u := range found {
				if u.Line != 1 {
					t.Errorf("line %d", u.Line)
				}
				got = append(got, fmt.Sprintf("%s@%d", u.Field, u.Column))
				if u.Fix() == "" {
					t.Error("no fix")
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s:\n got %q\nwant %q", c.expr, got, c.want)
			}
		})
	}
}

// TestRootSyntaxError: an expression that does not parse is an error.
func TestRootSyntaxError(t *testing.T) {
	model, err := schema.Build(map[string]any{"type": "object"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := celguard.Root(`self &&& oldSelf`, model); err == nil {
		t.Error("no error")
	}
}

// FuzzRoot: any text, parsed or not, is judged without a panic, and every
// read reported is at a place in the text.
func FuzzRoot(f *testing.F) {
	var raw map[string]any
	if err := json.Unmarshal([]byte(root), &raw); err != nil {
		f.Fatal(err)
	}
	model, err := schema.Build(raw)
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		`oldSelf.status.conditions.exists(c, c.type == 'Ready')`,
		`has(oldSelf.status) ? oldSelf.status.phase == 'x' : !oldSelf.spec.suspend`,
		`[self.spec.ref.kind].all(x, x == 'a') || {'a': oldSelf.status.phase}['a'] == 'b'`,
		`self.spec.labels.all(k, self.spec.labels[k] == oldSelf.spec.labels[k])`,
		`!(!(!has(self.spec.suspend)))`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		found, err := celguard.Root(expr, model, "self.spec")
		if err != nil {
			return
		}
		for _, u := range found {
			if u.Line < 1 || u.Column < 1 || u.Read == "" || u.Field == "" {
				t.Errorf("%q: %+v", expr, u)
			}
		}
	})
}

// TestSteps: Steps gives every optional field on the way of an unguarded
// read, outermost first, with its schema node, where Root gives the first;
// fields a has() guards are left out, as by Root. Parsed is Root on a
// parsed expression, on the schema of a rule's node.
func TestSteps(t *testing.T) {
	var raw map[string]any
	if err := json.Unmarshal([]byte(root), &raw); err != nil {
		t.Fatal(err)
	}
	model, err := schema.Build(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...))
	if err != nil {
		t.Fatal(err)
	}
	spec := model.Properties["spec"]
	for _, c := range []struct {
		name   string
		expr   string
		node   *schema.Node
		steps  []string // "field@column nodePath"
		parsed []string
	}{
		{"both steps of a read", `oldSelf.status.phase == 'x'`, model,
			[]string{"oldSelf.status@1 status", "oldSelf.status.phase@1 status.phase"}, []string{"oldSelf.status@1 status"}},
		{"the outer step guarded", `has(oldSelf.status) && oldSelf.status.phase == 'x'`, model,
			[]string{"oldSelf.status.phase@24 status.phase"}, []string{"oldSelf.status.phase@24 status.phase"}},
		{"a required step between", `self.spec.ref.group == 'g'`, model,
			[]string{"self.spec.ref@1 spec.ref"}, []string{"self.spec.ref@1 spec.ref"}},
		{"a rule on spec", `self.suspend == oldSelf.suspend`, spec,
			[]string{"self.suspend@1 spec.suspend", "oldSelf.suspend@17 spec.suspend"}, []string{"self.suspend@1 spec.suspend", "oldSelf.suspend@17 spec.suspend"}},
		{"nothing unguarded", `self.spec.name == oldSelf.spec.name`, model, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			tree, iss := p.Parse(common.NewTextSource(c.expr))
			if iss != nil && len(iss.GetErrors()) > 0 {
				t.Fatal(iss.ToDisplayString())
			}
			render := func(us []celguard.Unguarded) []string {
				var out []string
				for _, u := range us {
					out = append(out, fmt.Sprintf("%s@%d %s", u.Field, u.Column, u.Node.Path()))
				}
				return out
			}
			if got := render(celguard.Steps(tree, c.node)); !slices.Equal(got, c.steps) {
				t.Errorf("Steps(%s):\n got %q\nwant %q", c.expr, got, c.steps)
			}
			if got := render(celguard.Parsed(tree, c.node)); !slices.Equal(got, c.parsed) {
				t.Errorf("Parsed(%s):\n got %q\nwant %q", c.expr, got, c.parsed)
			}
		})
	}
}
