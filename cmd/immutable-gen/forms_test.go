package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// The docs hold the form table between these lines, as `immutable-gen help
// markers -o markdown` prints it.
const (
	formTableBegin = "<!-- form table: `immutable-gen help markers -o markdown` writes it; TestDocsFormTable keeps it equal (go test ./cmd/immutable-gen -update rewrites it) -->\n"
	formTableEnd   = "<!-- end of the form table -->\n"
)

// TestDocsFormTable: the form tables of docs/semantics.md and
// docs/guide.md are the form table (runtime/form) as help markers prints
// it; -update rewrites them.
func TestDocsFormTable(t *testing.T) {
	want := formsMarkdown()
	for _, path := range []string{"../../docs/semantics.md", "../../docs/guide.md"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		doc := string(b)
		i := strings.Index(doc, formTableBegin)
		j := strings.Index(doc, formTableEnd)
		if i < 0 || j < i {
			t.Errorf("%s: no form table between %q and %q", path, formTableBegin, formTableEnd)
			continue
		}
		got := doc[i+len(formTableBegin) : j]
		if got == want {
			continue
		}
		if golden.Updating() {
			if err := os.WriteFile(path, []byte(doc[:i+len(formTableBegin)]+want+doc[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: the form table differs from help markers' (go test ./cmd/immutable-gen -update):\n%s", path, golden.Diff(want, got))
	}
}

// TestHelpMarkers: help markers prints every form, modifier and lowering
// in each format, and refuses an unknown one.
func TestHelpMarkers(t *testing.T) {
	for _, format := range []string{"text", "json", "markdown"} {
		var out, errb bytes.Buffer
		if code := run([]string{"help", "markers", "-o", format}, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errb.String())
		}
		for _, k := range form.Kinds() {
			for _, s := range append([]string{k.Name, k.Means}, k.Tags...) {
				if !strings.Contains(out.String(), s) {
					t.Errorf("%s: %q missing", format, s)
				}
			}
		}
		for _, l := range form.Lowerings() {
			if !strings.Contains(out.String(), l.Feature) {
				t.Errorf("%s: lowering %s's reason missing", format, l.Name)
			}
		}
		if format == "json" {
			var v struct {
				Forms     []map[string]any `json:"forms"`
				Modifiers []map[string]any `json:"modifiers"`
				Lowerings []map[string]any `json:"lowerings"`
			}
			if err := json.Unmarshal(out.Bytes(), &v); err != nil {
				t.Fatalf("json: %v", err)
			}
			if len(v.Forms) != len(form.Kinds()) || len(v.Modifiers) != len(form.Modifiers()) || len(v.Lowerings) != len(form.Lowerings()) {
				t.Errorf("json: %d forms, %d modifiers, %d lowerings", len(v.Forms), len(v.Modifiers), len(v.Lowerings))
			}
			if v.Forms[2]["name"] != "once" || v.Forms[2]["presence"] != "noUnset" || v.Forms[2]["change"] != "none" {
				t.Errorf("json: once is %v", v.Forms[2])
			}
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"help", "markers", "-o", "yaml"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "want text, json or markdown") {
		t.Errorf("unknown format: exit %d, %q", code, errb.String())
	}
}
