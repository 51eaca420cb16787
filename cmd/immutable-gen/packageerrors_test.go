package main

import (
	"go/token"
	"testing"
)

// TestParsePosition: the positions go/packages gives its errors.
func TestParsePosition(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want token.Position
	}{
		{"file, line and column", "/a/b/types.go:12:2", token.Position{Filename: "/a/b/types.go", Line: 12, Column: 2}},
		{"file and line", "/a/b/types.go:1", token.Position{Filename: "/a/b/types.go", Line: 1}},
		{"none", "", token.Position{}},
		{"a package, no line (controller-tools' errors without a node)", "example.com/api/v1:-", token.Position{}},
		{"a file without a line", "/a/b/types.go", token.Position{}},
		{"a colon in the path", "C:/a/types.go:3:4", token.Position{Filename: "C:/a/types.go", Line: 3, Column: 4}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := parsePosition(tc.in); got != tc.want {
				t.Errorf("parsePosition(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}
