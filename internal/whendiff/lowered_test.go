package whendiff

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
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

	"github.com/immutable-gen/immutable-gen/internal/proofsize"
	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/schema"
)

var loweredSchemas = flag.Int("whendiff.lowered", 0, "random condition sets in TestLoweredRule (0: 60 with IMMUTABLE_GEN_PROOFS=full, else 15)")

// conditional are the marked fields of TestLoweredRule and the forms on
// them: a scalar immutable, a scalar set once, a list map immutable whole,
// a map's keys, an object fixed while present.
var conditional = []struct {
	path   []string
	origin schema.Origin
}{
	{[]string{"spec", "x"}, schema.Origin{}},
	{[]string{"spec", "name"}, schema.Origin{Once: true}},
	{[]string{"spec", "ports"}, schema.Origin{}},
	{[]string{"spec", "labels"}, schema.Origin{Keys: true}},
	{[]string{"spec", "topology"}, schema.Origin{NoModify: true}},
}

// TestLoweredRule is the differential of the whole lowered rule: every
// condition of the corpus (testdata/, examples/, docs/) on every field of
// `conditional`, then random conditions from the subset's grammar, as
// +immutable:when writes them, lowered both ways from one model — the CEL
// output (one root rule per field, on the API server's CRD validator, with
// ratcheting) and the extensions output (x-immutable-gen-when beside the
// form's extensions, on the runtime) — and random updates: every verdict
// equal, naming the same fields (an error of the condition at the root on
// both sides).
func TestLoweredRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(*diffSeed, 71))
	var base map[string]any
	if err := json.Unmarshal([]byte(theSchema), &base); err != nil {
		t.Fatal(err)
	}
	total, rejected, conditionErrors, skipped := 0, 0, 0, 0
	corpus := corpusConditions(t)
	sets := len(corpus) + proofsize.OrFlag(t, "random condition sets", *loweredSchemas, 60, 15)
	for i := 0; i < sets; i++ {
		g := &gen{rng: rng}
		raw := deepCopy(base).(map[string]any)
		var conds []string
		for _, c := range conditional {
			o := c.origin
			if i < len(corpus) {
				o.When = corpus[i]
			} else {
				o.When = g.boolean(2)
			}
			conds = append(conds, o.When)
			n := raw
			for _, p := range c.path {
				n = n["properties"].(map[string]any)[p].(map[string]any)
			}
			n["x-kubernetes-validations"] = []any{map[string]any{"rule": o.Carrier()}}
		}
		l, reason := lower(t, raw)
		if l == nil {
			// The API server refuses a condition (not CEL it compiles on
			// this schema, or over the cost budget): generation refuses
			// it too, and no enforcer sees it.
			skipped++
			if skipped <= 3 {
				t.Logf("refused at generation: %s", firstLine(reason))
			}
			continue
		}
		for k := 0; k < *diffPairs*4; k++ {
			old := g.object()
			obj := g.mutate(old)
			rt := l.checker.ValidateUpdate(obj, old)
			ce := l.validate(obj, old)
			total++
			if len(ce) > 0 {
				rejected++
			}
			for _, e := range ce {
				if strings.Contains(e.Detail, "evaluating rule") {
					conditionErrors++
				}
			}
			if msg := sameVerdict(rt, ce); msg != "" {
				t.Fatalf("conditions %q, update %d: %s\nold: %s\nnew: %s\nruntime: %v\nAPI server: %v", conds, k, msg, js(old), js(obj), rt, ce)
			}
		}
	}
	t.Logf("%d condition sets (the corpus's %d conditions, then random ones; %d refused at generation), %d updates agreed: %d refused (%d by a failing condition)", sets, len(corpus), skipped, total, rejected, conditionErrors)
	if total == 0 || rejected < total/20 || rejected > total*19/20 || conditionErrors == 0 {
		t.Errorf("the draw does not exercise both verdicts and the failing condition: %d of %d refused, %d by a failing condition", rejected, total, conditionErrors)
	}
	if skipped > sets/2 {
		t.Errorf("%d of %d condition sets refused at generation: the grammar drifted from the schema", skipped, sets)
	}
}

// lowered is one schema with conditional markers, lowered both ways.
type lowered struct {
	checker   *runtime.Checker
	ss        *structuralschema.Structural
	validator *cel.Validator
}

// lower builds the model of raw (with its marker carriers) and lowers it
// to the CEL output, which must pass the API server's CRD validation (else
// nil and the reason), and to the extensions output, compiled by the
// runtime.
func lower(t *testing.T, raw map[string]any) (*lowered, string) {
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
	if res := schema.EmitCEL(cm); len(res.Inexpressible) > 0 {
		t.Fatalf("inexpressible: %s", res.Inexpressible[0].Reason)
	}
	b, _ := json.Marshal(celRaw)
	var v1 apiextv1.JSONSchemaProps
	if err := json.Unmarshal(b, &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
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
		return nil, errs.ToAggregate().Error()
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	eb, _ := json.Marshal(ext)
	var s spec.Schema
	if err := json.Unmarshal(eb, &s); err != nil {
		t.Fatal(err)
	}
	checker, err := runtime.Compile(&s)
	if err != nil {
		// The API server took every condition: so must the runtime
		// (the grammar is the subset).
		t.Fatalf("runtime.Compile refuses what the API server takes: %v", err)
	}
	return &lowered{checker: checker, ss: ss, validator: cel.NewValidator(ss, true, celconfig.PerCallLimit)}, ""
}

func (l *lowered) validate(obj, old map[string]any) field.ErrorList {
	corr := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: l.ss})
	errs, _ := l.validator.Validate(context.Background(), nil, l.ss, obj, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(corr))
	return errs
}

// sameVerdict returns "" when both sides refuse or both allow, naming the
// same fields (the root, "", for a failing condition).
func sameVerdict(rt, ce field.ErrorList) string {
	if (len(rt) > 0) != (len(ce) > 0) {
		return fmt.Sprintf("verdicts differ: runtime refuses=%v, API server refuses=%v", len(rt) > 0, len(ce) > 0)
	}
	if a, b := fieldsOf(rt), fieldsOf(ce); !slices.Equal(a, b) {
		return fmt.Sprintf("fields differ: runtime %q, API server %q", a, b)
	}
	return ""
}

func fieldsOf(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		p := e.Field
		if p == "<nil>" {
			p = "" // the root: the API server's validator is called with a nil path
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
