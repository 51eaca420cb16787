package engine

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"testing"
	"unicode/utf8"
)

// marshalsLikeJSON checks marshalRaw on raw against json.Marshal of raw
// decoded in full, and that raw is its own text where canonical says so, and returns the decoded value and marshalRaw's text
// and exactness (ok false: the input is not an array or object the
// decoder accepts, or marshalRaw declined it).
func marshalsLikeJSON(t *testing.T, raw []byte) (v interface{}, text []byte, ok, exact bool) {
	t.Helper()
	if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
		return nil, nil, false, false
	}
	d := decoder{data: raw}
	v, err := d.value(nil, fullMode, 1, nil)
	if err != nil {
		return nil, nil, false, false
	}
	if d.skipSpace(); d.pos != len(raw) {
		return nil, nil, false, false
	}
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("json.Marshal(%#v): %v", v, err)
	}
	text, ok, exact = marshalRaw([]byte("prefix"), &rawValue{data: raw, depth: 1})
	if canonical(&rawValue{data: raw, depth: 1}) && (!ok || !exact || !bytes.Equal(text[len("prefix"):], raw)) {
		t.Fatalf("canonical(%q), but marshalRaw wrote %q (ok %v, exact %v)", raw, text, ok, exact)
	}
	if !ok {
		if !bytes.Equal(text, []byte("prefix")) {
			t.Fatalf("marshalRaw declined %q but wrote %q", raw, text)
		}
		return v, nil, false, false
	}
	if !bytes.HasPrefix(text, []byte("prefix")) || !bytes.Equal(text[len("prefix"):], want) {
		t.Fatalf("marshalRaw(%q)\n = %s\njson.Marshal of its decoding:\n   prefix%s", raw, text, want)
	}
	return v, text[len("prefix"):], true, exact
}

// sameTextVerdict checks that two exact texts are equal exactly when the
// values are (eqPlain).
func sameTextVerdict(t *testing.T, a, b []byte) {
	t.Helper()
	va, ta, oka, exa := marshalsLikeJSON(t, a)
	vb, tb, okb, exb := marshalsLikeJSON(t, b)
	if !oka || !okb || !exa || !exb {
		return
	}
	if got, want := bytes.Equal(ta, tb), eqPlain(va, vb, 1); got != want {
		t.Fatalf("texts equal %v, eqPlain %v:\n%q → %s\n%q → %s", got, want, a, ta, b, tb)
	}
}

// marshalCases are JSON texts at the edges of json.Marshal's output: keys
// out of order, duplicate (also through escapes and invalid UTF-8), HTML
// characters, U+2028 and U+2029, escapes, numbers at the edges of int64,
// float64's formats and negative zero.
var marshalCases = []string{
	`{}`, `[]`, `[{}]`, `{"a":[]}`, `[ 1 , 2 ]`, "{\n\"b\" : 1,\t\"a\":2}",
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"b":2,"a":3}`, `{"\u0061":1,"a":2}`, `{"a":1,"\u0061":2}`,
	`{"b":{"d":1,"c":2},"a":[{"f":1,"e":2}]}`, `{"a":{"c":1,"c":2},"b":{"y":1,"x":2,"y":3}}`,
	"{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1,\"\\ufffd\":2}", `{"":1,"a":2,"":3}`, `{"é":1,"e":2,"z":3}`,
	`{"<":1,"&":2,">":3}`, `{"a<":1}`, `["<a href='x'>&amp;</a>"]`, `["\u2028\u2029", "` + "\u2028" + `"]`,
	`["\"\\\/\b\f\n\r\t\u0000\u001f\u007f"]`, "[\"\xff\xfe\", \"a\xc3\", \"\xed\xa0\x80\"]", `["\ud800", "\ud83d\ude00", "\udc00\ud800"]`,
	`["é😀", "plain", ""]`,
	`[0, -0, 1, -1, 9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809]`,
	`[123456789012345678, 1234567890123456789, 12345678901234567890]`,
	`[0.0, -0.0, -0e5, 0e-5, 1.0, 1e0, 10E-1, 1E+2, 0.5, -1.25, 1e20, 1e21, 1e-6, 1e-7, 123456789e-15, 5e-324, 1.7976931348623157e308]`,
	`[9007199254740992.0, 9007199254740993.0, 1152921504606846976.0, 1e300, 2.5e-9, 100000000000000000000000]`,
	`[true, false, null, {"a":null}]`,
}

// TestMarshalRaw: the cases above and random JSON (duplicate and escaped
// keys, invalid UTF-8, numbers in several spellings), written as
// json.Marshal writes their decoding; two exact texts are equal exactly
// when the values are.
func TestMarshalRaw(t *testing.T) {
	for _, c := range marshalCases {
		if _, _, ok, _ := marshalsLikeJSON(t, []byte(c)); !ok {
			t.Errorf("marshalRaw declined %q", c)
		}
	}
	for _, a := range marshalCases {
		for _, b := range marshalCases {
			sameTextVerdict(t, []byte(a), []byte(b))
		}
	}
	r := rand.New(rand.NewSource(1))
	declined := 0
	for i := 0; i < 20000; i++ {
		a := randomJSON(r, nil, 0)
		b := randomJSON(r, nil, 0)
		if _, _, ok, _ := marshalsLikeJSON(t, a); !ok && (a[0] == '{' || a[0] == '[') {
			declined++
		}
		sameTextVerdict(t, a, b)
	}
	if declined > 0 {
		t.Errorf("marshalRaw declined %d random values", declined)
	}
	// Inexact: the texts do not tell these apart, or tell equal numbers
	// apart.
	for _, pair := range [][2]string{{`[-0.0]`, `[0]`}, {`[1152921504606846976.0]`, `[1152921504606847000]`}, {`[9007199254740993.0]`, `[9007199254740992]`}} {
		_, _, ok, exact := marshalsLikeJSON(t, []byte(pair[0]))
		if !ok || exact {
			t.Errorf("%s: ok %v, exact %v; want inexact", pair[0], ok, exact)
		}
	}
	// Nested as deep as marshalRaw writes, every object's keys out of
	// order.
	var nested []byte
	for i := 0; i < maxMarshalDepth-2; i++ {
		nested = append(nested, `{"b":[1,"<"],"a":`...)
	}
	nested = append(nested, `{"y":{},"x":null}`...)
	nested = append(nested, bytes.Repeat([]byte(`,"a":2}`), maxMarshalDepth-2)...)
	if _, _, ok, _ := marshalsLikeJSON(t, nested); !ok {
		t.Errorf("marshalRaw declined %d nested objects", maxMarshalDepth)
	}
	// Deep values are left to the decoding path.
	deep := bytes.Repeat([]byte("["), maxMarshalDepth+1)
	deep = append(deep, bytes.Repeat([]byte("]"), maxMarshalDepth+1)...)
	if _, ok, _ := marshalRaw(nil, &rawValue{data: deep, depth: 1}); ok {
		t.Errorf("marshalRaw wrote %d nested arrays", maxMarshalDepth+1)
	}
}

// FuzzMarshalRaw: any two byte strings that decode to arrays or objects
// are written as json.Marshal writes their decodings, and when both texts
// are exact they are equal exactly when the values are. Interesting
// inputs are kept in testdata/fuzz/FuzzMarshalRaw.
func FuzzMarshalRaw(f *testing.F) {
	for i, c := range marshalCases {
		f.Add([]byte(c), []byte(marshalCases[(i+1)%len(marshalCases)]))
	}
	f.Add([]byte(`{"a":[1,{"b":"<"}],"a":2}`), []byte(`{"a":2.0}`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sameTextVerdict(t, a, b)
		sameTextVerdict(t, a, a)
	})
}

// TestCanonical: the bytes canonical accepts are the text marshalRaw
// writes for them (checked by marshalsLikeJSON on every case here, on
// TestMarshalRaw's and FuzzMarshalRaw's inputs), and it accepts what the
// API server writes: json.Marshal's output of decoded JSON.
func TestCanonical(t *testing.T) {
	cases := []struct {
		json string
		want bool
	}{
		{`{}`, true},
		{`[]`, true},
		{`{"a":1,"b":[true,false,null,"x"],"c":{"d":-12}}`, true},
		{`["é😀","<"]`, false}, // an escape
		{`["é😀"]`, true},
		{`[123456789012345678,-123456789012345678]`, true},
		{`[1234567890123456789]`, false}, // 19 digits
		{`[-0]`, false},
		{`[1.5]`, false},
		{`[1e2]`, false},
		{`{"b":1,"a":2}`, false},
		{`{"a":1,"a":2}`, false},
		{`{"a":1,"b":2,"a":3}`, false},
		{`{"a<":1}`, false},
		{`["<"]`, false},
		{"[\"\u2028\"]", false},
		{"[\"\xff\"]", false},
		{`{ "a":1}`, false},
		{`[1 ]`, false},
		{`[1,]`, false},
		{`{"a":1`, false},
		{`{"a"1}`, false},
		{`[tru]`, false},
		{`[01]`, false},
	}
	for _, tc := range cases {
		if got := canonical(&rawValue{data: []byte(tc.json), depth: 1}); got != tc.want {
			t.Errorf("canonical(%s) = %v, want %v", tc.json, got, tc.want)
		}
		marshalsLikeJSON(t, []byte(tc.json))
	}
	// Nested to marshalRaw's limit and beyond.
	for _, n := range []int{maxMarshalDepth, maxMarshalDepth + 1} {
		deep := append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
		if got := canonical(&rawValue{data: deep, depth: 1}); got != (n <= maxMarshalDepth) {
			t.Errorf("canonical of %d nested arrays = %v", n, got)
		}
	}
	// What json.Marshal writes of random decoded JSON is canonical, unless
	// it holds what canonical leaves to marshalRaw (escapes, floats,
	// large integers).
	r := rand.New(rand.NewSource(2))
	accepted := 0
	for i := 0; i < 5000; i++ {
		_, text, ok, exact := marshalsLikeJSON(t, randomJSON(r, nil, 0))
		if !ok || !exact {
			continue
		}
		plainText := !bytes.ContainsAny(text, "\\.eE") && !bytes.Contains(text, []byte("-0"))
		if canonical(&rawValue{data: text, depth: 1}) {
			accepted++
		} else if plainText && utf8.Valid(text) {
			t.Errorf("json.Marshal wrote %s, which canonical refuses", text)
		}
	}
	if accepted == 0 {
		t.Error("canonical accepted none of json.Marshal's texts")
	}
}

// TestHTMLSafe: htmlSafe finds '<', '>' and '&' at every position of
// strings of up to 20 bytes, beside bytes one above and below them.
func TestHTMLSafe(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for i := 0; i < n; i++ {
			for _, c := range []byte("<>&;=%'\x00\xff") {
				s := bytes.Repeat([]byte("a"), n)
				s[i] = c
				want := c != '<' && c != '>' && c != '&'
				if got := htmlSafe(s); got != want {
					t.Errorf("htmlSafe(%q) = %v", s, got)
				}
			}
		}
	}
}
