package engine

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScanUnchanged: what scanUnchanged answers for, and what it leaves
// to the decoding (false), one case per rule; the limit is 4 levels, and
// the cases that test the nesting are longer than 8 bytes (2*limit) so
// that it is scanned.
func TestScanUnchanged(t *testing.T) {
	const limit = 4
	deep := func(levels int) string { // an object nesting levels levels
		return `{"a":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`
	}
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"an object", `{"a":"b","c":[1,-2.5,true,false,null]}`, true},
		{"white space before and after", " \n\t{\"a\" : 1 }\r\n", true},
		{"null", `null`, false},
		{"an array", `[1]`, false},
		{"an exponent", `{"a":1e5}`, false},
		{"a capital exponent in a list", `{"a":[2,1E-5]}`, false},
		{"an exponent across words", `{"abcd":1234567e5}`, false},
		{"an exponent in the last bytes", `{"a":7e1}`, false},
		{"a digit and an e in a uid", `{"uid":"6b0f3e5e-8d7e-4f3c-9a55-0c6f1f0b2a11"}`, true},
		{"a digit and an e after a quote", `{"a":"1e5"}`, true},
		{"a digit and an e after a space in a string", `{"a":"x 1e5"}`, false},
		{"a digit and an e after a colon in a string", `{"a":"x:1e5"}`, false},
		{"a digit and an e after a long run", `{"a":"x` + strings.Repeat("1", 40) + `e"}`, false},
		{"true and false", `{"t":true,"f":false}`, true},
		{"a number of 31 words of digits", `{"a":` + strings.Repeat("9", 255) + `}`, true},
		{"a number of more than 32 words of digits", `{"a":` + strings.Repeat("9", 400) + `}`, false},
		{"more than 32 words of digits in a string", `{"a":"` + strings.Repeat("9", 400) + `"}`, false},
		{"nesting at the limit", deep(limit), true},
		{"nesting beyond the limit", deep(limit + 1), false},
		{"brackets in strings", `{"a":"[[[[[[","b":"{{{{{{{"}`, true},
		{"an escaped quote before brackets in a string", `{"a":"\"[[[[[[[[[[[[[[","b":1}`, true},
		{"an escaped backslash before brackets outside", `{"a":"\\","b":[[[[[]]]]]}`, false},
		{"escaped backslashes before a quote", `{"a":"\\\\\\","b":[[[]]]}`, true},
		{"an escaped quote at a word's end", `{"abcd":"\"[[[[[[[[[[[[[[[","b":1}`, true},
		{"a unicode escape", `{"a":"\u005b[[[[[[[[[[[","b":1}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			if !json.Valid(data) {
				t.Fatalf("not JSON: %s", data)
			}
			if got := scanUnchanged(data, limit); got != tc.want {
				t.Errorf("scanUnchanged(%s) = %v, want %v", data, got, tc.want)
			}
		})
	}
}

// nesting returns how deep the arrays and objects of data, valid JSON,
// nest, as encoding/json's tokens tell.
func nesting(t *testing.T, data []byte) int {
	dec := json.NewDecoder(bytes.NewReader(data))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// TestScanUnchangedRandom: on random JSON objects with white space,
// escapes, brackets and digits in strings, and numbers of every kind,
// scanUnchanged answers true only where the full decoder decodes the
// object and its nesting is within the limit (small, so that it is
// scanned), and answers true often enough to say something.
func TestScanUnchangedRandom(t *testing.T) {
	r := rand.New(rand.NewSource(34))
	allowed := 0
	for i := 0; i < 30000; i++ {
		b := spacedJSON(r, []byte(`{"k":`), 0)
		b = append(b, '}')
		limit := 1 + r.Intn(6)
		if !scanUnchanged(b, limit) {
			continue
		}
		allowed++
		var m map[string]interface{}
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("scanUnchanged allowed %q, the decoder refuses it: %v", b, err)
		}
		d := decoder{data: b}
		if _, err := d.value(nil, skipMode, 1, nil); err != nil {
			t.Fatalf("scanUnchanged allowed %q, DecodeObject refuses it: %v", b, err)
		}
		if n := nesting(t, b); n > limit {
			t.Fatalf("scanUnchanged allowed %q, nested %d levels, limit %d", b, n, limit)
		}
	}
	if allowed < 3000 {
		t.Errorf("scanUnchanged allowed %d of 30000 objects: the test says little", allowed)
	}
}

// FuzzScanUnchanged: on any bytes, scanUnchanged returns; on JSON, it
// answers true only where the decoder decodes an object within the limit.
func FuzzScanUnchanged(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"}\"]"}],"c":-1.5e3}`), 3)
	f.Add([]byte(`{"a":"\\\\","b":[[[[]]]]}`), 2)
	f.Add([]byte(`{"uid":"6b0f3e5e-8d7e"}`), 1)
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		limit = 1 + limit&15
		if !scanUnchanged(data, limit) || !json.Valid(data) {
			return
		}
		d := decoder{data: data}
		if _, err := d.value(nil, skipMode, 1, nil); err != nil {
			t.Fatalf("scanUnchanged allowed %q, DecodeObject refuses it: %v", data, err)
		}
		if n := nesting(t, data); n > limit {
			t.Fatalf("scanUnchanged allowed %q, nested %d levels, limit %d", data, n, limit)
		}
	})
}

// BenchmarkScanUnchanged: scanUnchanged beside skipTrusted, the trusted
// mode's skip, over a PodSet object.
func BenchmarkScanUnchanged(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "podset", "old.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scanUnchanged", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			if !scanUnchanged(raw, maxUnchangedNesting) {
				b.Fatal("false")
			}
		}
	})
	b.Run("skipTrusted", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for i := 0; i < b.N; i++ {
			d := decoder{data: raw, valid: true}
			if err := d.skipTrusted(1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
