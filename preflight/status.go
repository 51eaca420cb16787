package preflight

import (
	"context"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/common"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// This file is the server's status strategy
// (k8s.io/apiextensions-apiserver/pkg/registry/customresource:
// statusStrategy), for updates through /status: the stored object with the
// request's status, validated against the status schema alone, with the
// scale subresource's status path, the list-type invariants and the CEL
// rules of the whole object.

// prepareForStatusUpdate makes u the stored object ou with u's status and
// managed fields, as the status strategy's PrepareForUpdate.
func (s crStrategy) prepareForStatusUpdate(u, ou *unstructured.Unstructured) {
	status, ok := u.Object["status"]
	managed := u.GetManagedFields()
	*u = *ou.DeepCopy()
	u.SetManagedFields(managed)
	if ok {
		u.Object["status"] = status
	} else {
		delete(u.Object, "status")
	}
}

// validateStatusUpdate is the status strategy's ValidateUpdate.
func (s crStrategy) validateStatusUpdate(ctx context.Context, u, ou *unstructured.Unstructured) field.ErrorList {
	var options []apiservervalidation.ValidationOption
	var celOptions []cel.Option
	if utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CRDValidationRatcheting) {
		correlated := common.NewCorrelatedObject(u.Object, ou.Object, &model.Structural{Structural: s.structural})
		options = append(options, apiservervalidation.WithRatcheting(correlated.Key("status")))
		celOptions = append(celOptions, cel.WithRatcheting(correlated))
	}
	errs := s.validateTypeMeta(u)
	if len(errs) == 0 {
		errs = append(errs, s.validateObjectMeta(ctx, operation.Update, u, ou)...)
		if status, ok := u.Object["status"]; ok && s.statusValidator != nil {
			errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), status, ou.Object["status"], s.statusValidator, options...)...)
		}
		errs = append(errs, s.validateScaleStatus(u)...)
	}
	// Ratcheted: list-type invariants are checked when the old object met
	// them.
	if newErrs := structurallisttype.ValidateListSetsAndMaps(nil, s.structural, u.Object); len(newErrs) > 0 {
		if oldErrs := structurallisttype.ValidateListSetsAndMaps(nil, s.structural, ou.Object); len(oldErrs) == 0 {
			errs = append(errs, newErrs...)
		}
	}
	return append(errs, s.validateCEL(ctx, errs, u.Object, ou.Object, celOptions...)...)
}

// validateScaleStatus checks the status replicas (and the label selector)
// of the scale subresource, as ValidateScaleStatus.
func (s crStrategy) validateScaleStatus(u *unstructured.Unstructured) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	return append(replicasErrors(u, s.scale.StatusReplicasPath), s.labelSelectorErrors(u)...)
}

// droppedByStatus says what of the request u the server ignores on a
// /status update of ou: everything but status, metadata included.
func (v *crdVersion) droppedByStatus(u, ou *unstructured.Unstructured) string {
	var changed []string
	for k, x := range u.Object {
		if k == "status" || k == "apiVersion" || k == "kind" {
			continue
		}
		if k == "metadata" {
			if !apiequality.Semantic.DeepEqual(u.GetLabels(), ou.GetLabels()) || !apiequality.Semantic.DeepEqual(u.GetAnnotations(), ou.GetAnnotations()) ||
				!apiequality.Semantic.DeepEqual(u.GetFinalizers(), ou.GetFinalizers()) {
				changed = append(changed, "metadata")
			}
			continue
		}
		if !apiequality.Semantic.DeepEqual(x, ou.Object[k]) {
			changed = append(changed, k)
		}
	}
	for k := range ou.Object {
		if _, ok := u.Object[k]; !ok && k != "status" && k != "metadata" && k != "apiVersion" && k != "kind" {
			changed = append(changed, k)
		}
	}
	if len(changed) == 0 {
		return ""
	}
	sort.Strings(changed)
	return strings.Join(changed, ", ") + ": an update through /status keeps everything but status, so the server ignores this change (update the resource itself for it)"
}
