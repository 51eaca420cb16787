package crdgen

import "testing"

// TestCommentAt: a CEL comment in a condition, outside its string
// literals, is found at its column.
func TestCommentAt(t *testing.T) {
	for expr, want := range map[string]int{
		`oldSelf.spec.a // locked`:              16,
		`oldSelf.spec.url == 'http://x'`:        0,
		`oldSelf.spec.url == "a\"//b"`:          0,
		`oldSelf.spec.a == 'x' // "quoted" too`: 23,
		`!oldSelf.spec.a`:                       0,
	} {
		if got := commentAt(expr); got != want {
			t.Errorf("commentAt(%q) = %d, want %d", expr, got, want)
		}
	}
}
