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
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	benchv1 "github.com/immutable-gen/immutable-gen/bench/webhook/apis/v1"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

// hooks are the webhooks the server process serves, by path.
func hooks(t testing.TB) map[string]*admission.Webhook {
	t.Helper()
	resources, err := benchResources()
	if err != nil {
		t.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		t.Fatal(err)
	}
	scheme := k8sruntime.NewScheme()
	if err := benchv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	return map[string]*admission.Webhook{
		noopPath:      {Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response { return admission.Allowed("") })},
		webhook.Path:  h.Webhook(),
		beforePath:    {Handler: must(fullDecodeHandler())},
		typedPath:     admission.WithValidator[*benchv1.PodSet](scheme, &webhook.ImmutableValidator[*benchv1.PodSet]{}),
		typedNoopPath: admission.WithValidator[*benchv1.PodSet](scheme, allowAll{}),
	}
}

// servedContext is the context the ServeHTTP of hook passes to its
// handler (hook.WithContextFunc's), for benchmarks that call the handler
// as that ServeHTTP does, after its AdmissionReview decoder.
func servedContext(hook *admission.Webhook) context.Context {
	ctx := context.Background()
	if hook.WithContextFunc != nil {
		ctx = hook.WithContextFunc(ctx, httptest.NewRequest(http.MethodPost, webhook.Path, nil))
	}
	return ctx
}

// serve sends one AdmissionReview body to hook, as the server would.
func serve(tb testing.TB, hook *admission.Webhook, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, webhook.Path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	hook.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		tb.Fatalf("HTTP %d", rec.Code)
	}
	return rec
}

// benchWorkloads are the request mixes of the load test, by name.
func benchWorkloads() map[string]mix {
	return map[string]mix{
		"immutable":     podSetRequests(defaultPodSet),
		"mutable":       requests(22),
		"large":         podSetRequests(largePodSet),
		shapesMixed:     shapeRequests(shapesMixed),
		shapesUnchanged: shapeRequests(shapesUnchanged),
		shapesMutable:   shapeRequests(shapesMutable),
		shapesDenied:    shapeRequests(shapesDenied),
	}
}

// BenchmarkServeHTTP: the cost of one AdmissionReview of each workload's
// mix in controller-runtime's webhook HTTP handler, without TLS and the
// network: the no-op webhook, the immutability webhook, the immutability
// webhook decoding both objects in full (the "before" of issue 14), and
// on the PodSets the typed ImmutableValidator beside a typed no-op; the
// Shapes one kind of update at a time (issue 34).
func BenchmarkServeHTTP(b *testing.B) {
	hs := hooks(b)
	ws := benchWorkloads()
	for _, name := range []string{"immutable", "mutable", "large", shapesUnchanged, shapesMutable, shapesDenied} {
		m := ws[name]
		paths := []string{noopPath, webhook.Path, beforePath}
		if name == "immutable" || name == "large" {
			paths = append(paths, typedNoopPath, typedPath)
		}
		for _, path := range paths {
			b.Run(name+"/"+hookName(path), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(m.bodies[0])))
				i := 0
				for b.Loop() {
					serve(b, hs[path], m.bodies[i%len(m.bodies)])
					i++
				}
			})
		}
	}
}

func hookName(path string) string {
	switch path {
	case noopPath:
		return "noop"
	case webhook.Path:
		return "immutable"
	case beforePath:
		return "full-decode"
	case typedNoopPath:
		return "typed-noop"
	case typedPath:
		return "typed"
	}
	return path
}

// TestMixVerdicts: every request of every workload gets its intended
// verdict from the immutability webhook, the full-decode handler and, on
// the PodSets, the typed validator; the objects have the sizes the load
// test reports.
func TestMixVerdicts(t *testing.T) {
	hs := hooks(t)
	ws := benchWorkloads()
	for name, m := range ws {
		paths := []string{webhook.Path, beforePath}
		if name == "immutable" || name == "large" {
			paths = append(paths, typedPath)
		}
		for _, path := range paths {
			for i, body := range m.bodies {
				rec := serve(t, hs[path], body)
				expect := "allow"
				if m.deny[i] {
					expect = "deny"
				}
				r := &vegeta.Result{URL: "https://127.0.0.1/x?expect=" + expect, Code: uint16(rec.Code), Body: rec.Body.Bytes()}
				if why := check(r); why != "" {
					t.Errorf("%s, %s, request %d: %s", name, hookName(path), i, why)
				}
			}
		}
		switch name {
		case shapesUnchanged, shapesMutable:
			if m.denials != 0 {
				t.Errorf("%s: %d denials, want none", name, m.denials)
			}
		case shapesDenied:
			if m.denials != len(m.bodies) {
				t.Errorf("%s: %d denials of %d requests, want all", name, m.denials, len(m.bodies))
			}
		default:
			if m.denials*4 != len(m.bodies) {
				t.Errorf("%s: %d denials of %d requests, want a quarter", name, m.denials, len(m.bodies))
			}
		}
	}
	for name, want := range map[string][2]int{"immutable": {8 << 10, 10 << 10}, "mutable": {8 << 10, 10 << 10}, "large": {900 << 10, 1100 << 10}, shapesMixed: {8 << 10, 10 << 10}} {
		if size := ws[name].objectSize; size < want[0] || size > want[1] {
			t.Errorf("%s: objects are %d bytes, want %d–%d", name, size, want[0], want[1])
		}
	}
	if m := ws["immutable"]; m.immutableSize*10 < m.objectSize*8 {
		t.Errorf("immutable: %d of %d bytes under immutable markers, want most", m.immutableSize, m.objectSize)
	}
	// The Shape's parts have the sizes of issue 34: a list map immutable
	// whole of 4.2 KB, a list map of immutable items of 1.9 KB, a map of
	// immutable values and a set of 1.1 KB.
	spec := shapeObject("gold", 3)["spec"].(map[string]interface{})
	for part, want := range map[string]int{"containers": 4200, "ports": 1900, "selectors": 1100, "hosts": 1100} {
		if size := len(mustJSON(spec[part])); size < want*9/10 || size > want*11/10 {
			t.Errorf("shapes: %s is %d bytes, want about %d", part, size, want)
		}
	}
}

// BenchmarkHandle: the webhook's own work on one request of each mix,
// after controller-runtime has decoded the AdmissionReview: decoding what
// the check reads from both objects, the check, and a denial's status.
// The handler is called as ServeHTTP calls it (servedContext: in the
// runtime's trusted mode since issue 21's third pass).
func BenchmarkHandle(b *testing.B) {
	resources, err := benchResources()
	if err != nil {
		b.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		b.Fatal(err)
	}
	full := must(fullDecodeHandler())
	ws := benchWorkloads()
	for _, name := range []string{"immutable", "mutable", "large", shapesUnchanged, shapesMutable, shapesDenied} {
		var reqs []admission.Request
		for _, body := range ws[name].bodies {
			var review admissionv1.AdmissionReview
			if err := json.Unmarshal(body, &review); err != nil {
				b.Fatal(err)
			}
			reqs = append(reqs, admission.Request{AdmissionRequest: *review.Request})
		}
		for _, tc := range []struct {
			name    string
			handler admission.Handler
			ctx     context.Context
		}{{"immutable", h, servedContext(h.Webhook())}, {"full-decode", full, context.Background()}} {
			b.Run(name+"/"+tc.name, func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					tc.handler.Handle(tc.ctx, reqs[i%len(reqs)])
					i++
				}
			})
		}
	}
}

// podSetRequestNames name the four requests of the immutable mix, in
// order (podSetRequests).
var podSetRequestNames = []string{"replicas", "suspend", "relabel", "denied"}

// BenchmarkRequest: each request of the immutable mix on its own, through
// controller-runtime's ServeHTTP (the no-op and the immutability webhook)
// and through Handle alone, so that what the check adds to an allowed
// update and to a denial can be read apart (the mixed benchmarks above
// average them). Each also reports the process's CPU time per request
// (cpu-ns/op, garbage collection included), steadier than the wall time
// on a machine shared with other work.
func BenchmarkRequest(b *testing.B) {
	hs := hooks(b)
	resources, err := benchResources()
	if err != nil {
		b.Fatal(err)
	}
	h, err := webhook.NewHandler(resources)
	if err != nil {
		b.Fatal(err)
	}
	m := benchWorkloads()["immutable"]
	for i, body := range m.bodies {
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil {
			b.Fatal(err)
		}
		req := admission.Request{AdmissionRequest: *review.Request}
		name := podSetRequestNames[i]
		for _, path := range []string{noopPath, webhook.Path} {
			b.Run(name+"/ServeHTTP/"+hookName(path), func(b *testing.B) {
				b.ReportAllocs()
				start := processCPU()
				for b.Loop() {
					serve(b, hs[path], body)
				}
				b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
			})
		}
		ctx := servedContext(h.Webhook())
		b.Run(name+"/Handle", func(b *testing.B) {
			b.ReportAllocs()
			start := processCPU()
			for b.Loop() {
				h.Handle(ctx, req)
			}
			b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
