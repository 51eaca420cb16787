package preflight

import (
	"context"
	"fmt"
	"math"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// crStrategy is the API server's strategy for one served version of a
// custom resource (k8s.io/apiextensions-apiserver/pkg/registry/customresource:
// NewStrategy and its customResourceValidator), composed here from the
// packages it is built of: the OpenAPI schema validator with ratcheting,
// the embedded-object metadata check, the list-type invariants, and the
// CEL validator with the per-request cost budget. Importing that package
// would link the server's whole generic registry (etcd client, gRPC,
// OpenTelemetry) into every immutable-gen command for these few calls; the
// parity tests against a real server (e2e: TestPreflight*) keep this
// composition the server's.
//
// It implements what rest.ValidateCreate and rest.ValidateUpdate call.
type crStrategy struct {
	k8sruntime.ObjectTyper
	names.NameGenerator

	namespaced bool
	kind       schema.GroupVersionKind
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
	cel        *cel.Validator
	status     *apiextensions.CustomResourceSubresourceStatus
	// statusValidator validates status alone, for /status updates (nil
	// without the subresource, or without a status schema).
	statusValidator apiservervalidation.SchemaValidator
	scale           *apiextensions.CustomResourceSubresourceScale
}

var _ interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
} = crStrategy{}

func newCRStrategy(typer k8sruntime.ObjectTyper, namespaced bool, kind schema.GroupVersionKind, validator apiservervalidation.SchemaValidator, s *structuralschema.Structural, status *apiextensions.CustomResourceSubresourceStatus, scale *apiextensions.CustomResourceSubresourceScale) crStrategy {
	return crStrategy{
		ObjectTyper:   typer,
		NameGenerator: names.SimpleNameGenerator,
		namespaced:    namespaced,
		kind:          kind,
		validator:     validator,
		structural:    s,
		// As the server: rules compiled once per version, with the
		// per-call cost limit.
		cel:    cel.NewValidator(s, true, celconfig.PerCallLimit),
		status: status,
		scale:  scale,
	}
}

func (s crStrategy) NamespaceScoped() bool                       { return s.namespaced }
func (crStrategy) Canonicalize(k8sruntime.Object)                {}
func (crStrategy) AllowCreateOnUpdate(context.Context) bool      { return false }
func (crStrategy) AllowUnconditionalUpdate(context.Context) bool { return false }

// PrepareForCreate drops the status when the status subresource is on and
// sets the generation to 1.
func (s crStrategy) PrepareForCreate(_ context.Context, obj k8sruntime.Object) {
	u := obj.(*unstructured.Unstructured)
	if s.status != nil {
		delete(u.Object, "status")
	}
	u.SetGeneration(1)
}

// PrepareForUpdate keeps the old status when the status subresource is on,
// and increments the generation when anything but metadata changed.
func (s crStrategy) PrepareForUpdate(_ context.Context, obj, old k8sruntime.Object) {
	u, ou := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	if s.status != nil {
		if st, ok := ou.Object["status"]; ok {
			u.Object["status"] = st
		} else {
			delete(u.Object, "status")
		}
	}
	if !apiequality.Semantic.DeepEqual(withoutMetadata(u.Object), withoutMetadata(ou.Object)) {
		u.SetGeneration(ou.GetGeneration() + 1)
	}
}

func withoutMetadata(obj map[string]interface{}) map[string]interface{} {
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		if k != "metadata" {
			out[k] = v
		}
	}
	return out
}

// Validate is the server's validation of a create.
func (s crStrategy) Validate(ctx context.Context, obj k8sruntime.Object) field.ErrorList {
	u := obj.(*unstructured.Unstructured)
	errs := s.validateTypeMeta(u)
	if len(errs) == 0 {
		errs = append(errs, s.validateObjectMeta(ctx, operation.Create, u, nil)...)
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.Object, s.validator)...)
		errs = append(errs, s.validateScale(u)...)
	}
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, s.structural, false)...)
	errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.structural, u.Object)...)
	return append(errs, s.validateCEL(ctx, errs, u.Object, nil)...)
}

// ValidateUpdate is the server's validation of an update, with ratcheting:
// unchanged values that break the schema or a rule are not errors.
func (s crStrategy) ValidateUpdate(ctx context.Context, obj, old k8sruntime.Object) field.ErrorList {
	u, ou := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
	var options []apiservervalidation.ValidationOption
	var celOptions []cel.Option
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDValidationRatcheting) {
		correlated := common.NewCorrelatedObject(u.Object, ou.Object, &model.Structural{Structural: s.structural})
		options = append(options, apiservervalidation.WithRatcheting(correlated))
		celOptions = append(celOptions, cel.WithRatcheting(correlated))
	}
	errs := s.validateTypeMeta(u)
	if len(errs) == 0 {
		errs = append(errs, s.validateObjectMeta(ctx, operation.Update, u, ou)...)
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u.Object, ou.Object, s.validator, options...)...)
		errs = append(errs, s.validateScale(u)...)
	}
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, s.structural, false)...)
	// Ratcheted: list-type invariants are checked when the old object
	// met them.
	if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, s.structural, ou.Object); len(oldErrs) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.structural, u.Object)...)
	}
	return append(errs, s.validateCEL(ctx, errs, u.Object, ou.Object, celOptions...)...)
}

// validateCEL runs the x-kubernetes-validations rules with the per-request
// cost budget, unless errs holds an error that blocks them (a wrong type, a
// missing required field, a value over its bounds), as the server does.
func (s crStrategy) validateCEL(ctx context.Context, errs field.ErrorList, obj, old map[string]interface{}, opts ...cel.Option) field.ErrorList {
	if s.cel == nil {
		return nil
	}
	for _, e := range errs {
		switch e.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return field.ErrorList{field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")}
		}
	}
	var oldObj interface{}
	if old != nil {
		oldObj = old
	}
	celErrs, _ := s.cel.Validate(ctx, nil, s.structural, obj, oldObj, celconfig.RuntimeCELCostBudget, opts...)
	return celErrs
}

func (s crStrategy) validateTypeMeta(u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != s.kind.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), fmt.Sprintf("must be %v", s.kind.Kind)))
	}
	if want := s.kind.Group + "/" + s.kind.Version; u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), fmt.Sprintf("must be %v", want)))
	}
	return errs
}

func (s crStrategy) validateObjectMeta(ctx context.Context, op operation.Type, u, old *unstructured.Unstructured) field.ErrorList {
	m, errs := objectMetaOf(u)
	if len(errs) > 0 {
		return errs
	}
	declarative := utilfeature.DefaultFeatureGate.Enabled(features.DeclarativeValidationBeta)
	if old == nil {
		return apimachineryvalidation.ValidateObjectMetaDeclaratively(ctx, op, m, nil, s.namespaced, apimachineryvalidation.NameIsDNSSubdomain, field.NewPath("metadata"), declarative)
	}
	om, errs := objectMetaOf(old)
	if len(errs) > 0 {
		return errs
	}
	return apimachineryvalidation.ValidateObjectMetaDeclaratively(ctx, op, m, om, s.namespaced, nil, field.NewPath("metadata"), declarative)
}

func objectMetaOf(u *unstructured.Unstructured) (*metav1.ObjectMeta, field.ErrorList) {
	raw := u.Object["metadata"]
	if raw == nil {
		return &metav1.ObjectMeta{}, nil
	}
	mm, ok := raw.(map[string]interface{})
	if !ok {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, fmt.Sprintf("expected map[string]interface{}, got %T", raw))}
	}
	m := &metav1.ObjectMeta{}
	if err := k8sruntime.DefaultUnstructuredConverter.FromUnstructured(mm, m); err != nil {
		return nil, field.ErrorList{field.Invalid(field.NewPath("metadata"), raw, err.Error())}
	}
	return m, nil
}

// validateScale checks the replicas (and the label selector) at the paths
// of the scale subresource.
func (s crStrategy) validateScale(u *unstructured.Unstructured) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	errs := replicasErrors(u, s.scale.SpecReplicasPath)
	errs = append(errs, replicasErrors(u, s.scale.StatusReplicasPath)...)
	return append(errs, s.labelSelectorErrors(u)...)
}

// replicasErrors checks the replicas at path, as the server's scale
// checks do: an integer from 0 to MaxInt32.
func replicasErrors(u *unstructured.Unstructured, path string) field.ErrorList {
	v, _, err := unstructured.NestedInt64(u.Object, strings.Split(strings.TrimPrefix(path, "."), ".")...)
	switch {
	case err != nil:
		return field.ErrorList{field.Invalid(field.NewPath(path), v, err.Error())}
	case v < 0:
		return field.ErrorList{field.Invalid(field.NewPath(path), v, "should be a non-negative integer")}
	case v > math.MaxInt32:
		return field.ErrorList{field.Invalid(field.NewPath(path), v, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32))}
	}
	return nil
}

// labelSelectorErrors checks that the scale subresource's label selector
// path, if any, holds a string.
func (s crStrategy) labelSelectorErrors(u *unstructured.Unstructured) field.ErrorList {
	p := s.scale.LabelSelectorPath
	if p == nil {
		return nil
	}
	v, _, err := unstructured.NestedString(u.Object, strings.Split(strings.TrimPrefix(*p, "."), ".")...)
	if err != nil {
		return field.ErrorList{field.Invalid(field.NewPath(*p), v, err.Error())}
	}
	return nil
}

func (crStrategy) WarningsOnCreate(_ context.Context, obj k8sruntime.Object) []string {
	return finalizerWarnings(obj.(*unstructured.Unstructured), nil)
}

func (crStrategy) WarningsOnUpdate(_ context.Context, obj, old k8sruntime.Object) []string {
	return finalizerWarnings(obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured))
}

var standardFinalizers = sets.New(metav1.FinalizerOrphanDependents, metav1.FinalizerDeleteDependents, string(corev1.FinalizerKubernetes))

// finalizerWarnings are the server's warnings about finalizer names added
// by the request.
func finalizerWarnings(u, old *unstructured.Unstructured) []string {
	added := sets.New(u.GetFinalizers()...)
	if old != nil {
		added = added.Difference(sets.New(old.GetFinalizers()...))
	}
	path := field.NewPath("metadata", "finalizers").String()
	var out []string
	for _, f := range sets.List(added) {
		for _, msg := range utilvalidation.IsQualifiedName(f) {
			out = append(out, fmt.Sprintf("%s: %q: %s", path, f, msg))
		}
		if !strings.Contains(f, "/") && !standardFinalizers.Has(f) {
			if strings.Contains(f, ".") {
				out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers", path, f))
			} else {
				out = append(out, fmt.Sprintf("%s: %q: prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers", path, f))
			}
		}
	}
	return out
}
