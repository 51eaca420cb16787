package webhook

import (
	"encoding/json"
	"math"
	"math/rand"
	"testing"
)

// sameAsMarshal checks that appendJSON writes v as json.Marshal does, or
// declines it: then appendErrorBody leaves it to ErrorBody.
func sameAsMarshal(t *testing.T, v interface{}) {
	t.Helper()
	got, ok := appendJSON(nil, v)
	want, err := json.Marshal(v)
	if ok && (err != nil || string(got) != string(want)) {
		t.Fatalf("appendJSON: %s\njson.Marshal: %s %v", got, want, err)
	}
	if !ok && err == nil && unstructured(v) {
		t.Fatalf("appendJSON declines %#v, which json.Marshal writes as %s", v, want)
	}
}

// unstructured reports whether v holds only the types of unstructured
// content, and finite numbers.
func unstructured(v interface{}) bool {
	switch x := v.(type) {
	case nil, bool, string, int64:
		return true
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	case map[string]interface{}:
		for _, e := range x {
			if !unstructured(e) {
				return false
			}
		}
		return true
	case []interface{}:
		for _, e := range x {
			if !unstructured(e) {
				return false
			}
		}
		return true
	}
	return false
}

// TestJSONValue: scalars at the edges of encoding/json's formats, and
// nested unstructured content.
func TestJSONValue(t *testing.T) {
	values := []interface{}{
		nil, true, false, "", "plain", `q"b\s`, "<a href='x'>&amp;</a>", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"\u2028\u2029", "é😀", "\xff\xfe", "a\xc3", "\xed\xa0\x80",
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 0.5, -1.25, 1e20, 1e21, 1e-6, 1e-7, 123456789e-15, 5e-324, math.MaxFloat64, 1.5e300, -2.5e-9,
		math.NaN(), math.Inf(1),
		map[string]interface{}(nil), []interface{}(nil), map[string]interface{}{}, []interface{}{},
		map[string]interface{}{"b": int64(1), "a": []interface{}{"x", 1.5, nil, map[string]interface{}{"<": "&"}}, "": false, "é": "\u2028"},
		[]interface{}{int(1), json.Number("2")}, // other types: declined
	}
	for _, v := range values {
		sameAsMarshal(t, v)
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		sameAsMarshal(t, randomValue(r, 0))
	}
}

func randomValue(r *rand.Rand, depth int) interface{} {
	k := r.Intn(8)
	if depth > 4 {
		k = r.Intn(5)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return r.Intn(2) == 0
	case 2:
		return randomString(r)
	case 3:
		return int64(r.Uint64())
	case 4:
		return math.Float64frombits(r.Uint64()) * []float64{1, 1e-300, 1e300}[r.Intn(3)]
	case 5, 6:
		m := map[string]interface{}{}
		for i := r.Intn(5); i > 0; i-- {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	}
	l := make([]interface{}, r.Intn(5))
	for i := range l {
		l[i] = randomValue(r, depth+1)
	}
	return l
}

// randomString returns a string of bytes that encoding/json escapes or
// not: HTML characters, controls, U+2028, invalid UTF-8.
func randomString(r *rand.Rand) string {
	const alphabet = "aZ<>&\"\\\n\x01\xe2\x80\xa8\xff/ \xc3\xa9"
	b := make([]byte, r.Intn(12))
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return string(b)
}

// FuzzJSONValue: any string and float render as json.Marshal renders them.
func FuzzJSONValue(f *testing.F) {
	f.Add("<\u2028\xff>", 1e21, int64(-7))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		sameAsMarshal(t, map[string]interface{}{s: []interface{}{s, x, n, nil, true}})
	})
}
