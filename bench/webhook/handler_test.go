package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

// fullDecodeHandler is the webhook as it was before it decoded only what
// the check reads: both objects decoded in full into maps, then checked.
// It is the "before" of BenchmarkServeHTTP.
func fullDecodeHandler(t testing.TB) admission.HandlerFunc {
	resources, err := enforce.FromCRD(workloadsCRD)
	if err != nil {
		t.Fatal(err)
	}
	c := resources[0].Checker
	return func(_ context.Context, req admission.Request) admission.Response {
		var obj, old map[string]interface{}
		if err := utiljson.Unmarshal(req.Object.Raw, &obj); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		if err := utiljson.Unmarshal(req.OldObject.Raw, &old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		errs := c.ValidateUpdate(obj, old)
		if len(errs) == 0 {
			return admission.Allowed("")
		}
		status := apierrors.NewInvalid(schema.GroupKind{Group: req.Kind.Group, Kind: req.Kind.Kind}, req.Name, errs).Status()
		resp := admission.Denied("")
		resp.Result = &status
		return resp
	}
}

// BenchmarkServeHTTP: the cost of one AdmissionReview of the load test's
// mix in controller-runtime's webhook HTTP handler, without TLS and the
// network: the no-op webhook, the immutability webhook, and the
// immutability webhook decoding both objects in full (the "before").
func BenchmarkServeHTTP(b *testing.B) {
	resources, err := enforce.FromCRD(workloadsCRD)
	if err != nil {
		b.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		b.Fatal(err)
	}
	m := requests(22)
	for _, tc := range []struct {
		name string
		hook *admission.Webhook
	}{
		{"noop", &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response { return admission.Allowed("") })}},
		{"immutable", h.Webhook()},
		{"full-decode", &admission.Webhook{Handler: fullDecodeHandler(b)}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(m.bodies[0])))
			i := 0
			for b.Loop() {
				body := m.bodies[i%len(m.bodies)]
				i++
				req := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				tc.hook.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("HTTP %d", rec.Code)
				}
			}
		})
	}
}

// TestMixVerdicts: every request of the mix gets its intended verdict from
// the immutability webhook, and the full-decode handler agrees.
func TestMixVerdicts(t *testing.T) {
	resources, err := enforce.FromCRD(workloadsCRD)
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	m := requests(22)
	if m.objectSize < 8<<10 || m.objectSize > 10<<10 {
		t.Errorf("objects are %d bytes, want about 9 KB", m.objectSize)
	}
	for _, hook := range []*admission.Webhook{h.Webhook(), {Handler: fullDecodeHandler(t)}} {
		for i, body := range m.bodies {
			req := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			hook.ServeHTTP(rec, req)
			expect := "allow"
			if m.deny[i] {
				expect = "deny"
			}
			r := &vegeta.Result{URL: "https://127.0.0.1/x?expect=" + expect, Code: uint16(rec.Code), Body: rec.Body.Bytes()}
			if why := check(r); why != "" {
				t.Errorf("request %d: %s", i, why)
			}
		}
	}
}
