package schema_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/schema"
)

// parseMarked reads a schema in JSON where `"@immutable": true` and
// `"@keys": true` stand for the carriers of +immutable and
// +immutable=keys, each at its own line.
func parseMarked(t testing.TB, src string) map[string]any {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal([]byte(src), &raw); err != nil {
		t.Fatal(err)
	}
	g := &gen{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedAny(v) {
				walk(v[k])
			}
			if _, ok := v["@immutable"]; ok {
				delete(v, "@immutable")
				g.mark(v, false)
			}
			if _, ok := v["@keys"]; ok {
				delete(v, "@keys")
				g.mark(v, true)
			}
			if _, ok := v["@once"]; ok {
				delete(v, "@once")
				g.markOnce(v)
			}
			if _, ok := v["@noModify"]; ok {
				delete(v, "@noModify")
				g.markNoModify(v)
			}
			if _, ok := v["@ignoreOrder"]; ok { // +immutable +immutable:ignoreOrder
				delete(v, "@ignoreOrder")
				rules, _ := v["x-kubernetes-validations"].([]any)
				v["x-kubernetes-validations"] = append(rules, g.carrierWith(false, false, true))
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(raw)
	return raw
}

func sortedAny(m map[string]any) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestEmitCELAccountsForEveryMarker: every marker gets a rule, needs none,
// or is refused at its own position; needs are those of the rule itself.
func TestEmitCELAccountsForEveryMarker(t *testing.T) {
	listMap := `{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}`
	cases := []struct {
		name    string
		schema  string
		refused []int // lines of the refused markers
		rules   int   // rules emitted
		kube    string
	}{{
		name: "required struct with an unaddressable property holding a list map",
		schema: `{"type":"object","properties":{"spec":{"type":"object","required":["s"],"properties":{
			"s":{"@immutable":true,"type":"object","properties":{"a:b":` + listMap + `}}}}}}`,
		refused: []int{1},
	}, {
		name: "refused immutable struct still lowers the markers inside it",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{
			"s":{"@immutable":true,"type":"object","properties":{"a:b":` + listMap + `,"n":{"@immutable":true,"type":"string"}}}}}}}`,
		refused: []int{2},
		rules:   2, // presence and equality of n
		kube:    "1.28",
	}, {
		name: "a refused atomic list rule leaves no two-variable need behind",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{
			"l":{"type":"array","items":{"type":"object","properties":{
				"p":{"type":"array","items":{"@immutable":true,"type":"string"}},
				"q:r":{"@immutable":true,"type":"string"}}}},
			"z":{"@immutable":true,"type":"string"}}}}}`,
		refused: []int{1, 2},
		rules:   2,
		kube:    "1.28",
	}, {
		name: "list map key fields under =keys need no rule",
		schema: `{"type":"object","properties":{"spec":{"type":"object","properties":{
			"m":{"@keys":true,"type":"array","maxItems":4,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","required":["k"],"properties":{"k":{"@immutable":true,"type":"string","maxLength":8}}}}}}}}`,
		rules: 2, // presence and key set of m
		kube:  "1.28",
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(parseMarked(t, tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			res := schema.EmitCEL(root)
			checkAccounted(t, root, res)
			var refused []int
			for _, x := range res.Inexpressible {
				refused = append(refused, x.Origin.Pos.Line)
			}
			if fmt.Sprint(refused) != fmt.Sprint(orEmpty(tc.refused)) {
				t.Errorf("refused markers at lines %v, want %v: %+v", refused, tc.refused, res.Inexpressible)
			}
			rules := 0
			root.Walk(func(n *schema.Node) { rules += len(n.Emitted) })
			if rules != tc.rules {
				t.Errorf("%d rules, want %d", rules, tc.rules)
			}
			if tc.kube != "" && res.MinKubeVersion() != tc.kube {
				t.Errorf("MinKubeVersion %s, want %s", res.MinKubeVersion(), tc.kube)
			}
		})
	}
}

func orEmpty(l []int) []int {
	if l == nil {
		return []int{}
	}
	return l
}

var twoVarRule = regexp.MustCompile(`\.all\([a-z]+[0-9]+, [a-z]+[0-9]+,`)

// checkAccounted checks, independently of the lowering, that every marker
// that constrains anything is enforced by an emitted rule (its own or an
// immutable ancestor's), needs none (a list map key field), or is refused
// at its own position; that no marker is reported as missed by the
// lowering; and that each rule's and the result's two-variable need
// matches the rule text.
func checkAccounted(t testing.TB, root *schema.Node, res schema.CELResult) {
	t.Helper()
	type key struct {
		pos  string
		keys bool
	}
	kOf := func(o schema.Origin) key { return key{o.Pos.String(), o.Keys} }
	enforced, refused := map[key]bool{}, map[key]bool{}
	anyTwoVar := false
	var floor schema.KubeNeed
	root.Walk(func(n *schema.Node) {
		rules := n.Rules()
		for _, e := range n.Emitted {
			for _, o := range e.Origins {
				enforced[kOf(o)] = true
			}
			text := rules[e.Index].Rule
			if twoVarRule.MatchString(text) != e.TwoVariableComprehension {
				t.Errorf("%s: rule %q: TwoVariableComprehension=%v", n.Path(), text, e.TwoVariableComprehension)
			}
			anyTwoVar = anyTwoVar || e.TwoVariableComprehension
			// What the rule needs of the API server, from its text and
			// fields: 1.33 for a two-variable comprehension, 1.28 for
			// fieldPath or reason, 1.25 for a transition rule.
			want := "1.25"
			switch {
			case e.TwoVariableComprehension:
				want = "1.33"
			case rules[e.Index].FieldPath != "" || rules[e.Index].Reason != "":
				want = "1.28"
			}
			if e.Needs.Version != want || e.Needs.Reason == "" || e.Needs.Fix == "" {
				t.Errorf("%s: rule %q needs %+v, want Kubernetes %s with a reason and a fix", n.Path(), text, e.Needs, want)
			}
			if e.Needs.Newer(floor) {
				floor = e.Needs
			}
		}
	})
	if floor != res.Floor {
		t.Errorf("result floor %+v, the rules' %+v", res.Floor, floor)
	}
	if anyTwoVar != res.TwoVariableComprehensions {
		t.Errorf("result TwoVariableComprehensions=%v, rules %v", res.TwoVariableComprehensions, anyTwoVar)
	}
	for _, x := range res.Inexpressible {
		if strings.Contains(x.Reason, "a bug in immutable-gen") {
			t.Errorf("%s: the lowering missed a marker", x.Node.Path())
		}
		if refused[kOf(x.Origin)] {
			t.Errorf("%s: marker refused twice", x.Node.Path())
		}
		refused[kOf(x.Origin)] = true
		if !containsOrigin(x.Node.Origins, x.Origin) {
			t.Errorf("%s: refusal not at a marker of its node", x.Node.Path())
		}
	}
	// covered: an immutable ancestor's equality rule enforces n.
	var visit func(n *schema.Node, covered bool)
	visit = func(n *schema.Node, covered bool) {
		for _, o := range n.Origins {
			k := kOf(o)
			switch {
			case n.Parent == nil:
			case o.Keys && !(n.IsMap() || (n.IsList() && n.ListType() == "map")):
			case refused[k]:
				if enforced[k] {
					t.Errorf("%s: marker both enforced and refused", n.Path())
				}
			case enforced[k]:
			case covered:
			case isKeyField(n):
			default:
				t.Errorf("%s: marker %s at line %d has no rule and no error", n.Path(), o.Marker(), o.Pos.Line)
			}
		}
		if n.IsList() && n.ListType() == "set" {
			return
		}
		for _, o := range n.Origins {
			covered = covered || (!o.Keys && enforced[kOf(o)])
		}
		for _, c := range n.Children() {
			visit(c, covered)
		}
	}
	visit(root, false)
}

func containsOrigin(list []schema.Origin, o schema.Origin) bool {
	for _, x := range list {
		if x.Pos == o.Pos && x.Keys == o.Keys {
			return true
		}
	}
	return false
}

func isKeyField(n *schema.Node) bool {
	if n.Edge != schema.Property || n.Parent.Edge != schema.Items {
		return false
	}
	l := n.Parent.Parent
	if l.ListType() != "map" {
		return false
	}
	for _, k := range l.ListMapKeys() {
		if k == n.Name {
			return true
		}
	}
	return false
}

// FuzzEmitCELAccountsForEveryMarker lowers random schemas, including names
// CEL cannot address and sets of objects, and checks that every marker got
// its rules or an error at its own position (checkAccounted).
func FuzzEmitCELAccountsForEveryMarker(f *testing.F) {
	for _, seed := range []uint64{0, 1, 2, 3, 42, 1000} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		g := &gen{r: rand.New(rand.NewPCG(seed, 11)), wild: true}
		raw := g.root()
		root, err := schema.Build(raw)
		if err != nil {
			t.Fatal(err)
		}
		res := schema.EmitCEL(root)
		checkAccounted(t, root, res)
	})
}

// TestEmitCELOnce: the rules of +immutable=once, one case per shape, and
// +immutable:message on the rules of every form.
func TestEmitCELOnce(t *testing.T) {
	withMessage := func(raw map[string]any, path []string, msg string) {
		n := raw
		for _, p := range path {
			n = n["properties"].(map[string]any)[p].(map[string]any)
		}
		rules := n["x-kubernetes-validations"].([]any)
		for _, r := range rules {
			rule := r.(map[string]any)
			o, _, _ := schema.ParseCarrier(rule["rule"].(string))
			o.Message = msg
			b, _ := json.Marshal(o)
			rule["rule"] = "@immutable-gen:origin " + string(b)
		}
	}
	cases := []struct {
		name    string
		schema  string
		message []string // a property path and the message of its marker
		want    []string // "path: rule: message", in tree order
		limits  int
	}{{
		name:   "optional scalar",
		schema: `{"type":"object","properties":{"v":{"type":"string","@once":true}}}`,
		want: []string{
			"<root>: !has(oldSelf.v) || has(self.v): v is immutable once set: it may not be removed",
			"v: self == oldSelf: field is immutable once set",
		},
	}, {
		name:   "required scalar needs no presence rule",
		schema: `{"type":"object","required":["v"],"properties":{"v":{"type":"string","@once":true}}}`,
		want:   []string{"v: self == oldSelf: field is immutable once set"},
	}, {
		name:   "struct: nothing below gets a rule",
		schema: `{"type":"object","properties":{"e":{"type":"object","@once":true,"properties":{"h":{"type":"string","@immutable":true}}}}}`,
		want: []string{
			"<root>: !has(oldSelf.e) || has(self.e): e is immutable once set: it may not be removed",
			"e: self == oldSelf: field is immutable once set",
		},
	}, {
		name:   "set",
		schema: `{"type":"object","properties":{"z":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"},"@once":true}}}`,
		want: []string{
			"<root>: !has(oldSelf.z) || has(self.z): z is immutable once set: it may not be removed",
			"z: self == oldSelf: field is immutable once set",
		},
	}, {
		name:    "message on once",
		schema:  `{"type":"object","properties":{"v":{"type":"string","@once":true}}}`,
		message: []string{"v", "v may not change once set"},
		want: []string{
			"<root>: !has(oldSelf.v) || has(self.v): v may not change once set",
			"v: self == oldSelf: v may not change once set",
		},
	}, {
		name:    "message on immutable",
		schema:  `{"type":"object","properties":{"v":{"type":"string","@immutable":true}}}`,
		message: []string{"v", "v is fixed"},
		want: []string{
			"<root>: has(self.v) == has(oldSelf.v): v is fixed",
			"v: self == oldSelf: v is fixed",
		},
	}, {
		name:    "message on keys",
		schema:  `{"type":"object","required":["m"],"properties":{"m":{"type":"object","additionalProperties":{"type":"string"},"@keys":true}}}`,
		message: []string{"m", "no new keys"},
		want:    []string{"m: self.size() == oldSelf.size() && self.all(k1, k1 in oldSelf): no new keys"},
	}, {
		name:   "nullable once is a limit",
		schema: `{"type":"object","properties":{"v":{"type":"string","nullable":true,"@once":true}}}`,
		want: []string{
			"<root>: !has(oldSelf.v) || has(self.v): v is immutable once set: it may not be removed",
			"v: self == oldSelf: field is immutable once set",
		},
		limits: 1,
	}, {
		name:   "misplaced on list items: no rule (placement reports it)",
		schema: `{"type":"object","properties":{"l":{"type":"array","maxItems":2,"items":{"type":"string","@once":true}}}}`,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			raw := parseMarked(t, tc.schema)
			if tc.message != nil {
				withMessage(raw, tc.message[:len(tc.message)-1], tc.message[len(tc.message)-1])
			}
			root, err := schema.Build(raw)
			if err != nil {
				t.Fatal(err)
			}
			res := schema.EmitCEL(root)
			if len(res.Inexpressible) > 0 {
				t.Fatalf("inexpressible: %+v", res.Inexpressible)
			}
			if len(res.Limits) != tc.limits {
				t.Errorf("%d limits, want %d: %+v", len(res.Limits), tc.limits, res.Limits)
			}
			var got []string
			root.Walk(func(n *schema.Node) {
				for _, rule := range n.Rules() {
					got = append(got, fmt.Sprintf("%s: %s: %s", n.Path(), rule.Rule, rule.Message))
				}
			})
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestEmitCELIgnoreOrder: beside +immutable:ignoreOrder the equality of the
// marked value is CEL's == alone (it compares list maps by key), without
// the order projections; a marker inside it without its own ignoreOrder
// keeps nothing of order either (it is redundant), and a marker above it
// without ignoreOrder compares everything in order.
func TestEmitCELIgnoreOrder(t *testing.T) {
	lm := func(mark string) string {
		return `{` + mark + `"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"}}}}`
	}
	cases := []struct {
		name, schema string
		want         []string
	}{{
		name:   "list map",
		schema: `{"type":"object","required":["l"],"properties":{"l":` + lm(`"@ignoreOrder":true,`) + `}}`,
		want:   []string{"l: self == oldSelf: field is immutable"},
	}, {
		name:   "without it the order is compared",
		schema: `{"type":"object","required":["l"],"properties":{"l":` + lm(`"@immutable":true,`) + `}}`,
		want:   []string{"l: self == oldSelf && self.map(x1, x1.name) == oldSelf.map(x1, x1.name): field is immutable"},
	}, {
		name:   "struct holding list maps, optional",
		schema: `{"type":"object","properties":{"s":{"@ignoreOrder":true,"type":"object","properties":{"a":` + lm("") + `,"m":{"type":"object","additionalProperties":` + lm("") + `}}}}}`,
		want: []string{
			"<root>: has(self.s) == has(oldSelf.s): s is an immutable field: it may not be added or removed after creation",
			"s: self == oldSelf: field is immutable",
		},
	}, {
		name:   "an ordered marker above wins",
		schema: `{"type":"object","required":["s"],"properties":{"s":{"@immutable":true,"type":"object","required":["l"],"properties":{"l":` + lm(`"@ignoreOrder":true,`) + `}}}}`,
		want:   []string{"s: self == oldSelf && (has(self.l) ? self.l.map(x1, x1.name) : []) == (has(oldSelf.l) ? oldSelf.l.map(x1, x1.name) : []): field is immutable"},
	}, {
		name:   "in atomic list items",
		schema: `{"type":"object","required":["a"],"properties":{"a":{"type":"array","maxItems":4,"items":` + lm(`"@ignoreOrder":true,`) + `}}}`,
		want:   []string{"a: self.all(i1, x1, i1 >= oldSelf.size() || (x1 == oldSelf[i1])): items are immutable where marked: an item at an existing index may not change"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root, err := schema.Build(parseMarked(t, tc.schema))
			if err != nil {
				t.Fatal(err)
			}
			if res := schema.EmitCEL(root); len(res.Inexpressible) > 0 {
				t.Fatalf("inexpressible: %+v", res.Inexpressible)
			}
			var got []string
			root.Walk(func(n *schema.Node) {
				for _, rule := range n.Rules() {
					got = append(got, fmt.Sprintf("%s: %s: %s", n.Path(), rule.Rule, rule.Message))
				}
			})
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
