package whendiff

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime/when"
)

var (
	diffConds = flag.Int("whendiff.conds", 400, "random conditions in TestDifferential")
	diffPairs = flag.Int("whendiff.pairs", 16, "random updates per condition in TestDifferential")
	diffSeed  = flag.Uint64("whendiff.seed", 1, "seed of TestDifferential (-whendiff.seed explores others)")
)

// theSchema is the fixed schema of the differential: optional fields of
// every type CEL gives a JSON value (int, double, string, bool, timestamp,
// duration, int-or-string, nullable), nested objects, lists of each list
// type, maps; the fields the repository's conditions read. Bounds keep
// every condition within the API server's cost budget.
const theSchema = `{
 "type": "object",
 "properties": {
  "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
  "spec": {"type": "object", "properties": {
   "suspend": {"type": "boolean"}, "paused": {"type": "boolean"}, "locked": {"type": "boolean"},
   "replicas": {"type": "integer"}, "size": {"type": "integer"}, "ratio": {"type": "number"},
   "x": {"type": "string", "maxLength": 8}, "name": {"type": "string", "maxLength": 8},
   "topologyName": {"type": "string", "maxLength": 8},
   "note": {"type": "string", "nullable": true, "maxLength": 8},
   "start": {"type": "string", "format": "date-time"},
   "timeout": {"type": "string", "format": "duration"},
   "ios": {"x-kubernetes-int-or-string": true},
   "f": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 8}},
   "items": {"type": "array", "maxItems": 4, "items": {"type": "integer"}},
   "tags": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "set", "items": {"type": "string", "maxLength": 8}},
   "ports": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
     "items": {"type": "object", "required": ["name"], "properties": {
       "name": {"type": "string", "maxLength": 8}, "port": {"type": "integer"}, "weight": {"type": "number"}}}},
   "labels": {"type": "object", "maxProperties": 4, "additionalProperties": {"type": "string", "maxLength": 8}},
   "counts": {"type": "object", "maxProperties": 4, "additionalProperties": {"type": "integer"}},
   "topology": {"type": "object", "properties": {
     "flag": {"type": "boolean"},
     "inner": {"type": "object", "properties": {"value": {"type": "string", "maxLength": 8}, "n": {"type": "integer"}}}}}
  }},
  "status": {"type": "object", "properties": {
   "phase": {"type": "string", "maxLength": 8}, "observed": {"type": "integer"}, "ready": {"type": "boolean"},
   "conditions": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
     "items": {"type": "object", "required": ["type", "status"], "properties": {
       "type": {"type": "string", "maxLength": 16}, "status": {"type": "string", "maxLength": 8}, "reason": {"type": "string", "maxLength": 8}}}}
  }}
 }
}`

// server is the API server's side: the schema's structural form, and the
// CRD validation a condition must pass at generation.
type server struct {
	v1 map[string]any
}

// verdict is one side's answer: "true", "false" or "error".
type verdict string

func verdictOf(b bool, err error) verdict {
	if err != nil {
		return "error"
	}
	return verdict(strconv.FormatBool(b))
}

// compile returns the API server's validator for the root rule
// `!(cond)`, the rule the generator writes (its other disjuncts do not
// change the condition's verdict), or the reason the CRD validation
// refuses the condition: then generation refuses it too.
func (s *server) compile(cond string) (*cel.Validator, *structuralschema.Structural, string) {
	raw := map[string]any{}
	for k, v := range s.v1 {
		raw[k] = v
	}
	raw["x-kubernetes-validations"] = []any{map[string]any{"rule": "!(" + cond + ")", "message": "TRUE"}}
	b, _ := json.Marshal(raw)
	var v1 apiextv1.JSONSchemaProps
	if err := json.Unmarshal(b, &v1); err != nil {
		panic(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		panic(err)
	}
	crd := &apiextensions.CustomResourceDefinition{}
	crd.Name = "things.diff.example.com"
	f := false
	crd.Spec = apiextensions.CustomResourceDefinitionSpec{
		Group:                 "diff.example.com",
		Names:                 apiextensions.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
		Scope:                 apiextensions.NamespaceScoped,
		Versions:              []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
		Validation:            &apiextensions.CustomResourceValidation{OpenAPIV3Schema: &internal},
		Conversion:            &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
		PreserveUnknownFields: &f,
	}
	crd.Status.StoredVersions = []string{"v1"}
	if errs := apivalidation.ValidateCustomResourceDefinition(context.Background(), crd); len(errs) > 0 {
		return nil, nil, errs.ToAggregate().Error()
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		panic(err)
	}
	return cel.NewValidator(ss, true, celconfig.PerCallLimit), ss, ""
}

func (s *server) eval(v *cel.Validator, ss *structuralschema.Structural, self, old map[string]any) (verdict, string) {
	errs, _ := v.Validate(context.Background(), nil, ss, self, old, celconfig.RuntimeCELCostBudget)
	switch {
	case len(errs) == 0:
		return "false", ""
	case len(errs) == 1 && errs[0].Detail == "TRUE":
		return "true", ""
	}
	return "error", errs.ToAggregate().Error()
}

type harness struct {
	t      testing.TB
	srv    *server
	schema *when.Schema
	// compiled, refused: how many conditions the API server took.
	compiled, refused, cases int
	disagree                 int
	// verdicts counts the API server's verdicts, to show each is reached.
	verdicts map[verdict]int
	// refusals keeps the API server's reasons for refused conditions.
	refusals []string
}

func newHarness(t testing.TB) *harness {
	var v1 map[string]any
	if err := json.Unmarshal([]byte(theSchema), &v1); err != nil {
		t.Fatal(err)
	}
	var sp spec.Schema
	if err := json.Unmarshal([]byte(theSchema), &sp); err != nil {
		t.Fatal(err)
	}
	ws, err := when.FromOpenAPI(&sp)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, srv: &server{v1: v1}, schema: ws, verdicts: map[verdict]int{}}
}

// check evaluates cond on every pair on both sides; false when the API
// server refuses the condition at generation (then runtime/when's verdict
// does not matter: no enforcer ever sees it).
func (h *harness) check(name, cond string, pairs [][2]map[string]any) bool {
	h.t.Helper()
	v, ss, refused := h.srv.compile(cond)
	if refused != "" {
		h.refusals = append(h.refusals, cond+": "+refused)
		h.refused++
		return false
	}
	h.compiled++
	e, err := when.Parse(cond)
	if err != nil {
		h.disagree++
		h.t.Errorf("%s: the API server compiles %q; Parse refuses it: %v", name, cond, err)
		return true
	}
	for _, p := range pairs {
		h.cases++
		want, detail := h.srv.eval(v, ss, p[0], p[1])
		h.verdicts[want]++
		got := verdictOf(e.Eval(h.schema, p[0], p[1]))
		if got != want {
			h.disagree++
			if h.disagree <= 20 {
				_, gotErr := e.Eval(h.schema, p[0], p[1])
				h.t.Errorf("%s: %s\nself:    %s\noldSelf: %s\nAPI server: %s %s\nwhen:       %s %v", name, cond, js(p[0]), js(p[1]), want, detail, got, gotErr)
			}
		}
	}
	return true
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestDifferential: random conditions from the subset's grammar on random
// updates; every verdict equal.
func TestDifferential(t *testing.T) {
	h := newHarness(t)
	rng := rand.New(rand.NewPCG(*diffSeed, 33))
	start := time.Now()
	for i := 0; i < *diffConds; i++ {
		g := &gen{rng: rng}
		cond := g.boolean(3)
		pairs := make([][2]map[string]any, *diffPairs)
		for k := range pairs {
			old := g.object()
			self := g.object()
			if rng.IntN(2) == 0 {
				self = g.mutate(old)
			}
			pairs[k] = [2]map[string]any{self, old}
		}
		h.check(fmt.Sprintf("seed %d cond %d", *diffSeed, i), cond, pairs)
	}
	t.Logf("%d conditions (%d compiled by the API server, %d refused at generation), %d evaluations compared (API server: %d true, %d false, %d error), %d disagreements, %s",
		*diffConds, h.compiled, h.refused, h.cases, h.verdicts["true"], h.verdicts["false"], h.verdicts["error"], h.disagree, time.Since(start).Round(time.Millisecond))
	for _, r := range h.refusals {
		t.Log("refused: " + r)
	}
	for _, v := range []verdict{"true", "false", "error"} {
		if h.verdicts[v] < h.cases/20 {
			t.Errorf("the API server answered %q %d times in %d: the draw does not exercise it", v, h.verdicts[v], h.cases)
		}
	}
	if h.compiled < *diffConds/2 {
		t.Errorf("only %d of %d random conditions compile: the grammar drifted from the schema", h.compiled, *diffConds)
	}
}

// whenMarker finds the conditions the repository writes.
var whenMarker = regexp.MustCompile("\\+immutable:when=(\"(?:[^\"\\\\]|\\\\.)*\"|`[^`]*`)")

// TestCorpus: every condition in testdata/, examples/ and docs/ that
// compiles against the fixed schema, on random updates.
func TestCorpus(t *testing.T) {
	h := newHarness(t)
	rng := rand.New(rand.NewPCG(*diffSeed, 34))
	g := &gen{rng: rng}
	corpus := corpusConditions(t)
	for _, cond := range corpus {
		pairs := make([][2]map[string]any, 64)
		for k := range pairs {
			old := g.object()
			pairs[k] = [2]map[string]any{g.mutate(old), old}
		}
		h.check("corpus", cond, pairs)
	}
	t.Logf("%d conditions in the corpus, %d compiled against the fixed schema, %d evaluations compared", len(corpus), h.compiled, h.cases)
	if h.compiled < 5 {
		t.Errorf("only %d corpus conditions compile against the fixed schema", h.compiled)
	}
}

// corpusConditions are the +immutable:when conditions written in
// testdata/, examples/ and docs/, sorted.
func corpusConditions(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	for _, dir := range []string{"testdata", "examples", "docs"} {
		root := filepath.Join("..", "..", dir)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range whenMarker.FindAllStringSubmatch(string(b), -1) {
				cond := m[1]
				if cond[0] == '`' {
					cond = cond[1 : len(cond)-1]
				} else if cond, err = strconv.Unquote(cond); err != nil {
					continue
				}
				seen[cond] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) < 5 {
		t.Fatalf("found %d conditions in the corpus; the pattern no longer matches", len(seen))
	}
	return slices.Sorted(maps.Keys(seen))
}

// targeted are conditions each aimed at one part of CEL's semantics, run on
// many updates: the random grammar reaches them too, but rarely.
var targeted = []struct{ name, cond string }{
	{"set equality ignores order", "self.spec.tags == oldSelf.spec.tags"},
	{"set inequality", "self.spec.tags != oldSelf.spec.tags"},
	{"list map equality ignores order", "self.spec.ports == oldSelf.spec.ports"},
	{"list map of conditions", "self.status.conditions == oldSelf.status.conditions"},
	{"atomic list equality in order", "self.spec.f == oldSelf.spec.f"},
	{"atomic int list", "self.spec.items == oldSelf.spec.items"},
	{"whole spec", "self.spec == oldSelf.spec"},
	{"whole status", "self.status != oldSelf.status"},
	{"map equality", "self.spec.labels == oldSelf.spec.labels"},
	{"nested object equality", "self.spec.topology == oldSelf.spec.topology"},
	{"double field equality (int64 in a number field)", "self.spec.ratio == oldSelf.spec.ratio"},
	{"double against an int literal, ordered", "self.spec.ratio < 1"},
	{"int ordered against a double", "self.spec.replicas < oldSelf.spec.ratio"},
	{"double literal equality", "self.spec.ratio == 1.0"},
	{"timestamps compare as instants", "self.spec.start == oldSelf.spec.start"},
	{"timestamps ordered", "self.spec.start < oldSelf.spec.start"},
	{"durations", "self.spec.timeout == oldSelf.spec.timeout"},
	{"durations ordered", "self.spec.timeout >= oldSelf.spec.timeout"},
	{"int-or-string", "self.spec.ios == oldSelf.spec.ios"},
	{"int-or-string against an int", "self.spec.ios == 1"},
	{"int-or-string against a string", "self.spec.ios == '1'"},
	{"exists_one with errors", "self.spec.ports.exists_one(p, p.port > 0)"},
	{"exists with errors absorbed", "self.spec.ports.exists(p, p.port > 0)"},
	{"all with errors absorbed", "self.spec.ports.all(p, p.port > 0)"},
	{"map keys", "self.spec.labels.exists(k, k == 'x-y')"},
	{"map keys all", "self.spec.counts.all(k, self.spec.counts[k] >= 0)"},
	{"in a set", "'a' in self.spec.tags"},
	{"in a map", "'ab' in oldSelf.spec.labels"},
	{"in an int list", "1 in self.spec.items"},
	{"or absorbs an error on the left", "self.spec.suspend || true"},
	{"or absorbs an error on the right", "true || self.spec.suspend"},
	{"and absorbs an error", "self.spec.suspend && false"},
	{"and keeps the error", "self.spec.suspend && true"},
	{"conditional on an error", "self.spec.suspend ? true : false"},
	{"not of an error", "!self.spec.suspend"},
	{"Kueue unguarded", "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"},
	{"Kueue guarded", "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"},
	{"JobSet", "!(has(oldSelf.spec.suspend) && oldSelf.spec.suspend)"},
	{"index out of range", "self.spec.items[1] == 2"},
	{"index of a map", "self.spec.labels['a'] == 'b'"},
	{"size of a string in code points", "size(self.spec.name) == 2"},
	{"metadata name", "self.metadata.name == oldSelf.metadata.name"},
	{"escaped key", "has(self.spec.labels.x__dash__y)"},
	{"string ordering", "self.spec.name < oldSelf.spec.name"},
	{"bool ordering", "self.spec.paused < oldSelf.spec.paused"},
	{"nested guard", "has(self.spec.topology) && has(self.spec.topology.inner) && self.spec.topology.inner.n > 1"},
	{"nullable", "has(self.spec.note) && self.spec.note == 'a'"},
	{"a set against a literal list", "self.spec.tags == ['a', 'b']"},
	{"a literal list against a set", "['a', 'b'] == self.spec.tags"},
	{"a list map against an empty literal", "self.spec.ports == []"},
	{"an empty literal against a list map", "[] == oldSelf.spec.ports"},
	{"an int list against a literal", "self.spec.items == [1, 2]"},
	{"items of a list map", "self.status.conditions[0] == oldSelf.status.conditions[0]"},
	{"a dashed key in a map", "'x-y' in self.spec.labels"},
	{"size of a map", "self.spec.counts.size() == oldSelf.spec.counts.size()"},
	{"nested macros", "self.spec.ports.all(p, oldSelf.spec.ports.exists(q, q.name == p.name))"},
	{"exists_one over map keys", "self.spec.labels.exists_one(k, self.spec.labels[k] == 'a')"},
	{"in with an error inside the list", "1 in self.spec.items"},
	{"conditional with non-bool branches", "(self.spec.suspend ? 1 : 2) == self.spec.replicas"},
	{"a list map item's optional field", "self.spec.ports.exists(p, has(p.port) && p.port == 1)"},
	{"index by a computed key", "self.spec.ports.all(p, p.name in self.spec.labels ? self.spec.labels[p.name] != '' : true)"},
	// Literals: each side reads the literal itself.
	{"hex escape", `'\x41' == 'A'`},
	{"hex escape above ASCII is a code point", `'\xe9' == 'é'`},
	{"octal escape", `"\101\060" == 'A0'`},
	{"unicode escapes", `'\u00e9\U0001F600' == "é😀"`},
	{"simple escapes", `'\a\b\f\n\r\t\v\\\'\"\?\` + "`" + `' == "\a\b\f\n\r\t\v\\'\"?` + "`" + `"`},
	{"raw string keeps backslashes", `r'\n' == '\\n'`},
	{"raw double-quoted", `R"a\'" == 'a\\\''`},
	{"triple-quoted string spans lines", "'''a\nb''' == 'a\\nb'"},
	{"triple-quoted with quotes inside", `"""a"b""" == 'a"b'`},
	{"triple-quoted raw", "r'''a\\nb''' == 'a\\\\nb'"},
	{"string size counts code points", "size('é😀') == 2"},
	{"hex int", "0x1F == 31"},
	{"negative hex int", "-0x10 == -16"},
	{"min int", "-9223372036854775808 < 0"},
	{"uint", "1u == 1u && 0x10u > 15u"},
	{"uint against int is not equal by type", "[1u] == [1u]"},
	{"double forms", "1e3 > 999.5 && .5 == 0.5 && 1.5e-1 < 1.0 && -2.5 < 0.0"},
	{"int against double in a list literal", "1 in [1, 2]"},
	{"list literal trailing comma", "[1, 2,] == [1, 2]"},
	{"null", "null == null"},
	{"string ordering by bytes", "'a' < 'b' && 'B' < 'a' && '' < 'a'"},
	{"bool ordering", "false < true"},
	{"startsWith empty", "'abc'.startsWith('') && 'abc'.endsWith('bc') && 'abc'.contains('b')"},
	{"conditional nests right", "true ? false : true ? true : false"},
	{"relations are left-associative", "1 < 2 == true"},
	{"in binds as a relation", "'a' in ['a'] == true"},
	{"not not", "!!true"},
	{"size method on a list literal", "[1, 2, 3].size() == 3"},
	{"exists_one on a literal", "[1, 2, 2].exists_one(i, i < 2)"},
	{"all on an empty list", "[].all(i, i > 0)"},
	{"index of a list literal", "[1, 2][1] == 2"},
}

// TestTargeted: each targeted condition on many random updates.
func TestTargeted(t *testing.T) {
	h := newHarness(t)
	g := &gen{rng: rand.New(rand.NewPCG(*diffSeed, 35))}
	for _, c := range targeted {
		t.Run(c.name, func(t *testing.T) {
			h.t = t
			pairs := make([][2]map[string]any, 200)
			for k := range pairs {
				old := g.object()
				self := g.object()
				if k%2 == 0 {
					self = g.mutate(old)
				}
				pairs[k] = [2]map[string]any{self, old}
			}
			if !h.check(c.name, c.cond, pairs) {
				t.Fatalf("the API server refuses %q: %s", c.cond, h.refusals[len(h.refusals)-1])
			}
		})
	}
}
