package lint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/crdgen"
	"github.com/immutable-gen/immutable-gen/crdvalidation/apiserver"
	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/internal/golden"
	"github.com/immutable-gen/immutable-gen/output"
	"github.com/immutable-gen/immutable-gen/preflight"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// generateEvolve generates the CRDs of the evolution check's test API
// (lint/testdata/evolve/SIDE) in mode ("cel" or "extensions") into dir.
func generateEvolve(t *testing.T, side, mode, dir string) {
	t.Helper()
	var gen genall.Generator = crdgen.Generator{Immutability: mode}.WithReport(func(diag.List) {}).WithServer(apiserver.InProcess{})
	rt, err := genall.Generators{&gen}.ForRootsWithConfig(&packages.Config{}, "./testdata/evolve/"+side+"/...")
	if err != nil {
		t.Fatal(err)
	}
	buf := &output.Buffer{}
	ctx := rt.GenerationContext
	ctx.OutputRule = buf.Rule(genall.OutputToNothing)
	if err := gen.Generate(&ctx); err != nil {
		t.Fatal(err)
	}
	if len(buf.Artifacts) == 0 {
		t.Fatalf("no CRDs generated from %s", side)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, a := range buf.Artifacts {
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(a.Path)), a.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// summary is a finding as the tables expect it: "ID PATH".
func summary(f diag.Diagnostic) string { return string(f.ID) + " " + f.Path }

// byCRD groups a result's findings by CRD, as "ID PATH".
func byCRD(res EvolveResult) map[string][]string {
	out := map[string][]string{}
	for _, f := range res.Findings {
		out[f.CRD] = append(out[f.CRD], summary(f))
	}
	return out
}

// checkWitnesses verifies every witness of res again with preflight, on
// the CRD files of both sides: the update's verdict differs, and the side
// the witness names refuses it.
func checkWitnesses(t *testing.T, res EvolveResult, base, next []string) {
	t.Helper()
	load := func(paths []string) *preflight.Checker {
		docs, _, errs := loadSide(paths)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		var crds []preflight.CRD
		for _, d := range docs {
			crds = append(crds, preflight.CRD{Source: d.file, Raw: d.json})
		}
		c, err := preflight.NewChecker(crds)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	oldC, newC := load(base), load(next)
	for i, f := range res.Findings {
		w := res.Witnesses[i]
		if (f.ID == IDWeakened || f.ID == IDStrengthened) != (w != nil) {
			t.Errorf("%s: witness %v", Format(f), w)
			continue
		}
		if w == nil {
			continue
		}
		verdict := func(c *preflight.Checker, version string) bool {
			obj, old := deepCopy(w.New).(map[string]any), deepCopy(w.Old).(map[string]any)
			gv := strings.Split(obj["apiVersion"].(string), "/")
			obj["apiVersion"], old["apiVersion"] = gv[0]+"/"+version, gv[0]+"/"+version
			var r preflight.Result
			var err error
			if w.Subresource == "status" {
				r, err = c.UpdateStatus(obj, old)
			} else {
				r, err = c.Update(obj, old)
			}
			if err != nil {
				t.Fatalf("%s: %v", Format(f), err)
			}
			return r.Allowed()
		}
		baseVersion := w.Version
		if w.BaseVersion != "" {
			baseVersion = w.BaseVersion
		}
		oa, na := verdict(oldC, baseVersion), verdict(newC, w.Version)
		want := w.RefusedBy == refusedByBase && !oa && na || w.RefusedBy == refusedByNew && oa && !na
		if !want || (f.ID == IDWeakened) != (w.RefusedBy == refusedByBase) {
			t.Errorf("%s: the witness is not one: base allows %v, new allows %v, refusedBy %s", Format(f), oa, na, w.RefusedBy)
		}
	}
}

// TestEvolveMarkers: the generator's own output across a change of
// markers, every form turned into others (lint/testdata/evolve: one kind
// a case), in both of its modes; each weakening and strengthening is
// found with a witness the API server's validator confirms, and a change
// that keeps every verdict (a message, a condition rewritten with the
// same meaning, a required field made optional with its presence kept)
// is no finding.
func TestEvolveMarkers(t *testing.T) {
	dir := t.TempDir()
	for _, side := range []string{"old", "new"} {
		for _, mode := range []string{crdgen.ModeCEL, crdgen.ModeExtensions} {
			generateEvolve(t, side, mode, filepath.Join(dir, mode, side))
		}
	}
	floor := "IG073 spec" // the presence rules' fieldPath: Kubernetes 1.28
	cases := []struct {
		// plural is the CRD's plural (its name in the group).
		plural string
		want   []string
		// extensions is the findings in extensions mode, where they
		// differ (no rules, so no floor).
		extensions []string
	}{
		{"oncetoimmutables", []string{"IG071 spec.name"}, nil},
		{"immutabletoonces", []string{"IG070 spec.name"}, nil},
		{"immutabledroppeds", []string{"IG070 spec.name"}, nil},
		{"immutableaddeds", []string{floor, "IG071 spec.name"}, []string{"IG071 spec.name"}},
		{"immutabletonomodifies", []string{"IG070 spec.name"}, nil},
		{"nomodifytoonces", []string{floor, "IG071 spec.name"}, []string{"IG071 spec.name"}},
		{"keysdroppeds", []string{"IG070 spec.labels"}, nil},
		{"immutabletokeys", []string{"IG070 spec.labels"}, nil},
		{"keystoimmutables", []string{"IG071 spec.labels"}, nil},
		// In extensions mode the condition is x-immutable-gen-when beside
		// the form's extension: the same finding, and no rule, so no floor.
		{"whenaddeds", []string{"IG070 spec.name"}, nil},
		{"whenremoveds", []string{"IG071 spec.name"}, nil},
		{"whenwideneds", []string{"IG071 spec.name"}, nil},
		{"whennarroweds", []string{"IG070 spec.name"}, nil},
		{"whenrewrittens", nil, nil},
		{"ignoreorderaddeds", []string{"IG070 spec.ports"}, nil},
		{"ignoreorderremoveds", []string{"IG071 spec.ports"}, nil},
		{"messagechangeds", nil, nil},
		{"unchangeds", nil, nil},
		{"requiredtooptionals", []string{floor}, []string{}},
		{"parentrequireds", []string{"IG071 spec.config"}, nil},
		{"parentoptionals", []string{"IG070 spec.config"}, nil},
		{"itemfielddroppeds", []string{"IG070 spec.items[*].value"}, nil},
		{"mapvaluedroppeds", []string{"IG070 spec.entries[*].value"}, nil},
		{"setdroppeds", []string{"IG070 spec.tags"}, nil},
		// Neither form refuses all the other does: both ways.
		{"nounsettonosets", []string{"IG070 spec.name", "IG071 spec.name"}, nil},
		{"presencedroppeds", []string{"IG070 spec.name"}, nil},
		{"nesteddroppeds", []string{"IG070 spec.outer.inner.zone"}, nil},
		// Through /status.
		{"statusoncedroppeds", []string{"IG070 status.phase"}, nil},
		// Conditions over the status conditions (Kueue's QuotaReserved):
		// the witness holds the condition that tells the two apart.
		{"quotawhenremoveds", []string{"IG071 spec.queue"}, nil},
		{"quotawhenaddeds", []string{"IG070 spec.queue"}, nil},
		{"quotawhennarroweds", []string{"IG070 spec.queue"}, nil},
		// ignoreOrder on a struct with a list map two levels below.
		{"structignoreorderaddeds", []string{"IG070 spec.listeners"}, nil},
		{"structignoreorderremoveds", []string{"IG071 spec.listeners"}, nil},
	}
	for _, mode := range []string{crdgen.ModeCEL, crdgen.ModeExtensions} {
		t.Run(mode, func(t *testing.T) {
			base, next := []string{filepath.Join(dir, mode, "old")}, []string{filepath.Join(dir, mode, "new")}
			res, err := Evolve(base, next)
			if err != nil {
				t.Fatal(err)
			}
			got := byCRD(res)
			if res.CRDs != len(cases) {
				t.Errorf("%d CRD pairs, want %d", res.CRDs, len(cases))
			}
			for _, tc := range cases {
				t.Run(tc.plural, func(t *testing.T) {
					want := tc.want
					if mode == crdgen.ModeExtensions && tc.extensions != nil {
						want = tc.extensions
					}
					if g := got[tc.plural+".evolve.example.com"]; !slices.Equal(g, want) {
						t.Errorf("findings %q, want %q", g, want)
					}
				})
			}
			checkWitnesses(t, res, base, next)
		})
	}
	// The same revision in the two modes: the same verdicts on every
	// update (the runtime enforces the extensions as the API server the
	// rules), so no finding but the floor the rules add.
	t.Run("cel-to-extensions", func(t *testing.T) {
		for _, side := range []string{"old", "new"} {
			res, err := Evolve([]string{filepath.Join(dir, "cel", side)}, []string{filepath.Join(dir, "extensions", side)})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) != 0 {
				t.Errorf("%s: %q", side, byCRD(res))
			}
		}
	})
}

// reformat rewrites a CRD's document as JSON on one line, with the rules
// of every node in reverse order and their messages changed: the same
// verdicts in other words.
func reformat(t *testing.T, data []byte) []byte {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if rules, ok := x["x-kubernetes-validations"].([]any); ok {
				slices.Reverse(rules)
				for _, r := range rules {
					if m, ok := r.(map[string]any); ok {
						m["message"] = "reworded: " + fmt.Sprint(m["message"])
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(obj)
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestEvolveReformatted: the generator's output rewritten (JSON on one
// line, the rules of each node reordered, every message changed) has the
// same verdicts as before: no finding.
func TestEvolveReformatted(t *testing.T) {
	dir := t.TempDir()
	generateEvolve(t, "new", crdgen.ModeCEL, filepath.Join(dir, "base"))
	files, _ := filepath.Glob(filepath.Join(dir, "base", "*.yaml"))
	if err := os.MkdirAll(filepath.Join(dir, "new"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "new", strings.TrimSuffix(filepath.Base(f), ".yaml")+".json")
		if err := os.WriteFile(out, reformat(t, data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Evolve([]string{filepath.Join(dir, "base")}, []string{filepath.Join(dir, "new")})
	if err != nil {
		t.Fatal(err)
	}
	if res.CRDs != len(files) || len(res.Findings) != 0 {
		t.Errorf("%d CRD pairs (want %d), findings %q", res.CRDs, len(files), byCRD(res))
	}
}

// widgetCRD is a CRD widgets.example.com whose version v1 has the schema
// properties of spec given as YAML (indented for spec's properties) and
// the validations of spec.
func widgetCRD(specRules, props string) string {
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
` + specRules + `            properties:
` + props
}

// requiredSpecName makes spec and spec.name of a widgetCRD required, and
// adds rootRules (YAML) to the root schema.
func requiredSpecName(crd, rootRules string) string {
	crd = strings.Replace(crd, "            type: object\n", "            type: object\n            required: [name]\n", 1)
	return strings.Replace(crd, "        type: object\n        properties:\n", "        type: object\n        required: [spec]\n"+rootRules+"        properties:\n", 1)
}

// TestEvolveHandWritten: hand-written rules, each change of the table
// judged as the API server judges the updates.
func TestEvolveHandWritten(t *testing.T) {
	name := func(rules string) string {
		return "              name:\n                type: string\n" + rules
	}
	self := "                x-kubernetes-validations:\n                - rule: self == oldSelf\n                  message: immutable\n"
	presence := "            x-kubernetes-validations:\n            - rule: has(self.name) == has(oldSelf.name)\n"
	once := "            x-kubernetes-validations:\n            - rule: '!has(oldSelf.name) || has(self.name)'\n"
	tags := func(rules string) string {
		return "              tags:\n                type: array\n                items: {type: string, maxLength: 10}\n" + rules
	}
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"rule deleted", widgetCRD(presence, name(self)), widgetCRD("", name("")), []string{"IG070 spec.name"}},
		{"presence rule lost", widgetCRD(presence, name(self)), widgetCRD("", name(self)), []string{"IG070 spec.name"}},
		{"presence rule made set-once", widgetCRD(presence, name(self)), widgetCRD(once, name(self)), []string{"IG070 spec.name"}},
		{"rule added", widgetCRD("", name("")), widgetCRD(presence, name(self)), []string{"IG073 spec", "IG071 spec.name"}},
		{"operands swapped", widgetCRD(presence, name(self)),
			widgetCRD("            x-kubernetes-validations:\n            - rule: has(oldSelf.name) == has(self.name)\n", name("                x-kubernetes-validations:\n                - rule: oldSelf == self\n")), nil},
		{"rule on the parent instead", widgetCRD(presence, name(self)),
			widgetCRD("            x-kubernetes-validations:\n            - rule: has(self.name) == has(oldSelf.name)\n            - rule: '!has(self.name) || self.name == oldSelf.name'\n", name("")), nil},
		{"message changed", widgetCRD(presence, name(self)), widgetCRD(presence, name(strings.ReplaceAll(self, "immutable", "may not change"))), nil},
		{"bound added under a rule", widgetCRD("", tags(self)), widgetCRD("", tags("                maxItems: 3\n"+self)), []string{"IG072 spec.tags"}},
		{"bound lowered under a rule", widgetCRD("", tags("                maxItems: 10\n"+self)), widgetCRD("", tags("                maxItems: 3\n"+self)), []string{"IG072 spec.tags"}},
		{"bound raised", widgetCRD("", tags("                maxItems: 3\n"+self)), widgetCRD("", tags("                maxItems: 10\n"+self)), nil},
		{"bound without a rule", widgetCRD("", tags("")), widgetCRD("", tags("                maxItems: 3\n")), nil},
		{"a rule lint does not read, changed with no update to show it", widgetCRD("", name("                x-kubernetes-validations:\n                - rule: self == oldSelf || self.startsWith(oldSelf)\n")),
			widgetCRD("", name("                x-kubernetes-validations:\n                - rule: self == oldSelf || self.startsWith(oldSelf) || self.size() > 1000\n")), []string{"IG074 spec.name"}},
		{"a rule lint does not read, weakened", widgetCRD("", name("                x-kubernetes-validations:\n                - rule: self == oldSelf || self.startsWith(oldSelf)\n")),
			widgetCRD("", name("                x-kubernetes-validations:\n                - rule: self == oldSelf || self.startsWith(oldSelf) || self.size() > 0\n")), []string{"IG070 spec.name"}},
		{"a rule lint does not read, its operands swapped", widgetCRD("", name("                x-kubernetes-validations:\n                - rule: self == oldSelf || self.startsWith(oldSelf)\n")),
			widgetCRD("", name("                x-kubernetes-validations:\n                - rule: self.startsWith(oldSelf) || oldSelf == self\n")), nil},
		{"presence and value in one rule on the parent", widgetCRD(presence, name(self)),
			widgetCRD("            x-kubernetes-validations:\n            - rule: has(self.name) == has(oldSelf.name) && (!has(self.name) || self.name == oldSelf.name)\n", name("")), nil},
		{"set-once in one rule on the parent", widgetCRD(once, name(self)),
			widgetCRD("            x-kubernetes-validations:\n            - rule: '!has(oldSelf.name) || (has(self.name) && self.name == oldSelf.name)'\n", name("")), nil},
		{"the rule moved to the root", requiredSpecName(widgetCRD("", "              name:\n                type: string\n"+self), ""),
			requiredSpecName(widgetCRD("", "              name:\n                type: string\n"), "        x-kubernetes-validations:\n        - rule: self.spec.name == oldSelf.spec.name\n"), nil},
		{"an embedded resource's rule deleted", widgetCRD("", "              template:\n                type: object\n                x-kubernetes-embedded-resource: true\n                x-kubernetes-preserve-unknown-fields: true\n"+self),
			widgetCRD("", "              template:\n                type: object\n                x-kubernetes-embedded-resource: true\n                x-kubernetes-preserve-unknown-fields: true\n"), []string{"IG070 spec.template"}},
		{"a two-variable comprehension raises the floor", widgetCRD("", tags("                maxItems: 10\n"+self)),
			widgetCRD("", tags("                maxItems: 10\n                x-kubernetes-list-type: atomic\n                x-kubernetes-validations:\n                - rule: self.all(i, x, i >= size(oldSelf) || x == oldSelf[i])\n                - rule: self == oldSelf\n")), []string{"IG073 spec.tags"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			base, next := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "new.yaml")
			os.WriteFile(base, []byte(tc.old), 0o644)
			os.WriteFile(next, []byte(tc.new), 0o644)
			res, err := Evolve([]string{base}, []string{next})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, summary(f))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q\n%s", got, tc.want, res.Text())
			}
			checkWitnesses(t, res, []string{base}, []string{next})
		})
	}
}

// TestEvolveVersions: versions paired by name, and a renamed only
// version (v1alpha1 → v1beta1) paired by storage; a served version gone
// with its rules is IG075, a CRD gone IG076.
func TestEvolveVersions(t *testing.T) {
	self := "                x-kubernetes-validations:\n                - rule: self == oldSelf\n"
	props := "              name:\n                type: string\n" + self
	presence := "            x-kubernetes-validations:\n            - rule: has(self.name) == has(oldSelf.name)\n"
	renamed := strings.ReplaceAll(widgetCRD("", "              name:\n                type: string\n"), "name: v1\n", "name: v1beta1\n")
	twoVersions := func(second string) string {
		c := widgetCRD(presence, props)
		i := strings.Index(c, "  - name: v1\n")
		v := strings.ReplaceAll(c[i:], "name: v1\n", "name: v2\n")
		v = strings.ReplaceAll(v, "storage: true", "storage: false")
		if second != "" {
			v = strings.ReplaceAll(v, self, second)
		}
		return c + v
	}
	cases := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"renamed only version, rule dropped", widgetCRD(presence, props), renamed, []string{"IG070 spec.name"}},
		{"second version loosened", twoVersions(""), twoVersions("                x-kubernetes-validations:\n                - rule: self == oldSelf || oldSelf == 'draft'\n"), []string{"IG070 spec.name"}},
		{"served version dropped", twoVersions(""), widgetCRD(presence, props), []string{"IG075 <root>"}},
		{"renamed only version, rules kept", widgetCRD(presence, props), strings.ReplaceAll(widgetCRD(presence, props), "name: v1\n", "name: v1beta1\n"), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			base, next := filepath.Join(dir, "base.yaml"), filepath.Join(dir, "new.yaml")
			os.WriteFile(base, []byte(tc.old), 0o644)
			os.WriteFile(next, []byte(tc.new), 0o644)
			res, err := Evolve([]string{base}, []string{next})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, summary(f))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %q, want %q\n%s", got, tc.want, res.Text())
			}
			checkWitnesses(t, res, []string{base}, []string{next})
		})
	}
	t.Run("crd gone", func(t *testing.T) {
		dir := t.TempDir()
		base := filepath.Join(dir, "base.yaml")
		os.WriteFile(base, []byte(widgetCRD(presence, props)), 0o644)
		other := filepath.Join(dir, "other.yaml")
		os.WriteFile(other, []byte(strings.ReplaceAll(strings.ReplaceAll(widgetCRD("", props), "widgets", "gadgets"), "Widget", "Gadget")), 0o644)
		res, err := Evolve([]string{base, other}, []string{other})
		if err != nil {
			t.Fatal(err)
		}
		if got := byCRD(res); !slices.Equal(got["widgets.example.com"], []string{"IG076 <crd>"}) || len(res.Findings) != 1 {
			t.Errorf("findings %q", got)
		}
	})
}

// TestEvolveGolden keeps the committed copies of the test API's CRDs
// (testdata/lint/evolve/{base,new}, the input of the CLI's goldens)
// equal to what the generator writes.
func TestEvolveGolden(t *testing.T) {
	dir := t.TempDir()
	for side, out := range map[string]string{"old": "base", "new": "new"} {
		generateEvolve(t, side, crdgen.ModeCEL, filepath.Join(dir, out))
		files, _ := filepath.Glob(filepath.Join(dir, out, "*.yaml"))
		for _, f := range files {
			data, _ := os.ReadFile(f)
			golden.Check(t, filepath.Join(root, "testdata/lint/evolve", out, filepath.Base(f)), data)
		}
	}
}

// evolveExpected is the path of each seeded change's finding.
var evolveExpected = map[diag.ID]string{
	IDWeakened:       "spec.name",
	IDStrengthened:   "spec.name",
	IDBoundAdded:     "spec.tags",
	IDFloorRaised:    "spec.tags",
	IDUnproven:       "spec.name",
	IDVersionDropped: "<root>",
	IDCRDDropped:     "<crd>",
}

// TestEvolveDefects: each seeded change (testdata/lint/evolve-defects/
// ID-*.base.yaml → ID-*.new.yaml) produces exactly its finding, complete
// (message, fix, a line), and every ID of the evolution check has one.
func TestEvolveDefects(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "testdata/lint/evolve-defects/*.base.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[diag.ID]bool{}
	for _, base := range files {
		id := diag.ID(strings.SplitN(filepath.Base(base), "-", 2)[0])
		covered[id] = true
		t.Run(string(id), func(t *testing.T) {
			next := strings.TrimSuffix(base, ".base.yaml") + ".new.yaml"
			res, err := Evolve([]string{base}, []string{next})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, summary(f))
				if f.Fix == "" || f.Message == "" || f.Pos.Line < 1 || f.CRD != "widgets.example.com" {
					t.Errorf("incomplete finding %+v", f)
				}
			}
			if want := []string{string(id) + " " + evolveExpected[id]}; !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
			checkWitnesses(t, res, []string{base}, []string{next})
		})
	}
	for _, c := range evolveChecks() {
		if !covered[c.ID] {
			t.Errorf("no seeded change testdata/lint/evolve-defects/%s-*.base.yaml", c.ID)
		}
	}
}

// TestEvolveSilenced: a judged change is silenced as lint's findings are,
// by the annotation ignore-check.immutable-gen.io/ID on the new
// revision's CRD or by a config file's ignore entry, and counted.
func TestEvolveSilenced(t *testing.T) {
	base := filepath.Join(root, "testdata/lint/evolve-defects/IG070-rule-deleted.base.yaml")
	next := filepath.Join(root, "testdata/lint/evolve-defects/IG070-rule-deleted.new.yaml")
	data, err := os.ReadFile(next)
	if err != nil {
		t.Fatal(err)
	}
	annotated := filepath.Join(t.TempDir(), "new.yaml")
	os.WriteFile(annotated, []byte(strings.Replace(string(data), "  name: widgets.example.com\n", "  name: widgets.example.com\n  annotations:\n    "+IgnoreAnnotationPrefix+"IG070: the name may change since v2\n", 1)), 0o644)
	cases := []struct {
		name string
		next string
		opts Options
	}{
		{"annotation", annotated, Options{}},
		{"config", next, Options{Ignore: []Ignore{{ID: IDWeakened, CRD: "widgets.example.com", Path: "spec.name", Reason: "judged"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := EvolveWithOptions([]string{base}, []string{tc.next}, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Findings) != 0 || len(res.Witnesses) != 0 || res.Silenced != 1 {
				t.Errorf("findings %q, silenced %d", byCRD(res), res.Silenced)
			}
		})
	}
}

// formPlace is where the form matrix puts a form: the schema of spec's
// properties around the node (its extensions given), and the node's path.
type formPlace struct {
	name, path string
	// keyed: the node has keys (=keys may stand there).
	keyed bool
	spec  func(node map[string]any) map[string]any
}

var formPlaces = []formPlace{
	{"optional-scalar", "spec.name", false, func(n map[string]any) map[string]any {
		n["type"], n["maxLength"] = "string", int64(64)
		return map[string]any{"name": n}
	}},
	{"item-field", "spec.items[*].value", false, func(n map[string]any) map[string]any {
		n["type"], n["maxLength"] = "string", int64(64)
		return map[string]any{"items": map[string]any{
			"type": "array", "maxItems": int64(8), "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
			"items": map[string]any{"type": "object", "required": []any{"name"},
				"properties": map[string]any{"name": map[string]any{"type": "string", "maxLength": int64(64)}, "value": n}},
		}}
	}},
	{"map", "spec.labels", true, func(n map[string]any) map[string]any {
		n["type"], n["maxProperties"] = "object", int64(8)
		n["additionalProperties"] = map[string]any{"type": "string", "maxLength": int64(64)}
		return map[string]any{"labels": n}
	}},
	{"list-map", "spec.ports", true, func(n map[string]any) map[string]any {
		n["type"], n["maxItems"] = "array", int64(8)
		n["x-kubernetes-list-type"], n["x-kubernetes-list-map-keys"] = "map", []any{"name"}
		n["items"] = map[string]any{"type": "object", "required": []any{"name"},
			"properties": map[string]any{
				"name": map[string]any{"type": "string", "maxLength": int64(64), "x-kubernetes-immutable": true},
				"port": map[string]any{"type": "integer"}}}
		return map[string]any{"ports": n}
	}},
}

// formCRD is a CRD whose node at pl carries the form f (its kind's
// extensions, and ignoreOrder), as extensions or, lowered by the crd
// generator's EmitCEL, as CEL rules.
func formCRD(t *testing.T, pl formPlace, k form.Kind, ignoreOrder, cel bool) string {
	t.Helper()
	node := map[string]any{}
	for _, ext := range k.Extensions {
		node[ext] = true
	}
	if ignoreOrder {
		node[extension.IgnoreOrder] = true
	}
	root := map[string]any{
		"type":       "object",
		"required":   []any{"spec"},
		"properties": map[string]any{"spec": map[string]any{"type": "object", "properties": pl.spec(node)}},
	}
	if cel {
		schema.EmitCEL(schema.FromExtensions(root))
		var strip func(v any)
		strip = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for _, ext := range extension.Names() {
					delete(x, ext)
				}
				for _, e := range x {
					strip(e)
				}
			case []any:
				for _, e := range x {
					strip(e)
				}
			}
		}
		strip(root)
	}
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names":    map[string]any{"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true, "schema": map[string]any{"openAPIV3Schema": root}}},
		},
	}
	b, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// matrixForm is one form of the matrix: a kind (or none) with
// ignoreOrder or without.
type matrixForm struct {
	kind        form.Kind
	ignoreOrder bool
}

func (m matrixForm) String() string {
	if m.ignoreOrder {
		return m.kind.Name + "+ignoreOrder"
	}
	return m.kind.Name
}

// TestEvolveFormMatrix: at each placement (an optional scalar, a field of
// list-map items, a map, a list map), every form of the form table that
// may stand there (and none; on a list map also with ignoreOrder) turned
// into every other, as extensions and as the generator's CEL: a weakening
// wherever the new form allows an update the old one refuses, a
// strengthening wherever the reverse, each with a witness preflight
// confirms, nothing unproven, nothing where the forms are the same.
func TestEvolveFormMatrix(t *testing.T) {
	for _, pl := range formPlaces {
		forms := []matrixForm{{kind: form.Kind{Name: "none"}}}
		for _, k := range form.Kinds() {
			if !k.Places.Properties || k.Places.KeyedOnly && !pl.keyed {
				continue
			}
			forms = append(forms, matrixForm{kind: k})
			if pl.name == "list-map" && k.Change == form.NoChange {
				forms = append(forms, matrixForm{kind: k, ignoreOrder: true})
			}
		}
		for _, cel := range []bool{false, true} {
			mode := "extensions"
			if cel {
				mode = "cel"
			}
			for _, a := range forms {
				for _, b := range forms {
					t.Run(pl.name+"/"+mode+"/"+a.String()+"-to-"+b.String(), func(t *testing.T) {
						dir := t.TempDir()
						base, next := filepath.Join(dir, "base.json"), filepath.Join(dir, "new.json")
						os.WriteFile(base, []byte(formCRD(t, pl, a.kind, a.ignoreOrder, cel)), 0o644)
						os.WriteFile(next, []byte(formCRD(t, pl, b.kind, b.ignoreOrder, cel)), 0o644)
						res, err := Evolve([]string{base}, []string{next})
						if err != nil {
							t.Fatal(err)
						}
						// Each node of the matrix is an optional property:
						// every form means what the table says.
						at := func(m matrixForm) form.Form {
							return form.Form{Presence: m.kind.Presence, Change: m.kind.Change, IgnoreOrder: m.ignoreOrder}
						}
						noWhen := func(string, string) (bool, bool) { return false, false }
						stronger, _ := refusesAtLeast(at(a), at(b), noWhen) // the base refuses all the new one does
						weaker, _ := refusesAtLeast(at(b), at(a), noWhen)
						var want []string
						if !weaker {
							want = append(want, "IG070 "+pl.path)
						}
						if !stronger {
							want = append(want, "IG071 "+pl.path)
						}
						var got []string
						for _, f := range res.Findings {
							if f.ID != IDFloorRaised {
								got = append(got, summary(f))
							}
						}
						if !slices.Equal(got, want) {
							t.Errorf("findings %q, want %q\n%s", got, want, res.Text())
						}
						checkWitnesses(t, res, []string{base}, []string{next})
					})
				}
			}
		}
	}
}

// TestCondRelation: how two conditions of +immutable:when relate, proved
// by evaluation on every case where they read fields compared with
// literals, by their canonical text where they read more, unknown else.
func TestCondRelation(t *testing.T) {
	raw := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"spec": map[string]any{"type": "object", "properties": map[string]any{
				"locked": map[string]any{"type": "boolean"},
				"frozen": map[string]any{"type": "boolean"},
				"mode":   map[string]any{"type": "string"},
			}},
			"status": map[string]any{"type": "object", "properties": map[string]any{
				"conditions": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
					"type": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"}}}},
			}},
		},
	}
	v := &versionInfo{name: "v1", root: schema.FromExtensions(raw), raw: raw}
	vp := versionPair{v, v}
	locked := "has(oldSelf.spec.locked) && oldSelf.spec.locked"
	frozen := "has(oldSelf.spec.frozen) && oldSelf.spec.frozen"
	quota := "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')"
	cases := []struct {
		name          string
		a, b          string
		ab, ba, known bool
	}{
		{"the same", locked, locked, true, true, true},
		{"== true", locked, "has(oldSelf.spec.locked) && oldSelf.spec.locked == true", true, true, true},
		{"operands swapped", locked, "oldSelf.spec.locked && has(oldSelf.spec.locked)", true, true, true},
		{"widened", locked, locked + " || " + frozen, true, false, true},
		{"narrowed", locked + " || " + frozen, locked, false, true, true},
		{"other field", locked, frozen, false, false, true},
		{"a literal", "has(oldSelf.spec.mode) && oldSelf.spec.mode == 'Locked'", "has(oldSelf.spec.mode) && oldSelf.spec.mode != 'Open' && oldSelf.spec.mode == 'Locked'", true, true, true},
		{"in a list of literals", "has(oldSelf.spec.mode) && oldSelf.spec.mode in ['A', 'B']", "has(oldSelf.spec.mode) && (oldSelf.spec.mode == 'B' || oldSelf.spec.mode == 'A')", true, true, true},
		{"self and oldSelf apart", "has(self.spec.locked) && self.spec.locked", locked, false, false, true},
		{"a list, operands swapped", quota, "has(oldSelf.status) && has(oldSelf.status.conditions) && oldSelf.status.conditions.exists(c, c.status == 'True' && c.type == 'QuotaReserved')", true, true, true},
		{"a list, another type", quota, strings.ReplaceAll(quota, "QuotaReserved", "Admitted"), false, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ab, ba, known := condRelation(vp, tc.a, tc.b)
			if ab != tc.ab || ba != tc.ba || known != tc.known {
				t.Errorf("a implies b %v, b implies a %v, known %v; want %v, %v, %v", ab, ba, known, tc.ab, tc.ba, tc.known)
			}
		})
	}
}
