package celform_test

import (
	"encoding/json"
	"fmt"
	"go/token"
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/celform"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// A placement is where a marker stands in a schema, and the schema of the
// value it stands on.
type placement struct {
	name string
	// schema builds the spec schema with the carrier on the marked node.
	schema func(carrier []any) map[string]any
	// elements is true where the marked node is list items or map values.
	elements bool
	// keyed is true where the marked node has keys (a map, a list map).
	keyed bool
	// listMap is true where the marked node holds a list map.
	listMap bool
}

func obj(props map[string]any, required ...string) map[string]any {
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		r := make([]any, len(required))
		for i, s := range required {
			r[i] = s
		}
		o["required"] = r
	}
	return o
}

func with(s map[string]any, carrier []any) map[string]any {
	s["x-kubernetes-validations"] = carrier
	return s
}

func str() map[string]any { return map[string]any{"type": "string", "maxLength": 16} }

func listMap() map[string]any {
	return map[string]any{"type": "array", "maxItems": 8, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
		"items": obj(map[string]any{"name": str(), "v": str()}, "name")}
}

func strMap() map[string]any {
	return map[string]any{"type": "object", "maxProperties": 8, "additionalProperties": str()}
}

var placements = []placement{
	{name: "optional scalar", schema: func(c []any) map[string]any { return obj(map[string]any{"f": with(str(), c)}) }},
	{name: "required scalar", schema: func(c []any) map[string]any { return obj(map[string]any{"f": with(str(), c)}, "f") }},
	{name: "optional map", keyed: true, schema: func(c []any) map[string]any { return obj(map[string]any{"f": with(strMap(), c)}) }},
	{name: "required map", keyed: true, schema: func(c []any) map[string]any { return obj(map[string]any{"f": with(strMap(), c)}, "f") }},
	{name: "optional list map", keyed: true, listMap: true, schema: func(c []any) map[string]any { return obj(map[string]any{"f": with(listMap(), c)}) }},
	{name: "optional struct holding a list map", listMap: true, schema: func(c []any) map[string]any {
		return obj(map[string]any{"f": with(obj(map[string]any{"g": obj(map[string]any{"l": listMap()})}), c)})
	}},
	{name: "optional set", schema: func(c []any) map[string]any {
		return obj(map[string]any{"f": with(map[string]any{"type": "array", "maxItems": 8, "x-kubernetes-list-type": "set", "items": str()}, c)})
	}},
	{name: "optional atomic list", schema: func(c []any) map[string]any {
		return obj(map[string]any{"f": with(map[string]any{"type": "array", "maxItems": 8, "items": str()}, c)})
	}},
	{name: "list map items", elements: true, schema: func(c []any) map[string]any {
		l := listMap()
		l["items"] = with(l["items"].(map[string]any), c)
		return obj(map[string]any{"f": l})
	}},
	{name: "map values", elements: true, schema: func(c []any) map[string]any {
		return obj(map[string]any{"f": map[string]any{"type": "object", "maxProperties": 8, "additionalProperties": with(str(), c)}})
	}},
	{name: "map values that are maps", elements: true, keyed: true, schema: func(c []any) map[string]any {
		return obj(map[string]any{"f": map[string]any{"type": "object", "maxProperties": 8, "additionalProperties": with(strMap(), c)}})
	}},
	{name: "atomic list items", elements: true, schema: func(c []any) map[string]any {
		return obj(map[string]any{"f": map[string]any{"type": "array", "maxItems": 8, "items": with(obj(map[string]any{"a": str()}), c)}})
	}},
}

// TestRecognizeLower: for every form of the table at every placement
// where the table allows it, with and without ignoreOrder and a message,
// the rules the generator lowers the marker to are recognised as the
// marker's constraint, both canonical (Recognize(Lower(c)) = c), and
// nothing is left.
func TestRecognizeLower(t *testing.T) {
	line := 0
	for _, p := range placements {
		for _, k := range form.Kinds() {
			if p.elements && !k.Places.Elements || !p.elements && !k.Places.Properties || k.Places.KeyedOnly && !p.keyed {
				continue
			}
			for _, mod := range []form.Form{{}, {IgnoreOrder: true}, {Message: "f is fixed"}, {When: "!has(oldSelf.spec.frozen) || !oldSelf.spec.frozen"}} {
				if mod.IgnoreOrder && (!p.listMap || k.Change != form.NoChange) || mod.When != "" && p.elements {
					continue
				}
				f := form.Form{Presence: k.Presence, Change: k.Change, IgnoreOrder: mod.IgnoreOrder, Message: mod.Message, When: mod.When}
				name := fmt.Sprintf("%s/%s", p.name, f)
				t.Run(name, func(t *testing.T) {
					line++
					pos := token.Position{Filename: "types.go", Line: line, Column: 2}
					o := schema.Origin{Pos: pos, DeclPos: pos, Type: "x.T", Field: "F", JSONName: "f"}.WithForm(f)
					raw := obj(map[string]any{"spec": p.schema([]any{map[string]any{"rule": o.Carrier()}})})
					raw = roundTrip(t, raw)
					model, err := schema.Build(raw)
					if err != nil {
						t.Fatal(err)
					}
					want := celform.Constraints(model)
					res := celform.Lower(model)
					if len(res.Inexpressible) > 0 {
						t.Fatalf("the lowering refused it: %s", res.Inexpressible[0].Reason)
					}
					got, left := celform.Recognize(schema.FromExtensions(raw))
					if len(left) > 0 {
						t.Errorf("left: %+v\nrules: %s", left, rulesOf(raw))
					}
					if !slices.Equal(got, want) {
						t.Errorf("recognised %v, want %v\nrules: %s", got, want, rulesOf(raw))
					}
				})
			}
		}
	}
}

func roundTrip(t *testing.T, v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// rulesOf lists the rules of a schema, for failure messages.
func rulesOf(raw map[string]any) string {
	var b strings.Builder
	var walk func(path string, s map[string]any)
	walk = func(path string, s map[string]any) {
		if rs, ok := s["x-kubernetes-validations"].([]any); ok {
			for _, r := range rs {
				fmt.Fprintf(&b, "\n  %s: %v", path, r.(map[string]any)["rule"])
			}
		}
		if ps, ok := s["properties"].(map[string]any); ok {
			for k, c := range ps {
				walk(path+"."+k, c.(map[string]any))
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if c, ok := s[k].(map[string]any); ok {
				walk(path+"["+k+"]", c)
			}
		}
	}
	walk("", raw)
	return b.String()
}

// TestRecognizeHandWritten: rules as API authors write them, read with
// CEL's semantics: a transition rule runs only where its value is present
// in both objects, and == ignores the order of list maps.
func TestRecognizeHandWritten(t *testing.T) {
	rule := func(r string) []any { return []any{map[string]any{"rule": r}} }
	cases := []struct {
		name string
		spec map[string]any
		want []string // constraints as rendered, in path order
		left int
	}{
		{"self == oldSelf on an optional field is fixed while present",
			obj(map[string]any{"f": with(str(), rule("self == oldSelf"))}),
			[]string{"spec.f: +k8s:update=NoModify"}, 0},
		{"with the presence rule on the parent it is immutable",
			with(obj(map[string]any{"f": with(str(), rule("self == oldSelf"))}), rule("has(self.f) == has(oldSelf.f)")),
			[]string{"spec.f: +immutable"}, 0},
		{"with the removal rule it is set once",
			with(obj(map[string]any{"f": with(str(), rule("self == oldSelf"))}), rule("!has(oldSelf.f) || has(self.f)")),
			[]string{"spec.f: +immutable=once"}, 0},
		{"on a required field it is immutable",
			obj(map[string]any{"f": with(str(), rule("self == oldSelf"))}, "f"),
			[]string{"spec.f: +immutable"}, 0},
		{"self.f == oldSelf.f on the parent keeps f present too",
			with(obj(map[string]any{"f": str()}), rule("self.f == oldSelf.f")),
			[]string{"spec.f: +immutable"}, 0},
		{"self == oldSelf on a list map ignores its order (JobSet's dependsOn)",
			obj(map[string]any{"f": with(listMap(), rule("self == oldSelf"))}),
			[]string{"spec.f: +k8s:update=NoModify +immutable:ignoreOrder"}, 0},
		{"self == oldSelf on a struct holding a list map ignores its order",
			with(obj(map[string]any{"f": with(obj(map[string]any{"g": obj(map[string]any{"l": listMap()})}), rule("self == oldSelf"))}), rule("has(self.f) == has(oldSelf.f)")),
			[]string{"spec.f: +immutable +immutable:ignoreOrder"}, 0},
		{"the keys compared in order beside it keep the order",
			obj(map[string]any{"f": with(listMap(), rule("self == oldSelf && self.map(x, x.name) == oldSelf.map(x, x.name)"))}, "f"),
			[]string{"spec.f: +immutable"}, 0},
		{"keys in order alone is no form",
			obj(map[string]any{"f": with(listMap(), rule("self.map(x, x.name) == oldSelf.map(x, x.name)"))}, "f"),
			nil, 1},
		{"a custom message travels",
			obj(map[string]any{"f": map[string]any{"type": "string", "x-kubernetes-validations": []any{map[string]any{"rule": "self == oldSelf", "message": "f is fixed"}}}}, "f"),
			[]string{`spec.f: +immutable +immutable:message="f is fixed"`}, 0},
		{"a rule that says more is left, and so is the presence rule beside it",
			with(obj(map[string]any{"f": with(str(), rule("self == oldSelf && self.size() < 5"))}), rule("has(self.f) == has(oldSelf.f)")),
			nil, 2},
		{"a conditional rule carries its condition",
			obj(map[string]any{"f": with(str(), rule("oldSelf.size() == 0 || self == oldSelf"))}, "f"),
			[]string{`spec.f: +immutable +immutable:when="!(oldSelf.spec.f.size() == 0)"`}, 0},
		{"rules under different conditions are left",
			with(obj(map[string]any{"f": with(str(), rule("oldSelf.size() == 0 || self == oldSelf"))}), rule("has(self.f) == has(oldSelf.f)")),
			nil, 2},
		{"a conditional rule inside list items is left",
			obj(map[string]any{"f": func() map[string]any {
				l := listMap()
				l["items"] = with(l["items"].(map[string]any), rule("oldSelf.v == '' || self.v == oldSelf.v"))
				return l
			}()}),
			nil, 1},
		{"a rule about no immutability is neither",
			obj(map[string]any{"f": with(str(), rule("self.size() < 5"))}),
			nil, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := roundTrip(t, obj(map[string]any{"spec": tc.spec}))
			got, left := celform.Recognize(schema.FromExtensions(raw))
			var rendered []string
			for _, c := range got {
				rendered = append(rendered, c.String())
			}
			if !slices.Equal(rendered, tc.want) || len(left) != tc.left {
				t.Errorf("got %q, %d left %+v; want %q, %d left", rendered, len(left), left, tc.want, tc.left)
			}
		})
	}
}
