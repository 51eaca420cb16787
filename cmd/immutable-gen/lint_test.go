package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
)

// TestLintGolden runs `immutable-gen lint` on the fixtures under
// testdata/lint and compares exit status, standard output and standard
// error with testdata/golden/lint/CASE.txt (-update rewrites them).
func TestLintGolden(t *testing.T) {
	root := moduleRoot(t)
	td := func(p string) string { return filepath.Join(root, "testdata/lint", p) }
	cases := []struct {
		name string
		args []string
		exit int
	}{
		{"defects", []string{td("defects")}, 1},
		{"wellknown", []string{td("wellknown")}, 1}, // EC2NodeClass: IG013, a true hole (optional spec)
		{"misc-verbose", []string{"-v", td("misc")}, 1},
		{"unusable", []string{td("unusable"), td("defects/IG010-optional.yaml"), td("unusable/missing.yaml")}, 2},
		{"generated", []string{filepath.Join(root, "testdata/golden/crd"), filepath.Join(root, "examples/config/crd")}, 1},
		{"fail-on-error", []string{"--fail-on=error", td("defects/IG010-optional.yaml")}, 0},
		{"fail-on-info", []string{td("defects/IG011-once-set.yaml"), "--fail-on", "info"}, 1},
		{"info-only", []string{td("defects/IG011-once-set.yaml")}, 0},
		{"described-only", []string{td("defects/IG014-described.yaml")}, 0},
		{"kustomize", []string{td("kustomize")}, 0},
		{"kustomize-verbose", []string{"-v", td("kustomize")}, 0},
		{"bad-format", []string{"--format=xml", td("defects")}, 2},
		{"bad-fail-on", []string{"--fail-on=never", td("defects")}, 2},
		{"no-files", nil, 2},
		{"help", []string{"-h"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"lint"}, tc.args...), &stdout, &stderr)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.exit, stdout.String(), stderr.String())
			}
			got := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", code, normalize(t, stdout.Bytes()), normalize(t, stderr.Bytes()))
			golden.Check(t, filepath.Join(moduleRoot(t), filepath.Join("testdata/golden/lint", tc.name+".txt")), []byte(got))
		})
	}
}

// TestLintJSON checks the JSON output: an array of findings with exactly
// the documented keys, the same findings as the text output, and a golden
// file.
func TestLintJSON(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "testdata/lint/defects")
	var text, js, stderr bytes.Buffer
	if code := run([]string{"lint", dir}, &text, &stderr); code != 1 {
		t.Fatalf("text: exit %d: %s", code, stderr.String())
	}
	// -o after the directory: flags may follow the files.
	if code := run([]string{"lint", dir, "-o", "json"}, &js, &stderr); code != 1 {
		t.Fatalf("json: exit %d: %s", code, stderr.String())
	}
	var findings []map[string]any
	if err := json.Unmarshal(js.Bytes(), &findings); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if len(findings) != len(lines) {
		t.Fatalf("%d JSON findings, %d text lines", len(findings), len(lines))
	}
	keys := []string{"file", "crd", "version", "path", "id", "severity", "message", "fix"}
	for i, f := range findings {
		if len(f) != len(keys) {
			t.Errorf("finding %d has keys %v, want %v", i, f, keys)
		}
		for _, k := range keys {
			if _, ok := f[k].(string); !ok {
				t.Errorf("finding %d: %s is not a string: %v", i, k, f[k])
			}
		}
		prefix := fmt.Sprintf("%s: %s/%s %s: %s[%s]: ", f["file"], f["crd"], f["version"], f["path"], f["severity"], f["id"])
		if !strings.HasPrefix(lines[i], prefix) {
			t.Errorf("line %d %q does not start with %q", i, lines[i], prefix)
		}
	}
	golden.Check(t, filepath.Join(moduleRoot(t), "testdata/golden/lint/defects.json"), normalize(t, js.Bytes()))
}
