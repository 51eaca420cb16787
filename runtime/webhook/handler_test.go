package webhook_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
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

// review is an AdmissionReview v1 request exactly as kube-apiserver sends
// it for an update of a Widget (fields it sends and the handler ignores,
// such as userInfo and options, included).
func review(operation, subResource string, dryRun bool, object, oldObject string) string {
	sub := ""
	if subResource != "" {
		sub = `"subResource": "` + subResource + `",
    "requestSubResource": "` + subResource + `",`
	}
	dry := "false"
	if dryRun {
		dry = "true"
	}
	return `{
  "kind": "AdmissionReview",
  "apiVersion": "admission.k8s.io/v1",
  "request": {
    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
    "kind": {"group": "example.com", "version": "v1", "kind": "Widget"},
    "resource": {"group": "example.com", "version": "v1", "resource": "widgets"},
    ` + sub + `
    "requestKind": {"group": "example.com", "version": "v1", "kind": "Widget"},
    "requestResource": {"group": "example.com", "version": "v1", "resource": "widgets"},
    "name": "w",
    "namespace": "default",
    "operation": "` + operation + `",
    "userInfo": {"username": "admin", "groups": ["system:authenticated"]},
    "object": ` + object + `,
    "oldObject": ` + oldObject + `,
    "dryRun": ` + dry + `,
    "options": {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1"}
  }
}`
}

func widgetJSON(spec, status string) string {
	s := `{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default", "resourceVersion": "7"}, "spec": ` + spec
	if status != "" {
		s += `, "status": ` + status
	}
	return s + "}"
}

// post serves one AdmissionReview through controller-runtime's webhook
// HTTP handler, as the API server would call it, and returns the response.
func post(t *testing.T, h http.Handler, body string) *admissionv1.AdmissionResponse {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", rec.Code, rec.Body)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("response %s: %v", rec.Body, err)
	}
	if out.APIVersion != "admission.k8s.io/v1" || out.Kind != "AdmissionReview" {
		t.Errorf("response is %s %s", out.APIVersion, out.Kind)
	}
	if out.Response == nil || out.Response.UID != "705ab4f5-6393-11e8-b7cc-42010a800002" {
		t.Fatalf("response without the request's uid: %s", rec.Body)
	}
	return out.Response
}

// causes renders a denial's causes as "field: type: message" lines, after
// checking it is a 422 Invalid for the Widget.
func causes(t *testing.T, r *admissionv1.AdmissionResponse) string {
	t.Helper()
	if r.Allowed {
		t.Fatal("allowed, want a denial")
	}
	st := r.Result
	if st == nil || st.Code != 422 || st.Reason != "Invalid" || st.Status != "Failure" || st.Details == nil ||
		st.Details.Kind != "Widget" || st.Details.Group != "example.com" || st.Details.Name != "w" {
		t.Fatalf("result %+v", st)
	}
	var lines []string
	for _, c := range st.Details.Causes {
		lines = append(lines, c.Field+": "+string(c.Type)+": "+c.Message)
	}
	return strings.Join(lines, "\n")
}

func TestHandler(t *testing.T) {
	h, err := webhook.NewHandler(widgetResources(t))
	if err != nil {
		t.Fatal(err)
	}
	srv := h.Webhook()
	old := widgetJSON(`{"class": "gold", "size": 1, "labels": {"team": "a"}}`, `{"nodeName": "n1"}`)

	t.Run("forbidden update", func(t *testing.T) {
		obj := widgetJSON(`{"class": "silver", "size": 1, "labels": {"tier": "db"}}`, `{"nodeName": "n1"}`)
		r := post(t, srv, review("UPDATE", "", false, obj, old))
		want := `spec.class: FieldValueInvalid: Invalid value: "silver": field is immutable
spec.labels: FieldValueForbidden: Forbidden: key "team" may not be removed: keys are immutable
spec.labels: FieldValueForbidden: Forbidden: key "tier" may not be added: keys are immutable`
		if got := causes(t, r); got != want {
			t.Errorf("causes:\n%s\nwant:\n%s", got, want)
		}
		if !strings.HasPrefix(r.Result.Message, `Widget.example.com "w" is invalid: [spec.class: Invalid value: "silver": field is immutable, `) {
			t.Errorf("message %q", r.Result.Message)
		}
	})
	t.Run("allowed update", func(t *testing.T) {
		obj := widgetJSON(`{"class": "gold", "size": 3, "labels": {"team": "b"}}`, `{"nodeName": "n1"}`)
		if r := post(t, srv, review("UPDATE", "", false, obj, old)); !r.Allowed || r.Result.Code != 200 {
			t.Fatalf("denied: %+v", r.Result)
		}
	})
	t.Run("numbers compare by value", func(t *testing.T) {
		o := widgetJSON(`{"class": "gold", "labels": {"n": "1"}}`, "")
		obj := widgetJSON(`{"class": "gold", "labels": {"n": "1"}, "size": 1.0}`, "")
		if r := post(t, srv, review("UPDATE", "", false, obj, o)); !r.Allowed {
			t.Fatalf("denied: %+v", r.Result)
		}
	})
	t.Run("dry-run update is checked", func(t *testing.T) {
		obj := widgetJSON(`{"class": "silver", "size": 1, "labels": {"team": "a"}}`, `{"nodeName": "n1"}`)
		if got := causes(t, post(t, srv, review("UPDATE", "", true, obj, old))); got != `spec.class: FieldValueInvalid: Invalid value: "silver": field is immutable` {
			t.Error(got)
		}
	})
	t.Run("status subresource", func(t *testing.T) {
		obj := widgetJSON(`{"class": "gold", "size": 1, "labels": {"team": "a"}}`, `{"nodeName": "n2"}`)
		if got := causes(t, post(t, srv, review("UPDATE", "status", false, obj, old))); got != `status.nodeName: FieldValueInvalid: Invalid value: "n2": field is immutable` {
			t.Error(got)
		}
	})
	t.Run("other subresources pass", func(t *testing.T) {
		obj := widgetJSON(`{"class": "silver"}`, "")
		if r := post(t, srv, review("UPDATE", "scale", false, obj, old)); !r.Allowed {
			t.Fatalf("denied: %+v", r.Result)
		}
	})
	t.Run("create and delete pass", func(t *testing.T) {
		obj := widgetJSON(`{"class": "silver"}`, "")
		if r := post(t, srv, review("CREATE", "", false, obj, "null")); !r.Allowed {
			t.Fatalf("CREATE denied: %+v", r.Result)
		}
		if r := post(t, srv, review("DELETE", "", false, "null", old)); !r.Allowed {
			t.Fatalf("DELETE denied: %+v", r.Result)
		}
	})
	t.Run("unreadable objects are refused", func(t *testing.T) {
		r := post(t, srv, review("UPDATE", "", false, widgetJSON(`{"class": "gold"}`, ""), "null"))
		if r.Allowed || r.Result.Code != 400 || !strings.Contains(r.Result.Message, "immutable fields: the old object: missing from the request") {
			t.Fatalf("got %+v", r.Result)
		}
		r = post(t, srv, review("UPDATE", "", false, `"a string"`, old))
		if r.Allowed || r.Result.Code != 400 || !strings.Contains(r.Result.Message, "immutable fields: the new object: ") {
			t.Fatalf("got %+v", r.Result)
		}
	})
}

func TestHandlerOtherResource(t *testing.T) {
	h, err := webhook.NewHandler(widgetResources(t))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Replace(review("UPDATE", "", false, widgetJSON(`{"class": "b"}`, ""), widgetJSON(`{"class": "a"}`, "")),
		`"resource": {"group": "example.com", "version": "v1", "resource": "widgets"}`,
		`"resource": {"group": "example.com", "version": "v2", "resource": "widgets"}`, 1)
	r := post(t, h.Webhook(), body)
	if !r.Allowed || r.Result.Message != "immutable fields: widgets.example.com v2 is not checked" {
		t.Fatalf("got %+v", r.Result)
	}
}

func TestNewHandlerErrors(t *testing.T) {
	if _, err := webhook.NewHandler(nil); err == nil || err.Error() != "webhook: no resources configured" {
		t.Errorf("no resources: %v", err)
	}
	rs := widgetResources(t)
	rs[0].Subresources = append(rs[0].Subresources, "scale")
	if _, err := webhook.NewHandler(rs); err == nil || !strings.Contains(err.Error(), `"scale" cannot be checked`) {
		t.Errorf("scale: %v", err)
	}
}

// TestHandlerOnce: a CRD with the set-once extension (+immutable=once) is
// enforced through the webhook: set later allowed, changed or removed once
// set refused with 422 and the runtime's causes.
func TestHandlerOnce(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "widgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := strings.Replace(string(b), "size: {type: integer}", "size: {type: integer}\n              owner: {type: string, x-immutable-gen-immutable-once: true}", 1)
	rs, err := enforce.FromCRD([]byte(crd))
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(rs)
	if err != nil {
		t.Fatal(err)
	}
	srv := h.Webhook()
	unset := widgetJSON(`{"class": "gold"}`, "")
	set := widgetJSON(`{"class": "gold", "owner": "a"}`, "")
	if r := post(t, srv, review("UPDATE", "", false, set, unset)); !r.Allowed {
		t.Fatalf("setting it later denied: %+v", r.Result)
	}
	if got, want := causes(t, post(t, srv, review("UPDATE", "", false, widgetJSON(`{"class": "gold", "owner": "b"}`, ""), set))),
		`spec.owner: FieldValueInvalid: Invalid value: "b": field is immutable`; got != want {
		t.Errorf("changed: %s, want %s", got, want)
	}
	if got, want := causes(t, post(t, srv, review("UPDATE", "", false, unset, set))),
		`spec.owner: FieldValueForbidden: Forbidden: field "owner" is immutable once set and may not be removed`; got != want {
		t.Errorf("removed: %s, want %s", got, want)
	}
}

// TestHandlerConditional: a field with a condition (x-immutable-gen-when,
// as the crd generator's extensions output writes +immutable:when) is
// fixed through the webhook only where the condition holds on the whole
// objects, which the trusted decoder then decodes in full; a condition that
// fails refuses only a change of the field, at the root.
func TestHandlerConditional(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "widgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	crd := strings.Replace(string(b), "size: {type: integer}", "size: {type: integer}\n"+
		`              queue: {type: string, x-kubernetes-immutable: true, x-immutable-gen-when: "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"}`, 1)
	crd = strings.Replace(crd, "phase: {type: string}", "phase: {type: string}\n"+
		`              conditions: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [type], items: {type: object, properties: {type: {type: string}, status: {type: string}}}}`, 1)
	rs, err := enforce.FromCRD([]byte(crd))
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(rs)
	if err != nil {
		t.Fatal(err)
	}
	srv := h.Webhook()
	reserved := `{"conditions": [{"type": "Admitted", "status": "True"}, {"type": "QuotaReserved", "status": "True"}]}`
	released := `{"conditions": [{"type": "QuotaReserved", "status": "False"}]}`
	a, bq := `{"class": "gold", "queue": "a"}`, `{"class": "gold", "queue": "b"}`
	if got, want := causes(t, post(t, srv, review("UPDATE", "", false, widgetJSON(bq, reserved), widgetJSON(a, reserved)))),
		`spec.queue: FieldValueInvalid: Invalid value: "b": field is immutable`; got != want {
		t.Errorf("changed with quota reserved: %s, want %s", got, want)
	}
	if r := post(t, srv, review("UPDATE", "", false, widgetJSON(bq, released), widgetJSON(a, released))); !r.Allowed {
		t.Errorf("changed without quota: denied: %+v", r.Result)
	}
	if r := post(t, srv, review("UPDATE", "", false, widgetJSON(a, ""), widgetJSON(a, ""))); !r.Allowed {
		t.Errorf("unchanged, the condition failing: denied: %+v", r.Result)
	}
	if got, want := causes(t, post(t, srv, review("UPDATE", "", false, widgetJSON(bq, ""), widgetJSON(a, "")))),
		`: FieldValueInvalid: Invalid value: "object": no such key: status evaluating the condition of the immutability of spec.queue (x-immutable-gen-when: oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True'))`; got != want {
		t.Errorf("changed, the condition failing: %s, want %s", got, want)
	}
}

// TestNewHandlerExampleOutputs: a webhook built from the example's CRD
// outputs either enforces (the extensions output denies an engine change)
// or is never built (the default CEL output is refused, naming the output
// to generate); never a handler that allows the change.
func TestNewHandlerExampleOutputs(t *testing.T) {
	cacheCluster := func(engine string) string {
		return `{"apiVersion": "cache.example.com/v1", "kind": "CacheCluster", "metadata": {"name": "w", "namespace": "default", "resourceVersion": "7"}, "spec": {"engine": "` + engine + `"}}`
	}
	body := strings.NewReplacer(`"group": "example.com"`, `"group": "cache.example.com"`, `"kind": "Widget"`, `"kind": "CacheCluster"`, `"resource": "widgets"`, `"resource": "cacheclusters"`).
		Replace(review("UPDATE", "", false, cacheCluster("memcached"), cacheCluster("redis")))
	for _, tc := range []struct {
		name, output string
		refused      bool
	}{
		{"extensions output denies the change", "extensions", false},
		{"default CEL output refused", "bases", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "examples", "config", "crd", tc.output, "cache.example.com_cacheclusters.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			h, err := func() (*webhook.Handler, error) {
				rs, err := enforce.FromCRD(b)
				if err != nil {
					return nil, err
				}
				return webhook.NewHandler(rs)
			}()
			if tc.refused {
				var ne *enforce.NoExtensionsError
				if !errors.As(err, &ne) || ne.CRD != "cacheclusters.cache.example.com" || !strings.Contains(err.Error(), "crd:immutability=extensions") {
					t.Fatalf("handler %v, error %v; want the refusal of the CRD naming crd:immutability=extensions", h, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			r := post(t, h.Webhook(), body)
			if r.Allowed || r.Result == nil || r.Result.Code != 422 || r.Result.Details == nil || len(r.Result.Details.Causes) != 1 ||
				r.Result.Details.Causes[0].Field != "spec.engine" {
				t.Fatalf("engine change: %+v", r)
			}
		})
	}
}

// gadgetsCRD is a CRD without immutability extensions.
var gadgetsCRD = []byte(`
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
`)

// TestNewHandlerNoExtensions: resources whose Checkers check nothing are
// refused, whoever built them.
func TestNewHandlerNoExtensions(t *testing.T) {
	empty, err := runtime.CompileCRD(gadgetsCRD, runtime.CRDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	for _, tc := range []struct {
		name string
		rs   []enforce.Resource
	}{
		{"one resource", []enforce.Resource{{Resource: widgets, Subresources: []string{"status"}, Checker: empty}}},
		{"beside a checked one", append(widgetResources(t), enforce.Resource{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, Checker: empty})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := webhook.NewHandler(tc.rs)
			var ne *enforce.NoExtensionsError
			if h != nil || !errors.As(err, &ne) || !strings.Contains(err.Error(), "crd:immutability=extensions") {
				t.Fatalf("handler %v, error %v; want a NoExtensionsError", h, err)
			}
		})
	}
}
