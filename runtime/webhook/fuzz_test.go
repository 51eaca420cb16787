package webhook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/internal/respell"
	"github.com/immutable-gen/immutable-gen/runtime/webhook"
)

// referenceVerdict is the webhook's answer as it was before the Handler
// decoded only what the check reads: both objects decoded in full with
// utiljson.Unmarshal, then checked. It returns the code (200 allowed, 400
// unreadable, 422 denied) and the denial's "field: message" lines.
func referenceVerdict(c *runtime.Checker, obj, old []byte) (int32, string) {
	decode := func(raw []byte) map[string]interface{} {
		if len(raw) == 0 {
			return nil
		}
		var m map[string]interface{}
		if utiljson.Unmarshal(raw, &m) != nil {
			return nil
		}
		return m
	}
	o, ol := decode(obj), decode(old)
	if o == nil || ol == nil {
		return http.StatusBadRequest, ""
	}
	errs := c.ValidateUpdate(o, ol)
	if len(errs) == 0 {
		return http.StatusOK, ""
	}
	var lines []string
	for _, e := range errs {
		lines = append(lines, e.Error())
	}
	return http.StatusUnprocessableEntity, strings.Join(lines, "\n")
}

// FuzzHandle: any two byte strings as the new and the old object of a
// Gadget update. Handle never panics, answers 200, 400 or 422, and gives
// the verdict (and the causes) of the full decode. The input is the new
// object, a NUL byte, and the old object (the old object is a fixed
// Gadget without the NUL). Its denials quote values as this
// apimachinery's ErrorBody writes them: json.Marshal from v0.34 (run it
// with k8s.io/apimachinery v0.37, e.g. in a go.work with bench/webhook),
// Go syntax before. Each update is also sent as the ServeHTTP of
// h.Webhook sends it, with objects its AdmissionReview decoder validated
// (servedAnswer: the same answer where they are JSON, an answer where
// not). The new object is also sent in other bytes
// than its own, against itself and against the old object: values the
// check compares whole then differ in bytes, equal or not. Seeds are in
// testdata/fuzz/FuzzHandle.
func FuzzHandle(f *testing.F) {
	checker := gadgetResources(f)[0].Checker
	h := gadgetHandler(f)
	base := gadget(`"class":"gold"`, `"labels":{"team":"a"}`, `"tags":["a","b"]`, ports(2, func(int) int { return 80 }))
	f.Add(base)
	f.Add(append(append(gadget(`"class":"silver"`, `"template":{"x":[1,2.5,-0e3,"\u00e9"]}`), 0), base...))
	f.Add(append(append(gadget(`"labels":{"team":"a","\u0074ier":"b"}`, `"ports":[{"name":"p0","port":81},{"name":"p0"}]`), 0), base...))
	// Byte-different but equal: the set reordered, keys reordered, escapes, 1.0 for 1.
	f.Add(append(append(gadget(`"tags":["b","\u0061"]`, `"class":"gold"`, `"labels":{"team":"a"}`, `"ports":[{"port":80.0,"name":"p0"},{"name":"p1","port":8e1}]`), 0), base...))
	f.Add(append(append(gadget(`"tags":["b","c"]`, `"class":"g\u006fld"`, `"labels":{"team":"a"}`, `"ports":[{"port":81,"name":"p0"}]`), 0), base...))
	// A value compared whole that the denial quotes, written from its
	// bytes (ValidateUpdateMarshaled): keys out of order and repeated,
	// HTML characters, escapes, numbers spelled otherwise.
	f.Add(append(append(gadget(`"class":{"b":"<x>&","a":[1,2.5,-0,1e21,1E-7,"\u2028"],"a":3,"\u00e9":"\ud800"}`), 0), gadget(`"class":{"a":3,"b":"<x>&"}`)...))
	f.Add(append(append(gadget(`"class":[{"z":null,"y":true},{"\u0061":1.0,"a":10E-1,"b":[]}]`), 0), gadget(`"class":[{"y":true,"z":null},{"a":1}]`)...))
	// The shapes compared by their items' canonical bytes (issue 34): an
	// ignoreOrder list map, a list map's immutable items and a map's
	// immutable values holding a set, reordered and respelled (equal) or
	// changed.
	shapes := []string{
		`"deps":[{"name":"a","version":"1"},{"name":"b","version":"2"}]`,
		`"images":[{"name":"a","ref":"r1"},{"name":"b","ref":"r2"}]`,
		`"selectors":{"s":{"key":"k","values":["x","y"]},"t":{"key":"l","values":[]}}`,
	}
	f.Add(append(append(gadget(`"deps":[{"name":"b","version":"2"},{"version":"1","name":"a"}]`, `"images":[{"name":"b","ref":"r2"},{"name":"a","ref":"r1"}]`, `"selectors":{"t":{"values":[],"key":"l"},"s":{"key":"k","values":["y","x"]}}`), 0), gadget(shapes...)...))
	f.Add(append(append(gadget(`"deps":[{"name":"b","version":"2"},{"name":"a","version":"9"}]`, `"images":[{"name":"b","ref":"r3"},{"name":"a","ref":"r1"}]`, `"selectors":{"s":{"key":"k","values":["y","z"]},"t":{"key":"l","values":[]}}`), 0), gadget(shapes...)...))
	f.Add(append(append(gadget(`"deps":[{"name":"a","version":"1"},{"name":"a","version":"1"}]`, `"images":[{"name":"a","ref":"r1"},{"name":"a","ref":"r1"}]`), 0), gadget(shapes...)...))
	// The old object sharing values with the new one byte for byte
	// (DecodeUpdate): beside a changed mutable value, beside a changed
	// immutable one, and the same values spelt otherwise in the old one.
	f.Add(append(append(gadget(append([]string{`"note":"n2"`}, shapes...)...), 0), gadget(append([]string{`"note":"n1"`}, shapes...)...)...))
	f.Add(append(append(gadget(append([]string{`"class":"silver"`}, shapes...)...), 0), gadget(append([]string{`"class":"gold"`}, shapes...)...)...))
	f.Add(append(append(gadget(shapes...), 0), gadget(`"deps":[ {"name":"a","version":"1"},{"name":"b","version":"2"}]`, shapes[1], shapes[2])...))
	f.Add([]byte(`{"spec":{"class":1e400}}`))
	// Unchanged objects, answered without decoding where nothing in them
	// can be reported (Unchanged): numbers and escapes in strings and out.
	for _, spec := range []string{`"class":"1e5","note":"a\"[[\\"`, `"template":{"x":[1e3,-2.5E-3]}`, `"class":1e400`} {
		f.Add(append(append(gadget(spec), 0), gadget(spec)...))
	}
	f.Add([]byte(`[` + "\x00" + `null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, old, found := bytes.Cut(data, []byte{0})
		if !found {
			old = base
		}
		sameAnswer(t, h, checker, obj, old)
		servedAnswer(t, h, checker, obj, old)
		// The new object in other bytes (keys reordered, numbers and
		// strings spelled otherwise, the set and the ignoreOrder list map
		// reordered): against the new
		// object itself, an update that changes nothing.
		var decoded map[string]interface{}
		if len(obj) > 0 && utiljson.Unmarshal(obj, &decoded) == nil && decoded != nil {
			r := rand.New(rand.NewSource(int64(len(data))))
			if spec, ok := decoded["spec"].(map[string]interface{}); ok {
				for _, set := range []string{"tags", "deps"} {
					if l, ok := spec[set].([]interface{}); ok {
						r.Shuffle(len(l), func(i, j int) { l[i], l[j] = l[j], l[i] })
					}
				}
			}
			re := respell.Respell(decoded, r)
			sameAnswer(t, h, checker, re, obj)
			sameAnswer(t, h, checker, re, old)
			servedAnswer(t, h, checker, re, obj)
			servedAnswer(t, h, checker, re, old)
		}
	})
}

// sameAnswer checks that Handle answers the update of old to obj as the
// full decode does: the same code, the same causes.
func sameAnswer(t *testing.T, h *webhook.Handler, checker *runtime.Checker, obj, old []byte) {
	t.Helper()
	sameAnswerIn(t, context.Background(), h, checker, obj, old)
}

// servedAnswer checks Handle as the ServeHTTP of h.Webhook calls it, with
// objects its AdmissionReview decoder validated (the runtime's trusted
// mode): where obj and old are JSON, the full decode's answer; on other
// bytes, which that decoder refuses, an answer (200, 400 or 422), not a
// panic.
func servedAnswer(t *testing.T, h *webhook.Handler, checker *runtime.Checker, obj, old []byte) {
	t.Helper()
	ctx := servedContext(h)
	if json.Valid(obj) && json.Valid(old) {
		sameAnswerIn(t, ctx, h, checker, obj, old)
		return
	}
	resp := h.Handle(ctx, gadgetRequest(admissionv1.Update, "gadgets", obj, old))
	code := int32(http.StatusOK)
	if resp.Result != nil && resp.Result.Code != 0 {
		code = resp.Result.Code
	}
	if (code != http.StatusOK && code != http.StatusBadRequest && code != http.StatusUnprocessableEntity) || resp.Allowed != (code == http.StatusOK) {
		t.Fatalf("allowed %v, code %d\nobj: %.300q\nold: %.300q", resp.Allowed, code, obj, old)
	}
}

// servedContext is the context the ServeHTTP of h.Webhook passes to
// Handle, once its AdmissionReview decoder has validated the body.
func servedContext(h *webhook.Handler) context.Context {
	return h.Webhook().WithContextFunc(context.Background(), httptest.NewRequest(http.MethodPost, webhook.Path, nil))
}

// sameAnswerIn is sameAnswer with Handle given ctx.
func sameAnswerIn(t *testing.T, ctx context.Context, h *webhook.Handler, checker *runtime.Checker, obj, old []byte) {
	t.Helper()
	resp := h.Handle(ctx, gadgetRequest(admissionv1.Update, "gadgets", obj, old))
	code := int32(http.StatusOK)
	if resp.Result != nil && resp.Result.Code != 0 {
		code = resp.Result.Code
	}
	wantCode, wantCauses := referenceVerdict(checker, obj, old)
	if code != wantCode || resp.Allowed != (wantCode == http.StatusOK) {
		t.Fatalf("allowed %v, code %d; the full decode gives %d\nobj: %.300q\nold: %.300q", resp.Allowed, code, wantCode, obj, old)
	}
	if code == http.StatusUnprocessableEntity {
		var lines []string
		for _, c := range resp.Result.Details.Causes {
			lines = append(lines, c.Field+": "+c.Message)
		}
		if got := strings.Join(lines, "\n"); got != wantCauses {
			t.Fatalf("causes:\n%s\nthe full decode's:\n%s", got, wantCauses)
		}
	}
}
