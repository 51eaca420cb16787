package preflight

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
)

// DefaultNamespace is the namespace of a namespaced object that names none,
// as kubectl's default context sends it.
const DefaultNamespace = metav1.NamespaceDefault

// Operation is what a Change asks of the server.
type Operation string

const (
	Create Operation = "create"
	Update Operation = "update"
	// Delete is a change with no new object; deletions are not validated.
	Delete Operation = "delete"
)

// A Result is the server's verdict on one create or update.
type Result struct {
	Operation Operation
	// Errors are the reasons the server would refuse the request (422
	// Invalid), sorted by field path, then text; none if it would accept it.
	Errors field.ErrorList
	// Warnings are what the server would warn about, in its wording: the
	// unknown fields it prunes, the errors of CEL rules it ratchets (an
	// unchanged value that breaks a rule), and on an accepted request the
	// strategy's warnings (finalizer names). Deprecated versions' warnings
	// are not given.
	Warnings []string
	// Dropped says what of the request the server ignores rather than
	// refuses: on a CRD with the status subresource, an update of the main
	// resource keeps the stored status, and an update of /status keeps
	// everything but status. "" when nothing is.
	Dropped string
}

// Allowed reports whether the server would accept the request.
func (r Result) Allowed() bool { return len(r.Errors) == 0 }

// A NoCRDError is returned for an object whose group and kind no CRD of the
// Checker defines.
type NoCRDError struct {
	GroupKind schema.GroupKind
}

func (e *NoCRDError) Error() string {
	return fmt.Sprintf("no CustomResourceDefinition defines %s", e.GroupKind)
}

// Check checks one change: a create when Old is nil, an update when both
// are set. A deletion is not validated; its Result is empty. An error means
// the change cannot be checked (no CRD for the kind, a version the CRD does
// not serve, objects of different kinds), not that it is refused.
func (c *Checker) Check(ch Change) (Result, error) {
	switch {
	case ch.New == nil:
		return Result{Operation: Delete}, nil
	case ch.Old == nil:
		return c.Create(ch.New.Object)
	default:
		return c.Update(ch.New.Object, ch.Old.Object)
	}
}

// Create returns the server's verdict on creating obj. obj is not modified.
func (c *Checker) Create(obj map[string]interface{}) (Result, error) {
	res := Result{Operation: Create}
	_, v, err := c.lookup(obj)
	if err != nil {
		return res, err
	}
	u, ctx, rec, err := v.decodeRequest(obj, &res)
	if err != nil || u == nil {
		return res, err
	}
	// As rest.BeforeCreate, after the handler filled the system fields.
	rest.FillObjectMetaSystemFields(u)
	v.strategy.PrepareForCreate(ctx, u)
	res.Errors = sortErrors(rest.ValidateCreate(ctx, u, v.strategy))
	res.Warnings = append(res.Warnings, rec.list...)
	if res.Allowed() {
		res.Warnings = append(res.Warnings, v.strategy.WarningsOnCreate(ctx, u)...)
	}
	return res, nil
}

// Update returns the server's verdict on updating the stored object old to
// obj (the whole new object, as PUT sends it, or as a patch results in).
// Neither is modified. An old object of another version of the same
// resource is converted first, when the CRD's conversion is None.
func (c *Checker) Update(obj, old map[string]interface{}) (Result, error) {
	return c.update(obj, old, false)
}

// UpdateStatus returns the server's verdict on updating the stored object
// old through its /status subresource with obj: the server keeps old's
// metadata and everything but status, takes obj's status, and validates
// status with the status strategy (its schema, the scale subresource's
// status path, the list-type invariants and every CEL rule of the whole
// object, ratcheted). A CRD version without the status subresource is an
// error: the server has no /status for it.
func (c *Checker) UpdateStatus(obj, old map[string]interface{}) (Result, error) {
	return c.update(obj, old, true)
}

func (c *Checker) update(obj, old map[string]interface{}, status bool) (Result, error) {
	res := Result{Operation: Update}
	k, v, err := c.lookup(obj)
	if err != nil {
		return res, err
	}
	oldGVK := (&unstructured.Unstructured{Object: old}).GroupVersionKind()
	if oldGVK.GroupKind() != v.gvk.GroupKind() {
		return res, fmt.Errorf("the old object is a %s, the new one a %s: an update keeps the group and kind", oldGVK.GroupKind(), v.gvk.GroupKind())
	}
	if oldGVK.Version != v.gvk.Version {
		if k.conversion != "" && k.conversion != "None" {
			return res, fmt.Errorf("the old object is of version %s, the new one of %s: converting between them needs the CRD's %s conversion", oldGVK.Version, v.gvk.Version, k.conversion)
		}
		if _, ok := k.versions[oldGVK.Version]; !ok {
			return res, k.noVersion(oldGVK.Version)
		}
	}

	// The stored object, as the server reads it from storage.
	oldCopy, err := copyJSON(old, 0)
	if err != nil {
		return res, fmt.Errorf("the old object: %w", err)
	}
	(&unstructured.Unstructured{Object: oldCopy.(map[string]interface{})}).SetAPIVersion(v.gvk.GroupVersion().String())
	ou, _, ferr := v.decode(oldCopy.(map[string]interface{}))
	if ferr != nil {
		return res, fmt.Errorf("the old object: %s", ferr.Error())
	}
	v.requestNamespace(ou)
	if created := ou.GetCreationTimestamp(); ou.GetUID() == "" || created.IsZero() {
		// An object from a manifest has never been stored: give it what
		// storing it would have (an object read from a server keeps its).
		uid := ou.GetUID()
		rest.FillObjectMetaSystemFields(ou)
		if uid != "" {
			ou.SetUID(uid)
		}
	}
	if ou.GetGeneration() == 0 {
		ou.SetGeneration(1)
	}
	if ou.GetResourceVersion() == "" {
		ou.SetResourceVersion("1")
	}

	if status && v.strategy.status == nil {
		return res, fmt.Errorf("version %s of %s has no status subresource: the server serves no /status to update", v.gvk.Version, v.gvk.GroupKind())
	}
	u, ctx, rec, err := v.decodeRequest(obj, &res)
	if err != nil || u == nil {
		return res, err
	}
	if status {
		// As the status strategy: the stored object with the request's
		// status (and managed fields).
		res.Dropped = v.droppedByStatus(u, ou)
		v.strategy.prepareForStatusUpdate(u, ou)
		errs := v.strategy.validateStatusUpdate(ctx, u, ou)
		if len(errs) == 0 && v.immutability != nil {
			errs = v.immutability.ValidateUpdate(u.Object, ou.Object)
		}
		res.Errors = sortErrors(errs)
		res.Warnings = append(res.Warnings, rec.list...)
		return res, nil
	}
	if v.strategy.status != nil && !apiequality.Semantic.DeepEqual(u.Object["status"], ou.Object["status"]) {
		res.Dropped = "status: the CRD has the status subresource, so an update of the resource keeps the stored status and ignores this change (write status through /status: --subresource=status)"
	}
	// A patch (kubectl apply, server-side apply, GitOps tools) updates the
	// stored object, at its resourceVersion; a conflict is not a verdict.
	u.SetResourceVersion(ou.GetResourceVersion())
	// As rest.BeforeUpdate.
	u.SetGeneration(ou.GetGeneration())
	v.strategy.PrepareForUpdate(ctx, u, ou)
	if u.GetUID() == "" {
		u.SetUID(ou.GetUID())
	}
	u.SetCreationTimestamp(ou.GetCreationTimestamp())
	if !ou.GetDeletionTimestamp().IsZero() {
		u.SetDeletionTimestamp(ou.GetDeletionTimestamp())
	}
	if ou.GetDeletionGracePeriodSeconds() != nil && u.GetDeletionGracePeriodSeconds() == nil {
		u.SetDeletionGracePeriodSeconds(ou.GetDeletionGracePeriodSeconds())
	}
	errs := rest.ValidateUpdate(ctx, u, ou, v.strategy)
	// The immutability extensions: what the ImmutableFields admission
	// plugin or webhook checks once the server's validation passed.
	if len(errs) == 0 && v.immutability != nil {
		errs = v.immutability.ValidateUpdate(u.Object, ou.Object)
	}
	res.Errors = sortErrors(errs)
	res.Warnings = append(res.Warnings, rec.list...)
	if res.Allowed() {
		res.Warnings = append(res.Warnings, v.strategy.WarningsOnUpdate(ctx, u, ou)...)
	}
	return res, nil
}

// decodeRequest decodes a copy of the request body obj as the server does
// and returns it with the request's context and its warning recorder. The
// decoder's warnings go into res; malformed metadata, which the server
// answers without validating, becomes res's only error, and u is nil.
func (v *crdVersion) decodeRequest(obj map[string]interface{}, res *Result) (u *unstructured.Unstructured, ctx context.Context, rec *warningRecorder, err error) {
	objCopy, err := copyJSON(obj, 0)
	if err != nil {
		return nil, nil, nil, err
	}
	u, warnings, ferr := v.decode(objCopy.(map[string]interface{}))
	res.Warnings = warnings
	if ferr != nil {
		res.Errors = field.ErrorList{ferr}
		return nil, nil, nil, nil
	}
	rec = &warningRecorder{}
	return u, warning.WithWarningRecorder(v.requestNamespace(u), rec), rec, nil
}

// lookup finds the CRD and served version of an object.
func (c *Checker) lookup(obj map[string]interface{}) (*crdKind, *crdVersion, error) {
	gvk := (&unstructured.Unstructured{Object: obj}).GroupVersionKind()
	k, ok := c.kinds[gvk.GroupKind()]
	if !ok {
		return nil, nil, &NoCRDError{GroupKind: gvk.GroupKind()}
	}
	v, ok := k.versions[gvk.Version]
	if !ok {
		return nil, nil, k.noVersion(gvk.Version)
	}
	return k, v, nil
}

func (k *crdKind) noVersion(version string) error {
	return fmt.Errorf("CustomResourceDefinition %s serves no version %q (serves: %s)", k.name, version, strings.Join(k.names, ", "))
}

// decode applies to obj what the server's decoder does to a
// request body or a stored object of this version (the unstructured schema
// coercer, then the structural defaulter of customresource_handler.go):
// metadata coercion, pruning of unknown fields and of nulls where the
// schema does not allow them, defaults. It returns the unknown fields it
// pruned as the server words its warnings, and the error the server would
// answer for malformed metadata.
func (v *crdVersion) decode(obj map[string]interface{}) (*unstructured.Unstructured, []string, *field.Error) {
	u := &unstructured.Unstructured{Object: obj}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	objectMeta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, nil, field.Invalid(field.NewPath("metadata"), nil, err.Error())
	}
	unknown = append(unknown, structuralpruning.PruneWithOptions(u.Object, v.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, v.structural)
	ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, u.Object, v.structural, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
	if ferr != nil {
		return nil, nil, ferr
	}
	unknown = append(unknown, paths...)
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
			return nil, nil, field.Invalid(field.NewPath("metadata"), nil, err.Error())
		}
	}
	structuraldefaulting.Default(u.Object, v.structural)
	var warnings []string
	sort.Strings(unknown)
	for _, p := range unknown {
		warnings = append(warnings, fmt.Sprintf("unknown field %q", p))
	}
	return u, warnings, nil
}

// requestNamespace sets the object's namespace as the request's URL would
// (its own, else DefaultNamespace; none for a cluster-scoped resource) and
// returns the request's context.
func (v *crdVersion) requestNamespace(u *unstructured.Unstructured) context.Context {
	ns := ""
	if v.namespaced {
		ns = u.GetNamespace()
		if ns == "" {
			ns = DefaultNamespace
		}
	}
	u.SetNamespace(ns)
	return genericapirequest.WithNamespace(context.Background(), ns)
}

// sortErrors orders errors by field path, then by text.
func sortErrors(errs field.ErrorList) field.ErrorList {
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].Field != errs[j].Field {
			return errs[i].Field < errs[j].Field
		}
		return errs[i].Error() < errs[j].Error()
	})
	return errs
}

// warningRecorder records what validation adds to a request's warnings.
type warningRecorder struct {
	list []string
}

func (w *warningRecorder) AddWarning(agent, text string) { w.list = append(w.list, text) }

// maxDepth bounds the nesting of an object, as the API server's JSON
// decoder does.
const maxDepth = 10000

// copyJSON deep-copies a JSON value as decoded into interface{} (maps,
// slices, strings, int64, float64, bools, nil; other Go integers and
// floats are converted as the JSON decoder would have read them). Any
// other type, or nesting deeper than maxDepth, is an error.
func copyJSON(v interface{}, depth int) (interface{}, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("the object is nested deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(x))
		for k, e := range x {
			c, err := copyJSON(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			c, err := copyJSON(e, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case nil, string, bool, int64:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("the object holds %v, which is not a JSON number", x)
		}
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float32:
		return copyJSON(float64(x), depth)
	}
	return nil, fmt.Errorf("the object holds a %T, which is not a JSON value", v)
}
