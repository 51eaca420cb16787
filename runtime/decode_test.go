package runtime_test

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/immutable-gen/immutable-gen/runtime"
)

// The differential tests of DecodeObject: on every input, the verdict of
// ValidateUpdate on two objects decoded with it is the verdict on the same
// objects decoded in full with utiljson.Unmarshal (the webhook's decoder
// before DecodeObject), and DecodeObject fails exactly where that fails.

// fullDecode is the reference: the complete decode into a map.
func fullDecode(raw []byte) (map[string]interface{}, error) {
	var m map[string]interface{}
	err := utiljson.Unmarshal(raw, &m)
	return m, err
}

// sameVerdict checks DecodeObject against the full decode on obj and old.
func sameVerdict(t *testing.T, c *runtime.Checker, obj, old []byte) {
	t.Helper()
	var want, got []string
	fo, ferr1 := fullDecode(obj)
	fold, ferr2 := fullDecode(old)
	po, perr1 := c.DecodeObject(obj)
	pold, perr2 := c.DecodeObject(old)
	for i, pair := range [][2]error{{ferr1, perr1}, {ferr2, perr2}} {
		if (pair[0] == nil) != (pair[1] == nil) {
			raw := [][]byte{obj, old}[i]
			t.Fatalf("full decode error %v, DecodeObject error %v, on %.300q", pair[0], pair[1], raw)
		}
	}
	if ferr1 != nil || ferr2 != nil {
		return
	}
	if (fo == nil) != (po == nil) || (fold == nil) != (pold == nil) {
		t.Fatalf("null decoded differently: full %v %v, DecodeObject %v %v", fo == nil, fold == nil, po == nil, pold == nil)
	}
	want = messages(c.ValidateUpdate(fo, fold))
	got = messages(c.ValidateUpdate(po, pold))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\nDecodeObject:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got, "\n  "), obj, old)
	}
}

// TestDecodeObjectDifferential: random objects of the widget and the
// database schemas (mostly of the schema's shape, now and then of any
// shape), pairs of them, and a pair of each with one spot changed.
func TestDecodeObjectDifferential(t *testing.T) {
	s := fuzzSchema(t)
	c := widget(t)
	r := rand.New(rand.NewSource(1))
	denied := 0
	for i := 0; i < 3000; i++ {
		b := make([]byte, 64+r.Intn(256))
		r.Read(b)
		g := &gen{b: b}
		a, bb := g.object(s), g.object(s)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(bb)
		sameVerdict(t, c, ja, jb)
		changed, _ := json.Marshal(changeInside(deepCopy(a), r.Intn(16)))
		sameVerdict(t, c, changed, ja)
		if len(c.ValidateUpdate(a, bb)) > 0 {
			denied++
		}
	}
	if denied < 300 {
		t.Errorf("only %d of 3000 random pairs are violations: the test says little", denied)
	}

	db := database(t)
	old, _ := realisticPair(t)
	jold, _ := json.Marshal(old)
	for i := 0; i < 300; i++ {
		changed, _ := json.Marshal(changeInside(deepCopy(old), i))
		sameVerdict(t, db, changed, jold)
	}
}

// TestDecodeObjectHostile: the inputs a hostile or broken client can send.
func TestDecodeObjectHostile(t *testing.T) {
	c := widget(t)
	base := `{"spec":{"name":"a","labels":{"x":"1"},"mutable":"m"}}`
	cases := map[string]string{
		"empty":                  ``,
		"null":                   `null`,
		"array":                  `[]`,
		"string":                 `"spec"`,
		"number":                 `1`,
		"truncated":              `{"spec":{"name":"a"`,
		"trailing garbage":       base + `x`,
		"two values":             base + ` {}`,
		"trailing space":         base + " \t\r\n",
		"bad escape in skipped":  `{"metadata":{"a":"\q"},"spec":{}}`,
		"bad unicode in skipped": `{"metadata":{"a":"\u12g4"},"spec":{}}`,
		"control char in string": "{\"metadata\":{\"a\":\"\x01\"},\"spec\":{}}",
		"invalid utf-8 in value": "{\"metadata\":{\"a\":\"\xff\"},\"spec\":{\"name\":\"\xfe\"}}",
		"invalid utf-8 in key":   "{\"spec\":{\"labels\":{\"\xff\":\"1\"}}}",
		"escaped property name":  `{"sp\u0065c":{"n\u0061me":"b","labels":{"\u0078":"1"}}}`,
		"duplicate property":     `{"spec":{"name":"b"},"spec":{"name":"a"}}`,
		"duplicate key":          `{"spec":{"labels":{"x":"1","x":"2","y":"1"}}}`,
		"number beyond float64":  `{"metadata":{"n":1e400},"spec":{}}`,
		"long integer":           `{"metadata":{"n":` + strings.Repeat("9", 400) + `},"spec":{}}`,
		"big integer compared":   `{"spec":{"replicas":99999999999999999999}}`,
		"tiny float":             `{"metadata":{"n":1e-400},"spec":{"ratio":1e-400}}`,
		"bad numbers":            `{"metadata":{"n":-},"spec":{}}`,
		"leading zero":           `{"metadata":{"n":01},"spec":{}}`,
		"bare decimal point":     `{"metadata":{"n":1.},"spec":{}}`,
		"bad exponent":           `{"metadata":{"n":1e},"spec":{}}`,
		"bad literal":            `{"metadata":{"n":tru},"spec":{}}`,
		"missing colon":          `{"metadata" 1,"spec":{}}`,
		"missing comma":          `{"metadata":1 "spec":{}}`,
		"trailing comma":         `{"metadata":[1,],"spec":{}}`,
		"mistyped spec":          `{"spec":["a"]}`,
		"mistyped labels":        `{"spec":{"labels":"x"}}`,
		"long strings":           `{"metadata":{"a":"` + strings.Repeat("abcdefgh", 5) + `\"q\\` + strings.Repeat("x", 13) + `é` + strings.Repeat("y", 9) + `"},"spec":{"name":"` + strings.Repeat("n", 17) + `\u0041` + `"}}`,
		"control char late":      "{\"metadata\":{\"a\":\"" + strings.Repeat("abcdefgh", 3) + "abc\x1f" + "\"},\"spec\":{}}",
		"unterminated long":      `{"metadata":{"a":"` + strings.Repeat("abcdefgh", 4),
		"deep skipped":           `{"metadata":` + strings.Repeat(`[`, 9999) + strings.Repeat(`]`, 9999) + `,"spec":{}}`,
		"too deep skipped":       `{"metadata":` + strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000) + `,"spec":{}}`,
		"deep compared":          `{"spec":{"name":` + strings.Repeat(`{"a":`, 9998) + `1` + strings.Repeat(`}`, 9998) + `}}`,
		"too deep compared":      `{"spec":{"name":` + strings.Repeat(`{"a":`, 9999) + `1` + strings.Repeat(`}`, 9999) + `}}`,
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			sameVerdict(t, c, []byte(in), []byte(base))
			sameVerdict(t, c, []byte(base), []byte(in))
			sameVerdict(t, c, []byte(in), []byte(in))
		})
	}
}

// FuzzDecodeObject: arbitrary bytes as the new object against a fixed old
// one, and the fuzzer's bytes as objects of the widget schema.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"spec":{"name":"a","labels":{"x":"1"},"ports":[{"name":"a","protocol":"TCP","port":1}]}}`))
	f.Add([]byte(`{"spec":{"n\u0061me":"b"},"metadata":{"a":[1.5e3,true,null,"\ud800"]}}`))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s := fuzzSchema(f)
	c := widget(f)
	base := []byte(`{"spec":{"name":"a","replicas":1,"labels":{"x":"1"},"tags":["a"],"ports":[{"name":"a","protocol":"TCP","port":1}]}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		sameVerdict(t, c, data, base)
		sameVerdict(t, c, base, data)
		g := &gen{b: data}
		a, _ := json.Marshal(g.object(s))
		b, _ := json.Marshal(g.object(s))
		sameVerdict(t, c, a, b)
	})
}
