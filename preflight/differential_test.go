package preflight_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/preflight/preflighttest"
)

var diffPairs = flag.Int("preflight.pairs", 400, "random updates per CRD in TestMatchesValidators")

// library is the apiextensions-apiserver's validators of one CRD version,
// called directly: the other side of the differential test.
type library struct {
	schema     map[string]interface{} // openAPIV3Schema, for the generator
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

func newLibrary(t testing.TB, file string) (*library, *apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	objs, err := preflight.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	raw := crdOf(t, objs[0]).Raw
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(raw, crd); err != nil {
		t.Fatal(err)
	}
	v := crd.Spec.Versions[0]
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(v.Schema, internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(internal.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		t.Fatal(err)
	}
	var generic map[string]interface{}
	js, _ := json.Marshal(v.Schema.OpenAPIV3Schema)
	if err := utiljson.Unmarshal(js, &generic); err != nil {
		t.Fatal(err)
	}
	return &library{schema: generic, structural: s, validator: validator, cel: cel.NewValidator(s, true, celconfig.PerCallLimit)}, crd
}

// validateUpdate runs the validators on an update, after pruning, metadata
// coercion and defaulting, with ratcheting: the schema, embedded resources'
// metadata, list sets and maps, then the CEL rules unless an error blocks
// them.
func (l *library) validateUpdate(obj, old map[string]interface{}) field.ErrorList {
	for _, o := range []map[string]interface{}{obj, old} {
		structuralpruning.Prune(o, l.structural, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(o, l.structural)
		if err := schemaobjectmeta.Coerce(nil, o, l.structural, false, false); err != nil {
			return field.ErrorList{err}
		}
		structuraldefaulting.Default(o, l.structural)
	}
	correlated := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: l.structural})
	errs := apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, l.validator, apiservervalidation.WithRatcheting(correlated))
	errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, obj, l.structural, false)...)
	if len(structurallisttype.ValidateListSetsAndMaps(nil, l.structural, old)) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, l.structural, obj)...)
	}
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return append(errs, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"))
		}
	}
	celErrs, _ := l.cel.Validate(context.Background(), nil, l.structural, obj, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
	return append(errs, celErrs...)
}

// TestMatchesValidators is the unit-level differential test: random updates
// (valid and invalid old objects, so ratcheting matters; bounds, types,
// duplicates, unknown fields, transition rules) of three CRDs are judged by
// preflight and by the apiextensions-apiserver's validators called
// directly. Verdicts and the errors (field, type, text) must be equal.
func TestMatchesValidators(t *testing.T) {
	for _, file := range []string{rulesCRD, exampleCRD, "../testdata/golden/crd/celshapes/shapes.example.com_shapes.yaml"} {
		t.Run(file[strings.LastIndex(file, "/")+1:], func(t *testing.T) {
			lib, crd := newLibrary(t, file)
			c := checker(t, file)
			g := preflighttest.New(lib.schema, 42)
			g.Invalid = 10
			apiVersion := crd.Spec.Group + "/" + crd.Spec.Versions[0].Name
			object := func(spec interface{}) map[string]interface{} {
				return roundTrip(t, map[string]interface{}{
					"apiVersion": apiVersion, "kind": crd.Spec.Names.Kind,
					"metadata": map[string]interface{}{"name": "x", "namespace": "ns"},
					"spec":     spec,
				})
			}
			rejected := 0
			for i := 0; i < *diffPairs; i++ {
				oldSpec := g.Spec()
				newSpec, what := g.Mutate(oldSpec)
				old, obj := object(oldSpec), object(newSpec)
				res, err := c.Update(obj, old)
				if err != nil {
					t.Fatal(err)
				}
				want := lib.validateUpdate(roundTrip(t, obj), roundTrip(t, old))
				if got, w := errorSet(res.Errors), errorSet(want); got != w {
					t.Fatalf("update %d (%s) differs\nold: %s\nnew: %s\npreflight:\n%s\nvalidators:\n%s", i, strings.Join(what, "; "), js(old), js(obj), got, w)
				}
				if !res.Allowed() {
					rejected++
				}
			}
			t.Logf("%d updates agreed, %d rejected", *diffPairs, rejected)
			// At least 5 % refused and 2 % allowed (the shapes CRD is
			// immutable almost everywhere).
			if rejected < *diffPairs/20 || rejected > *diffPairs*49/50 {
				t.Fatalf("%d of %d rejected: the generator no longer exercises both verdicts", rejected, *diffPairs)
			}
		})
	}
}

// roundTrip returns obj as the server decodes its JSON.
func roundTrip(t testing.TB, obj map[string]interface{}) map[string]interface{} {
	var out map[string]interface{}
	if err := utiljson.Unmarshal([]byte(js(obj)), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func js(v interface{}) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// celDataError is the prefix of a CEL rule's error when the rule met a
// value of the wrong type. Whether a rule meets it depends on the order CEL
// compares map entries in, which varies from run to run, on a server as
// here; the rule's verdict and field do not.
var celDataError = regexp.MustCompile(`Invalid value: "[a-z]+": invalid data, expected [a-z0-9]+, got [a-z0-9]+ evaluating rule: `)

// errorSet renders errors one per line, sorted.
func errorSet(errs field.ErrorList) string {
	lines := make([]string, len(errs))
	for i, e := range errs {
		lines[i] = fmt.Sprintf("%s %s", e.Type, celDataError.ReplaceAllString(e.Error(), "Invalid value: "))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}
