package preflight_test

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
)

const (
	rulesCRD   = "../testdata/check-update/rules/crd.yaml"
	exampleCRD = "../examples/config/crd/bases/cache.example.com_cacheclusters.yaml"
	widgetsCRD = "../testdata/check-update/widgets-crd.yaml"
)

// checker builds a Checker from CRD files.
func checker(t testing.TB, files ...string) *preflight.Checker {
	t.Helper()
	var crds []preflight.CRD
	for _, f := range files {
		objs, err := preflight.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			crds = append(crds, crdOf(t, o))
		}
	}
	c, err := preflight.NewChecker(crds)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func crdOf(t testing.TB, o preflight.Object) preflight.CRD {
	raw, err := yaml.Marshal(o.Object)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return preflight.CRD{Source: o.Source, Raw: js}
}

// rule returns a Rule object with the given spec (YAML) and extra top-level
// YAML, as the server decodes it.
func rule(t testing.TB, spec string, extra ...string) map[string]interface{} {
	t.Helper()
	doc := "apiVersion: preflight.example.com/v1\nkind: Rule\nmetadata: {name: r, namespace: ns}\nspec: " + spec + "\n" + strings.Join(extra, "\n")
	objs, err := preflight.Parse("rule.yaml", []byte(doc))
	if err != nil || len(objs) != 1 {
		t.Fatalf("%v %d", err, len(objs))
	}
	return objs[0].Object
}

// want is one expected error: type and field, and a substring of the text.
type want struct {
	typ   field.ErrorType
	field string
	text  string
}

func (w want) matches(e *field.Error) bool {
	return e.Type == w.typ && e.Field == w.field && strings.Contains(e.ErrorBody(), w.text)
}

func checkErrors(t *testing.T, got field.ErrorList, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(wants), render(got))
	}
	for i, w := range wants {
		if !w.matches(got[i]) {
			t.Errorf("error %d: got %s (%s), want %s at %s containing %q", i, got[i], got[i].Type, w.typ, w.field, w.text)
		}
	}
}

func render(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		b.WriteString("  " + e.Error() + "\n")
	}
	return b.String()
}

const base = "{class: small, minReplicas: 1, maxReplicas: 3, revision: 1, tags: [a], ports: [{name: http, port: 80}], labels: {a: x}}"

// TestRules: each rule the API server applies to an update or create of the
// main resource, on the hand-written rules CRD.
func TestRules(t *testing.T) {
	c := checker(t, rulesCRD)
	cases := []struct {
		name     string
		old      string // spec; empty: a create
		oldExtra string
		new      string
		newExtra string
		want     []want
		warnings []string
	}{
		{name: "unchanged update", old: base, new: base},
		{name: "transition rule: changed immutable field", old: base,
			new:  strings.Replace(base, "small", "large", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.class", "class is immutable"}}},
		{name: "optionalOldSelf: a value that shrinks", old: base,
			new:  strings.Replace(base, "revision: 1", "revision: 0", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.revision", "revision may only grow"}}},
		{name: "optionalOldSelf: a value set later", old: strings.Replace(base, "revision: 1, ", "", 1),
			new: strings.Replace(base, "revision: 1", "revision: 0", 1)},
		{name: "messageExpression and fieldPath", old: base,
			new:  strings.Replace(base, "minReplicas: 1", "minReplicas: 5", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.minReplicas", "minReplicas exceeds maxReplicas"}}},
		{name: "reason FieldValueForbidden", old: base,
			new:  strings.Replace(base, "{class", "{tier: gold, class", 1),
			want: []want{{field.ErrorTypeForbidden, "spec.tier", "only a gold cluster stays gold"}}},
		{name: "bounds: maximum", old: base,
			new:  strings.Replace(base, "maxReplicas: 3", "maxReplicas: 11", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.maxReplicas", "should be less than or equal to 10"}}},
		{name: "bounds: maxLength and pattern", old: base,
			new: strings.Replace(base, "{class", "{name: Abcdefghij, class", 1),
			want: []want{
				{field.ErrorTypeInvalid, "<nil>", "some validation rules were not checked"},
				{field.ErrorTypeTooLong, "spec.name", "may not be more than 8 bytes"},
			}},
		{name: "bounds: pattern", old: base,
			new:  strings.Replace(base, "{class", "{name: Abc, class", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.name", `should match '^[a-z]+$'`}}},
		{name: "type error blocks the CEL rules", old: base,
			new: strings.Replace(base, "minReplicas: 1", "minReplicas: one", 1),
			want: []want{
				{field.ErrorTypeInvalid, "<nil>", "some validation rules were not checked"},
				{field.ErrorTypeTypeInvalid, "spec.minReplicas", "must be of type integer"},
			}},
		{name: "list set: duplicate item", old: base,
			new:  strings.Replace(base, "tags: [a]", "tags: [a, a]", 1),
			want: []want{{field.ErrorTypeDuplicate, "spec.tags[1]", `"a"`}}},
		{name: "list map: duplicate key", old: base,
			new:  strings.Replace(base, "ports: [{name: http, port: 80}]", "ports: [{name: http, port: 80}, {name: http, port: 81}]", 1),
			want: []want{{field.ErrorTypeDuplicate, "spec.ports[1]", `{"name":"http"}`}}},
		{name: "ratcheting: an invalid value left unchanged",
			old: strings.Replace(base, "maxReplicas: 3", "maxReplicas: 20", 1),
			new: strings.Replace(strings.Replace(base, "maxReplicas: 3", "maxReplicas: 20", 1), "tags: [a]", "tags: [b]", 1)},
		{name: "ratcheting: an invalid value changed to another invalid one",
			old:  strings.Replace(base, "maxReplicas: 3", "maxReplicas: 20", 1),
			new:  strings.Replace(base, "maxReplicas: 3", "maxReplicas: 21", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.maxReplicas", "should be less than or equal to 10"}}},
		{name: "ratcheting: duplicates stored before stay allowed",
			old: strings.Replace(base, "tags: [a]", "tags: [a, a]", 1),
			new: strings.Replace(base, "tags: [a]", "tags: [a, a]", 1)},
		{name: "ratcheting: a CEL rule broken before stays allowed, with a warning",
			old:      strings.Replace(base, "{class", "{owner: bob, class", 1),
			new:      strings.Replace(base, "{class", "{owner: bob, class", 1),
			warnings: []string{"spec.owner: Invalid value: owner must start with team-"}},
		{name: "unknown fields are pruned with a warning, not refused", old: base,
			new:      strings.Replace(base, "{class", "{colour: red, class", 1),
			warnings: []string{`unknown field "spec.colour"`}},
		{name: "status is ignored when the status subresource is on", old: base,
			new: base, newExtra: "status: {phase: Exploded}"},
		{name: "a default makes a transition rule fire", old: base,
			new:  strings.Replace(base, "{class", "{tier: gold, class", 1),
			want: []want{{field.ErrorTypeForbidden, "spec.tier", "only a gold cluster stays gold"}}},
		{name: "a null in a non-nullable field is dropped", old: base,
			new: strings.Replace(base, "{class", "{owner: null, class", 1)},
		{name: "create: transition rules are not evaluated",
			new: strings.Replace(base, "{class", "{tier: gold, class", 1)},
		{name: "create: ordinary rules are",
			new:  strings.Replace(base, "{class", "{owner: bob, class", 1),
			want: []want{{field.ErrorTypeInvalid, "spec.owner", "owner must start with team-"}}},
		{name: "create: required fields",
			new: "{class: small}",
			want: []want{
				{field.ErrorTypeInvalid, "<nil>", "some validation rules were not checked"},
				{field.ErrorTypeRequired, "spec.maxReplicas", "Required value"},
				{field.ErrorTypeRequired, "spec.minReplicas", "Required value"},
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			newObj := rule(t, tc.new, tc.newExtra)
			var res preflight.Result
			var err error
			if tc.old == "" {
				res, err = c.Create(newObj)
			} else {
				res, err = c.Update(newObj, rule(t, tc.old, tc.oldExtra))
			}
			if err != nil {
				t.Fatal(err)
			}
			checkErrors(t, res.Errors, tc.want)
			if strings.Join(res.Warnings, "\n") != strings.Join(tc.warnings, "\n") {
				t.Errorf("warnings %q, want %q", res.Warnings, tc.warnings)
			}
		})
	}
}

// TestExampleCELCRD is the regression test of "exit 0 for everything": the
// example's default CRD carries CEL rules and no extensions, and a changed
// immutable field must be refused.
func TestExampleCELCRD(t *testing.T) {
	c := checker(t, exampleCRD)
	objs, err := preflight.Load("../testdata/check-update/cel/old/prod.yaml")
	if err != nil {
		t.Fatal(err)
	}
	changed, err := preflight.Load("../testdata/check-update/cel/engine-changed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Update(changed[0].Object, objs[0].Object)
	if err != nil {
		t.Fatal(err)
	}
	checkErrors(t, res.Errors, []want{{field.ErrorTypeInvalid, "spec.engine", "field is immutable"}})
	if res, _ := c.Update(objs[0].Object, objs[0].Object); !res.Allowed() {
		t.Errorf("unchanged object refused:\n%s", render(res.Errors))
	}
}

// TestExtensions: a CRD with x-kubernetes-immutable is checked by the
// runtime once the server's validation passed.
func TestExtensions(t *testing.T) {
	c := checker(t, widgetsCRD)
	widget := func(spec string) map[string]interface{} {
		objs, err := preflight.Parse("w.yaml", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: "+spec))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Object
	}
	res, err := c.Update(widget("{class: silver, replicas: 2}"), widget("{class: gold, replicas: 1}"))
	if err != nil {
		t.Fatal(err)
	}
	checkErrors(t, res.Errors, []want{{field.ErrorTypeInvalid, "spec.class", "field is immutable"}})
	// The server's own errors come first, as the admission plugin runs
	// only on what the server validated.
	res, err = c.Update(widget("{class: silver, replicas: two}"), widget("{class: gold, replicas: 1}"))
	if err != nil {
		t.Fatal(err)
	}
	checkErrors(t, res.Errors, []want{{field.ErrorTypeTypeInvalid, "spec.replicas", "must be of type integer"}})
	// A create is not an update: immutability does not apply.
	if res, _ := c.Create(widget("{class: silver}")); !res.Allowed() {
		t.Errorf("create refused:\n%s", render(res.Errors))
	}
}

// TestExtensionsEveryForm: a CRD carrying any one of the immutability
// extensions, and no other, is checked by the runtime: check-update never
// allows what the webhook would refuse because it did not see the form.
func TestExtensionsEveryForm(t *testing.T) {
	for _, tc := range []struct {
		name, property  string // the Gadget's spec.a, with one form
		old, new, field string
		typ             field.ErrorType
	}{
		{"immutable", "{type: string, x-kubernetes-immutable: true}", "{a: b}", "{a: c}", "spec.a", field.ErrorTypeInvalid},
		{"immutable keys", "{type: object, additionalProperties: {type: string}, x-kubernetes-immutable-keys: true}", "{a: {k: b}}", "{a: {k: b, l: c}}", "spec.a", field.ErrorTypeForbidden},
		{"immutable once", "{type: string, x-immutable-gen-immutable-once: true}", "{a: b}", "{}", "spec.a", field.ErrorTypeForbidden},
		{"no modify", "{type: string, x-immutable-gen-no-modify: true}", "{a: b}", "{a: c}", "spec.a", field.ErrorTypeInvalid},
		{"no set", "{type: string, x-immutable-gen-no-set: true}", "{}", "{a: c}", "spec.a", field.ErrorTypeForbidden},
		{"no unset", "{type: string, x-immutable-gen-no-unset: true}", "{a: b}", "{}", "spec.a", field.ErrorTypeForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := preflight.Parse("crd.yaml", []byte(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: `+tc.property+`}}}}}
`))
			if err != nil {
				t.Fatal(err)
			}
			c, err := preflight.NewChecker([]preflight.CRD{crdOf(t, objs[0])})
			if err != nil {
				t.Fatal(err)
			}
			gadget := func(spec string) map[string]interface{} {
				objs, err := preflight.Parse("g.yaml", []byte("apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: ns}\nspec: "+spec))
				if err != nil {
					t.Fatal(err)
				}
				return objs[0].Object
			}
			res, err := c.Update(gadget(tc.new), gadget(tc.old))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Errors) != 1 || res.Errors[0].Field != tc.field || res.Errors[0].Type != tc.typ {
				t.Errorf("errors:\n%s\nwant one %s at %s", render(res.Errors), tc.typ, tc.field)
			}
		})
	}
}

// TestUnusable: input that cannot be checked is an error, not a verdict.
func TestUnusable(t *testing.T) {
	c := checker(t, rulesCRD)
	gadget := map[string]interface{}{"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": map[string]interface{}{"name": "g"}}
	var noCRD *preflight.NoCRDError
	if _, err := c.Create(gadget); !errors.As(err, &noCRD) || noCRD.GroupKind.String() != "Gadget.example.com" {
		t.Errorf("no CRD: got %v", err)
	}
	r := rule(t, base)
	r2 := rule(t, base)
	r2["apiVersion"] = "preflight.example.com/v2"
	if _, err := c.Create(r2); err == nil || !strings.Contains(err.Error(), `serves no version "v2"`) {
		t.Errorf("unserved version: got %v", err)
	}
	if _, err := c.Update(r, gadget); err == nil || !strings.Contains(err.Error(), "keeps the group and kind") {
		t.Errorf("kind change: got %v", err)
	}

	crd := func(doc string) []preflight.CRD {
		objs, err := preflight.Parse("crd.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return []preflight.CRD{crdOf(t, objs[0])}
	}
	for name, tc := range map[string]struct{ doc, want string }{
		"v1beta1": {"apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: a.b}", "only apiextensions.k8s.io/v1 is served"},
		"refused": {"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: wrong}\nspec: {group: b, names: {kind: A, plural: as}, scope: Namespaced, versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]}",
			"the API server would refuse CustomResourceDefinition wrong"},
	} {
		if _, err := preflight.NewChecker(crd(tc.doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", name, err, tc.want)
		}
	}
	data, err := os.ReadFile(rulesCRD)
	if err != nil {
		t.Fatal(err)
	}
	two := crd(string(data))
	two = append(two, two[0])
	if _, err := preflight.NewChecker(two); err == nil || !strings.Contains(err.Error(), "defines Rule.preflight.example.com, as") {
		t.Errorf("two CRDs for a kind: got %v", err)
	}
}

// TestPair: objects pair by group, kind, namespace and name; the version may
// differ.
func TestPair(t *testing.T) {
	old, err := preflight.Parse("old.yaml", []byte(`
apiVersion: g/v1
kind: A
metadata: {name: x, namespace: prod}
---
apiVersion: g/v1
kind: A
metadata: {name: gone}
---
kind: AList
apiVersion: v1
items:
- {apiVersion: g/v1, kind: B, metadata: {name: x}}
`))
	if err != nil {
		t.Fatal(err)
	}
	new, err := preflight.Parse("new.yaml", []byte(`
{"apiVersion": "g/v2", "kind": "A", "metadata": {"name": "x", "namespace": "prod"}}
{"apiVersion": "g/v1", "kind": "B", "metadata": {"name": "x"}}
{"apiVersion": "g/v1", "kind": "B", "metadata": {"name": "y"}}
`))
	if err != nil {
		t.Fatal(err)
	}
	changes, err := preflight.Pair(old, new)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ch := range changes {
		s := ch.Key.String() + ":"
		if ch.Old != nil {
			s += " " + ch.Old.Source
		}
		if ch.New != nil {
			s += " -> " + ch.New.Source
		}
		got = append(got, s)
	}
	want := []string{
		"A.g/gone: old.yaml#2",
		"prod/A.g/x: old.yaml#1 -> new.yaml#1",
		"B.g/x: old.yaml#3.items[0] -> new.yaml#2",
		"B.g/y: -> new.yaml#3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := preflight.Pair(new, append(new, new[0])); err == nil || !strings.Contains(err.Error(), "is also defined at new.yaml#1") {
		t.Errorf("duplicate: got %v", err)
	}
}

// TestStoredMetadata: an old object read from a server keeps its uid and
// creation time, and an update may not change the uid; a manifest's object
// gets them as storing it would.
func TestStoredMetadata(t *testing.T) {
	c := checker(t, rulesCRD)
	stored := rule(t, base)
	meta := stored["metadata"].(map[string]interface{})
	meta["uid"] = "7f8e3b2a-0000-4000-8000-000000000001"
	meta["creationTimestamp"] = "2026-01-02T03:04:05Z"
	meta["resourceVersion"] = "42"
	for name, tc := range map[string]struct {
		uid  string
		want []want
	}{
		"same uid":    {uid: "7f8e3b2a-0000-4000-8000-000000000001"},
		"no uid":      {},
		"another uid": {uid: "7f8e3b2a-0000-4000-8000-000000000002", want: []want{{field.ErrorTypeInvalid, "metadata.uid", "field is immutable"}, {field.ErrorTypeInvalid, "metadata.uid", "field is immutable"}}},
	} {
		t.Run(name, func(t *testing.T) {
			obj := rule(t, base)
			if tc.uid != "" {
				obj["metadata"].(map[string]interface{})["uid"] = tc.uid
			}
			res, err := c.Update(obj, stored)
			if err != nil {
				t.Fatal(err)
			}
			checkErrors(t, res.Errors, tc.want)
		})
	}
}

// TestStrategyWarnings: the warnings of the server's strategy come with an
// accepted request, after those of pruning.
func TestStrategyWarnings(t *testing.T) {
	c := checker(t, rulesCRD)
	obj := rule(t, strings.Replace(base, "{class", "{colour: red, class", 1))
	obj["metadata"].(map[string]interface{})["finalizers"] = []interface{}{"cleanup"}
	res, err := c.Create(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`unknown field "spec.colour"`,
		`metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers`,
	}
	if strings.Join(res.Warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(res.Warnings, "\n"), strings.Join(want, "\n"))
	}
}

// TestVersions: an old object of another version of the resource is
// converted when the CRD's conversion is None.
func TestVersions(t *testing.T) {
	c := checker(t, widgetsCRD)
	parse := func(doc string) map[string]interface{} {
		objs, err := preflight.Parse("w.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return objs[0].Object
	}
	old := parse("apiVersion: example.com/v1alpha1\nkind: Widget\nmetadata: {name: w}\nspec: {class: gold}")
	res, err := c.Update(parse("apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {class: silver}"), old)
	if err != nil {
		t.Fatal(err)
	}
	checkErrors(t, res.Errors, []want{{field.ErrorTypeInvalid, "spec.class", "field is immutable"}})
}

// TestConcurrentUse: a Checker is safe for concurrent use (run with -race).
func TestConcurrentUse(t *testing.T) {
	c := checker(t, rulesCRD, exampleCRD)
	old, obj := rule(t, base), rule(t, strings.Replace(base, "small", "large", 1))
	done := make(chan field.ErrorList)
	for i := 0; i < 4; i++ {
		go func() {
			var last field.ErrorList
			for j := 0; j < 20; j++ {
				res, _ := c.Update(obj, old)
				last = res.Errors
			}
			done <- last
		}()
	}
	for i := 0; i < 4; i++ {
		checkErrors(t, <-done, []want{{field.ErrorTypeInvalid, "spec.class", "class is immutable"}})
	}
}

// TestNotJSON: values that are not JSON are an error, not a panic.
func TestNotJSON(t *testing.T) {
	c := checker(t, rulesCRD)
	for name, v := range map[string]interface{}{"a channel": make(chan int), "a struct": struct{}{}, "NaN": math.NaN()} {
		obj := rule(t, base)
		obj["spec"].(map[string]interface{})["owner"] = v
		if _, err := c.Create(obj); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := c.Update(obj, rule(t, base)); err == nil {
			t.Errorf("%s: no error on update", name)
		}
		if _, err := c.Update(rule(t, base), obj); err == nil {
			t.Errorf("%s: no error for the old object", name)
		}
	}
	obj := rule(t, base)
	obj["spec"].(map[string]interface{})["minReplicas"] = 1 // an int, as Go code writes it
	if res, err := c.Create(obj); err != nil || !res.Allowed() {
		t.Errorf("int: %v %v", err, res.Errors)
	}
}
