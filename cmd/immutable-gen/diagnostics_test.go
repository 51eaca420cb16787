package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/lint"
)

// docs/diagnostics.md holds the diagnostics table between these lines, as
// `immutable-gen help diagnostics -o markdown` prints it.
const (
	diagnosticsTableBegin = "<!-- diagnostics table: `immutable-gen help diagnostics -o markdown` writes it; TestDocsDiagnostics keeps it equal (go test ./cmd/immutable-gen -update rewrites it) -->\n"
	diagnosticsTableEnd   = "<!-- end of the diagnostics table -->\n"
)

// TestDocsDiagnostics: the table of docs/diagnostics.md is what `help
// diagnostics -o markdown` prints; -update rewrites it.
func TestDocsDiagnostics(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"help", "diagnostics", "-o", "markdown"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, &errb)
	}
	path := filepath.Join(moduleRoot(t), "docs", "diagnostics.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i, j := strings.Index(doc, diagnosticsTableBegin), strings.Index(doc, diagnosticsTableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no table between %q and %q", path, diagnosticsTableBegin, diagnosticsTableEnd)
	}
	got, want := doc[i+len(diagnosticsTableBegin):j], out.String()
	if got == want {
		return
	}
	if golden.Updating() {
		if err := os.WriteFile(path, []byte(doc[:i+len(diagnosticsTableBegin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/diagnostics.md's table differs from help diagnostics' (go test ./cmd/immutable-gen -update):\n%s", golden.Diff(want, got))
}

// TestHelpDiagnostics: `immutable-gen help diagnostics` lists every
// finding the tool can print, once, in ID order; with an ID it explains
// that one; bad arguments are refused.
func TestHelpDiagnostics(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help", "diagnostics"}, &stdout, &stderr); code != 0 || stderr.Len() > 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	golden.Check(t, filepath.Join(moduleRoot(t), "testdata", "golden", "help", "diagnostics.txt"), stdout.Bytes())
	seen := map[string]bool{}
	for _, f := range findings() {
		if seen[string(f.ID)] {
			t.Errorf("%s listed twice", f.ID)
		}
		seen[string(f.ID)] = true
		if !regexp.MustCompile(`^IG\d{3}$`).MatchString(string(f.ID)) {
			t.Errorf("ID %q is not IG and three digits", f.ID)
		}
	}

	cases := []struct {
		name   string
		args   []string
		code   int
		stdout []string // substrings
		stderr string   // substring
	}{
		{"one ID", []string{"IG040"}, 0, []string{"IG040  warning", "finds        a near-miss spelling of +immutable", "reported by  the generators (marker parsing)", "printed as   FILE:LINE:COL: warning[IG040]: MESSAGE; fix: FIX"}, ""},
		{"an ID in lower case", []string{"ig040"}, 0, []string{"IG040  warning"}, ""},
		{"an ID of lint only", []string{"IG010"}, 0, []string{"reported by  lint\n", "lint prints  FILE:LINE: VERSION PATH: warning[IG010]", "more         docs/lint.md, IG010"}, ""},
		{"an ID of both, in lint's words too", []string{"IG013"}, 0, []string{"reported by  the generators (marker placement); lint", "in lint      "}, ""},
		{"an info finding", []string{"IG007"}, 0, []string{"IG007  info", "fails a run  with --fail-on=info ("}, ""},
		{"a marker controller-tools cannot parse", []string{"IG043"}, 0, []string{"IG043  error", "reported by  the generators (marker parsing)"}, ""},
		{"a package error", []string{"IG044"}, 0, []string{"IG044  error", "reported by  the generators (controller-tools' loader)"}, ""},
		{"markdown of one ID", []string{"IG041", "-o", "markdown"}, 0, []string{"| IG041 | error | an invalid +immutable marker"}, ""},
		{"an unknown ID", []string{"IG999"}, 2, nil, "no finding has the ID IG999"},
		{"an unknown format", []string{"-o", "yaml"}, 2, nil, "want text or markdown"},
		{"two IDs", []string{"IG001", "IG002"}, 2, nil, helpDiagnosticsSynopsis},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"help", "diagnostics"}, tc.args...), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s", code, tc.code, &stderr)
			}
			for _, s := range tc.stdout {
				if !strings.Contains(stdout.String(), s) {
					t.Errorf("stdout lacks %q:\n%s", s, &stdout)
				}
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, &stderr)
			}
		})
	}
}

// TestSeveritiesAgree: an ID the generators and lint both report has one
// severity, the one help diagnostics (and so docs/diagnostics.md) gives.
func TestSeveritiesAgree(t *testing.T) {
	want := map[string]string{}
	for _, c := range checks() {
		want[string(c.ID)] = c.Severity.String()
	}
	for _, r := range reporters() {
		for _, c := range r.checks {
			if got := c.Severity.String(); got != want[string(c.ID)] {
				t.Errorf("%s: %s says %s, help diagnostics %s", c.ID, r.who, got, want[string(c.ID)])
			}
		}
	}
	for _, c := range lint.Catalog() {
		if _, ok := want[string(c.ID)]; !ok {
			t.Errorf("lint's %s is not in help diagnostics", c.ID)
		}
	}
}

// printedFinding is a finding in a golden file of the generators or lint:
// its severity and ID.
var printedFinding = regexp.MustCompile(`\b(info|warning|error|note)\[(IG\d{3})\]`)

// TestPrintedAsDocumented: every finding in the golden outputs of the
// generators and lint is printed with a documented ID and that ID's
// severity, in the one word help diagnostics uses.
func TestPrintedAsDocumented(t *testing.T) {
	want := map[string]string{}
	for _, c := range checks() {
		want[string(c.ID)] = c.Severity.String()
	}
	n := 0
	for _, dir := range []string{"crd", "openapi", "validators", "lint"} {
		root := filepath.Join(moduleRoot(t), "testdata", "golden", dir)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range printedFinding.FindAllStringSubmatch(string(b), -1) {
				n++
				sev, ok := want[m[2]]
				switch {
				case !ok:
					t.Errorf("%s: %s is not in help diagnostics", p, m[2])
				case m[1] != sev:
					t.Errorf("%s: %s printed as %s, help diagnostics says %s", p, m[2], m[1], sev)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n == 0 {
		t.Fatal("no finding found in the golden files")
	}
}

// docFinding is a generator finding shown in the docs: a Go position, then
// a severity, with or without an ID.
var docFinding = regexp.MustCompile(`\.go:\d+(:\d+)?: (info|warning|error|note)(\[(IG\d{3})\])?: `)

// TestDocsShowFindingsAsPrinted: every generator finding the README and the
// docs show carries its ID and that ID's severity, as the generators print
// it.
func TestDocsShowFindingsAsPrinted(t *testing.T) {
	want := map[string]string{}
	for _, c := range checks() {
		want[string(c.ID)] = c.Severity.String()
	}
	docs, err := filepath.Glob(filepath.Join(moduleRoot(t), "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range append(docs, filepath.Join(moduleRoot(t), "README.md")) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range docFinding.FindAllStringSubmatch(line, -1) {
				n++
				switch sev, ok := want[m[4]]; {
				case m[4] == "":
					t.Errorf("%s:%d: a finding without its ID: %s", filepath.Base(p), i+1, line)
				case !ok:
					t.Errorf("%s:%d: %s is not in help diagnostics", filepath.Base(p), i+1, m[4])
				case m[2] != sev:
					t.Errorf("%s:%d: %s shown as %s, printed as %s", filepath.Base(p), i+1, m[4], m[2], sev)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no finding found in the docs")
	}
}
