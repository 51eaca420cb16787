package webhook

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// ImmutableObject is a typed API object with immutability checks, such as
// a root kind `immutable-gen validators` wrote
// `func (in *T) ValidateImmutableUpdate(old *T) field.ErrorList` for
// (then *T is an ImmutableObject[*T]).
type ImmutableObject[T any] interface {
	k8sruntime.Object
	ValidateImmutableUpdate(old T) field.ErrorList
}

// Validator is a typed validator of a kind: controller-runtime's generic
// admission.Validator[T] (v0.23 on) has these methods, so a project's own
// typed validator is one. It is declared here so that this package builds
// with controller-runtime v0.19, which has only admission.CustomValidator.
type Validator[T any] interface {
	ValidateCreate(ctx context.Context, obj T) (admission.Warnings, error)
	ValidateUpdate(ctx context.Context, oldObj, newObj T) (admission.Warnings, error)
	ValidateDelete(ctx context.Context, obj T) (admission.Warnings, error)
}

// ImmutableValidator is a controller-runtime validator for a typed kind: it
// checks updates with the type's ValidateImmutableUpdate, without
// converting the objects to unstructured content, and denies a violation
// with 422 Invalid, one cause per violation (the response the unstructured
// Handler gives). Creates and deletes are not checked.
//
// Next, if set, is the project's own validator for the kind; its verdicts
// are merged with the immutability checks (see ValidateUpdate). The zero
// value checks immutability only.
//
// With controller-runtime's generic admission.Validator[T] (v0.23 and
// later), *ImmutableValidator[T] is one; serve it with
//
//	mgr.GetWebhookServer().Register(path,
//		admission.WithValidator(mgr.GetScheme(), &webhook.ImmutableValidator[*v1.Widget]{}))
//
// or with controller-runtime's builder:
//
//	ctrl.NewWebhookManagedBy(mgr, &v1.Widget{}).
//		WithValidator(&webhook.ImmutableValidator[*v1.Widget]{Next: &WidgetValidator{}}).Complete()
//
// With earlier versions (v0.19 on), which take an admission.CustomValidator,
// serve its CustomValidator:
//
//	ctrl.NewWebhookManagedBy(mgr).For(&v1.Widget{}).
//		WithValidator((&webhook.ImmutableValidator[*v1.Widget]{Next: webhook.Typed[*v1.Widget](&WidgetCustomValidator{})}).CustomValidator()).Complete()
type ImmutableValidator[T ImmutableObject[T]] struct {
	// Next is the validator the immutability checks are combined with.
	Next Validator[T]
}

// ValidateCreate returns Next's verdict; immutability has nothing to check
// on a create.
func (v *ImmutableValidator[T]) ValidateCreate(ctx context.Context, obj T) (admission.Warnings, error) {
	if v.Next == nil {
		return nil, nil
	}
	return v.Next.ValidateCreate(ctx, obj)
}

// ValidateDelete returns Next's verdict; immutability has nothing to check
// on a delete.
func (v *ImmutableValidator[T]) ValidateDelete(ctx context.Context, obj T) (admission.Warnings, error) {
	if v.Next == nil {
		return nil, nil
	}
	return v.Next.ValidateDelete(ctx, obj)
}

// ValidateUpdate checks newObj against oldObj with
// newObj.ValidateImmutableUpdate(oldObj) and runs Next. Violations are one
// apierrors.NewInvalid (422) error with one cause per violation, named by
// the request's kind and name. Next's warnings are kept. When Next refuses
// too: an Invalid (422) refusal is merged into one, the immutability
// causes first; any other refusal (Forbidden, an internal error, a plain
// error) is returned as Next gave it, since it is not a per-field verdict
// that one 422 could carry.
func (v *ImmutableValidator[T]) ValidateUpdate(ctx context.Context, oldObj, newObj T) (admission.Warnings, error) {
	errs := newObj.ValidateImmutableUpdate(oldObj)
	var warnings admission.Warnings
	var err error
	if v.Next != nil {
		warnings, err = v.Next.ValidateUpdate(ctx, oldObj, newObj)
	}
	if len(errs) == 0 {
		return warnings, err
	}
	invalid := apierrors.NewInvalid(groupKind(ctx, newObj), name(ctx, newObj), errs)
	if err == nil {
		return warnings, invalid
	}
	var next apierrors.APIStatus
	if !errors.As(err, &next) || next.Status().Reason != metav1.StatusReasonInvalid {
		return warnings, err
	}
	return warnings, mergeInvalid(invalid, next.Status())
}

// groupKind is the kind of the request being validated or, outside a
// request, the object's.
func groupKind(ctx context.Context, obj k8sruntime.Object) schema.GroupKind {
	if req, err := admission.RequestFromContext(ctx); err == nil && req.Kind.Kind != "" {
		return schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}
	}
	return obj.GetObjectKind().GroupVersionKind().GroupKind()
}

// name is the name of the request's object or, outside a request, the
// object's.
func name(ctx context.Context, obj k8sruntime.Object) string {
	if req, err := admission.RequestFromContext(ctx); err == nil && req.Name != "" {
		return req.Name
	}
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetName()
	}
	return ""
}

// mergeInvalid returns ours with next's causes appended and a message
// listing every cause, in the form of apierrors.NewInvalid's.
func mergeInvalid(ours *apierrors.StatusError, next metav1.Status) *apierrors.StatusError {
	st := ours.ErrStatus
	details := *st.Details
	if next.Details != nil {
		details.Causes = append(append([]metav1.StatusCause(nil), details.Causes...), next.Details.Causes...)
	}
	st.Details = &details
	parts := make([]string, 0, len(details.Causes))
	for _, c := range details.Causes {
		if c.Field == "" {
			parts = append(parts, c.Message)
		} else {
			parts = append(parts, c.Field+": "+c.Message)
		}
	}
	list := strings.Join(parts, ", ")
	if len(parts) > 1 {
		list = "[" + list + "]"
	}
	gk := schema.GroupKind{Group: details.Group, Kind: details.Kind}
	st.Message = fmt.Sprintf("%s %q is invalid: %s", gk.String(), details.Name, list)
	return &apierrors.StatusError{ErrStatus: st}
}

// CustomValidator returns v as an admission.CustomValidator, the validator
// controller-runtime takes before its generic admission.Validator[T]
// (v0.19 to v0.22; later versions take it too): it checks that each object
// is a T and calls v. An object of another type is an error (500), as
// controller-runtime's own typed validators report it.
func (v *ImmutableValidator[T]) CustomValidator() admission.CustomValidator {
	return customValidator[T]{typed: v}
}

// Typed returns cv, a project's admission.CustomValidator for the kind T,
// as a Validator[T], to be ImmutableValidator's Next.
func Typed[T k8sruntime.Object](cv admission.CustomValidator) Validator[T] {
	return typedCustom[T]{cv}
}

// customValidator is a Validator[T] seen as an admission.CustomValidator.
type customValidator[T k8sruntime.Object] struct{ typed Validator[T] }

func (c customValidator[T]) ValidateCreate(ctx context.Context, obj k8sruntime.Object) (admission.Warnings, error) {
	o, err := as[T](obj)
	if err != nil {
		return nil, err
	}
	return c.typed.ValidateCreate(ctx, o)
}

func (c customValidator[T]) ValidateUpdate(ctx context.Context, oldObj, newObj k8sruntime.Object) (admission.Warnings, error) {
	o, err := as[T](oldObj)
	if err != nil {
		return nil, err
	}
	n, err := as[T](newObj)
	if err != nil {
		return nil, err
	}
	return c.typed.ValidateUpdate(ctx, o, n)
}

func (c customValidator[T]) ValidateDelete(ctx context.Context, obj k8sruntime.Object) (admission.Warnings, error) {
	o, err := as[T](obj)
	if err != nil {
		return nil, err
	}
	return c.typed.ValidateDelete(ctx, o)
}

// as is obj as a T, or an internal error naming both types.
func as[T k8sruntime.Object](obj k8sruntime.Object) (T, error) {
	o, ok := obj.(T)
	if !ok {
		var want T
		return want, apierrors.NewInternalError(fmt.Errorf("expected a %T, got a %T", want, obj))
	}
	return o, nil
}

// typedCustom is an admission.CustomValidator seen as a Validator[T].
type typedCustom[T k8sruntime.Object] struct{ custom admission.CustomValidator }

func (t typedCustom[T]) ValidateCreate(ctx context.Context, obj T) (admission.Warnings, error) {
	return t.custom.ValidateCreate(ctx, obj)
}

func (t typedCustom[T]) ValidateUpdate(ctx context.Context, oldObj, newObj T) (admission.Warnings, error) {
	return t.custom.ValidateUpdate(ctx, oldObj, newObj)
}

func (t typedCustom[T]) ValidateDelete(ctx context.Context, obj T) (admission.Warnings, error) {
	return t.custom.ValidateDelete(ctx, obj)
}
