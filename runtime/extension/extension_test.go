package extension

import (
	"go/parser"
	"go/token"
	"testing"
)

// TestNoImports: generated code and the runtime share the package, so it
// imports nothing.
func TestNoImports(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "extension.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Imports) > 0 {
		t.Errorf("extension.go imports %d packages; it must import none", len(f.Imports))
	}
}
