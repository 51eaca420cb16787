package webhook_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestHandleUnchanged: updates whose old object is the new one's bytes,
// which the ServeHTTP of h.Webhook answers without decoding them where
// nothing in them can be reported (runtime/internal/engine Unchanged),
// and decodes otherwise: each gets the full decode's answer, in trusted
// mode and outside it.
func TestHandleUnchanged(t *testing.T) {
	checker := gadgetResources(t)[0].Checker
	h := gadgetHandler(t)
	nest := func(levels int) string {
		return `"template":{"x":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}`
	}
	for _, tc := range []struct {
		name string
		obj  []byte
		code int32
	}{
		{"a gadget", gadget(`"class":"gold"`, `"labels":{"team":"a"}`, `"tags":["a","b"]`), http.StatusOK},
		{"escapes and brackets in strings", gadget(`"class":"g\"[[{\\"`, `"note":"\u005b"`), http.StatusOK},
		{"an exponent in range", gadget(`"template":{"x":[1e3,2E-2]}`), http.StatusOK},
		{"a number beyond float64", gadget(`"template":{"x":[1e400]}`), http.StatusBadRequest},
		{"a long number beyond float64", gadget(`"template":{"x":[` + strings.Repeat("9", 400) + `]}`), http.StatusBadRequest},
		{"nested 9000 levels", gadget(nest(8990)), http.StatusOK},
		{"nested at the decoder's limit", gadget(nest(10000 - 5)), http.StatusOK},
		{"nested beyond the decoder's limit", gadget(nest(10000)), http.StatusBadRequest},
		{"null", []byte(`null`), http.StatusBadRequest},
		{"an array", []byte(`[1]`), http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _ := referenceVerdict(checker, tc.obj, tc.obj); code != tc.code {
				t.Fatalf("the full decode answers %d, the case says %d", code, tc.code)
			}
			sameAnswer(t, h, checker, tc.obj, tc.obj)
			servedAnswer(t, h, checker, tc.obj, tc.obj)
		})
	}
}
