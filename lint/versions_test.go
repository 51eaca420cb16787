package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestVersionSkewFix: the fix of IG017 carries every rule the other
// version has for the field — its own transition rules, and the rules
// above it that keep its presence or its objects' — so that applying it
// (ApplyFix) leaves no IG017 and no finding in the fixed version that the
// other one does not have (issue 31: copying `self == oldSelf` alone left
// an IG010 for each field).
func TestVersionSkewFix(t *testing.T) {
	// version is one version's schema: spec's properties, spec's rules, the
	// root's rules; spec is required unless the root has rules.
	type version struct {
		props     string
		specRules []string
		rootRules []string
		// required are spec's required properties.
		required []string
	}
	rulesJSON := func(rules []string) string {
		var out []string
		for _, r := range rules {
			out = append(out, fmt.Sprintf(`{"rule": %q}`, r))
		}
		return "[" + strings.Join(out, ", ") + "]"
	}
	schemaJSON := func(v version) string {
		required := `"required": ["spec"], `
		if len(v.rootRules) > 0 {
			required = ""
		}
		specRequired, _ := json.Marshal(append([]string{}, v.required...))
		return fmt.Sprintf(`{"openAPIV3Schema": {"type": "object", %s"x-kubernetes-validations": %s, "properties": {
 "spec": {"type": "object", "properties": %s, "required": %s, "x-kubernetes-validations": %s}}}}`, required, rulesJSON(v.rootRules), v.props, specRequired, rulesJSON(v.specRules))
	}
	manifest := func(a, b version) string {
		return fmt.Sprintf(`{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [
   {"name": "v1beta1", "served": true, "storage": false, "schema": %s},
   {"name": "v1", "served": true, "storage": true, "schema": %s}]}}`, schemaJSON(b), schemaJSON(a))
	}
	size := func(rules ...string) string {
		return fmt.Sprintf(`{"size": {"type": "integer", "x-kubernetes-validations": %s}, "other": {"type": "string", "maxLength": 8}}`, rulesJSON(rules))
	}
	plain := version{props: size()}
	for _, tc := range []struct {
		name string
		// a is v1, where size is immutable; b is v1beta1, where it is not.
		a, b version
		// fix is what the IG017 fix says.
		fix string
	}{
		{
			name: "immutable with its presence rule on spec",
			a:    version{props: size("self == oldSelf"), specRules: []string{"has(self.size) == has(oldSelf.size)"}},
			b:    plain,
			fix:  "in v1beta1, as in v1, add the rule `self == oldSelf` to the x-kubernetes-validations of spec.size and the rule `has(self.size) == has(oldSelf.size)` to the x-kubernetes-validations of spec (or stop serving v1beta1)",
		},
		{
			name: "set once: the set-once presence rule is carried",
			a:    version{props: size("self == oldSelf"), specRules: []string{"!has(oldSelf.size) || has(self.size)"}},
			b:    plain,
			fix:  "the rule `!has(oldSelf.size) || has(self.size)` to the x-kubernetes-validations of spec",
		},
		{
			name: "an optional spec kept by a rule on the root",
			a:    version{props: size("self == oldSelf"), specRules: []string{"has(self.size) == has(oldSelf.size)"}, rootRules: []string{"has(self.spec) == has(oldSelf.spec)"}},
			b:    version{props: size(), rootRules: []string{"has(self.spec) == has(oldSelf.spec) || true"}},
			fix:  "the rule `has(self.spec) == has(oldSelf.spec)` to the x-kubernetes-validations of the root schema",
		},
		{
			name: "the other version has the presence rule already: only the immutability rule",
			a:    version{props: size("self == oldSelf"), specRules: []string{"has(self.size) == has(oldSelf.size)"}},
			b:    version{props: size(), specRules: []string{"has(self.size) == has(oldSelf.size)"}},
			fix:  "in v1beta1, as in v1, add the rule `self == oldSelf` to the x-kubernetes-validations of spec.size (or stop serving v1beta1)",
		},
		{
			name: "a rule above about another field is not carried",
			a:    version{props: size("self == oldSelf"), specRules: []string{"has(self.size) == has(oldSelf.size)", "!has(self.other) || self.other.size() > 1"}},
			b:    plain,
			fix:  "in v1beta1, as in v1, add the rule `self == oldSelf` to the x-kubernetes-validations of spec.size and the rule `has(self.size) == has(oldSelf.size)` to the x-kubernetes-validations of spec (or stop serving v1beta1)",
		},
		{
			name: "a presence rule reaching the field from the root",
			a:    version{props: size("self == oldSelf"), rootRules: []string{"has(self.spec) == has(oldSelf.spec)", "!has(self.spec) || has(self.spec.size) == has(oldSelf.spec.size)"}},
			b:    version{props: size(), rootRules: []string{"has(self.spec) == has(oldSelf.spec)"}},
			fix:  "in v1beta1, as in v1, add the rule `self == oldSelf` to the x-kubernetes-validations of spec.size and the rule `!has(self.spec) || has(self.spec.size) == has(oldSelf.spec.size)` to the x-kubernetes-validations of the root schema (or stop serving v1beta1)",
		},
		{
			name: "required in the other version: a presence rule keeps it",
			a:    version{props: size("self == oldSelf"), required: []string{"size"}},
			b:    plain,
			fix:  "in v1beta1, as in v1, add the rule `self == oldSelf` to the x-kubernetes-validations of spec.size and the rule `has(self.size) == has(oldSelf.size)` to the x-kubernetes-validations of spec (the presence rules stand for spec.size, required or defaulted in v1: or make them so in v1beta1; or stop serving v1beta1)",
		},
		{
			name: "spec required in the other version, optional here",
			a:    version{props: size("self == oldSelf"), specRules: []string{"has(self.size) == has(oldSelf.size)"}},
			b:    version{props: size(), rootRules: []string{"true"}},
			fix:  "the rule `has(self.spec) == has(oldSelf.spec)` to the x-kubernetes-validations of the root schema (the presence rules stand for spec, required or defaulted in v1",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := manifest(tc.a, tc.b)
			res, err := Manifest("crd.json", []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			byVersion := func(res Result) map[string][]string {
				out := map[string][]string{}
				for _, f := range res.Findings {
					out[f.Version] = append(out[f.Version], string(f.ID)+" "+f.Path)
				}
				return out
			}
			var obj map[string]any
			if err := json.Unmarshal([]byte(src), &obj); err != nil {
				t.Fatal(err)
			}
			skew := 0
			for _, f := range res.Findings {
				if f.ID != IDVersionSkew {
					continue
				}
				skew++
				if f.Version != "v1beta1" || f.Path != "spec.size" || !strings.Contains(f.Fix, tc.fix) {
					t.Errorf("IG017 %s %s, fix %q, want it to hold %q", f.Version, f.Path, f.Fix, tc.fix)
				}
				if !ApplyFix(obj, f) {
					t.Fatalf("the fix does not apply: %s", f.Fix)
				}
			}
			if skew != 1 {
				t.Fatalf("%d IG017, want 1: %v", skew, byVersion(res))
			}
			fixed, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			after, err := Manifest("fixed.json", fixed)
			if err != nil {
				t.Fatal(err)
			}
			got := byVersion(after)
			if !slices.Equal(got["v1beta1"], got["v1"]) || len(got[""]) > 0 {
				t.Errorf("after the fix, v1beta1 has %q, v1 %q, the CRD %q: want the same findings in both versions", got["v1beta1"], got["v1"], got[""])
			}
		})
	}
}
