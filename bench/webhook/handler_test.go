package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	vegeta "github.com/tsenart/vegeta/v12/lib"
	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/immutable-gen/immutable-gen/runtime/enforce"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

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
		{"full-decode", &admission.Webhook{Handler: must(fullDecodeHandler())}},
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
	for _, hook := range []*admission.Webhook{h.Webhook(), {Handler: must(fullDecodeHandler())}} {
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

// BenchmarkHandle: the webhook's own work on one request of the mix, after
// controller-runtime has decoded the AdmissionReview: decoding what the
// check reads from both objects, the check, and a denial's status.
func BenchmarkHandle(b *testing.B) {
	resources, err := enforce.FromCRD(workloadsCRD)
	if err != nil {
		b.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		b.Fatal(err)
	}
	full := must(fullDecodeHandler())
	m := requests(22)
	var reqs []admission.Request
	for _, body := range m.bodies {
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil {
			b.Fatal(err)
		}
		reqs = append(reqs, admission.Request{AdmissionRequest: *review.Request})
	}
	for _, tc := range []struct {
		name    string
		handler admission.Handler
	}{{"immutable", h}, {"full-decode", full}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				tc.handler.Handle(context.Background(), reqs[i%len(reqs)])
				i++
			}
		})
	}
}
