package runtime_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/immutable-gen/immutable-gen/runtime"
	"github.com/immutable-gen/immutable-gen/runtime/internal/respell"
)

// The differential tests of DecodeObject: on every input, the verdict of
// ValidateUpdate on two objects decoded with it is the verdict on the same
// objects decoded in full with utiljson.Unmarshal (the webhook's decoder
// before DecodeObject), and DecodeObject fails exactly where that fails.
// So is the trusted mode's on every input that is JSON (sameVerdict runs
// it too).

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
	sameTrustedVerdict(t, c, obj, old, ferr1, ferr2)
	// DecodeUpdate fails where DecodeObject fails: on the new object, or
	// else on the old one.
	if _, _, uerr1, uerr2 := runtime.DecodeUpdate(c, obj, old, false); (uerr1 == nil) != (perr1 == nil) || (perr1 == nil && (uerr2 == nil) != (perr2 == nil)) {
		t.Fatalf("DecodeObject errors %v, %v; DecodeUpdate: %v, %v\nobj: %.300q\nold: %.300q", perr1, perr2, uerr1, uerr2, obj, old)
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
	// The old object decoded beside the new one: bytes it shares with it
	// are compared, not scanned; the same result.
	pold2, perr3 := c.DecodeOldObject(old, po)
	if perr3 != nil || (pold2 == nil) != (pold == nil) {
		t.Fatalf("DecodeOldObject: %v (nil %v); DecodeObject: nil %v", perr3, pold2 == nil, pold == nil)
	}
	if got2 := messages(c.ValidateUpdate(po, pold2)); strings.Join(got2, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\nDecodeOldObject:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got2, "\n  "), obj, old)
	}
	// Both objects decoded together, the old one sharing the new one's
	// objects and lists where their bytes are the same: the same result.
	uo, uold, uerr1, uerr2 := runtime.DecodeUpdate(c, obj, old, false)
	if uerr1 != nil || uerr2 != nil || (uo == nil) != (po == nil) || (uold == nil) != (pold == nil) {
		t.Fatalf("DecodeUpdate: %v, %v (nil %v %v); DecodeObject: nil %v %v", uerr1, uerr2, uo == nil, uold == nil, po == nil, pold == nil)
	}
	if got4 := messages(unmarshaled(t, c.ValidateUpdateMarshaled(uo, uold))); strings.Join(got4, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\nDecodeUpdate:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got4, "\n  "), obj, old)
	}
	// ValidateUpdateMarshaled: the same errors, with a changed value kept
	// as bytes written as json.Marshal writes the value decoded.
	if got3 := messages(unmarshaled(t, c.ValidateUpdateMarshaled(po, pold2))); strings.Join(got3, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\nValidateUpdateMarshaled:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got3, "\n  "), obj, old)
	}
}

// sameTrustedVerdict checks the trusted mode (internal/trusted: the
// webhook's, on objects controller-runtime's AdmissionReview decoder
// validated) against the full decode on obj and old, which failed with
// ferr1 and ferr2: where both are valid JSON, the same failures and the
// same verdict as ValidateUpdateMarshaled gives; on any bytes, no panic.
func sameTrustedVerdict(t *testing.T, c *runtime.Checker, obj, old []byte, ferr1, ferr2 error) {
	t.Helper()
	sameUnchanged(t, c, obj, old)
	sameUnchanged(t, c, obj, obj)
	to, terr1 := runtime.DecodeTrusted(c, obj)
	told, terr2 := runtime.DecodeOldTrusted(c, old, to)
	if !json.Valid(obj) || !json.Valid(old) {
		// Not what the webhook's trusted mode is given: anything but a
		// panic goes.
		if terr1 == nil && terr2 == nil {
			for _, e := range c.ValidateUpdateMarshaled(to, told) {
				_ = e.Error()
			}
		}
		if uo, uold, uerr1, uerr2 := runtime.DecodeUpdate(c, obj, old, true); uerr1 == nil && uerr2 == nil {
			for _, e := range c.ValidateUpdateMarshaled(uo, uold) {
				_ = e.Error()
			}
		}
		return
	}
	if (ferr1 == nil) != (terr1 == nil) || (ferr2 == nil) != (terr2 == nil) {
		t.Fatalf("full decode errors %v, %v; trusted mode: %v, %v\nobj: %.300q\nold: %.300q", ferr1, ferr2, terr1, terr2, obj, old)
	}
	if ferr1 != nil || ferr2 != nil {
		return
	}
	fo, _ := fullDecode(obj)
	fold, _ := fullDecode(old)
	if (fo == nil) != (to == nil) || (fold == nil) != (told == nil) {
		t.Fatalf("null decoded differently: full %v %v, trusted mode %v %v", fo == nil, fold == nil, to == nil, told == nil)
	}
	want := messages(c.ValidateUpdate(fo, fold))
	if got := messages(unmarshaled(t, c.ValidateUpdateMarshaled(to, told))); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\ntrusted mode:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got, "\n  "), obj, old)
	}
	uo, uold, uerr1, uerr2 := runtime.DecodeUpdate(c, obj, old, true)
	if uerr1 != nil || uerr2 != nil || (uo == nil) != (to == nil) || (uold == nil) != (told == nil) {
		t.Fatalf("trusted DecodeUpdate: %v, %v (nil %v %v); trusted mode: nil %v %v", uerr1, uerr2, uo == nil, uold == nil, to == nil, told == nil)
	}
	if got := messages(unmarshaled(t, c.ValidateUpdateMarshaled(uo, uold))); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\ntrusted DecodeUpdate:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got, "\n  "), obj, old)
	}
	if got := messages(c.ValidateUpdate(to, told)); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("verdicts differ\nfull decode:\n  %s\ntrusted mode, ValidateUpdate:\n  %s\nobj: %.500s\nold: %.500s",
			strings.Join(want, "\n  "), strings.Join(got, "\n  "), obj, old)
	}
}

// sameUnchanged checks the webhook's answer without decoding
// (internal/engine Unchanged) against the full decode: where it allows
// the update of old to obj, both are JSON objects that decode without
// error and the check of the decoded objects reports nothing. Where obj
// is not JSON (not what trusted mode is given), only that it does not
// panic.
func sameUnchanged(t *testing.T, c *runtime.Checker, obj, old []byte) {
	t.Helper()
	if !runtime.Unchanged(c, obj, old, true) || !json.Valid(obj) {
		return
	}
	unchangedAllowed++
	if runtime.Unchanged(c, obj, old, false) {
		t.Fatalf("Unchanged answered outside trusted mode on %.300q", obj)
	}
	fo, err1 := fullDecode(obj)
	fold, err2 := fullDecode(old)
	if err1 != nil || err2 != nil || fo == nil || fold == nil {
		t.Fatalf("Unchanged allowed objects the full decode refuses (%v, %v, nil %v %v): %.300q", err1, err2, fo == nil, fold == nil, obj)
	}
	if errs := c.ValidateUpdate(fo, fold); len(errs) != 0 {
		t.Fatalf("Unchanged allowed an update the full decode denies: %v\nobj: %.500s", errs, obj)
	}
}

// unchangedAllowed counts the updates sameUnchanged saw Unchanged allow,
// so that a test can tell it met some.
var unchangedAllowed int

// marshaledSeen counts the MarshaledValues unmarshaled has checked, so
// that a test can tell it met some.
var marshaledSeen int

// unmarshaled checks that each MarshaledValue in errs is the JSON that
// json.Marshal writes for its Value, and replaces it by that value.
func unmarshaled(t *testing.T, errs field.ErrorList) field.ErrorList {
	t.Helper()
	for _, e := range errs {
		v, ok := e.BadValue.(runtime.MarshaledValue)
		if !ok {
			continue
		}
		marshaledSeen++
		want, err := json.Marshal(v.Value())
		if err != nil || string(v.JSON()) != string(want) {
			t.Fatalf("%s: MarshaledValue %s; json.Marshal of its Value: %s %v", e.Field, v.JSON(), want, err)
		}
		e.BadValue = v.Value()
	}
	return errs
}

// respelled returns v as JSON spelled otherwise (runtime/internal/respell:
// keys in another order, duplicates, numbers, escapes, white space), with
// its sets reordered when the schema s is given: the same value in
// different bytes, where s says so.
func respelled(v map[string]interface{}, s *spec.Schema, r *rand.Rand) []byte {
	c := deepCopy(v)
	if s != nil {
		permuteSets(c, s, r)
	}
	return respell.Respell(c, r)
}

// allowedDecoded checks that the update of old to obj, two spellings of
// the same object, is allowed on DecodeObject's results.
func allowedDecoded(t *testing.T, c *runtime.Checker, obj, old []byte) {
	t.Helper()
	po, err1 := c.DecodeObject(obj)
	pold, err2 := c.DecodeObject(old)
	if err1 != nil || err2 != nil {
		t.Fatalf("DecodeObject: %v, %v", err1, err2)
	}
	if errs := c.ValidateUpdate(po, pold); len(errs) != 0 {
		t.Fatalf("two spellings of one object: %v\nobj: %.500s\nold: %.500s", errs, obj, old)
	}
	if errs := c.ValidateUpdateMarshaled(po, pold); len(errs) != 0 {
		t.Fatalf("two spellings of one object, ValidateUpdateMarshaled: %v\nobj: %.500s\nold: %.500s", errs, obj, old)
	}
}

// TestDecodeObjectDifferential: random objects of the widget and the
// database schemas (mostly of the schema's shape, now and then of any
// shape), pairs of them, and a pair of each with one spot changed; each
// also in other bytes than encoding/json's (respelled), so that values
// compared whole differ in their bytes whether or not they are equal.
func TestDecodeObjectDifferential(t *testing.T) {
	s := fuzzSchema(t)
	c := widget(t)
	r := rand.New(rand.NewSource(1))
	denied := 0
	seen, unchanged := marshaledSeen, unchangedAllowed
	for i := 0; i < 3000; i++ {
		b := make([]byte, 64+r.Intn(256))
		r.Read(b)
		g := &gen{b: b}
		a, bb := g.object(s), g.object(s)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(bb)
		sameVerdict(t, c, ja, jb)
		changedObj := changeInside(deepCopy(a), r.Intn(16))
		changed, _ := json.Marshal(changedObj)
		sameVerdict(t, c, changed, ja)
		if len(c.ValidateUpdate(a, bb)) > 0 {
			denied++
		}

		// Different bytes, equal values.
		ra := respelled(a, nil, r)
		sameVerdict(t, c, ra, ja)
		allowedDecoded(t, c, ra, ja)
		sameVerdict(t, c, respelled(a, s, r), ra)
		// Different bytes, different values.
		sameVerdict(t, c, respelled(bb, s, r), ra)
		if m, ok := changedObj.(map[string]interface{}); ok {
			sameVerdict(t, c, respelled(m, s, r), ra)
		}
	}
	if denied < 300 {
		t.Errorf("only %d of 3000 random pairs are violations: the test says little", denied)
	}

	db := database(t)
	old, _ := realisticPair(t)
	jold, _ := json.Marshal(old)
	for i := 0; i < 300; i++ {
		changedObj := changeInside(deepCopy(old), i)
		changed, _ := json.Marshal(changedObj)
		sameVerdict(t, db, changed, jold)
		if m, ok := changedObj.(map[string]interface{}); ok {
			sameVerdict(t, db, respelled(m, nil, r), respelled(old, nil, r))
		}
		ro := respelled(old, nil, r)
		sameVerdict(t, db, ro, jold)
		allowedDecoded(t, db, ro, jold)
	}
	if n := marshaledSeen - seen; n < 500 {
		t.Errorf("ValidateUpdateMarshaled wrote %d values from their bytes: the test says little", n)
	}
	if n := unchangedAllowed - unchanged; n < 1000 {
		t.Errorf("Unchanged allowed %d updates without decoding: the test says little", n)
	}
}

// TestDecodeObjectSpellings: updates of the widget whose values compared
// whole differ in bytes only — keys reordered, 1.0 for 1, escaped
// characters, a set reordered — are allowed; a real change beside such a
// difference is still reported, at its path only.
func TestDecodeObjectSpellings(t *testing.T) {
	c := widget(t)
	old := `{"spec":{"config":{"a":1,"b":"x/y","c":[1,2]},"tags":["a","b","c"],"groups":[{"name":"g","members":["a","b"]}],` +
		`"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1,2]},"template":{"kind":"Pod"}}}`
	allowed := map[string]string{
		"reordered keys":  `{"spec":{"config":{"c":[1,2],"b":"x/y","a":1},"tags":["a","b","c"],"groups":[{"members":["a","b"],"name":"g"}],"fixedPorts":[{"port":80,"name":"http"}],"selectors":{"s":"v"},"nested":{"set":[1,2],"inner":"é"},"template":{"kind":"Pod"}}}`,
		"1.0 for 1":       `{"spec":{"config":{"a":1.0,"b":"x/y","c":[1e0,20E-1]},"tags":["a","b","c"],"groups":[{"name":"g","members":["a","b"]}],"fixedPorts":[{"name":"http","port":80.00}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1.0,2]},"template":{"kind":"Pod"}}}`,
		"escapes":         `{"spec":{"config":{"a":1,"b":"x\/y","c":[1,2]},"tags":["a","b","c"],"groups":[{"name":"g","members":["a","b"]}],"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1,2]},"template":{"kind":"Pod"}}}`,
		"reordered sets":  `{"spec":{"config":{"a":1,"b":"x/y","c":[1,2]},"tags":["c","a","b"],"groups":[{"name":"g","members":["b","a"]}],"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[2,1]},"template":{"kind":"Pod"}}}`,
		"white space":     `{"spec":{"config": {"a":1, "b":"x/y", "c":[1, 2]},"tags":[ "a","b","c" ],"groups":[{"name":"g","members":["a","b"]}],"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1,2]},"template":{"kind":"Pod"}}}`,
		"duplicate key":   `{"spec":{"config":{"a":2,"b":"x/y","c":[1,2],"a":1},"tags":["a","b","c"],"groups":[{"name":"g","members":["a","b"]}],"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1,2]},"template":{"kind":"Pod"}}}`,
		"identical bytes": old,
	}
	for name, obj := range allowed {
		t.Run(name, func(t *testing.T) {
			sameVerdict(t, c, []byte(obj), []byte(old))
			allowedDecoded(t, c, []byte(obj), []byte(old))
		})
	}
	changed := map[string]struct{ obj, want string }{
		"reordered atomic list": {
			`{"spec":{"config":{"c":[2,1],"b":"x/y","a":1},"tags":["c","a","b"],"groups":[{"name":"g","members":["a","b"]}],"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1,2]},"template":{"kind":"Pod"}}}`,
			`spec.config: Invalid value: {"a":1,"b":"x/y","c":[2,1]}: field is immutable`,
		},
		"1.5 for 1 beside reordered keys": {
			`{"spec":{"config":{"a":1.5,"b":"x/y","c":[1,2]},"tags":["a","b","c"],"groups":[{"members":["a","b"],"name":"g"}],"fixedPorts":[{"port":80,"name":"http"}],"selectors":{"s":"v"},"nested":{"inner":"é","set":[1,2]},"template":{"kind":"Pod"}}}`,
			`spec.config: Invalid value: {"a":1.5,"b":"x/y","c":[1,2]}: field is immutable`,
		},
		"a string beside escapes": {
			`{"spec":{"config":{"a":1,"b":"x\/y","c":[1,2]},"tags":["a","b","c"],"groups":[{"name":"g","members":["a","b"]}],"fixedPorts":[{"name":"http","port":80}],"selectors":{"s":"v"},"nested":{"inner":"è","set":[1,2]},"template":{"kind":"Pod"}}}`,
			`spec.nested: Invalid value: {"inner":"è","set":[1,2]}: field is immutable`,
		},
	}
	for name, tc := range changed {
		t.Run(name, func(t *testing.T) {
			sameVerdict(t, c, []byte(tc.obj), []byte(old))
			po, _ := c.DecodeObject([]byte(tc.obj))
			pold, _ := c.DecodeObject([]byte(old))
			checkMessages(t, c.ValidateUpdate(po, pold), []string{tc.want})
		})
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

// TestDecodeObjectDeepDifference: values compared whole that differ at the
// bottom of 9,997 nested arrays or objects, or in a key there, or in the
// first of 50,000 members (distinct keys, or one key repeated): the
// comparison of the old bytes with the new value moves past each level
// once and checks keys pair by pair only in small objects (it is linear),
// and the verdicts are the full decode's.
func TestDecodeObjectDeepDifference(t *testing.T) {
	c := widget(t)
	const depth = 9997
	arrays := func(leaf string) []byte {
		return []byte(`{"spec":{"config":{"x":` + strings.Repeat(`[0,`, depth) + leaf + strings.Repeat(`,1]`, depth) + `}}}`)
	}
	objects := func(key string) []byte {
		return []byte(`{"spec":{"config":{"x":` + strings.Repeat(`{"b":0,"a":`, depth) + `{"` + key + `":1}` + strings.Repeat(`,"c":1}`, depth) + `}}}`)
	}
	wide := func(first string, dup bool) []byte {
		var b strings.Builder
		b.WriteString(`{"spec":{"config":{"k0":` + first)
		for i := 1; i < 50000; i++ {
			if dup {
				b.WriteString(`,"k0":` + first)
			} else {
				fmt.Fprintf(&b, `,"k%d":%d`, i, i)
			}
		}
		b.WriteString(`}}}`)
		return []byte(b.String())
	}
	for name, pair := range map[string][2][]byte{
		"wide objects":      {wide("1", false), wide("2", false)},
		"wide, equal":       {wide("1", false), wide("1.0", false)},
		"duplicate keys":    {wide("1", true), wide("2", true)},
		"duplicates, equal": {wide("1", true), wide("10E-1", true)},
		"arrays":            {arrays("1"), arrays("2")},
		"arrays, longer":    {arrays("1"), arrays("1,1")},
		"objects":           {objects("k"), objects("j")},
		"objects, equal":    {objects("k"), objects("\u006b")},
	} {
		t.Run(name, func(t *testing.T) {
			sameVerdict(t, c, pair[0], pair[1])
			sameVerdict(t, c, pair[1], pair[0])
		})
	}
}

// FuzzDecodeObject: arbitrary bytes as the new object against a fixed old
// one, and the fuzzer's bytes as objects of the widget schema.
func FuzzDecodeObject(f *testing.F) {
	f.Add([]byte(`{"spec":{"name":"a","labels":{"x":"1"},"ports":[{"name":"a","protocol":"TCP","port":1}]}}`))
	f.Add([]byte(`{"spec":{"n\u0061me":"b"},"metadata":{"a":[1.5e3,true,null,"\ud800"]}}`))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	// Beside base: labels and ports byte-identical, replicas changed
	// (shared, DecodeUpdate); the same values spelt otherwise (decoded
	// again); a deep nest and a long list under the shared and the changed
	// parts.
	f.Add([]byte(`{"spec":{"name":"a","replicas":2,"labels":{"x":"1"},"tags":["a"],"ports":[{"name":"a","protocol":"TCP","port":1}]}}`))
	f.Add([]byte(`{"spec":{"name":"a","replicas":1,"labels":{ "x":"1"},"tags":["a"],"ports":[{"name":"a","protocol":"TCP","port":1.0}]}}`))
	f.Add([]byte(`{"spec":{"name":"a","replicas":1,"labels":{"x":` + strings.Repeat(`[`, 9996) + strings.Repeat(`]`, 9996) + `},"tags":["a"],"ports":[{"name":"a","protocol":"TCP","port":1}]}}`))
	f.Add([]byte(`{"spec":{"name":"a","replicas":1,"labels":{"x":"1"},"tags":["a"],"ports":[` + strings.Repeat(`{"name":"a","protocol":"TCP","port":1},`, 5000) + `{"name":"b","protocol":"TCP","port":1}]}}`))
	s := fuzzSchema(f)
	c := widget(f)
	base := []byte(`{"spec":{"name":"a","replicas":1,"labels":{"x":"1"},"tags":["a"],"ports":[{"name":"a","protocol":"TCP","port":1}]}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		sameVerdict(t, c, data, base)
		sameVerdict(t, c, base, data)
		g := &gen{b: data}
		x, y := g.object(s), g.object(s)
		a, _ := json.Marshal(x)
		b, _ := json.Marshal(y)
		sameVerdict(t, c, a, b)
		// The same objects in other bytes (respelled, sets reordered).
		r := rand.New(rand.NewSource(int64(len(data))))
		ra := respelled(x, s, r)
		sameVerdict(t, c, ra, a)
		sameVerdict(t, c, respelled(y, s, r), ra)
		allowedDecoded(t, c, respelled(x, nil, r), a)
	})
}

// TestDecodeObjectListItems: items of lists the walk visits are read in
// walk mode — a list map's immutable items kept as bytes with their keys,
// an atomic list's immutable items as bytes, objects with an immutable
// field built for the walk — and correlate as in the full decode.
func TestDecodeObjectListItems(t *testing.T) {
	c := widget(t)
	old := `{"spec":{"ports":[{"name":"a","protocol":"TCP","port":1},{"name":"b","protocol":"UDP","port":2}],"args":["x",{"y":1}],"steps":[{"image":"i","retries":1}]}}`
	cases := map[string]struct {
		obj  string
		want []string
	}{
		"unchanged":             {old, nil},
		"items reordered":       {`{"spec":{"ports":[{"name":"b","protocol":"UDP","port":2},{"name":"a","protocol":"TCP","port":1}],"args":["x",{"y":1}],"steps":[{"image":"i","retries":1}]}}`, nil},
		"items respelled":       {`{"spec":{"ports":[{"port":1.0,"protocol":"TCP","name":"\u0061"},{"name":"b","protocol":"UDP","port":2}],"args":["x",{"y":10e-1}],"steps":[{"retries":2,"image":"i"}]}}`, nil},
		"item added":            {`{"spec":{"ports":[{"name":"a","protocol":"TCP","port":1},{"name":"c","protocol":"TCP","port":3},{"name":"b","protocol":"UDP","port":2}],"args":["x",{"y":1},"z"],"steps":[{"image":"i","retries":1}]}}`, nil},
		"item changed":          {`{"spec":{"ports":[{"name":"b","protocol":"UDP","port":3},{"name":"a","protocol":"TCP","port":1}],"args":["x",{"y":1}],"steps":[{"image":"i","retries":1}]}}`, []string{`spec.ports[0]: Invalid value: {"name":"b","port":3,"protocol":"UDP"}: field is immutable`}},
		"atomic items":          {`{"spec":{"ports":[{"name":"a","protocol":"TCP","port":1},{"name":"b","protocol":"UDP","port":2}],"args":["y",{"y":2}],"steps":[{"image":"j","retries":1}]}}`, []string{`spec.args[0]: Invalid value: "y": field is immutable`, `spec.args[1]: Invalid value: {"y":2}: field is immutable`, `spec.steps[0].image: Invalid value: "j": field is immutable`}},
		"key not a scalar":      {`{"spec":{"ports":[{"name":{"n":"a"},"protocol":"TCP","port":9},{"name":"b","protocol":"UDP","port":2}]}}`, nil},
		"duplicate key":         {`{"spec":{"ports":[{"name":"z","name":"a","protocol":"TCP","port":1},{"name":"b","protocol":"UDP","port":2}]}}`, nil},
		"an item not an object": {`{"spec":{"ports":["a",{"name":"b","protocol":"UDP","port":2}]}}`, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sameVerdict(t, c, []byte(tc.obj), []byte(old))
			sameVerdict(t, c, []byte(old), []byte(tc.obj))
			po, err1 := c.DecodeObject([]byte(tc.obj))
			pold, err2 := c.DecodeOldObject([]byte(old), po)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			checkMessages(t, c.ValidateUpdate(po, pold), tc.want)
		})
	}
}

// TestDecodeUpdateShares: the webhook's DecodeUpdate gives the old object
// the new object's value (the same map or slice) wherever an object or
// list the walk enters has the same bytes at the same place, decodes it
// again wherever its bytes differ (a change, or the same value spelt
// otherwise), and gives the verdict of the full decode either way. An
// unchanged object's old decoding allocates nothing.
func TestDecodeUpdateShares(t *testing.T) {
	c := shapes(t)
	unchanged := shapesUpdates[0]
	_, _, base, _ := shapesPair(t, 8, unchanged)
	respelt := bytes.Replace(base, []byte(`"ports":[{`), []byte(`"ports": [ {`), 1)
	for _, tc := range []struct {
		name     string
		obj, old []byte
		shared   [][]string // paths whose values are the new object's
		decoded  [][]string // paths decoded again
		errors   int
	}{
		{
			name: "unchanged", obj: base, old: base,
			shared: [][]string{{}},
		},
		{
			name: "mutable field", obj: pairJSON(t, "mutable field"), old: base,
			shared:  [][]string{{"spec", "ports"}, {"spec", "workers"}, {"spec", "mounts"}, {"spec", "selectors"}, {"spec", "volumes"}},
			decoded: [][]string{{}, {"spec"}},
		},
		{
			name: "mutable field in a map value", obj: pairJSON(t, "mutable field in a map value"), old: base,
			shared:  [][]string{{"spec", "mounts", "m0"}, {"spec", "mounts", "m7"}, {"spec", "ports"}},
			decoded: [][]string{{}, {"spec"}, {"spec", "mounts"}, {"spec", "mounts", "m1"}},
		},
		{
			name: "mutable field in a list-map item", obj: pairJSON(t, "mutable field in a list-map item"), old: base,
			shared:  [][]string{{"spec", "workers", "0"}, {"spec", "workers", "2"}, {"spec", "mounts"}},
			decoded: [][]string{{"spec", "workers"}, {"spec", "workers", "1"}, {"spec", "volumes"}},
		},
		{
			name: "the same list spelt otherwise", obj: base, old: respelt,
			shared:  [][]string{{"spec", "workers"}, {"spec", "mounts"}},
			decoded: [][]string{{}, {"spec"}, {"spec", "ports"}},
		},
		{
			name: "violation beside shared values", obj: pairJSON(t, "immutable field in a list-map item"), old: base,
			shared:  [][]string{{"spec", "workers", "0"}, {"spec", "ports"}},
			decoded: [][]string{{"spec", "workers", "1"}},
			errors:  1,
		},
	} {
		for _, trusted := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/trusted=%v", tc.name, trusted), func(t *testing.T) {
				obj, old, err1, err2 := runtime.DecodeUpdate(c, tc.obj, tc.old, trusted)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				for _, p := range tc.shared {
					if !sameValue(at(obj, p), at(old, p)) {
						t.Errorf("%v: not shared", p)
					}
				}
				for _, p := range tc.decoded {
					if at(old, p) == nil || sameValue(at(obj, p), at(old, p)) {
						t.Errorf("%v: shared (or absent), want decoded again", p)
					}
				}
				fo, _ := fullDecode(tc.obj)
				fold, _ := fullDecode(tc.old)
				want := messages(c.ValidateUpdate(fo, fold))
				if len(want) != tc.errors {
					t.Fatalf("full decode: %d errors, want %d: %v", len(want), tc.errors, want)
				}
				if got := messages(unmarshaled(t, c.ValidateUpdateMarshaled(obj, old))); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("verdicts differ\nfull decode:\n  %s\nDecodeUpdate:\n  %s", strings.Join(want, "\n  "), strings.Join(got, "\n  "))
				}
			})
		}
	}
	t.Run("unchanged allocates the new object's decoding only", func(t *testing.T) {
		// At most: DecodeUpdate keeps the list maps of whole items as
		// their bytes, which DecodeTrusted reads item by item.
		newOnly := testing.AllocsPerRun(50, func() { _, _ = runtime.DecodeTrusted(c, base) })
		both := testing.AllocsPerRun(50, func() { _, _, _, _ = runtime.DecodeUpdate(c, base, base, true) })
		if both > newOnly {
			t.Fatalf("DecodeUpdate of an unchanged object: %v allocations, the new object's decoding alone %v", both, newOnly)
		}
	})
}

// pairJSON returns the new object's JSON of the shapes update named name,
// whose old object is the unchanged one.
func pairJSON(t *testing.T, name string) []byte {
	t.Helper()
	for _, u := range shapesUpdates {
		if u.name == name {
			_, _, obj, _ := shapesPair(t, 8, u)
			return obj
		}
	}
	t.Fatalf("no shapes update %q", name)
	return nil
}

// at returns the value at path p below v (map keys, list indices), or nil.
func at(v interface{}, p []string) interface{} {
	for _, k := range p {
		switch x := v.(type) {
		case map[string]interface{}:
			v = x[k]
		case []interface{}:
			i, err := strconv.Atoi(k)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// sameValue reports whether a and b are the same map or the same
// non-empty slice (not merely equal).
func sameValue(a, b interface{}) bool {
	switch x := a.(type) {
	case map[string]interface{}:
		y, ok := b.(map[string]interface{})
		return ok && x != nil && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []interface{}:
		y, ok := b.([]interface{})
		return ok && len(x) > 0 && len(y) > 0 && &x[0] == &y[0]
	}
	// A list map kept as its bytes in the new object (the engine's
	// lazyList, a pointer) is shared as the same pointer.
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.IsValid() && vb.IsValid() && va.Kind() == reflect.Pointer && va.Type() == vb.Type() && !va.IsNil() && va.UnsafePointer() == vb.UnsafePointer()
}
