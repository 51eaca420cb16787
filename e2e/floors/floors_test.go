package floors_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"

	v1 "github.com/immutable-gen/immutable-gen/e2e/floors/api/v1"
)

// volume is a Volume's JSON with the given spec.
func volume(spec string) string {
	return `{"apiVersion": "floors.example.com/v1", "kind": "Volume", "metadata": {"name": "v", "namespace": "default"}, "spec": ` + spec + `}`
}

// review is an UPDATE AdmissionReview of a Volume.
func review(object, oldObject string) string {
	return `{"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1", "request": {
  "uid": "0b1c2d3e-0000-4000-8000-000000000001",
  "kind": {"group": "floors.example.com", "version": "v1", "kind": "Volume"},
  "resource": {"group": "floors.example.com", "version": "v1", "resource": "volumes"},
  "requestKind": {"group": "floors.example.com", "version": "v1", "kind": "Volume"},
  "requestResource": {"group": "floors.example.com", "version": "v1", "resource": "volumes"},
  "name": "v", "namespace": "default", "operation": "UPDATE",
  "userInfo": {"username": "admin"},
  "object": ` + object + `, "oldObject": ` + oldObject + `}}`
}

// updates are the cases both webhooks must decide alike: the causes of a
// 422 denial as "field: type" lines, or "" for allowed.
var updates = []struct {
	name, old, new, want string
}{
	{"replicas change", `{"class": "ssd", "replicas": 1}`, `{"class": "ssd", "replicas": 3}`, ""},
	{"class changed", `{"class": "ssd", "replicas": 1}`, `{"class": "hdd", "replicas": 1}`, "spec.class: FieldValueInvalid"},
	{"port renumbered", `{"class": "ssd", "ports": [{"name": "a", "port": 1}]}`, `{"class": "ssd", "ports": [{"name": "a", "port": 2}]}`, ""},
	{"port added", `{"class": "ssd", "ports": [{"name": "a", "port": 1}]}`, `{"class": "ssd", "ports": [{"name": "a", "port": 1}, {"name": "b", "port": 2}]}`, "spec.ports: FieldValueForbidden"},
	{"volume ID set once", `{"class": "ssd"}`, `{"class": "ssd", "volumeID": "vol-1"}`, ""},
	{"volume ID changed", `{"class": "ssd", "volumeID": "vol-1"}`, `{"class": "ssd", "volumeID": "vol-2"}`, "spec.volumeID: FieldValueInvalid"},
	{"volume ID removed", `{"class": "ssd", "volumeID": "vol-1"}`, `{"class": "ssd"}`, "spec.volumeID: FieldValueForbidden"},
}

// serve posts every update to h over HTTP and checks the verdicts.
func serve(t *testing.T, h http.Handler) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, tc := range updates {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL, "application/json", strings.NewReader(review(volume(tc.new), volume(tc.old))))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out admissionv1.AdmissionReview
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Response == nil {
				t.Fatalf("response: %v", err)
			}
			r := out.Response
			got := ""
			if !r.Allowed {
				if r.Result == nil || r.Result.Code != 422 || r.Result.Details == nil {
					t.Fatalf("denied without a 422 Invalid: %+v", r.Result)
				}
				var causes []string
				for _, c := range r.Result.Details.Causes {
					causes = append(causes, c.Field+": "+string(c.Type))
				}
				got = strings.Join(causes, "\n")
			}
			if got != tc.want {
				t.Errorf("causes %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTypedWebhook serves the generated ValidateImmutableUpdate through
// webhook.ImmutableValidator as controller-runtime v0.19 takes it, an
// admission.CustomValidator.
func TestTypedWebhook(t *testing.T) {
	scheme := k8sruntime.NewScheme()
	if err := v1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	v := &webhook.ImmutableValidator[*v1.Volume]{}
	serve(t, admission.WithCustomValidator(scheme, &v1.Volume{}, v.CustomValidator()))
}

// TestUnstructuredWebhook serves the runtime's check of the CRD generated
// with crd:immutability=extensions through webhook.Handler.
func TestUnstructuredWebhook(t *testing.T) {
	manifest, err := os.ReadFile("config/crd/floors.example.com_volumes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	resources, err := enforce.FromCRD(manifest)
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, h.Webhook())
}

// TestOpenAPIExtensions applies the generated ApplyImmutability to
// definitions of the kube-openapi of this module's pins, and checks the
// runtime enforces them.
func TestOpenAPIExtensions(t *testing.T) {
	const pkg = "github.com/immutable-gen/immutable-gen/e2e/floors/api/v1."
	str := func() spec.Schema { return *spec.StringProperty() }
	defs := map[string]common.OpenAPIDefinition{
		pkg + "VolumeSpec": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type: []string{"object"},
			Properties: map[string]spec.Schema{
				"class":    str(),
				"replicas": *spec.Int32Property(),
				"ports": {
					VendorExtensible: spec.VendorExtensible{Extensions: spec.Extensions{
						"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []interface{}{"name"}}},
					SchemaProps: spec.SchemaProps{Type: []string{"array"}, Items: &spec.SchemaOrArray{Schema: spec.RefSchema(pkg + "Port")}},
				},
				"volumeID": str(),
			},
		}}},
		pkg + "Port": {Schema: spec.Schema{SchemaProps: spec.SchemaProps{
			Type:       []string{"object"},
			Properties: map[string]spec.Schema{"name": str(), "port": *spec.Int32Property()},
		}}},
	}
	v1.ApplyImmutability(defs)
	if got, _ := defs[pkg+"VolumeSpec"].Schema.Properties["class"].Extensions.GetBool("x-kubernetes-immutable"); !got {
		t.Errorf("spec.class has no x-kubernetes-immutable: %v", defs[pkg+"VolumeSpec"].Schema.Properties["class"].Extensions)
	}
	c, err := runtime.CompileDefinitions(defs, pkg+"VolumeSpec")
	if err != nil {
		t.Fatal(err)
	}
	var oldSpec, newSpec map[string]interface{}
	if err := json.Unmarshal([]byte(`{"class": "ssd", "ports": [{"name": "a"}]}`), &oldSpec); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"class": "hdd", "ports": [{"name": "b"}]}`), &newSpec); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range c.ValidateUpdate(newSpec, oldSpec) {
		lines = append(lines, e.Field+": "+string(e.Type))
	}
	want := "class: FieldValueInvalid\nports: FieldValueForbidden\nports: FieldValueForbidden"
	if got := strings.Join(lines, "\n"); got != want {
		t.Errorf("violations:\n%s\nwant:\n%s", got, want)
	}
}

// TestTypedValidator runs the generated ValidateImmutableUpdate directly.
func TestTypedValidator(t *testing.T) {
	var oldObj, newObj v1.Volume
	if err := json.NewDecoder(bytes.NewReader([]byte(volume(`{"class": "ssd", "volumeID": "a"}`)))).Decode(&oldObj); err != nil {
		t.Fatal(err)
	}
	newObj = *oldObj.DeepCopy()
	newObj.Spec.VolumeID = "b"
	errs := newObj.ValidateImmutableUpdate(&oldObj)
	if len(errs) != 1 || errs[0].Field != "spec.volumeID" {
		t.Errorf("errors %v, want one at spec.volumeID", errs)
	}
}
