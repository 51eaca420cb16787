package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/lint"
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
		// inRoot runs the case in the module root, its paths relative to
		// it, as CI runs lint in a checkout.
		inRoot bool
	}{
		{"defects", []string{td("defects")}, 1, false},
		{"wellknown", []string{td("wellknown")}, 1, false}, // EC2NodeClass: IG013, a true hole (optional spec)
		{"misc-verbose", []string{"-v", td("misc")}, 1, false},
		// x-immutable-gen-when reading an optional field without has():
		// IG038, as the crd generator refuses the marker (IG046).
		{"when-unguarded", []string{td("when")}, 1, false},
		{"unusable", []string{td("unusable"), td("defects/IG010-optional.yaml"), td("unusable/missing.yaml")}, 2, false},
		{"generated", []string{filepath.Join(root, "testdata/golden/crd"), filepath.Join(root, "examples/config/crd")}, 1, false},
		{"fail-on-error", []string{"--fail-on=error", td("defects/IG010-optional.yaml")}, 0, false},
		{"fail-on-info", []string{td("defects/IG011-once-set.yaml"), "--fail-on", "info"}, 1, false},
		{"info-only", []string{td("defects/IG011-once-set.yaml")}, 0, false},
		{"described-only", []string{td("defects/IG014-described.yaml")}, 0, false},
		// IG014 (issue 23): "Immutable." on a line of its own; not Kubernetes'
		// own text, another subject, rules below, status.
		{"described", []string{"--fail-on=info", td("described")}, 1, false},
		{"kustomize", []string{td("kustomize")}, 0, false},
		{"kustomize-verbose", []string{"-v", td("kustomize")}, 0, false},
		{"bad-format", []string{"--format=xml", td("defects")}, 2, false},
		{"bad-fail-on", []string{"--fail-on=never", td("defects")}, 2, false},
		{"no-files", nil, 2, false},
		// Output for a fleet (issue 23).
		{"helm", []string{"--fail-on=info", td("helm")}, 1, false},
		{"empty", []string{td("empty")}, 2, false},
		{"only-partial", []string{td("kustomize/patches")}, 2, false},
		{"unusable-json", []string{"-o", "json", td("unusable/invalid.yaml"), td("defects/IG010-optional.yaml")}, 2, false},
		// Relative to %SRCROOT% (issue 31).
		{name: "holes-sarif", args: []string{"-o", "sarif", "testdata/lint/holes"}, exit: 1, inRoot: true},
		{"help", []string{"-h"}, 0, false},
		// Two revisions (issue 35): the generator's output across a
		// change of markers, one kind a change.
		{name: "evolve", args: []string{"--base", "testdata/lint/evolve/base", "testdata/lint/evolve/new"}, exit: 1, inRoot: true},
		{name: "evolve-verbose", args: []string{"-v", "--base", "testdata/lint/evolve/base", "testdata/lint/evolve/new"}, exit: 1, inRoot: true},
		{name: "evolve-json", args: []string{"-o", "json", "--base", "testdata/lint/evolve/base", "testdata/lint/evolve/new"}, exit: 1, inRoot: true},
		{name: "evolve-sarif", args: []string{"-o", "sarif", "--base", "testdata/lint/evolve-defects/IG070-rule-deleted.base.yaml", "testdata/lint/evolve-defects/IG070-rule-deleted.new.yaml"}, exit: 1, inRoot: true},
		{name: "evolve-info-only", args: []string{"--base", "testdata/lint/evolve-defects/IG071-rule-added.base.yaml", "testdata/lint/evolve-defects/IG071-rule-added.new.yaml"}, exit: 0, inRoot: true},
		{name: "evolve-fail-on-info", args: []string{"--fail-on=info", "--base", "testdata/lint/evolve-defects/IG071-rule-added.base.yaml", "testdata/lint/evolve-defects/IG071-rule-added.new.yaml"}, exit: 1, inRoot: true},
		{name: "evolve-nothing-paired", args: []string{"--base", "testdata/lint/evolve-defects/IG071-rule-added.base.yaml", "testdata/lint/evolve/new/evolve.example.com_unchangeds.yaml"}, exit: 2, inRoot: true},
		{name: "evolve-unusable", args: []string{"--base", "testdata/lint/unusable", "testdata/lint/evolve/new"}, exit: 2, inRoot: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.inRoot {
				t.Chdir(root)
			}
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"lint"}, tc.args...), &stdout, &stderr)
			if code != tc.exit {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.exit, stdout.String(), stderr.String())
			}
			// moduleRoot and normalize read the working directory: root is
			// the one taken before any Chdir.
			norm := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(root+string(filepath.Separator)), nil) }
			got := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", code, elideRuleDocs(norm(stdout.Bytes())), norm(stderr.Bytes()))
			golden.Check(t, filepath.Join(root, "testdata/golden/lint", tc.name+".txt"), []byte(got))
		})
	}
}

// ruleDocText matches the texts a SARIF log's rules take from
// docs/lint.md (fullDescription, help).
var ruleDocText = regexp.MustCompile(`("(?:fullDescription|help)": \{\n\s+"text": |"markdown": )"(?:[^"\\]|\\.)*"`)

// elideRuleDocs replaces the texts of a SARIF log that come from
// docs/lint.md by "(docs/lint.md)": the goldens are about lint's output,
// and the docs change on their own (TestLintSARIF checks those texts).
func elideRuleDocs(b []byte) []byte {
	return ruleDocText.ReplaceAll(b, []byte(`$1"(docs/lint.md)"`))
}

// TestLintJSON checks the JSON output: an object with the findings
// (exactly the documented keys, the same as the text output), the input
// errors, and a summary; and a golden file.
func TestLintJSON(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "testdata/lint/defects")
	var js, stderr bytes.Buffer
	// -o after the directory: flags may follow the files.
	if code := run([]string{"lint", dir, "-o", "json"}, &js, &stderr); code != 1 {
		t.Fatalf("json: exit %d: %s", code, stderr.String())
	}
	var out struct {
		Findings []map[string]any
		Errors   []map[string]any
		Summary  map[string]any
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	res, err := lint.Files([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != len(res.Findings) || len(out.Errors) != 0 {
		t.Fatalf("%d JSON findings, %d findings; errors %v", len(out.Findings), len(res.Findings), out.Errors)
	}
	keys := []string{"file", "line", "crd", "version", "path", "id", "severity", "message", "fix"}
	for i, f := range out.Findings {
		if len(f) != len(keys)+1 {
			t.Errorf("finding %d has keys %v, want %v and rules", i, f, keys)
		}
		if rules, ok := f["rules"].([]any); !ok || len(rules) != len(res.Findings[i].Rules) {
			t.Errorf("finding %d: rules %v, want %d", i, f["rules"], len(res.Findings[i].Rules))
		}
		if line, ok := f["line"].(float64); !ok || int(line) != res.Findings[i].Pos.Line || line < 1 {
			t.Errorf("finding %d: line %v, want %d", i, f["line"], res.Findings[i].Pos.Line)
		}
		for _, k := range keys[2:] {
			if _, ok := f[k].(string); !ok {
				t.Errorf("finding %d: %s is not a string: %v", i, k, f[k])
			}
		}
		if f["id"] != string(res.Findings[i].ID) || f["path"] != res.Findings[i].Path {
			t.Errorf("finding %d: %v, want %s", i, f, res.Findings[i])
		}
	}
	if int(out.Summary["crds"].(float64)) != res.CRDs {
		t.Errorf("summary %v", out.Summary)
	}
	golden.Check(t, filepath.Join(moduleRoot(t), "testdata/golden/lint/defects.json"), normalize(t, js.Bytes()))
}

// TestLintSARIF: the SARIF log is SARIF 2.1.0 with the binary's version,
// one result per finding, at the finding's file and line (outside the
// working directory, as here, absolute file URIs), and the input errors as
// notifications.
func TestLintSARIF(t *testing.T) {
	root := moduleRoot(t)
	bad := filepath.Join(root, "testdata/lint/unusable/invalid.yaml")
	var out, stderr bytes.Buffer
	code := run([]string{"lint", "-o", "sarif", filepath.Join(root, "testdata/lint/defects"), bad}, &out, &stderr)
	if code != 2 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Version string
					Rules   []struct{ ID string }
				}
			}
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct{ Message struct{ Text string } }
			}
			Results []struct {
				RuleID    string
				RuleIndex int
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	r := log.Runs[0]
	if r.Tool.Driver.Version != moduleVersion() || r.Tool.Driver.Version == "" {
		t.Errorf("driver.version %q, want the binary's, %q", r.Tool.Driver.Version, moduleVersion())
	}
	res, _ := lint.Files([]string{filepath.Join(root, "testdata/lint/defects")})
	if len(r.Results) != len(res.Findings) {
		t.Fatalf("%d results, %d findings", len(r.Results), len(res.Findings))
	}
	for i, x := range r.Results {
		f := res.Findings[i]
		loc := x.Locations[0].PhysicalLocation
		if x.RuleID != string(f.ID) || r.Tool.Driver.Rules[x.RuleIndex].ID != x.RuleID || loc.Region.StartLine != f.Pos.Line || "file://"+filepath.ToSlash(f.Pos.Filename) != loc.ArtifactLocation.URI {
			t.Errorf("result %d: %+v, finding %s", i, x, f)
		}
	}
	if inv := r.Invocations[0]; inv.ExecutionSuccessful || len(inv.ToolExecutionNotifications) != 1 || !strings.Contains(inv.ToolExecutionNotifications[0].Message.Text, "invalid YAML") {
		t.Errorf("invocation %+v", inv)
	}
}

// TestLintHoles: each presence hole of issue 23, as a CRD shaped after the
// real one (testdata/lint/holes/NAME.yaml): lint's findings (golden
// testdata/golden/lint/holes/NAME.txt); the two-step bypass that makes it
// a hole, accepted step by step by the API server's own validator
// (check-update) while the direct change is rejected; and lint's own
// fixes, applied to the CRD, which leave no finding of a hole and make the
// bypass rejected.
func TestLintHoles(t *testing.T) {
	cases := []struct {
		name, kind, version string
		// steps are objects (the rest of the object after apiVersion, kind
		// and metadata, as JSON): steps[0] is stored, each next one is an
		// update; the change from the first to the last is what the rules
		// forbid.
		steps []string
	}{
		{"set-once-optional-spec", "Flavor", "v1", []string{`"spec": {"topologyName": "a"}`, ``, `"spec": {"topologyName": "b"}`}},
		{"or-rule-two-versions", "Topology", "v1beta2", []string{`"spec": {"levels": ["zone", "rack"]}`, ``, `"spec": {"levels": ["host"]}`}},
		{"present-on-both-sides", "Job", "v1", []string{`"spec": {"priorityClassName": "low"}`, `"spec": {}`, `"spec": {"priorityClassName": "high"}`}},
		{"cannot-be-decreased", "Pool", "v1", []string{`"spec": {"security": {"keyRotation": {"keyGeneration": 5}}}`, `"spec": {"security": {}}`, `"spec": {"security": {"keyRotation": {"keyGeneration": 1}}}`}},
		{"optional-object", "Cluster", "v1", []string{`"spec": {"gcsFaultToleranceOptions": {"backend": "redis"}}`, `"spec": {}`, `"spec": {"gcsFaultToleranceOptions": {"backend": "etcd"}}`}},
		{"one-cause-each", "Set", "v1", []string{`"spec": {"network": "a"}`, ``, `"spec": {"network": "b"}`}},
	}
	root := moduleRoot(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			crdFile := filepath.Join(root, "testdata/lint/holes", tc.name+".yaml")
			var stdout, stderr bytes.Buffer
			code := run([]string{"lint", crdFile}, &stdout, &stderr)
			got := fmt.Sprintf("exit: %d\n--- stdout\n%s--- stderr\n%s", code, normalize(t, stdout.Bytes()), normalize(t, stderr.Bytes()))
			golden.Check(t, filepath.Join(root, "testdata/golden/lint/holes", tc.name+".txt"), []byte(got))

			dir := t.TempDir()
			objects := make([]string, len(tc.steps))
			for i, s := range tc.steps {
				body := fmt.Sprintf(`{"apiVersion": "example.com/%s", "kind": %q, "metadata": {"name": "x", "namespace": "default"}`, tc.version, tc.kind)
				if s != "" {
					body += ", " + s
				}
				objects[i] = filepath.Join(dir, fmt.Sprintf("step%d.json", i))
				if err := os.WriteFile(objects[i], []byte(body+"}"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			checkUpdate := func(schema, old, new string) int {
				var out, errb bytes.Buffer
				code := run([]string{"check-update", "--schema", schema, "--old", old, "--new", new}, &out, &errb)
				if code == 2 {
					t.Fatalf("check-update %s → %s: %s%s", old, new, out.String(), errb.String())
				}
				return code
			}
			last := objects[len(objects)-1]
			if checkUpdate(crdFile, objects[0], last) != 1 {
				t.Errorf("the direct change is not rejected: not a hole the rules mean to close")
			}
			for i := 1; i < len(objects); i++ {
				if checkUpdate(crdFile, objects[i-1], objects[i]) != 0 {
					t.Errorf("step %d of the bypass is rejected: not a hole", i)
				}
			}

			// Apply lint's own fixes and lint again.
			data, err := os.ReadFile(crdFile)
			if err != nil {
				t.Fatal(err)
			}
			res, err := lint.Manifest(crdFile, data)
			if err != nil {
				t.Fatal(err)
			}
			var obj map[string]any
			if err := yaml.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			applied := 0
			for _, f := range res.Findings {
				if lint.ApplyFix(obj, f) {
					applied++
				}
			}
			if applied == 0 {
				t.Fatalf("no fix applied to %v", res.Findings)
			}
			fixed, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			fixedFile := filepath.Join(dir, "fixed.json")
			if err := os.WriteFile(fixedFile, fixed, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err = lint.Manifest(fixedFile, fixed)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Findings {
				if f.Severity >= lint.Warning || f.ID == lint.IDOptionalObject {
					t.Errorf("after the fixes: %s", f)
				}
			}
			rejected := false
			for i := 1; i < len(objects); i++ {
				rejected = rejected || checkUpdate(fixedFile, objects[i-1], objects[i]) == 1
			}
			if !rejected {
				t.Errorf("after the fixes the bypass is still accepted")
			}
		})
	}
}

// TestLintBaseStdin: the base revision read from standard input, as
// `git show REF:PATH | immutable-gen lint --base - PATH` gives it, finds
// what the file does; standard input on both sides is refused.
func TestLintBaseStdin(t *testing.T) {
	root := moduleRoot(t)
	base := filepath.Join(root, "testdata/lint/evolve-defects/IG070-rule-deleted.base.yaml")
	next := filepath.Join(root, "testdata/lint/evolve-defects/IG070-rule-deleted.new.yaml")
	f, err := os.Open(base)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = stdin }()
	var fromStdin, fromFile, stderr bytes.Buffer
	if code := run([]string{"lint", "--base", "-", next}, &fromStdin, &stderr); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if code := run([]string{"lint", "--base", base, next}, &fromFile, &stderr); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if fromStdin.String() != fromFile.String() || !strings.Contains(fromStdin.String(), "IG070") {
		t.Errorf("from standard input:\n%s\nfrom the file:\n%s", fromStdin.String(), fromFile.String())
	}
	stderr.Reset()
	if code := run([]string{"lint", "--base", "-", "-"}, io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), "not both") {
		t.Errorf("both on standard input: exit %d: %s", code, stderr.String())
	}
}

// TestLintBaseWitnessesCheckUpdate: every witness `lint --base -o json`
// gives on the test API (testdata/lint/evolve) is judged differently by
// `immutable-gen check-update` with the two revisions' CRDs, and refused
// by the one the witness names — the contract, through the CLI.
func TestLintBaseWitnessesCheckUpdate(t *testing.T) {
	root := moduleRoot(t)
	t.Chdir(root)
	var js, stderr bytes.Buffer
	if code := run([]string{"lint", "-o", "json", "--base", "testdata/lint/evolve/base", "testdata/lint/evolve/new"}, &js, &stderr); code != 1 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out struct {
		Findings []struct {
			File, ID, CRD string
			Witness       *lint.Witness
		}
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range out.Findings {
		if f.Witness == nil {
			continue
		}
		n++
		dir := t.TempDir()
		write := func(name string, v any) string {
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		old, new := write("old.json", f.Witness.Old), write("new.json", f.Witness.New)
		verdict := func(crd string) int {
			args := []string{"check-update", "--schema", crd, "--old", old, "--new", new}
			if f.Witness.Subresource != "" {
				args = append(args, "--subresource="+f.Witness.Subresource)
			}
			var o, e bytes.Buffer
			code := run(args, &o, &e)
			if code == 2 {
				t.Fatalf("%s %s: check-update: %s", f.CRD, f.ID, e.String())
			}
			return code
		}
		base := filepath.Join("testdata/lint/evolve/base", filepath.Base(f.File))
		inBase, inNew := verdict(base), verdict(f.File)
		want := [2]int{1, 0} // refused by the base, allowed by the new
		if f.Witness.RefusedBy == "new" {
			want = [2]int{0, 1}
		}
		if [2]int{inBase, inNew} != want {
			t.Errorf("%s %s (%s): check-update exits %d with the base and %d with the new revision, want %v", f.CRD, f.ID, f.Witness.Update, inBase, inNew, want)
		}
	}
	if n < 20 {
		t.Errorf("%d witnesses, want every weakening and strengthening of the test API's", n)
	}
}
