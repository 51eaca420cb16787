package runtimebench

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/equality"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// fixture is the realistic custom resource of runtime/testdata with
// everything the benchmarks need.
type fixture struct {
	checker *runtime.Checker

	// The API server's view of the CRD without our extensions, and with
	// hand-written CEL rules.
	structural    *structuralschema.Structural
	schemaValid   apiservervalidation.SchemaValidator
	celStructural *structuralschema.Structural
	celValidator  *cel.Validator

	old, unchanged, rejected map[string]interface{}
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// apiServerSchema decodes a CRD as the API server does (typed, so our
// extensions are dropped) and returns its internal schema.
func apiServerSchema(tb testing.TB, manifest []byte) *apiextensionsinternal.JSONSchemaProps {
	tb.Helper()
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(manifest, &crd); err != nil {
		tb.Fatal(err)
	}
	internal := &apiextensionsinternal.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(crd.Spec.Versions[0].Schema.OpenAPIV3Schema, internal, nil); err != nil {
		tb.Fatal(err)
	}
	return internal
}

func object(tb testing.TB, manifest []byte) map[string]interface{} {
	tb.Helper()
	j, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]interface{}
	if err := utiljson.Unmarshal(j, &m); err != nil {
		tb.Fatal(err)
	}
	return m
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	f := &fixture{}
	manifest := readFile(tb, filepath.Join("..", "..", "runtime", "testdata", "database-crd.yaml"))
	var err error
	if f.checker, err = runtime.CompileCRD(manifest, runtime.CRDOptions{}); err != nil {
		tb.Fatal(err)
	}

	internal := apiServerSchema(tb, manifest)
	if f.structural, err = structuralschema.NewStructural(internal); err != nil {
		tb.Fatal(err)
	}
	if f.schemaValid, _, err = apiservervalidation.NewSchemaValidator(internal); err != nil {
		tb.Fatal(err)
	}

	celInternal := apiServerSchema(tb, readFile(tb, filepath.Join("testdata", "database-crd-cel.yaml")))
	if f.celStructural, err = structuralschema.NewStructural(celInternal); err != nil {
		tb.Fatal(err)
	}
	f.celValidator = cel.NewValidator(f.celStructural, true, celconfig.PerCallLimit)

	f.old = object(tb, readFile(tb, filepath.Join("..", "..", "runtime", "testdata", "database.yaml")))
	f.unchanged = k8sruntime.DeepCopyJSON(f.old)
	f.rejected = k8sruntime.DeepCopyJSON(f.old)
	f.rejected["spec"].(map[string]interface{})["serviceName"] = "other"
	return f
}

// celValidate runs the CEL rules as the API server does; ratchet adds the
// correlated object the API server passes when CRDValidationRatcheting is
// on (the default).
func (f *fixture) celValidate(obj, old map[string]interface{}, ratchet bool) field.ErrorList {
	var correlated *common.CorrelatedObject
	if ratchet {
		correlated = common.NewCorrelatedObject(obj, old, &model.Structural{Structural: f.celStructural})
	}
	errs, _ := f.celValidator.Validate(context.Background(), nil, f.celStructural, obj, old, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
	return errs
}

// updateValidation is the API server's validation of a custom resource
// update (customResourceStrategy.ValidateUpdate) without CEL: OpenAPI
// schema validation with ratcheting, embedded ObjectMeta, list sets and
// maps.
func (f *fixture) updateValidation(obj, old map[string]interface{}) field.ErrorList {
	correlated := common.NewCorrelatedObject(obj, old, &model.Structural{Structural: f.structural})
	errs := apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, f.schemaValid, apiservervalidation.WithRatcheting(correlated))
	errs = append(errs, schemaobjectmeta.Validate(context.Background(), nil, obj, f.structural, false)...)
	if oldErrs := listtype.ValidateListSetsAndMaps(nil, f.structural, old); len(oldErrs) == 0 {
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, f.structural, obj)...)
	}
	return errs
}

// immutableSubtrees are the immutable nodes of the realistic schema, as
// paths ("*" is every item of a list).
var immutableSubtrees = [][]string{
	{"spec", "serviceName"}, {"spec", "storageClassName"}, {"spec", "tenant"}, {"spec", "region"},
	{"spec", "selector"}, {"spec", "zones"}, {"spec", "ipFamilies"},
	{"spec", "encryption", "keyID"}, {"spec", "encryption", "algorithm"},
	{"spec", "nodeLabels"}, {"spec", "volumeClaimTemplates"},
	{"spec", "template", "spec", "securityContext", "runAsUser"},
	{"spec", "template", "spec", "securityContext", "fsGroup"},
	{"spec", "template", "spec", "containers", "*", "name"},
	{"spec", "template", "spec", "containers", "*", "ports"},
}

// deepEqualSubtrees compares every immutable subtree of obj and old with eq,
// navigating to them on each call like a hand-written check would.
func deepEqualSubtrees(obj, old map[string]interface{}, eq func(a, b interface{}) bool) bool {
	ok := true
	for _, p := range immutableSubtrees {
		ok = eqAt(obj, old, p, eq) && ok
	}
	return ok
}

func eqAt(a, b interface{}, p []string, eq func(a, b interface{}) bool) bool {
	if len(p) == 0 {
		return eq(a, b)
	}
	if p[0] == "*" {
		al, _ := a.([]interface{})
		bl, _ := b.([]interface{})
		ok := true
		for i := 0; i < len(al) && i < len(bl); i++ {
			ok = eqAt(al[i], bl[i], p[1:], eq) && ok
		}
		return ok
	}
	am, _ := a.(map[string]interface{})
	bm, _ := b.(map[string]interface{})
	av, aok := am[p[0]]
	bv, bok := bm[p[0]]
	if aok != bok {
		return false
	}
	if !aok {
		return true
	}
	return eqAt(av, bv, p[1:], eq)
}

// TestCELCRDIsAccepted checks that the API server would accept the CRD
// with the CEL rules (rule compilation, oldSelf placement, cost budget).
func TestCELCRDIsAccepted(t *testing.T) {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal(readFile(t, filepath.Join("testdata", "database-crd-cel.yaml")), &crd); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&crd)
	internal := &apiextensionsinternal.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&crd, internal, nil); err != nil {
		t.Fatal(err)
	}
	if errs := apiextensionsvalidation.ValidateCustomResourceDefinition(context.Background(), internal); len(errs) != 0 {
		t.Errorf("the API server would refuse the CEL CRD: %v", errs)
	}
}

// TestFixture checks that every validator agrees on the fixture, so the
// benchmarks measure working validators.
func TestFixture(t *testing.T) {
	f := newFixture(t)
	if errs := f.checker.ValidateUpdate(f.unchanged, f.old); len(errs) != 0 {
		t.Errorf("runtime, unchanged: %v", errs)
	}
	if errs := f.checker.ValidateUpdate(f.rejected, f.old); len(errs) != 1 {
		t.Errorf("runtime, rejected: %v", errs)
	}
	for _, ratchet := range []bool{false, true} {
		if errs := f.celValidate(f.unchanged, f.old, ratchet); len(errs) != 0 {
			t.Errorf("CEL (ratcheting %v), unchanged: %v", ratchet, errs)
		}
		if errs := f.celValidate(f.rejected, f.old, ratchet); len(errs) != 1 {
			t.Errorf("CEL (ratcheting %v), rejected: %v", ratchet, errs)
		}
	}
	if errs := f.updateValidation(f.unchanged, f.old); len(errs) != 0 {
		t.Errorf("update validation: %v", errs)
	}
	if !deepEqualSubtrees(f.unchanged, f.old, reflect.DeepEqual) || deepEqualSubtrees(f.rejected, f.old, reflect.DeepEqual) {
		t.Error("deepEqualSubtrees is wrong")
	}
}

// BenchmarkImmutability compares, on one Deployment-sized custom resource
// with 15 immutable nodes, an update that changes nothing (unchanged) and
// one that changes an immutable field (rejected).
func BenchmarkImmutability(b *testing.B) {
	f := newFixture(b)
	for _, tc := range []struct {
		name string
		obj  map[string]interface{}
	}{{"unchanged", f.unchanged}, {"rejected", f.rejected}} {
		obj, old := tc.obj, f.old
		b.Run("runtime/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.checker.ValidateUpdate(obj, old)
			}
		})
		b.Run("cel/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.celValidate(obj, old, false)
			}
		})
		b.Run("cel-ratcheting/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.celValidate(obj, old, true)
			}
		})
		b.Run("reflect.DeepEqual-subtrees/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				deepEqualSubtrees(obj, old, reflect.DeepEqual)
			}
		})
		b.Run("equality.Semantic.DeepEqual-subtrees/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				deepEqualSubtrees(obj, old, equality.Semantic.DeepEqual)
			}
		})
	}
}

// BenchmarkUpdateValidation measures the overhead of the check on the API
// server's validation of a custom resource update, next to the overhead of
// the equivalent CEL rules.
func BenchmarkUpdateValidation(b *testing.B) {
	f := newFixture(b)
	obj, old := f.unchanged, f.old
	b.Run("schema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.updateValidation(obj, old)
		}
	})
	b.Run("schema+runtime", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.updateValidation(obj, old)
			f.checker.ValidateUpdate(obj, old)
		}
	})
	b.Run("schema+cel-ratcheting", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f.updateValidation(obj, old)
			f.celValidate(obj, old, true)
		}
	})
	// The overhead measured within each iteration, so that load on the
	// machine affects both sides alike: the time of the check (or of the
	// CEL rules) in percent of the time of the rest of update validation.
	b.Run("overhead", func(b *testing.B) {
		var schemaTime, runtimeTime, celTime time.Duration
		for b.Loop() {
			t0 := time.Now()
			f.updateValidation(obj, old)
			t1 := time.Now()
			f.checker.ValidateUpdate(obj, old)
			t2 := time.Now()
			f.celValidate(obj, old, true)
			t3 := time.Now()
			schemaTime += t1.Sub(t0)
			runtimeTime += t2.Sub(t1)
			celTime += t3.Sub(t2)
		}
		b.ReportMetric(100*float64(runtimeTime)/float64(schemaTime), "runtime-%")
		b.ReportMetric(100*float64(celTime)/float64(schemaTime), "cel-%")
	})
}
