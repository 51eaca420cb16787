package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime/webhook"
	typedv1 "github.com/immutable-gen/immutable-gen/runtime/webhook/testdata/typed/v1"
)

// typedv1.Widget (testdata/typed/v1) is a typed example.com/v1 Widget with
// the ValidateImmutableUpdate immutable-gen generates: spec.engine is
// immutable, spec.ports has immutable keys.
var _ webhook.Validator[*typedv1.Widget] = &webhook.ImmutableValidator[*typedv1.Widget]{}

// controller-runtime before its generic admission.Validator[T] (this
// module's floor, v0.19) takes a CustomValidator.
var _ admission.CustomValidator = (&webhook.ImmutableValidator[*typedv1.Widget]{}).CustomValidator()

func typedScheme(t *testing.T) *k8sruntime.Scheme {
	t.Helper()
	s := k8sruntime.NewScheme()
	if err := typedv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// replicasValidator is a project's own validator: replicas must not be
// negative (422), a replica count of 13 is forbidden (403), 7 warns.
type replicasValidator struct{ creates, deletes int }

func (v *replicasValidator) check(w *typedv1.Widget) (admission.Warnings, error) {
	var warnings admission.Warnings
	switch r := w.Spec.Replicas; {
	case r < 0:
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: "example.com", Kind: "Widget"}, w.Name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), r, "must not be negative")})
	case r == 13:
		return nil, apierrors.NewForbidden(schema.GroupResource{Group: "example.com", Resource: "widgets"}, w.Name, errUnlucky)
	case r == 7:
		warnings = append(warnings, "seven replicas")
	}
	return warnings, nil
}

var errUnlucky = errors.New("13 replicas")

func (v *replicasValidator) ValidateCreate(_ context.Context, w *typedv1.Widget) (admission.Warnings, error) {
	v.creates++
	return v.check(w)
}

func (v *replicasValidator) ValidateUpdate(_ context.Context, _, w *typedv1.Widget) (admission.Warnings, error) {
	return v.check(w)
}

func (v *replicasValidator) ValidateDelete(context.Context, *typedv1.Widget) (admission.Warnings, error) {
	v.deletes++
	return nil, nil
}

func typedJSON(engine string, replicas int) string {
	return widgetJSON(`{"engine": "`+engine+`", "replicas": `+itoa(replicas)+`}`, "")
}

func itoa(i int) string {
	if i < 0 {
		return "-" + itoa(-i)
	}
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestImmutableValidator serves real AdmissionReviews through
// controller-runtime's admission.WithCustomValidator webhook (the typed
// admission.WithValidator of later versions calls the same methods: the
// module's floor, v0.19, has only the former), with Next typed and, as a
// v0.19 project's own validator is, a CustomValidator.
func TestImmutableValidator(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		operation              string
		dryRun                 bool
		object, old            string
		withNext               bool
		wantAllowed            bool
		wantCode               int32
		wantCauses, wantReason string
		wantWarnings           []string
	}{{
		name: "unchanged engine: allowed", operation: "UPDATE",
		object: typedJSON("redis", 3), old: typedJSON("redis", 1), wantAllowed: true,
	}, {
		name: "changed engine: 422 with the cause", operation: "UPDATE",
		object: typedJSON("memcached", 1), old: typedJSON("redis", 1),
		wantCode: 422, wantCauses: `spec.engine: FieldValueInvalid: Invalid value: "memcached": field is immutable`,
	}, {
		name: "a port added: 422 Forbidden for the key, the engine's change beside it", operation: "UPDATE",
		object:   widgetJSON(`{"engine": "memcached", "replicas": 1, "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}]}`, ""),
		old:      widgetJSON(`{"engine": "redis", "replicas": 1, "ports": [{"name": "http", "port": 8080}]}`, ""),
		wantCode: 422, wantCauses: `spec.engine: FieldValueInvalid: Invalid value: "memcached": field is immutable` + "\n" +
			`spec.ports: FieldValueForbidden: Forbidden: key {"name":"https"} may not be added: keys are immutable`,
	}, {
		name: "dry run is checked", operation: "UPDATE", dryRun: true,
		object: typedJSON("memcached", 1), old: typedJSON("redis", 1),
		wantCode: 422, wantCauses: `spec.engine: FieldValueInvalid: Invalid value: "memcached": field is immutable`,
	}, {
		name: "create: not checked", operation: "CREATE",
		object: typedJSON("memcached", 1), old: "null", wantAllowed: true,
	}, {
		name: "delete: not checked", operation: "DELETE",
		object: "null", old: typedJSON("memcached", 1), wantAllowed: true,
	}, {
		name: "next's Invalid merged after ours", operation: "UPDATE", withNext: true,
		object: typedJSON("memcached", -1), old: typedJSON("redis", 1),
		wantCode: 422, wantCauses: "spec.engine: FieldValueInvalid: Invalid value: \"memcached\": field is immutable\n" +
			"spec.replicas: FieldValueInvalid: Invalid value: -1: must not be negative",
	}, {
		name: "next's Invalid alone", operation: "UPDATE", withNext: true,
		object: typedJSON("redis", -1), old: typedJSON("redis", 1),
		wantCode: 422, wantCauses: "spec.replicas: FieldValueInvalid: Invalid value: -1: must not be negative",
	}, {
		name: "next's Forbidden wins as it is", operation: "UPDATE", withNext: true,
		object: typedJSON("memcached", 13), old: typedJSON("redis", 1),
		wantCode: http.StatusForbidden, wantReason: string(metav1.StatusReasonForbidden),
	}, {
		name: "next's warnings are kept beside ours", operation: "UPDATE", withNext: true,
		object: typedJSON("memcached", 7), old: typedJSON("redis", 1),
		wantCode: 422, wantCauses: `spec.engine: FieldValueInvalid: Invalid value: "memcached": field is immutable`,
		wantWarnings: []string{"seven replicas"},
	}, {
		name: "next's create verdict", operation: "CREATE", withNext: true,
		object: typedJSON("redis", -1), old: "null",
		wantCode: 422, wantCauses: "spec.replicas: FieldValueInvalid: Invalid value: -1: must not be negative",
	}, {
		name: "an unreadable object is refused with 400", operation: "UPDATE",
		object: `{"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"engine": 1}}`, old: typedJSON("redis", 1),
		wantCode: http.StatusBadRequest,
	}} {
		for _, nextKind := range []string{"typed", "custom"} {
			t.Run(tc.name+"/"+nextKind, func(t *testing.T) {
				v := &webhook.ImmutableValidator[*typedv1.Widget]{}
				next := &replicasValidator{}
				if tc.withNext {
					v.Next = next
					if nextKind == "custom" {
						v.Next = webhook.Typed[*typedv1.Widget](customReplicas{next})
					}
				}
				wh := admission.WithCustomValidator(typedScheme(t), &typedv1.Widget{}, v.CustomValidator())
				r := post(t, wh, review(tc.operation, "", tc.dryRun, tc.object, tc.old))
				if r.Allowed != tc.wantAllowed {
					t.Fatalf("allowed = %v, want %v: %+v", r.Allowed, tc.wantAllowed, r.Result)
				}
				if strings.Join(r.Warnings, "|") != strings.Join(tc.wantWarnings, "|") {
					t.Errorf("warnings %q, want %q", r.Warnings, tc.wantWarnings)
				}
				if tc.wantAllowed {
					return
				}
				if r.Result == nil || r.Result.Code != tc.wantCode {
					t.Fatalf("result %+v, want code %d", r.Result, tc.wantCode)
				}
				if tc.wantCode == 422 {
					if got := causes(t, r); got != tc.wantCauses {
						t.Errorf("causes:\n%s\nwant:\n%s", got, tc.wantCauses)
					}
					if n := len(r.Result.Details.Causes); n > 1 && !strings.Contains(r.Result.Message, "[") {
						t.Errorf("message %q does not list the %d causes", r.Result.Message, n)
					}
					for _, c := range r.Result.Details.Causes {
						if !strings.Contains(r.Result.Message, c.Field+": "+c.Message) {
							t.Errorf("message %q lacks the cause %s: %s", r.Result.Message, c.Field, c.Message)
						}
					}
				}
				if tc.wantReason != "" && string(r.Result.Reason) != tc.wantReason {
					t.Errorf("reason %q, want %q", r.Result.Reason, tc.wantReason)
				}
			})
		}
	}
}

// customReplicas is replicasValidator as a v0.19 project writes it, an
// admission.CustomValidator.
type customReplicas struct{ typed *replicasValidator }

func (c customReplicas) ValidateCreate(ctx context.Context, obj k8sruntime.Object) (admission.Warnings, error) {
	return c.typed.ValidateCreate(ctx, obj.(*typedv1.Widget))
}

func (c customReplicas) ValidateUpdate(ctx context.Context, oldObj, newObj k8sruntime.Object) (admission.Warnings, error) {
	return c.typed.ValidateUpdate(ctx, oldObj.(*typedv1.Widget), newObj.(*typedv1.Widget))
}

func (c customReplicas) ValidateDelete(ctx context.Context, obj k8sruntime.Object) (admission.Warnings, error) {
	return c.typed.ValidateDelete(ctx, obj.(*typedv1.Widget))
}

// TestCustomValidatorWrongType: an object of another type is an internal
// error, not a panic.
func TestCustomValidatorWrongType(t *testing.T) {
	cv := (&webhook.ImmutableValidator[*typedv1.Widget]{}).CustomValidator()
	_, err := cv.ValidateUpdate(context.Background(), &metav1.Status{}, &typedv1.Widget{})
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "expected a *v1.Widget, got a *v1.Status") {
		t.Errorf("error %v, want an internal error naming both types", err)
	}
}

// TestImmutableValidatorMessage: a merged refusal reads as
// apierrors.NewInvalid's would for the same causes.
func TestImmutableValidatorMessage(t *testing.T) {
	v := &webhook.ImmutableValidator[*typedv1.Widget]{Next: &replicasValidator{}}
	old := &typedv1.Widget{Spec: typedv1.WidgetSpec{Engine: "redis"}}
	obj := &typedv1.Widget{Spec: typedv1.WidgetSpec{Engine: "memcached", Replicas: -1}}
	obj.Name = "w"
	obj.APIVersion, obj.Kind = "example.com/v1", "Widget"
	_, err := v.ValidateUpdate(context.Background(), old, obj)
	want := apierrors.NewInvalid(schema.GroupKind{Group: "example.com", Kind: "Widget"}, "w", field.ErrorList{
		field.Invalid(field.NewPath("spec", "engine"), "memcached", "field is immutable"),
		field.Invalid(field.NewPath("spec", "replicas"), int32(-1), "must not be negative"),
	})
	if err == nil || err.Error() != want.Error() {
		t.Errorf("error %v\nwant  %v", err, want)
	}
	if !apierrors.IsInvalid(err) {
		t.Errorf("%v is not Invalid", err)
	}
}
