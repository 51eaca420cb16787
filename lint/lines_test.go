package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/immutable-gen/immutable-gen/runtime/manifest"
)

// TestLines: findings carry the line of their schema node in the YAML,
// in every document of a file and every version of a CRD, and the
// document's line when the node has none.
func TestLines(t *testing.T) {
	res, err := Files([]string{filepath.Join(root, "testdata/lint/misc"), filepath.Join(root, "testdata/lint/holes/or-rule-two-versions.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) == 0 {
		t.Fatal("no findings")
	}
	for _, f := range res.Findings {
		data, err := os.ReadFile(f.Pos.Filename)
		if err != nil {
			t.Fatal(err)
		}
		lines := splitLines(data)
		if f.Pos.Line < 1 || f.Pos.Line > len(lines) {
			t.Errorf("%s: line %d out of range", f, f.Pos.Line)
			continue
		}
		if filepath.Ext(f.Pos.Filename) == ".json" {
			continue // the document's line
		}
		// The line holds the last name of the path (or the schema).
		want := lastName(f.Path) + ":"
		if !containsStr(lines[f.Pos.Line-1], want) {
			t.Errorf("%s:%d is %q, want the key %q", f.Pos.Filename, f.Pos.Line, lines[f.Pos.Line-1], want)
		}
	}
}

func splitLines(b []byte) []string {
	var out []string
	start := 0
	for i, c := range b {
		if c == '\n' {
			out = append(out, string(b[start:i]))
			start = i + 1
		}
	}
	return append(out, string(b[start:]))
}

func lastName(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '.' {
			return path[i+1:]
		}
	}
	return path
}

func containsStr(s, sub string) bool {
	return len(sub) <= len(s) && (s == sub || indexStr(s, sub) >= 0)
}

func indexStr(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// FuzzParsing: the new parsing — documents and their lines, the location
// of a schema path, Helm detection, descriptions — never panics on any
// bytes, and lines stay within the file.
func FuzzParsing(f *testing.F) {
	for _, p := range []string{"testdata/lint/misc/mixed.yaml", "testdata/lint/holes/or-rule-two-versions.yaml", "testdata/lint/misc/sprocket.json", "testdata/lint/helm/chart/templates/labels.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("---\n---\n- a\n-\n  - b: c\n"))
	f.Add([]byte("{\"a\": 1}\n{\"b\": [\n]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := len(splitLines(data))
		for doc := range manifest.Documents(data) {
			line, src := doc.Line, doc.YAML
			if line < 1 || line > max(n, 1) {
				t.Errorf("document line %d of %d", line, n)
			}
			if src == nil {
				continue
			}
			lines := yamlLines(src, line)
			for _, path := range []string{"spec.a[*].b", "<root>", "spec", "a[*][*]"} {
				if l := schemaLine(lines, "x", "v1", path); l != 0 && (l < line || l > n) {
					t.Errorf("%s: line %d outside %d..%d", path, l, line, n)
				}
			}
		}
		helmTemplate("f.yaml", data)
		promise("example.com", "name", string(data))
	})
}
