package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

// gadgetResources are the resources of testdata/gadgets-crd.yaml, the
// Gadget CRD the handler's tests serve.
func gadgetResources(t testing.TB) []enforce.Resource {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "gadgets-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := enforce.FromCRD(b)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func gadgetHandler(t testing.TB) *webhook.Handler {
	t.Helper()
	h, err := webhook.NewHandler(gadgetResources(t))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// gadget returns a Gadget as JSON, with spec's members given as JSON.
func gadget(spec ...string) []byte {
	return []byte(`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g","namespace":"default"},"spec":{` + strings.Join(spec, ",") + `}}`)
}

// gadgetRequest is an admission request for the Gadget g; a nil object is
// absent from the request.
func gadgetRequest(op admissionv1.Operation, resource string, obj, old []byte) admission.Request {
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		UID:       "u",
		Kind:      metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"},
		Resource:  metav1.GroupVersionResource{Group: "example.com", Version: "v1", Resource: resource},
		Name:      "g",
		Namespace: "default",
		Operation: op,
		Object:    k8sruntime.RawExtension{Raw: obj},
		OldObject: k8sruntime.RawExtension{Raw: old},
	}}
}

// repeatJSON returns n comma-separated copies of item(i).
func repeatJSON(n int, item func(i int) string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(i))
	}
	return b.String()
}

func ports(n int, port func(i int) int) string {
	return `"ports":[` + repeatJSON(n, func(i int) string { return fmt.Sprintf(`{"name":"p%d","port":%d}`, i, port(i)) }) + `]`
}

func nested(depth int, leaf string) string {
	return strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat(`}`, depth)
}

// TestHandleHostile: what a broken or hostile client, or a very large
// object, can send. Each request gets the intended answer — a 422 denial
// naming the fields, a 400 for what cannot be read, or allowed — with
// memory bounded by a small multiple of the request (time is logged, not
// asserted: the algorithms are linear, and this machine's clock is shared).
func TestHandleHostile(t *testing.T) {
	h := gadgetHandler(t)
	const mib = 1 << 20
	threeMB := strings.Repeat("x", 3*mib-200)
	baseSpec := []string{`"class":"gold"`, `"labels":{"team":"a"}`, `"tags":["a","b"]`, ports(2, func(int) int { return 80 })}
	base := gadget(baseSpec...)
	withBase := func(member string) []byte { return gadget(append(append([]string{}, baseSpec...), member)...) }

	type answer struct {
		allowed bool
		code    int32
		causes  int // for a denial with 422: how many causes; -1 for any number
	}
	allowed := answer{allowed: true, code: http.StatusOK}
	invalid := func(causes int) answer { return answer{code: http.StatusUnprocessableEntity, causes: causes} }
	badRequest := answer{code: http.StatusBadRequest}

	cases := []struct {
		name     string
		op       admissionv1.Operation
		resource string
		obj, old []byte
		want     answer
	}{
		{name: "3 MB template unchanged", obj: gadget(`"class":"gold"`, `"template":{"blob":"`+threeMB+`"}`), old: gadget(`"class":"gold"`, `"template":{"blob":"`+threeMB+`"}`), want: allowed},
		{name: "3 MB template, immutable class changed", obj: gadget(`"class":"silver"`, `"template":{"blob":"`+threeMB+`"}`), old: gadget(`"class":"gold"`, `"template":{"blob":"`+threeMB+`"}`), want: invalid(1)},
		{name: "3 MB immutable value changed", obj: gadget(`"class":"` + threeMB + `"`), old: gadget(`"class":"y` + threeMB[1:] + `"`), want: invalid(1)},
		{name: "3 MB immutable value unchanged", obj: gadget(`"class":"` + threeMB + `"`), old: gadget(`"class":"` + threeMB + `"`), want: allowed},
		{name: "10,000-item list map unchanged", obj: gadget(ports(10000, func(i int) int { return i })), old: gadget(ports(10000, func(i int) int { return i })), want: allowed},
		{name: "10,000-item list map, one port changed", obj: gadget(ports(10000, func(i int) int {
			if i == 5000 {
				return -1
			}
			return i
		})), old: gadget(ports(10000, func(i int) int { return i })), want: invalid(1)},
		{name: "10,000-item list map reversed", obj: gadget(ports(10000, func(i int) int { return i })), old: gadget(`"ports":[` + repeatJSON(10000, func(i int) string { return fmt.Sprintf(`{"name":"p%d","port":%d}`, 9999-i, 9999-i) }) + `]`), want: allowed},
		{name: "10,000 items with one duplicate key, all ports changed", obj: gadget(`"ports":[` + repeatJSON(10000, func(int) string { return `{"name":"p","port":1}` }) + `]`), old: gadget(`"ports":[` + repeatJSON(10000, func(int) string { return `{"name":"p","port":2}` }) + `]`), want: invalid(10000)},
		{name: "10,000-item immutable set permuted", obj: gadget(`"tags":[` + repeatJSON(10000, func(i int) string { return fmt.Sprintf(`"t%d"`, i) }) + `]`), old: gadget(`"tags":[` + repeatJSON(10000, func(i int) string { return fmt.Sprintf(`"t%d"`, 9999-i) }) + `]`), want: allowed},
		{name: "10,000-item immutable set, one item changed", obj: gadget(`"tags":[` + repeatJSON(10000, func(i int) string { return fmt.Sprintf(`"t%d"`, i+1) }) + `]`), old: gadget(`"tags":[` + repeatJSON(10000, func(i int) string { return fmt.Sprintf(`"t%d"`, i) }) + `]`), want: invalid(1)},
		{name: "10,000 immutable keys, one added", obj: gadget(`"labels":{` + repeatJSON(10001, func(i int) string { return fmt.Sprintf(`"k%d":"v"`, i) }) + `}`), old: gadget(`"labels":{` + repeatJSON(10000, func(i int) string { return fmt.Sprintf(`"k%d":"v"`, i) }) + `}`), want: invalid(1)},
		{name: "nesting 9,990 deep in the template", obj: withBase(`"template":` + nested(9990, "1")), old: base, want: allowed},
		{name: "nesting beyond 10,000 in the template", obj: gadget(`"template":` + nested(10001, "1")), old: base, want: badRequest},
		{name: "nesting beyond 10,000 in the old object", obj: base, old: gadget(`"template":` + nested(10001, "1")), want: badRequest},
		{name: "nesting 9,990 deep in an immutable value, changed", obj: gadget(`"class":` + nested(9990, "1")), old: gadget(`"class":` + nested(9990, "2")), want: invalid(1)},
		{name: "malformed: truncated", obj: base[:len(base)-3], old: base, want: badRequest},
		{name: "malformed: trailing garbage", obj: append(append([]byte{}, base...), "}"...), old: base, want: badRequest},
		{name: "malformed: bad literal in the template", obj: gadget(`"template":{"a":nul}`), old: base, want: badRequest},
		{name: "malformed: bad escape", obj: gadget(`"note":"\x"`), old: base, want: badRequest},
		{name: "malformed: control character", obj: gadget("\"note\":\"\x00\""), old: base, want: badRequest},
		{name: "number beyond float64", obj: gadget(`"template":{"n":1e999}`), old: base, want: badRequest},
		{name: "wrong kind: array", obj: []byte(`[1,2]`), old: base, want: badRequest},
		{name: "wrong kind: string", obj: []byte(`"gadget"`), old: base, want: badRequest},
		{name: "wrong kind: null", obj: []byte(`null`), old: base, want: badRequest},
		{name: "wrong kind: spec a string on both sides", obj: []byte(`{"spec":"a"}`), old: []byte(`{"spec":"b"}`), want: allowed},
		{name: "wrong kind: immutable class a number, then a string", obj: gadget(`"class":"1"`), old: gadget(`"class":1`), want: invalid(1)},
		{name: "wrong kind: ports an object", obj: gadget(`"class":"gold"`, `"labels":{"team":"a"}`, `"tags":["a","b"]`, `"ports":{"name":"p"}`), old: base, want: allowed},
		{name: "wrong kind: another kind in the body", obj: []byte(`{"kind":"Secret","spec":{"class":"silver"}}`), old: gadget(`"class":"gold"`), want: invalid(1)},
		{name: "missing oldObject", obj: base, old: nil, want: badRequest},
		{name: "missing object", obj: nil, old: base, want: badRequest},
		{name: "resource not configured", resource: "widgets", obj: []byte(`{not json`), old: nil, want: allowed},
		{name: "create is not checked", op: admissionv1.Create, obj: []byte(`{not json`), old: nil, want: allowed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			op, resource := tc.op, tc.resource
			if op == "" {
				op = admissionv1.Update
			}
			if resource == "" {
				resource = "gadgets"
			}
			req := gadgetRequest(op, resource, tc.obj, tc.old)

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			resp := h.Handle(context.Background(), req)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)

			code := int32(http.StatusOK)
			if resp.Result != nil && resp.Result.Code != 0 {
				code = resp.Result.Code
			}
			if resp.Allowed != tc.want.allowed || code != tc.want.code {
				msg := ""
				if resp.Result != nil {
					msg = resp.Result.Message
				}
				t.Fatalf("allowed %v, code %d (%.300s); want allowed %v, code %d", resp.Allowed, code, msg, tc.want.allowed, tc.want.code)
			}
			if tc.want.code == http.StatusUnprocessableEntity {
				if resp.Result.Reason != metav1.StatusReasonInvalid || resp.Result.Details == nil {
					t.Fatalf("result %+v", resp.Result)
				}
				if n := len(resp.Result.Details.Causes); n == 0 || (tc.want.causes >= 0 && n != tc.want.causes) {
					t.Fatalf("%d causes, want %d", n, tc.want.causes)
				}
			}
			// As the ServeHTTP of h.Webhook calls it, after its
			// AdmissionReview decoder: the same answer where the objects
			// are JSON, and an answer where not.
			served := h.Handle(servedContext(h), req)
			scode := int32(http.StatusOK)
			if served.Result != nil && served.Result.Code != 0 {
				scode = served.Result.Code
			}
			if json.Valid(tc.obj) && json.Valid(tc.old) {
				if served.Allowed != resp.Allowed || scode != code || (served.Result != nil) != (resp.Result != nil) ||
					(served.Result != nil && served.Result.Message != resp.Result.Message) {
					t.Fatalf("served: allowed %v, code %d; called directly: allowed %v, code %d", served.Allowed, scode, resp.Allowed, code)
				}
			} else if served.Allowed != (scode == http.StatusOK) || (scode != http.StatusOK && scode != http.StatusBadRequest && scode != http.StatusUnprocessableEntity) {
				t.Fatalf("served: allowed %v, code %d", served.Allowed, scode)
			}
			// Memory: linear in the request: the decoded parts, and a
			// denial's message quoting the changed values (a 3 MB value is
			// quoted in the message and in its cause), plus a constant for
			// the decoded parts' maps (a 10,000-deep value is 20,000 maps).
			size := uint64(len(tc.obj) + len(tc.old))
			alloc := after.TotalAlloc - before.TotalAlloc
			if limit := 16*size + 16<<20; alloc > limit {
				t.Errorf("allocated %d bytes for a %d-byte request, more than %d", alloc, size, limit)
			}
			t.Logf("%d-byte request: %v, %d bytes allocated", size, elapsed.Round(time.Microsecond), alloc)
		})
	}
}

// TestServeHostileBody: what the webhook server answers for a request body
// that is not an AdmissionReview (controller-runtime refuses it before the
// Handler sees it) and for a 3 MB object sent through HTTP.
func TestServeHostileBody(t *testing.T) {
	srv := gadgetHandler(t).Webhook()
	serve := func(body []byte) admissionv1.AdmissionReview {
		req := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		var out admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil {
			t.Fatalf("HTTP %d, response %.300s: %v", rec.Code, rec.Body, err)
		}
		return out
	}
	for name, body := range map[string]string{
		"truncated review": `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":{"spec":`,
		"not JSON":         `<xml/>`,
	} {
		t.Run(name, func(t *testing.T) {
			r := serve([]byte(body)).Response
			if r.Allowed || r.Result == nil || r.Result.Code != http.StatusBadRequest {
				t.Fatalf("got %+v", r)
			}
		})
	}
	t.Run("3 MB objects through HTTP", func(t *testing.T) {
		blob := strings.Repeat("x", 3<<20-200)
		review := admissionv1.AdmissionReview{
			TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
			Request: func() *admissionv1.AdmissionRequest {
				r := gadgetRequest(admissionv1.Update, "gadgets",
					gadget(`"class":"silver"`, `"template":{"blob":"`+blob+`"}`),
					gadget(`"class":"gold"`, `"template":{"blob":"`+blob+`"}`)).AdmissionRequest
				return &r
			}(),
		}
		body, err := json.Marshal(review)
		if err != nil {
			t.Fatal(err)
		}
		r := serve(body).Response
		if r.Allowed || r.Result.Code != http.StatusUnprocessableEntity || len(r.Result.Details.Causes) != 1 || r.Result.Details.Causes[0].Field != "spec.class" {
			t.Fatalf("got %+v", r.Result)
		}
	})
}

// TestDenialSmall: a denial quotes a changed value of up to 256 bytes of
// JSON and reports a longer one by its JSON type (docs/semantics.md,
// "Update semantics (runtime)" 6), so that its status stays small however
// large the value: a 100 KB object, list or string changes, the status is
// a few hundred bytes. Through ServeHTTP's trusted mode and Handle alike.
func TestDenialSmall(t *testing.T) {
	h := gadgetHandler(t)
	big := strings.Repeat("x", 100<<10)
	cases := []struct {
		name     string
		obj, old string
		want     string
	}{
		{"object", `"class":{"template":"` + big + `1"}`, `"class":{"template":"` + big + `2"}`, `spec.class: Invalid value: "object": field is immutable`},
		{"list", `"tags":["` + big + `","a"]`, `"tags":["` + big + `","b"]`, `spec.tags: Invalid value: "array": field is immutable`},
		{"string", `"class":"` + big + `1"`, `"class":"` + big + `2"`, `spec.class: Invalid value: "string": field is immutable`},
		// As field.Error renders it: JSON from apimachinery v0.34 on, Go
		// syntax before.
		{"short object, quoted", `"class":{"b":1,"a":"<"}`, `"class":{"a":"<"}`,
			"spec.class: " + field.Invalid(nil, map[string]interface{}{"a": "<", "b": int64(1)}, "field is immutable").ErrorBody()},
		{"short string, quoted", `"class":"gold"`, `"class":"silver"`, `spec.class: Invalid value: "gold": field is immutable`},
	}
	for _, tc := range cases {
		for _, ctx := range []context.Context{context.Background(), servedContext(h)} {
			t.Run(tc.name, func(t *testing.T) {
				resp := h.Handle(ctx, gadgetRequest(admissionv1.Update, "gadgets", gadget(tc.obj), gadget(tc.old)))
				if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusUnprocessableEntity {
					t.Fatalf("allowed %v, result %+v", resp.Allowed, resp.Result)
				}
				st := resp.Result
				if want := `Gadget.example.com "g" is invalid: ` + tc.want; st.Message != want {
					t.Errorf("message %.300q, want %q", st.Message, want)
				}
				if st.Details == nil || len(st.Details.Causes) != 1 || !strings.HasSuffix(tc.want, st.Details.Causes[0].Message) {
					t.Errorf("causes %.300v, want one with the message's body", st.Details)
				}
				b, err := json.Marshal(st)
				if err != nil {
					t.Fatal(err)
				}
				if len(b) > 1024 {
					t.Errorf("the status is %d bytes, want at most 1 KB", len(b))
				}
			})
		}
	}
}
