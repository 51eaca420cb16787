package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/migrate"
)

// TestMigrateThenValidators is issue 24's item 3: a project that migrates
// and then runs `immutable-gen validators` gets the same verdicts from the
// typed validators as from its migrated CRD. The worked example
// (testdata/apis/migrate) is copied into a throwaway module and migrated
// there as a project with typed validators is (--validators=yes: its
// conditional rules become +immutable:when, which the typed validators
// compile); the validators, deep-copy code and CRD are generated
// from the migrated sources, and a test compiled in the copy holds the
// typed ValidateImmutableUpdate to the API server's validator (with
// ratcheting) on the migrated CRD, on random updates drawn as migrate's
// differential draws them (proof.Updates, over the migrated fields).
//
// The typed validators check the markers; the rules migrate left as
// written stay the API server's alone (a webhook with typed validators
// runs beside the API server, which keeps enforcing them). So the CRD of
// the comparison is generated from the migrated sources without those
// rules, and updates whose objects the CRD refuses on creation (schema
// bounds, which the typed validators do not check either) are skipped.
func TestMigrateThenValidators(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module and runs 3,000 updates")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	api := filepath.Join(dir, "apis", "v1")
	if err := os.MkdirAll(api, 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "testdata", "apis", "migrate", "v1")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "doc.go" {
			// Deep-copy code for every type, as a project has.
			data = []byte(strings.Replace(string(data), "// +groupName=", "// +kubebuilder:object:generate=true\n// +groupName=", 1))
		}
		if err := os.WriteFile(filepath.Join(api, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goMod := "module example.com/migrated\n\ngo 1.26.0\n\n" +
		"require (\n\tgithub.com/immutable-gen/immutable-gen v0.0.0\n\tgithub.com/immutable-gen/immutable-gen/runtime v0.0.0\n)\n\n" +
		"replace github.com/immutable-gen/immutable-gen => " + root + "\n\n" +
		"replace github.com/immutable-gen/immutable-gen/runtime => " + filepath.Join(root, "runtime") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(goMod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOFLAGS", "-mod=mod")

	// Migrate, as a project with typed validators.
	res, err := migrate.Run(migrate.Options{Dir: dir, Paths: []string{"./apis/..."}, Validators: migrate.ValidatorsYes})
	if err != nil {
		t.Fatal(err)
	}
	report := res.Report(dir)
	if !res.Proven() {
		t.Fatalf("not proven:\n%s", report)
	}
	kept := 0
	for _, r := range res.Rules {
		if strings.Contains(r.Reason, "typed validators") {
			kept++
		}
	}
	if !strings.Contains(res.Diff, "// +immutable:when=") {
		t.Fatalf("no conditional rule became +immutable:when with typed validators (%d refused by them):\n%s\n%s", kept, res.Diff, report)
	}
	if err := res.Write(); err != nil {
		t.Fatal(err)
	}
	found, migrated, left := res.Counts()
	t.Logf("migrated with --validators=yes: %d found, %d migrated, %d left (%d conditional ones refused by the typed validators)", found, migrated, left, kept)

	// The rules left as written go from the copy (see above).
	types := filepath.Join(api, "types.go")
	data, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	hand := regexp.MustCompile(`(?m)^\s*// \+kubebuilder:validation:XValidation:.*\n`)
	stripped := len(hand.FindAll(data, -1))
	if stripped == 0 {
		t.Fatal("no rule left as written")
	}
	if err := os.WriteFile(types, hand.ReplaceAll(data, nil), 0o644); err != nil {
		t.Fatal(err)
	}

	bin := filepath.Join(dir, "bin", "immutable-gen")
	runIn(t, dir, "go", "build", "-o", bin, "github.com/immutable-gen/immutable-gen/cmd/immutable-gen")
	t.Setenv("IMMUTABLE_GEN_CACHE", t.TempDir())
	runIn(t, dir, bin, "object", "validators", "crd", "paths=./...", "output:crd:dir=crds")

	var fields []string
	for _, f := range res.Fields {
		if f.CRD != "widgets.migrate.example.com" || f.Version != "v1" {
			t.Fatalf("a field of another CRD: %+v", f)
		}
		fields = append(fields, fmt.Sprintf("{CRD: %q, Version: %q, Path: %#v}", f.CRD, f.Version, f.Path))
	}
	test := strings.Replace(migratedCheck, "%FIELDS%", strings.Join(fields, ",\n\t\t"), 1)
	if err := os.WriteFile(filepath.Join(api, "migrated_e2e_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	runIn(t, dir, "go", "mod", "tidy")
	out := runIn(t, dir, "go", "test", "-count=1", "-v", "./apis/...")
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "updates drawn") {
			t.Log(strings.TrimSpace(line))
		}
	}
	t.Logf("%d rules left as written removed from the compared CRD", stripped)
}

// migratedCheck is the test compiled in the migrated copy.
const migratedCheck = `package v1_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/migrate/proof"
	"github.com/immutable-gen/immutable-gen/preflight"

	v1 "example.com/migrated/apis/v1"
)

// TestTypedMatchesCRD: on random updates of the migrated fields, the typed
// validators allow exactly what the API server's validator allows on the
// migrated CRD.
func TestTypedMatchesCRD(t *testing.T) {
	manifest, err := os.ReadFile(filepath.Join("..", "..", "crds", "migrate.example.com_widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := yaml.YAMLToJSON(manifest)
	if err != nil {
		t.Fatal(err)
	}
	checker, err := preflight.NewChecker([]preflight.CRD{{Source: "widgets", Raw: raw}})
	if err != nil {
		t.Fatal(err)
	}
	fields := []proof.Field{
		%FIELDS%,
	}
	// typed decodes a body into a Widget, and returns it with the JSON a
	// typed client writes of it (what the API server stores and compares).
	typed := func(body map[string]any) (*v1.Widget, map[string]any, bool) {
		obj := map[string]any{"apiVersion": "migrate.example.com/v1", "kind": "Widget"}
		for k, v := range body {
			obj[k] = v
		}
		obj["metadata"] = map[string]any{"name": "x", "namespace": "default"}
		data, _ := json.Marshal(obj)
		var w v1.Widget
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, nil, false
		}
		data, err := json.Marshal(&w)
		if err != nil {
			return nil, nil, false
		}
		var m map[string]any
		if err := utiljson.Unmarshal(data, &m); err != nil {
			return nil, nil, false
		}
		return &w, m, true
	}
	const drawn = 3000
	compared, refused, allowed, skipped, mismatches := 0, 0, 0, 0, 0
	err = proof.Updates(manifest, "v1", fields, drawn, 1, func(oldBody, newBody map[string]any) error {
		oldW, oldM, ok1 := typed(oldBody)
		newW, newM, ok2 := typed(newBody)
		if !ok1 || !ok2 {
			skipped++
			return nil
		}
		for _, m := range []map[string]any{oldM, newM} {
			res, err := checker.Create(m)
			if err != nil {
				return err
			}
			if !res.Allowed() {
				skipped++
				return nil
			}
		}
		res, err := checker.Update(newM, oldM)
		if err != nil {
			return err
		}
		errs := newW.ValidateImmutableUpdate(oldW)
		compared++
		switch {
		case !res.Allowed() && len(errs) > 0:
			refused++
		case res.Allowed() && len(errs) == 0:
			allowed++
		}
		if res.Allowed() != (len(errs) == 0) {
			mismatches++
			if mismatches <= 5 {
				o, _ := json.Marshal(oldM["spec"])
				n, _ := json.Marshal(newM["spec"])
				t.Errorf("verdicts differ:\n old: %s\n new: %s\n API server: %v\n typed: %v", o, n, res.Errors, errs)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("updates drawn: %d; compared: %d (refused by both: %d, allowed by both: %d); skipped (objects the CRD refuses on creation, or that do not decode): %d; verdicts that differ: %d\n", drawn, compared, refused, allowed, skipped, mismatches)
	if compared < 1000 {
		t.Errorf("%d updates compared, want at least 1,000", compared)
	}
	if refused == 0 || allowed == 0 {
		t.Errorf("refused by both %d, allowed by both %d: the comparison shows nothing", refused, allowed)
	}
}
`
