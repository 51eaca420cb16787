// Package webhook enforces the immutability extensions (x-kubernetes-immutable,
// x-kubernetes-immutable-keys) as a validating admission webhook served by
// controller-runtime, for any CustomResourceDefinition whose generated
// schema carries them, and generates the ValidatingWebhookConfiguration
// that routes the updates of those resources to it.
//
// Handler is a controller-runtime admission.Handler: register it on a
// manager's webhook server at Path. Configuration returns the matching
// ValidatingWebhookConfiguration: AdmissionReview v1, UPDATE only,
// sideEffects None (so that dry-run requests are checked, not refused),
// matchPolicy Equivalent, failurePolicy Fail by default. A violation is
// denied with 422 Invalid and one status cause per field, which the API
// server passes on to the client. See docs/enforcement.md.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"unsafe"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/internal/engine"
)

// Path is the path Configuration points the API server at by default;
// register the Handler there.
const Path = "/validate-immutable-fields"

// Handler checks the updates of configured resources. It is read-only once
// built and safe for concurrent use.
type Handler struct {
	set *enforce.Set
}

var _ admission.Handler = (*Handler)(nil)

// NewHandler returns a Handler checking resources, e.g. those enforce.FromCRD
// derives from CRD manifests with the extensions. It fails on a
// misconfigured resource (see enforce.NewSet), when there is none, and with
// an *enforce.NoExtensionsError on a resource whose Checkers check nothing:
// never a handler that allows everything. (enforce.FromCRD already refuses
// a CRD without the extensions, such as the default CEL output, which the
// API server enforces itself.)
func NewHandler(resources []enforce.Resource) (*Handler, error) {
	set, err := enforce.NewSet(resources)
	if err != nil {
		return nil, err
	}
	if set.Len() == 0 {
		return nil, errors.New("webhook: no resources configured")
	}
	return &Handler{set: set}, nil
}

// Resources returns the resources h checks, in the order Configuration
// lists them.
func (h *Handler) Resources() []enforce.Resource {
	return h.set.Resources()
}

// Webhook returns h as a controller-runtime webhook, to register on a
// webhook server: mgr.GetWebhookServer().Register(webhook.Path, h.Webhook()).
//
// Its ServeHTTP marks the context it passes to Handle (WithContextFunc):
// the AdmissionReview decoder validated the objects' bytes (a JSON body
// is checked whole, by encoding/json and then sigs.k8s.io/json, before
// the objects are taken from it), so that Handle reads them in the
// runtime's trusted mode, finding the end of the parts it skips or
// compares as bytes without checking their syntax again. Replacing
// WithContextFunc drops the mark: Handle then checks every byte.
func (h *Handler) Webhook() *admission.Webhook {
	return &admission.Webhook{Handler: h, WithContextFunc: validated}
}

// validatedKey marks a context passed to Handle by the ServeHTTP of
// Handler.Webhook, after its AdmissionReview decoder validated the body.
type validatedKey struct{}

// validated is Handler.Webhook's WithContextFunc, run by ServeHTTP before
// it decodes the body; the context reaches Handle only if the decoding
// succeeds.
func validated(ctx context.Context, _ *http.Request) context.Context {
	return context.WithValue(ctx, validatedKey{}, true)
}

// Handle checks an UPDATE of a configured resource or subresource and denies
// a violation with 422 Invalid, one cause per violation. Other operations
// and resources are allowed: the configuration routes only what h checks.
// Dry-run requests are checked like any other. A request whose objects
// cannot be read is denied with 400, never allowed unchecked.
//
// Called by the ServeHTTP of h.Webhook, whose AdmissionReview decoder
// validated the objects' bytes (they are JSON), Handle does not check
// again the syntax of the parts it skips or compares as bytes: the
// verdicts are the same on JSON. Called otherwise, it checks every byte
// and denies with 400 what is not JSON; on the bytes only a forged
// request could bring to the ServeHTTP of h.Webhook (an AdmissionReview
// in protobuf, say), not JSON there, it may allow or deny, in time linear
// in their size.
func (h *Handler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation != admissionv1.Update {
		return admission.Allowed("")
	}
	gvr := schema.GroupVersionResource(req.Resource)
	c := h.set.Checker(gvr, req.SubResource)
	if c == nil {
		return admission.Allowed("immutable fields: " + describe(gvr, req.SubResource) + " is not checked")
	}
	// The runtime's engine: its trusted decoding and the check that
	// renders denials are not in package runtime's API.
	e := (*engine.Checker)(c)
	// The AdmissionReview decoder validated the bytes, if ctx says so.
	trusted := ctx.Value(validatedKey{}) != nil
	if len(req.Object.Raw) == 0 {
		return admission.Errored(http.StatusBadRequest, errors.New("immutable fields: the new object: missing from the request"))
	}
	// An unchanged object whose bytes were validated is allowed without
	// decoding it, where the engine can tell that nothing in it can be
	// reported (Unchanged).
	if e.Unchanged(req.Object.Raw, req.OldObject.Raw, trusted) {
		return admission.Allowed("")
	}
	// Where the old object's bytes are the new one's, its values are the
	// new one's, compared rather than decoded again.
	obj, old, errNew, errOld := e.DecodeUpdate(req.Object.Raw, req.OldObject.Raw, trusted)
	if errNew == nil && obj == nil {
		errNew = errors.New("null")
	}
	if errNew != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("immutable fields: the new object: %w", errNew))
	}
	switch {
	case len(req.OldObject.Raw) == 0:
		errOld = errors.New("missing from the request")
	case errOld == nil && old == nil:
		errOld = errors.New("null")
	}
	if errOld != nil {
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("immutable fields: the old object: %w", errOld))
	}
	// A changed value DecodeObject kept as bytes comes back as its JSON,
	// which the denial quotes, written without decoding it.
	errs := e.ValidateUpdateMarshaled(obj, old)
	if len(errs) == 0 {
		return admission.Allowed("")
	}
	status := invalid(schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}, req.Name, errs)
	return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: false, Result: &status}}
}

// invalid returns the status apierrors.NewInvalid(gk, name, errs).Status()
// returns, field for field, in time linear in the size of errs: NewInvalid
// joins the messages by repeated string concatenation, quadratic in their
// number, which a list map of 10,000 changed items turns into seconds and
// gigabytes. The message is written once, into one string: each cause's
// message (an error's body, which may quote a whole changed pod template)
// is the part of it that holds that body.
func invalid(gk schema.GroupKind, name string, errs field.ErrorList) metav1.Status {
	type span struct{ start, end int }
	b := make([]byte, 0, messageSize(gk, name, errs))
	b = append(b, gk.String()...)
	b = append(b, ' ')
	b = strconv.AppendQuote(b, name) // as fmt's %q
	b = append(b, " is invalid: "...)
	list := len(b) // where the messages start
	// err.Error() is the field, ": " and err.ErrorBody(); each distinct
	// one is written once, in order.
	bodies := make([]span, len(errs))
	var seen map[string]span // the distinct messages, for more than one error
	if len(errs) > 1 {
		seen = make(map[string]span, len(errs))
	}
	distinct := 0
	for i, err := range errs {
		mark := len(b)
		if distinct > 0 {
			b = append(b, ", "...)
		}
		start := len(b)
		b = append(b, err.Field...)
		b = append(b, ": "...)
		bodyStart := len(b)
		b = appendErrorBody(b, err)
		bodies[i] = span{bodyStart, len(b)}
		if seen == nil {
			distinct++
			continue
		}
		if first, ok := seen[string(b[start:])]; ok {
			// A repeated message: its body is the first one's.
			bodies[i] = span{first.end - (len(b) - bodyStart), first.end}
			b = b[:mark]
			continue
		}
		seen[string(b[start:])] = span{start, len(b)}
		distinct++
	}
	shift := 0
	switch distinct {
	case 0:
		b = b[:list-2]
	case 1:
	default:
		// Several: in brackets.
		b = append(b, 0)
		copy(b[list+1:], b[list:])
		b[list] = '['
		b = append(b, ']')
		shift = 1
	}
	// b is not written again: the message is its bytes, not a copy (as
	// strings.Builder does).
	message := unsafe.String(unsafe.SliceData(b), len(b))
	causes := make([]metav1.StatusCause, len(errs))
	for i, err := range errs {
		causes[i] = metav1.StatusCause{Type: metav1.CauseType(err.Type), Message: message[bodies[i].start+shift : bodies[i].end+shift], Field: err.Field}
	}
	return metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnprocessableEntity,
		Reason:  metav1.StatusReasonInvalid,
		Message: message,
		Details: &metav1.StatusDetails{Group: gk.Group, Kind: gk.Kind, Name: name, Causes: causes},
	}
}

// messageSize estimates the length of invalid's message, so that it is
// written without growing its buffer in the common case.
func messageSize(gk schema.GroupKind, name string, errs field.ErrorList) int {
	n := len(gk.Group) + len(gk.Kind) + len(name) + 32
	for _, err := range errs {
		n += len(err.Field) + len(err.Detail) + 40
		if v, ok := err.BadValue.(engine.MarshaledValue); ok {
			n += len(v.JSON())
		}
	}
	return n
}

// appendErrorBody appends err.ErrorBody(). Where ErrorBody writes a map or
// list value with json.Marshal (rendersJSON), an Invalid error's body with
// such a value is written here, byte for byte as ErrorBody writes it: a
// engine.MarshaledValue as the JSON it holds (ValidateUpdateMarshaled
// wrote it from the object's bytes), a map or list by jsonValue's encoder.
// json.Marshal's reflection over a changed pod template, and its check of
// the result, were most of a denial's cost.
func appendErrorBody(b []byte, err *field.Error) []byte {
	switch v := err.BadValue.(type) {
	case engine.MarshaledValue:
		if !rendersJSON || err.Type != field.ErrorTypeInvalid {
			// ErrorBody writes the decoded value.
			e := *err
			e.BadValue = v.Value()
			return appendErrorBody(b, &e)
		}
		b = append(b, err.Type.String()...)
		b = append(b, ": "...)
		b = append(b, v.JSON()...)
		if err.Detail != "" {
			b = append(b, ": "...)
			b = append(b, err.Detail...)
		}
		return b
	case map[string]interface{}, []interface{}:
		if !rendersJSON || err.Type != field.ErrorTypeInvalid {
			break
		}
		mark := len(b)
		b = append(b, err.Type.String()...)
		b = append(b, ": "...)
		var ok bool
		if b, ok = appendJSON(b, err.BadValue); !ok {
			b = b[:mark]
			break
		}
		if err.Detail != "" {
			b = append(b, ": "...)
			b = append(b, err.Detail...)
		}
		return b
	}
	return append(b, err.ErrorBody()...)
}

// rendersJSON reports whether the field.Error.ErrorBody linked in writes an
// Invalid error with a map value as "Invalid value: " and the value's
// json.Marshal, then ": " and the detail, as recent apimachinery versions
// do; older ones (v0.31) write Go syntax (%#v) instead. It is computed
// once and never changes.
var rendersJSON = field.Invalid(nil, map[string]interface{}{"a": []interface{}{int64(1), "<"}}, "d").ErrorBody() ==
	`Invalid value: {"a":[1,"\u003c"]}: d`

func describe(gvr schema.GroupVersionResource, sub string) string {
	s := gvr.Resource
	if sub != "" {
		s += "/" + sub
	}
	if gvr.Group != "" {
		s += "." + gvr.Group
	}
	return s + " " + gvr.Version
}
