package admission_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/conversion"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/immutable-gen/immutable-gen/runtime"
	immutableadmission "github.com/immutable-gen/immutable-gen/runtime/admission"
	"github.com/immutable-gen/immutable-gen/runtime/enforce"
)

var (
	widgets    = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	widgetKind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
)

func widgetResources(t *testing.T) []enforce.Resource {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "widgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := enforce.FromCRD(b)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func newPlugin(t *testing.T) *immutableadmission.Plugin {
	t.Helper()
	p, err := immutableadmission.New(immutableadmission.Options{Resources: widgetResources(t)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func widget(spec, status map[string]interface{}) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]interface{}{"name": "w", "namespace": "ns"},
		"spec":       spec,
	}}
	if status != nil {
		u.Object["status"] = status
	}
	return u
}

// attrs is a request as the generic API server hands it to admission.
func attrs(op admission.Operation, sub string, dryRun bool, obj, old k8sruntime.Object) admission.Attributes {
	return admission.NewAttributesRecord(obj, old, widgetKind, "ns", "w", widgets, sub, op, nil, dryRun, &user.DefaultInfo{Name: "tester"})
}

// causes renders the causes of a 422 Invalid as "field: type: message" lines.
func causes(t *testing.T, err error) string {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("want 422 Invalid, got %v", err)
	}
	st := err.(apierrors.APIStatus).Status()
	if st.Code != 422 || st.Details == nil || st.Details.Kind != "Widget" || st.Details.Group != "example.com" || st.Details.Name != "w" {
		t.Fatalf("status %+v", st)
	}
	var lines []string
	for _, c := range st.Details.Causes {
		lines = append(lines, c.Field+": "+string(c.Type)+": "+c.Message)
	}
	return strings.Join(lines, "\n")
}

func TestValidateUpdate(t *testing.T) {
	p := newPlugin(t)
	old := widget(map[string]interface{}{"class": "gold", "size": int64(1), "labels": map[string]interface{}{"team": "a"}}, nil)

	t.Run("forbidden update is 422 with one cause per field", func(t *testing.T) {
		obj := widget(map[string]interface{}{"class": "silver", "size": int64(1), "labels": map[string]interface{}{"team": "a", "tier": "db"}}, nil)
		err := p.Validate(context.Background(), attrs(admission.Update, "", false, obj, old), nil)
		want := `spec.class: FieldValueInvalid: Invalid value: "silver": field is immutable
spec.labels: FieldValueForbidden: Forbidden: key "tier" may not be added: keys are immutable`
		if got := causes(t, err); got != want {
			t.Errorf("causes:\n%s\nwant:\n%s", got, want)
		}
		if !strings.Contains(err.Error(), `Widget.example.com "w" is invalid`) {
			t.Errorf("message: %v", err)
		}
	})
	t.Run("allowed update passes", func(t *testing.T) {
		obj := widget(map[string]interface{}{"class": "gold", "size": int64(5), "labels": map[string]interface{}{"team": "b"}}, nil)
		if err := p.Validate(context.Background(), attrs(admission.Update, "", false, obj, old), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("dry-run update is checked", func(t *testing.T) {
		obj := widget(map[string]interface{}{"class": "silver", "size": int64(1), "labels": map[string]interface{}{"team": "a"}}, nil)
		err := p.Validate(context.Background(), attrs(admission.Update, "", true, obj, old), nil)
		if got := causes(t, err); got != `spec.class: FieldValueInvalid: Invalid value: "silver": field is immutable` {
			t.Error(got)
		}
	})
	t.Run("status subresource is checked", func(t *testing.T) {
		o := widget(old.Object["spec"].(map[string]interface{}), map[string]interface{}{"nodeName": "n1"})
		obj := widget(old.Object["spec"].(map[string]interface{}), map[string]interface{}{"nodeName": "n2"})
		err := p.Validate(context.Background(), attrs(admission.Update, "status", false, obj, o), nil)
		if got := causes(t, err); got != `status.nodeName: FieldValueInvalid: Invalid value: "n2": field is immutable` {
			t.Error(got)
		}
	})
	t.Run("other subresources are not checked", func(t *testing.T) {
		obj := widget(map[string]interface{}{"class": "silver"}, nil)
		if err := p.Validate(context.Background(), attrs(admission.Update, "scale", false, obj, old), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("other resources are not checked", func(t *testing.T) {
		obj := widget(map[string]interface{}{"class": "silver"}, nil)
		a := admission.NewAttributesRecord(obj, old, widgetKind, "ns", "w", schema.GroupVersionResource{Group: "example.com", Version: "v2", Resource: "widgets"}, "", admission.Update, nil, false, nil)
		if err := p.Validate(context.Background(), a, nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestOnlyUpdates(t *testing.T) {
	p := newPlugin(t)
	for _, op := range []admission.Operation{admission.Create, admission.Delete, admission.Connect} {
		if p.Handles(op) {
			t.Errorf("handles %s", op)
		}
		// Even when called, nothing but an update is checked.
		obj := widget(map[string]interface{}{"class": "silver"}, nil)
		old := widget(map[string]interface{}{"class": "gold"}, nil)
		if err := p.Validate(context.Background(), attrs(op, "", false, obj, old), nil); err != nil {
			t.Errorf("%s: %v", op, err)
		}
	}
	if !p.Handles(admission.Update) {
		t.Error("does not handle UPDATE")
	}
}

// The generic API server hands admission the internal version of a typed
// object; the plugin converts it to the resource's version before checking.
type internalFlunder struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Reference string // no JSON tags, as internal types often have
}

func (f *internalFlunder) DeepCopyObject() k8sruntime.Object { c := *f; return &c }

type flunder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              flunderSpec `json:"spec"`
}

type flunderSpec struct {
	Reference string `json:"reference,omitempty"`
}

func (f *flunder) DeepCopyObject() k8sruntime.Object { c := *f; return &c }

func flunderScheme(t *testing.T) *k8sruntime.Scheme {
	t.Helper()
	s := k8sruntime.NewScheme()
	internal := schema.GroupVersion{Group: "wardle.example.com", Version: k8sruntime.APIVersionInternal}
	v1alpha1 := schema.GroupVersion{Group: "wardle.example.com", Version: "v1alpha1"}
	s.AddKnownTypeWithName(internal.WithKind("Flunder"), &internalFlunder{})
	s.AddKnownTypeWithName(v1alpha1.WithKind("Flunder"), &flunder{})
	err := s.AddConversionFunc((*internalFlunder)(nil), (*flunder)(nil), func(a, b interface{}, _ conversion.Scope) error {
		in, out := a.(*internalFlunder), b.(*flunder)
		out.ObjectMeta = in.ObjectMeta
		out.Spec.Reference = in.Reference
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTypedObjectsAreConverted(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "wardle-openapi-v2.json"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := enforce.CheckerFromOpenAPI(b, "com.example.wardle.v1alpha1.Flunder")
	if err != nil {
		t.Fatal(err)
	}
	flunders := schema.GroupVersionResource{Group: "wardle.example.com", Version: "v1alpha1", Resource: "flunders"}
	p, err := immutableadmission.New(immutableadmission.Options{Resources: []enforce.Resource{{Resource: flunders, Checker: c}}})
	if err != nil {
		t.Fatal(err)
	}
	o := admission.NewObjectInterfacesFromScheme(flunderScheme(t))
	obj := &internalFlunder{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Reference: "b"}
	old := &internalFlunder{ObjectMeta: metav1.ObjectMeta{Name: "f"}, Reference: "a"}
	a := admission.NewAttributesRecord(obj, old, schema.GroupVersionKind{Group: "wardle.example.com", Version: "v1alpha1", Kind: "Flunder"}, "", "f", flunders, "", admission.Update, nil, false, nil)
	err = p.Validate(context.Background(), a, o)
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `spec.reference: Invalid value: "b": field is immutable`) {
		t.Fatalf("got %v", err)
	}

	// An object that cannot be converted is refused with 500, not let through.
	type unknown struct{ internalFlunder }
	a = admission.NewAttributesRecord(&unknown{}, old, schema.GroupVersionKind{Group: "wardle.example.com", Version: "v1alpha1", Kind: "Flunder"}, "", "f", flunders, "", admission.Update, nil, false, nil)
	if err := p.Validate(context.Background(), a, o); !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `ImmutableFields: the new Flunder "f"`) {
		t.Fatalf("got %v", err)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := immutableadmission.New(immutableadmission.Options{}); err == nil || err.Error() != "ImmutableFields: no resources configured" {
		t.Errorf("no resources: %v", err)
	}
	rs := widgetResources(t)
	rs[0].Subresources = []string{"scale"}
	if _, err := immutableadmission.New(immutableadmission.Options{Resources: rs}); err == nil || !strings.Contains(err.Error(), `ImmutableFields: resources[0] example.com/v1, Resource=widgets: subresource "scale" cannot be checked`) {
		t.Errorf("scale: %v", err)
	}
}

// TestNewNoExtensions: a plugin whose resources check nothing is never
// built: it would allow every update while it looks enabled.
func TestNewNoExtensions(t *testing.T) {
	empty, err := runtime.CompileCRD([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  names: {kind: Gadget, plural: gadgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {a: {type: string}}}}}}
`), runtime.CRDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gadgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}
	for _, tc := range []struct {
		name string
		rs   []enforce.Resource
	}{
		{"one resource", []enforce.Resource{{Resource: gadgets, Checker: empty}}},
		{"beside a checked one", append(widgetResources(t), enforce.Resource{Resource: gadgets, Checker: empty})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := immutableadmission.New(immutableadmission.Options{Resources: tc.rs})
			var ne *enforce.NoExtensionsError
			if p != nil || !errors.As(err, &ne) || ne.Resource != gadgets.GroupResource() ||
				!strings.HasPrefix(err.Error(), "ImmutableFields: resource gadgets.example.com has no Checker that checks anything") ||
				!strings.Contains(err.Error(), "crd:immutability=extensions") {
				t.Fatalf("plugin %v, error %v; want a NoExtensionsError", p, err)
			}
		})
	}
}

func TestPluginOrder(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook", "NamespaceLifecycle,MutatingAdmissionWebhook,ImmutableFields,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook"},
		{"MutatingAdmissionWebhook,ValidatingAdmissionWebhook", "MutatingAdmissionWebhook,ImmutableFields,ValidatingAdmissionWebhook"},
		{"A,B", "A,B,ImmutableFields"},
		{"", "ImmutableFields"},
		{"A,ImmutableFields,ValidatingAdmissionWebhook", "A,ImmutableFields,ValidatingAdmissionWebhook"},
	} {
		var in []string
		if tc.in != "" {
			in = strings.Split(tc.in, ",")
		}
		if got := strings.Join(immutableadmission.PluginOrder(in), ","); got != tc.want {
			t.Errorf("PluginOrder(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestValidateUpdateOnce: the set-once extension (+immutable=once) is
// enforced by the plugin: set later allowed; changed or removed once set,
// 422 with the runtime's causes.
func TestValidateUpdateOnce(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "widgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := strings.Replace(string(b), "size: {type: integer}", "size: {type: integer}\n              owner: {type: string, x-immutable-gen-immutable-once: true}", 1)
	rs, err := enforce.FromCRD([]byte(crd))
	if err != nil {
		t.Fatal(err)
	}
	p, err := immutableadmission.New(immutableadmission.Options{Resources: rs})
	if err != nil {
		t.Fatal(err)
	}
	unset := widget(map[string]interface{}{"class": "gold"}, nil)
	set := widget(map[string]interface{}{"class": "gold", "owner": "a"}, nil)
	if err := p.Validate(context.Background(), attrs(admission.Update, "", false, set, unset), nil); err != nil {
		t.Fatalf("setting it later: %v", err)
	}
	changed := widget(map[string]interface{}{"class": "gold", "owner": "b"}, nil)
	if got, want := causes(t, p.Validate(context.Background(), attrs(admission.Update, "", false, changed, set), nil)),
		`spec.owner: FieldValueInvalid: Invalid value: "b": field is immutable`; got != want {
		t.Errorf("changed: %s, want %s", got, want)
	}
	if got, want := causes(t, p.Validate(context.Background(), attrs(admission.Update, "", false, unset, set), nil)),
		`spec.owner: FieldValueForbidden: Forbidden: field "owner" is immutable once set and may not be removed`; got != want {
		t.Errorf("removed: %s, want %s", got, want)
	}
}
