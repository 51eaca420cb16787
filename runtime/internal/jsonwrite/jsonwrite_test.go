package jsonwrite

import (
	"encoding/json"
	"testing"
)

// FuzzString: String writes what json.Marshal writes for a string, from a
// string and from its bytes.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "<&>", "\x00\x1f\t\n", "\u2028\u2029", "é€😀", "\xff\xfe", "a\xc3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := String(nil, s); string(got) != string(want) {
			t.Fatalf("%q: string: got %s, want %s", s, got, want)
		}
		if got := String([]byte("x"), []byte(s)); string(got) != "x"+string(want) {
			t.Fatalf("%q: bytes: got %s, want x%s", s, got, want)
		}
	})
}
