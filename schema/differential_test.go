package schema_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apivalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/schema"
)

var (
	diffSchemas = flag.Int("diff.schemas", 200, "random schemas in TestCELMatchesRuntime")
	diffPairs   = flag.Int("diff.pairs", 50, "random updates per schema in TestCELMatchesRuntime")
	diffSeed    = flag.Uint64("diff.seed", 1, "seed of TestCELMatchesRuntime (each run of CI uses the same seeds; -diff.seed explores others)")
)

// TestCELMatchesRuntime is the differential test of the CEL lowering
// (docs/semantics.md 2.3): random schemas with every marker shape, nested, optional
// and required, and random updates derived from random objects (changes,
// reorders, additions, removals) are each judged by the runtime (the
// reference) on the extensions output and by the API server's own CEL
// validator, with ratcheting as the API server runs it, on the CEL output.
// Verdicts must agree, and the fields the two name must match.
func TestCELMatchesRuntime(t *testing.T) {
	total, rejected := 0, 0
	onceKinds := map[string]int{} // +immutable=once nodes by shape
	unorderedLists := 0           // list maps under x-immutable-gen-ignore-order
	noModify := 0                 // properties fixed while present
	presenceOnly := 0             // NoSet, NoUnset extensions
	for s := 0; s < *diffSchemas; s++ {
		seed := *diffSeed*1_000_003 + uint64(s)
		g := &gen{r: rand.New(rand.NewPCG(seed, 7))}
		raw := g.root()
		c, ok := compileBoth(t, raw, seed)
		if !ok {
			continue
		}
		countOnce(c.objSchema, onceKinds)
		unorderedLists += countUnordered(c.objSchema, false)
		noModify += strings.Count(js(c.objSchema), `"x-immutable-gen-no-modify":true`)
		presenceOnly += strings.Count(js(c.objSchema), `"x-immutable-gen-no-set":true`) + strings.Count(js(c.objSchema), `"x-immutable-gen-no-unset":true`)
		for p := 0; p < *diffPairs; p++ {
			old := g.value(c.objSchema)
			obj := g.mutate(c.objSchema, deepCopy(old))
			rt := c.checker.ValidateUpdate(asMap(obj), asMap(old))
			ce := c.validateCEL(asMap(obj), asMap(old))
			total++
			if len(rt) > 0 {
				rejected++
			}
			if msg := compareVerdicts(rt, ce); msg != "" {
				t.Fatalf("schema seed %d, pair %d: %s\nschema (CEL): %s\nold: %s\nnew: %s\nruntime: %v\nCEL: %v",
					seed, p, msg, js(c.celSchema), js(old), js(obj), rt, ce)
			}
		}
	}
	t.Logf("%d updates on %d schemas agreed; %d rejected, %d allowed", total, *diffSchemas, rejected, total-rejected)
	if total < *diffSchemas**diffPairs*9/10 {
		t.Fatalf("only %d of %d updates were run: too many random schemas were refused", total, *diffSchemas**diffPairs)
	}
	if rejected < total/10 || rejected > total*9/10 {
		t.Fatalf("%d of %d rejected: the generator no longer exercises both verdicts", rejected, total)
	}
	t.Logf("+immutable=once nodes: %v; list maps compared without order: %d", onceKinds, unorderedLists)
	if presenceOnly == 0 {
		t.Errorf("no +k8s:update=NoSet or NoUnset property was generated")
	}
	if noModify == 0 {
		t.Errorf("no +k8s:update=NoModify property was generated")
	}
	if unorderedLists == 0 {
		t.Errorf("no list map under +immutable:ignoreOrder was generated")
	}
	for _, k := range []string{"scalar", "struct", "set", "list map", "map"} {
		if onceKinds[k] == 0 {
			t.Errorf("no +immutable=once %s was generated", k)
		}
	}
}

// countUnordered counts the list maps of s at or under a node with the
// ignore-order extension (under says one is above s).
func countUnordered(s map[string]any, under bool) int {
	under = under || s["x-immutable-gen-ignore-order"] == true
	n := 0
	if under && s["x-kubernetes-list-type"] == "map" {
		n++
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if c, ok := s[k].(map[string]any); ok {
			n += countUnordered(c, under)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if c, ok := p.(map[string]any); ok {
				n += countUnordered(c, under)
			}
		}
	}
	return n
}

// countOnce counts the nodes of s with the set-once extension, by shape.
func countOnce(s map[string]any, kinds map[string]int) {
	if s["x-immutable-gen-immutable-once"] == true {
		switch {
		case s["type"] == "array" && s["x-kubernetes-list-type"] == "set":
			kinds["set"]++
		case s["type"] == "array" && s["x-kubernetes-list-type"] == "map":
			kinds["list map"]++
		case s["type"] == "array":
			kinds["atomic list"]++
		case s["additionalProperties"] != nil:
			kinds["map"]++
		case s["properties"] != nil:
			kinds["struct"]++
		default:
			kinds["scalar"]++
		}
	}
	for _, k := range []string{"items", "additionalProperties"} {
		if c, ok := s[k].(map[string]any); ok {
			countOnce(c, kinds)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for _, p := range props {
			if c, ok := p.(map[string]any); ok {
				countOnce(c, kinds)
			}
		}
	}
}

type compiled struct {
	objSchema map[string]any // the schema with extensions, for generating values
	celSchema map[string]any
	checker   *runtime.Checker
	ss        *structuralschema.Structural
	validator *cel.Validator
}

// compileBoth lowers raw both ways and compiles each side as its consumer
// does. The CEL side must pass the API server's CRD validation; a schema
// the cost estimator refuses is skipped (generation reports those).
func compileBoth(t *testing.T, raw map[string]any, seed uint64) (*compiled, bool) {
	t.Helper()
	ext, celRaw := deepCopy(raw).(map[string]any), deepCopy(raw).(map[string]any)
	m, err := schema.Build(ext)
	if err != nil {
		t.Fatal(err)
	}
	schema.EmitExtensions(m)
	cm, err := schema.Build(celRaw)
	if err != nil {
		t.Fatal(err)
	}
	res := schema.EmitCEL(cm)
	if len(res.Inexpressible) > 0 {
		t.Fatalf("seed %d: generator made an inexpressible schema: %s", seed, res.Inexpressible[0].Reason)
	}
	var s spec.Schema
	if err := json.Unmarshal([]byte(js(ext)), &s); err != nil {
		t.Fatal(err)
	}
	checker, err := runtime.Compile(&s)
	if err != nil {
		t.Fatalf("seed %d: runtime.Compile: %v\n%s", seed, err, js(ext))
	}
	var v1 apiextv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(js(celRaw)), &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	if errs := validateCRDSchema(&internal); len(errs) > 0 {
		for _, e := range errs {
			if strings.Contains(e.Detail, "cost") {
				return nil, false
			}
		}
		t.Fatalf("seed %d: the API server refuses the lowered schema: %v\n%s", seed, errs, js(celRaw))
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return &compiled{
		objSchema: ext, celSchema: celRaw, checker: checker, ss: ss,
		validator: cel.NewValidator(ss, true, celconfig.PerCallLimit),
	}, true
}

func validateCRDSchema(s *apiextensions.JSONSchemaProps) field.ErrorList {
	crd := &apiextensions.CustomResourceDefinition{}
	crd.Name = "things.diff.example.com"
	crd.Spec = apiextensions.CustomResourceDefinitionSpec{
		Group:                 "diff.example.com",
		Names:                 apiextensions.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
		Scope:                 apiextensions.NamespaceScoped,
		Versions:              []apiextensions.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
		Validation:            &apiextensions.CustomResourceValidation{OpenAPIV3Schema: s},
		Conversion:            &apiextensions.CustomResourceConversion{Strategy: apiextensions.NoneConverter},
		PreserveUnknownFields: ptrFalse(),
	}
	crd.Status.StoredVersions = []string{"v1"}
	return apivalidation.ValidateCustomResourceDefinition(context.Background(), crd)
}

func ptrFalse() *bool { f := false; return &f }

func (c *compiled) validateCEL(obj, old map[string]any) field.ErrorList {
	if c.validator == nil {
		return nil
	}
	corr := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: c.ss})
	errs, _ := c.validator.Validate(context.Background(), nil, c.ss, obj, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(corr))
	return errs
}

// compareVerdicts returns "" when both reject or both allow, and every
// field one side names is named by the other at the same place or above it
// (a rule on a list names the list; the runtime names the item).
func compareVerdicts(rt, ce field.ErrorList) string {
	if (len(rt) > 0) != (len(ce) > 0) {
		return fmt.Sprintf("verdicts differ: runtime rejects=%v, CEL rejects=%v", len(rt) > 0, len(ce) > 0)
	}
	rp, cp := paths(rt), paths(ce)
	for _, r := range rp {
		if !anyRelated(r, cp) {
			return fmt.Sprintf("the runtime names %s, CEL names none of it: %v", r, cp)
		}
	}
	for _, c := range cp {
		if !anyRelated(c, rp) {
			return fmt.Sprintf("CEL names %s, the runtime names none of it: %v", c, rp)
		}
	}
	return ""
}

func paths(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		p := e.Field
		if p == "<nil>" {
			p = "" // the root, where the API server's validator is called with a nil path
		}
		for {
			i := strings.Index(p, "[")
			if i < 0 {
				break
			}
			j := strings.Index(p[i:], "]")
			if j < 0 {
				break
			}
			p = p[:i] + p[i+j+1:]
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// anyRelated reports whether some path in list is p, an ancestor of p or a
// descendant of p.
func anyRelated(p string, list []string) bool {
	for _, q := range list {
		if p == q || strings.HasPrefix(p, q+".") || strings.HasPrefix(q, p+".") {
			return true
		}
	}
	return false
}

// gen makes random schemas and values.
type gen struct {
	r    *rand.Rand
	line int
	// wild adds what CEL cannot always address or compare (names like
	// `a:b`, sets of objects, list maps keyed by such names), for
	// FuzzEmitCELAccountsForEveryMarker; the differential test leaves it off.
	wild bool
}

var propNames = []string{"a", "b", "in", "x-y", "c"}

// wildNames adds names CEL cannot address.
var wildNames = []string{"a", "b", "in", "x-y", "c", "a:b", "1x"}

func (g *gen) names() []string {
	if g.wild {
		return wildNames
	}
	return propNames
}

func (g *gen) carrier(keys bool) map[string]any { return g.carrierOf(keys, false) }

func (g *gen) carrierOf(keys, once bool) map[string]any {
	// +immutable:ignoreOrder beside a third of the forms that compare whole
	// (random schemas only).
	return g.carrierWith(keys, once, !keys && g.r != nil && g.chance(0.33))
}

func (g *gen) carrierWith(keys, once, ignoreOrder bool) map[string]any {
	g.line++
	o := fmt.Sprintf(`{"keys":%v,"once":%v,"ignoreOrder":%v,"pos":{"Filename":"types.go","Offset":0,"Line":%d,"Column":2},"decl":{"Filename":"types.go","Offset":0,"Line":%d,"Column":2},"type":"x.T"}`, keys, once, ignoreOrder, g.line, g.line)
	return map[string]any{"rule": "@immutable-gen:origin " + o}
}

// markNoModify marks property schema n +k8s:update=NoModify.
func (g *gen) markNoModify(n map[string]any) map[string]any {
	c := g.carrierWith(false, false, g.r != nil && g.chance(0.33))
	c["rule"] = strings.Replace(c["rule"].(string), `"once":false`, `"once":false,"noModify":true`, 1)
	rules, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rules, c)
	return n
}

// markUpstream marks property schema n with the origin fields flags
// (validation-gen's +k8s:update constraints without a form of ours).
func (g *gen) markUpstream(n map[string]any, flags string) map[string]any {
	c := g.carrierWith(false, false, false)
	c["rule"] = strings.Replace(c["rule"].(string), `"once":false`, `"once":false,`+flags, 1)
	rules, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rules, c)
	return n
}

// markOnce marks property schema n +immutable=once.
func (g *gen) markOnce(n map[string]any) map[string]any {
	rules, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rules, g.carrierOf(false, true))
	return n
}

func (g *gen) mark(n map[string]any, keys bool) map[string]any {
	rules, _ := n["x-kubernetes-validations"].([]any)
	n["x-kubernetes-validations"] = append(rules, g.carrier(keys))
	return n
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) root() map[string]any {
	spec := g.object(1)
	if g.chance(0.05) {
		g.mark(spec, false)
	}
	return map[string]any{"type": "object", "properties": map[string]any{"spec": spec}}
}

func (g *gen) object(depth int) map[string]any {
	props := map[string]any{}
	var required []any
	n := 1 + g.r.IntN(3)
	names := g.names()
	for _, name := range g.r.Perm(len(names))[:n] {
		props[names[name]] = g.valueSchema(depth + 1)
		// A nullable property is always there, null or not: CEL sees null
		// as absence (docs/semantics.md, nullable fields), so null to
		// absent is not generated.
		if props[names[name]].(map[string]any)["nullable"] == true || g.chance(0.3) {
			required = append(required, names[name])
		}
	}
	o := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		sort.Slice(required, func(i, j int) bool { return required[i].(string) < required[j].(string) })
		o["required"] = required
	}
	return o
}

func (g *gen) scalar() map[string]any {
	switch g.r.IntN(4) {
	case 3:
		return map[string]any{"type": "number", "maximum": 2, "minimum": 0}
	case 0:
		return map[string]any{"type": "string", "maxLength": 2}
	case 1:
		return map[string]any{"type": "integer", "format": "int64", "maximum": 3, "minimum": 0}
	default:
		return map[string]any{"type": "boolean"}
	}
}

func (g *gen) valueSchema(depth int) map[string]any {
	kind := g.r.IntN(9)
	if depth >= 4 {
		kind = 0
	}
	var n map[string]any
	switch kind {
	case 0:
		n = g.scalar()
		if g.chance(0.2) {
			n["nullable"] = true
		}
	case 6: // int-or-string
		n = map[string]any{"x-kubernetes-int-or-string": true, "anyOf": []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}}
	case 7: // free-form content, or an embedded resource
		n = map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}
		if g.chance(0.4) {
			n["x-kubernetes-embedded-resource"] = true
		}
	case 8: // a map of lists
		list := map[string]any{"type": "array", "maxItems": 3, "items": g.scalar()}
		if g.chance(0.5) {
			list = map[string]any{"type": "array", "maxItems": 3, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
				"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
					"name": map[string]any{"type": "string", "maxLength": 1}, "v": g.scalar()}}}
		}
		if g.chance(0.3) {
			g.mark(list, false)
		}
		n = map[string]any{"type": "object", "maxProperties": 3, "additionalProperties": list}
	case 1:
		n = g.object(depth)
	case 2: // atomic list
		var items map[string]any
		if g.chance(0.5) {
			items = g.object(depth + 1)
		} else {
			items = g.scalar()
		}
		if g.chance(0.25) {
			g.mark(items, false)
		}
		n = map[string]any{"type": "array", "maxItems": 3, "items": items}
	case 3: // set
		items := g.scalar()
		if g.wild && g.chance(0.3) {
			items = g.object(depth + 1)
			items["x-kubernetes-map-type"] = "atomic"
		}
		n = map[string]any{"type": "array", "maxItems": 3, "x-kubernetes-list-type": "set", "items": items}
	case 4: // list map
		items := g.object(depth + 1)
		items["properties"].(map[string]any)["name"] = map[string]any{"type": "string", "maxLength": 1}
		req, _ := items["required"].([]any)
		items["required"] = append([]any{"name"}, without(req, "name")...)
		sort.Slice(items["required"].([]any), func(i, j int) bool {
			return items["required"].([]any)[i].(string) < items["required"].([]any)[j].(string)
		})
		keys := []any{"name"}
		if g.wild && g.chance(0.1) {
			items["properties"].(map[string]any)["a:b"] = map[string]any{"type": "string", "maxLength": 1}
			items["required"] = append(items["required"].([]any), "a:b")
			keys = append(keys, "a:b")
		} else if g.chance(0.3) {
			items["properties"].(map[string]any)["k"] = map[string]any{"type": "integer", "format": "int64", "maximum": 1, "minimum": 0}
			items["required"] = append(items["required"].([]any), "k")
			keys = append(keys, "k")
			sort.Slice(items["required"].([]any), func(i, j int) bool {
				return items["required"].([]any)[i].(string) < items["required"].([]any)[j].(string)
			})
		}
		n = map[string]any{"type": "array", "maxItems": 3, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys, "items": items}
		switch g.r.IntN(4) {
		case 0: // =keys, with the key immutable
			g.mark(n, true)
			for _, k := range keys {
				g.mark(items["properties"].(map[string]any)[k.(string)].(map[string]any), false)
			}
		case 1: // immutable items: correlated by key
			g.mark(items, false)
		case 2: // the whole list map: compared in order
			g.mark(n, false)
		}
	default: // map
		var values map[string]any
		if g.chance(0.5) {
			values = g.object(depth + 1)
		} else {
			values = g.scalar()
		}
		if g.chance(0.25) {
			g.mark(values, false)
		}
		n = map[string]any{"type": "object", "maxProperties": 3, "additionalProperties": values}
		if g.chance(0.25) {
			g.mark(n, true)
		}
	}
	if _, marked := n["x-kubernetes-validations"]; !marked {
		switch x := g.r.Float64(); {
		case x < 0.2:
			g.mark(n, false)
		case x < 0.35 && n["nullable"] != true:
			// Set once, on a property (valueSchema makes properties only);
			// not nullable: CEL sees null as absent (a limit the lowering
			// reports).
			g.markOnce(n)
		case x < 0.45 && n["nullable"] != true:
			// Fixed while present (+k8s:update=NoModify), on a property.
			g.markNoModify(n)
		case x < 0.55 && n["nullable"] != true:
			// validation-gen's presence constraints, on a property.
			g.markUpstream(n, []string{`"noSet":true`, `"noUnset":true`, `"noSet":true,"noUnset":true`, `"noSet":true,"noModify":true`}[g.r.IntN(4)])
		}
	}
	return n
}

func without(list []any, s string) []any {
	var out []any
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// value makes a random valid value for schema s.
func (g *gen) value(s map[string]any) any {
	if s["nullable"] == true && g.chance(0.25) {
		return nil
	}
	if s["x-kubernetes-int-or-string"] == true {
		if g.chance(0.5) {
			return int64(g.r.IntN(3))
		}
		return []string{"a", "b", "1"}[g.r.IntN(3)]
	}
	if s["x-kubernetes-embedded-resource"] == true {
		return map[string]any{"apiVersion": "v1", "kind": []string{"A", "B"}[g.r.IntN(2)],
			"metadata": map[string]any{"name": []string{"m", "n"}[g.r.IntN(2)]}, "data": g.free(1)}
	}
	if s["x-kubernetes-preserve-unknown-fields"] == true && s["properties"] == nil {
		// Top-level keys: q always, p sometimes — never a rename, which
		// CEL's == does not see (docs/semantics.md, free-form content).
		out := map[string]any{"q": g.free(2)}
		if g.chance(0.5) {
			out["p"] = g.free(2)
		}
		return out
	}
	switch s["type"] {
	case "string":
		return []string{"", "a", "b", "ab"}[g.r.IntN(4)]
	case "integer":
		return int64(g.r.IntN(3))
	case "number":
		// int64 and float64, as the API server decodes 1 and 1.5.
		return []any{int64(0), int64(1), 0.5, 1.5}[g.r.IntN(4)]
	case "boolean":
		return g.chance(0.5)
	case "array":
		items := s["items"].(map[string]any)
		n := g.r.IntN(4)
		var out []any
		for i := 0; i < n; i++ {
			out = append(out, g.value(items))
		}
		return repairList(s, out)
	case "object":
		out := map[string]any{}
		if props, ok := s["properties"].(map[string]any); ok {
			req, _ := s["required"].([]any)
			for name, ps := range props {
				if contains(req, name) || g.chance(0.7) {
					out[name] = g.value(ps.(map[string]any))
				}
			}
			return out
		}
		values := s["additionalProperties"].(map[string]any)
		for _, k := range []string{"k1", "k2", "k3"} {
			if g.chance(0.5) {
				out[k] = g.value(values)
			}
		}
		return out
	}
	panic(fmt.Sprintf("schema %v", s))
}

// repairList keeps a list valid: unique set items and list map keys, at
// most maxItems.
func repairList(s map[string]any, l []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, x := range l {
		key := js(x)
		switch s["x-kubernetes-list-type"] {
		case "map":
			item := x.(map[string]any)
			key = js(item["name"]) + "/" + js(item["k"])
		case "set":
		default:
			key = fmt.Sprint(len(out))
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, x)
	}
	if len(out) > 3 {
		out = out[:3]
	}
	if out == nil {
		out = []any{}
	}
	return out
}

func contains(l []any, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// mutate changes v (of schema s) in zero to three random places, keeping it
// valid.
func (g *gen) mutate(s map[string]any, v any) any {
	n := g.r.IntN(4)
	for i := 0; i < n; i++ {
		v = g.mutateOnce(s, v)
	}
	return v
}

// free makes random free-form content: objects, lists and scalars.
func (g *gen) free(depth int) any {
	if depth == 0 {
		return []any{int64(1), "a", true, 0.5, nil}[g.r.IntN(5)]
	}
	switch g.r.IntN(3) {
	case 0:
		out := map[string]any{}
		for _, k := range []string{"p", "q", "r"} {
			if g.chance(0.5) {
				out[k] = g.free(depth - 1)
			}
		}
		return out
	case 1:
		out := []any{}
		for i := g.r.IntN(3); i > 0; i-- {
			out = append(out, g.free(depth-1))
		}
		return out
	}
	return g.free(0)
}

// mutateFreeTop changes the top level of free-form content or an embedded
// resource: p comes or goes, or something inside changes.
func (g *gen) mutateFreeTop(v map[string]any) any {
	switch g.r.IntN(3) {
	case 0:
		if _, ok := v["p"]; ok {
			delete(v, "p")
		} else {
			v["p"] = g.free(2)
		}
	case 1:
		if m, ok := v["metadata"].(map[string]any); ok {
			m["name"] = []string{"m", "n", "o"}[g.r.IntN(3)]
		} else if k, ok := v["kind"]; ok {
			v["kind"] = map[any]string{"A": "B", "B": "A"}[k]
		} else {
			v["q"] = g.mutateFree(v["q"], 2)
		}
	default:
		for _, k := range []string{"q", "data"} {
			if c, ok := v[k]; ok {
				v[k] = g.mutateFree(c, 2)
			}
		}
	}
	return v
}

// mutateFree changes free-form content v in one random place: a value, a
// key added or removed, a list reordered.
func (g *gen) mutateFree(v any, depth int) any {
	switch v := v.(type) {
	case map[string]any:
		k := []string{"p", "q", "r"}[g.r.IntN(3)]
		switch c, ok := v[k]; {
		case !ok:
			v[k] = g.free(depth)
		case g.chance(0.3):
			delete(v, k)
		default:
			v[k] = g.mutateFree(c, depth-1)
		}
		return v
	case []any:
		if len(v) > 1 && g.chance(0.4) {
			v[0], v[len(v)-1] = v[len(v)-1], v[0]
			return v
		}
		if len(v) > 0 && g.chance(0.5) {
			i := g.r.IntN(len(v))
			v[i] = g.mutateFree(v[i], depth-1)
			return v
		}
		return append(v, g.free(0))
	}
	return g.free(max(depth, 0))
}

func (g *gen) mutateOnce(s map[string]any, v any) any {
	if v == nil || (s["nullable"] == true && g.chance(0.2)) {
		return g.value(s)
	}
	if s["x-kubernetes-preserve-unknown-fields"] == true && s["properties"] == nil {
		return g.mutateFreeTop(v.(map[string]any))
	}
	switch s["type"] {
	case "array":
		l := v.([]any)
		items := s["items"].(map[string]any)
		switch op := g.r.IntN(5); {
		case op == 0 || len(l) == 0:
			l = append(l, g.value(items))
		case op == 1:
			i := g.r.IntN(len(l))
			l = append(l[:i:i], l[i+1:]...)
		case op == 2 && len(l) > 1:
			i, j := g.r.IntN(len(l)), g.r.IntN(len(l))
			l[i], l[j] = l[j], l[i]
		default:
			i := g.r.IntN(len(l))
			l[i] = g.mutateOnce(items, l[i])
		}
		return repairList(s, l)
	case "object":
		m := v.(map[string]any)
		if props, ok := s["properties"].(map[string]any); ok {
			names := make([]string, 0, len(props))
			for k := range props {
				names = append(names, k)
			}
			sort.Strings(names)
			name := names[g.r.IntN(len(names))]
			ps := props[name].(map[string]any)
			req, _ := s["required"].([]any)
			_, present := m[name]
			switch {
			case !present:
				m[name] = g.value(ps)
			case !contains(req, name) && g.chance(0.3):
				delete(m, name)
			default:
				m[name] = g.mutateOnce(ps, m[name])
			}
			return m
		}
		values := s["additionalProperties"].(map[string]any)
		k := []string{"k1", "k2", "k3"}[g.r.IntN(3)]
		if _, ok := m[k]; !ok {
			m[k] = g.value(values)
		} else if g.chance(0.4) {
			delete(m, k)
		} else {
			m[k] = g.mutateOnce(values, m[k])
		}
		return m
	}
	return g.value(s)
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

func asMap(v any) map[string]any { return v.(map[string]any) }

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
