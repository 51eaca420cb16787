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

// spacedJSON writes a random JSON value with white space, strings of any
// length with escapes, brackets and digits in them, and numbers: what
// trusted mode's eight-byte reads meet at any offset.
func spacedJSON(r *rand.Rand, b []byte, depth int) []byte {
	space := func() {
		for i := r.Intn(3); i > 0 && r.Intn(2) == 0; i-- {
			b = append(b, " \t\n\r"[r.Intn(4)])
		}
	}
	space()
	k := r.Intn(10)
	if depth > 5 {
		k = r.Intn(6)
	}
	switch k {
	case 0:
		b = append(b, []string{"null", "true", "false"}[r.Intn(3)]...)
	case 1, 2:
		b = append(b, '"')
		for i := r.Intn(24); i > 0; i-- {
			b = append(b, []string{"a", "b", "{", "}", "[", "]", "1", "-", ",", ":", `\"`, `\\`, `\n`, `\u00e9`, `\/`, "é", " "}[r.Intn(17)]...)
		}
		b = append(b, '"')
	case 3, 4, 5:
		b = append(b, []string{"1", "-0", "0.5", "12345678901", "5e-1", "1E+2", "-3.25e10", "1e400", "-1E400", "-1e-400"}[r.Intn(10)]...)
	case 6, 7:
		b = append(b, '{')
		for i := r.Intn(5); i > 0; i-- {
			space()
			b = append(b, `"k`+strings.Repeat("x", r.Intn(12))+`"`...)
			space()
			b = append(b, ':')
			b = spacedJSON(r, b, depth+1)
			if i > 1 {
				b = append(b, ',')
			}
		}
		space()
		b = append(b, '}')
	default:
		b = append(b, '[')
		for i := r.Intn(5); i > 0; i-- {
			b = spacedJSON(r, b, depth+1)
			if i > 1 {
				b = append(b, ',')
			}
		}
		space()
		b = append(b, ']')
	}
	space()
	return b
}

// sameSkip checks that trusted mode moves past the value at the start of
// data as the other mode does, and fails where it fails, when data starts
// with a valid value followed as in JSON; on any data, that it moves
// forward within it.
func sameSkip(t *testing.T, data []byte, depth int) {
	t.Helper()
	v := decoder{data: data}
	_, verr := v.value(nil, skipMode, depth, nil)
	tr := decoder{data: data, valid: true}
	_, terr := tr.value(nil, skipMode, depth, nil)
	if tr.pos < 0 || tr.pos > len(data) || (terr == nil && tr.pos == 0) {
		t.Fatalf("trusted mode at %d of %d, error %v, on %q", tr.pos, len(data), terr, data)
	}
	// In JSON a value is followed by white space, a comma, a closing
	// bracket or nothing (a number or literal ends there).
	followed := verr == nil && (v.pos == len(data) || strings.IndexByte(" \t\r\n,]}", data[v.pos]) >= 0)
	if followed && (terr != nil || tr.pos != v.pos) {
		t.Fatalf("trusted mode: %v at %d; checked: at %d, on %q", terr, tr.pos, v.pos, data)
	}
	if json.Valid(data) && (verr == errNestedTooDeep || (verr != nil && strings.HasPrefix(verr.Error(), "json: cannot unmarshal number"))) {
		// JSON the full decoder refuses.
		if terr == nil || terr.Error() != verr.Error() {
			t.Fatalf("trusted mode: %v; checked: %v, on %.200q", terr, verr, data)
		}
	}
}

// TestSkipTrusted: on valid JSON values, trusted mode ends them where the
// checking mode does, at any offset of its eight-byte reads, and fails
// where it fails (too deep, numbers beyond float64).
func TestSkipTrusted(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 30000; i++ {
		b := spacedJSON(r, []byte(strings.Repeat(" ", r.Intn(8))), 0)
		b = bytes.TrimLeft(b, " \t\n\r")
		sameSkip(t, append(b, []string{"", ",", "]", "}", ` "x"`}[r.Intn(5)]...), 1)
		sameSkip(t, b, maxNesting-r.Intn(8))
	}
	for _, name := range []string{"old", "allowed", "denied"} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "podset", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		sameSkip(t, raw, 1)
	}
	for _, s := range []string{
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"abcdefgh":[`, 5000) + strings.Repeat("]}", 5000),
		strings.Repeat(`{"abcdefgh":[`, 5001) + strings.Repeat("]}", 5001),
		`[` + strings.Repeat("9", 400) + `]`,
		`[` + strings.Repeat("9", 300) + `, 1]`,
		`["` + strings.Repeat(`\\`, 9) + `\"]", 1e400]`,
	} {
		sameSkip(t, []byte(s), 1)
	}
}

// FuzzSkipTrusted: on any bytes, trusted mode moves forward within them;
// where they start with a valid value, as the checking mode does.
func FuzzSkipTrusted(f *testing.F) {
	f.Add([]byte(`{"a":[1,2,{"b":"}\"]"}],"c":-1.5e3}`))
	f.Add([]byte(`["abcdefghijklmnop\\", 1]`))
	f.Add([]byte(`["\`))
	f.Add([]byte(`"abcdefgh\`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameSkip(t, data, 1)
		sameSkip(t, data, maxNesting-3)
	})
}
