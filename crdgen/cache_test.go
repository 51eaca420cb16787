package crdgen

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/cache"
)

// TestAPIServerFindingsCached checks that the API server's findings on a
// CRD with markers are kept between runs: a second run on the same CRD
// reports what the cache holds, and a changed CRD, other generator options,
// a disabled cache or an unreadable entry are validated again.
func TestAPIServerFindingsCached(t *testing.T) {
	dir := t.TempDir()
	cacheDir := filepath.Join(dir, ".cache")
	t.Setenv(cache.EnvVar, cacheDir)
	mod := writeCases(t, []ruleCase{{name: "marked", types: `type Spec struct {
	// +kubebuilder:validation:XValidation:rule="self.size() >",message="broken"
	Name string ` + "`json:\"name\"`" + `
	// +immutable
	ID string ` + "`json:\"id\"`" + `
}
// +kubebuilder:object:root=true
type Kind struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	// +required
	Spec Spec ` + "`json:\"spec\"`" + `
}
`}})
	// The API server's finding: the rule does not compile.
	refused := regexp.MustCompile(`(?s)^warning\[IG\d+\]: .*kinds\.caa\.example\.com.*refused by the API server`)
	const sentinel = `warning: sentinel: from the cache`

	gen := Generator{Immutability: ModeExtensions}
	run := func(t *testing.T) []string {
		t.Helper()
		crds, lines, ok := generateCasesWith(t, mod, gen)
		if !ok || len(crds) != 1 {
			t.Fatalf("run failed or generated %d CRDs:\n%s", len(crds), strings.Join(lines, "\n"))
		}
		return lines
	}
	expect := func(t *testing.T, lines []string, want *regexp.Regexp) {
		t.Helper()
		if len(lines) != 1 || !want.MatchString(lines[0]) {
			t.Fatalf("diagnostics:\n%s\nwant one line matching %s", strings.Join(lines, "\n"), want)
		}
	}
	entries := func(t *testing.T) []string {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(cacheDir, "*", "*-d"))
		return files
	}

	expect(t, run(t), refused)
	files := entries(t)
	if len(files) != 1 {
		t.Fatalf("%d cache entries after the first run, want 1", len(files))
	}
	entry := files[0]
	// The next run reads the entry instead of validating: replace what it
	// holds and the run reports the replacement.
	must(t, os.WriteFile(entry, []byte(`[{"Severity":1,"Subject":"sentinel","Message":"from the cache"}]`), 0o644))
	expect(t, run(t), regexp.MustCompile("^"+regexp.QuoteMeta(sentinel)+"$"))

	t.Run("other options", func(t *testing.T) {
		defer func(g Generator) { gen = g }(gen)
		gen = Generator{Immutability: ModeCEL}
		expect(t, run(t), refused)
		preserve := false
		gen.DeprecatedV1beta1CompatibilityPreserveUnknownFields = &preserve
		expect(t, run(t), refused)
	})
	t.Run("off", func(t *testing.T) {
		t.Setenv(cache.EnvVar, "off")
		expect(t, run(t), refused)
	})
	t.Run("unreadable entry", func(t *testing.T) {
		must(t, os.WriteFile(entry, []byte("not JSON"), 0o644))
		expect(t, run(t), refused)
	})
	t.Run("changed CRD", func(t *testing.T) {
		must(t, os.WriteFile(entry, []byte(`[{"Severity":1,"Subject":"sentinel","Message":"from the cache"}]`), 0o644))
		src := filepath.Join(mod, groupOf(0), "types.go")
		b, err := os.ReadFile(src)
		must(t, err)
		must(t, os.WriteFile(src, []byte(strings.Replace(string(b), "message=\"broken\"", "message=\"still broken\"", 1)), 0o644))
		expect(t, run(t), refused)
		if n := len(entries(t)); n != 4 {
			t.Errorf("%d cache entries, want 4 (one per CRD content and options)", n)
		}
	})
}
