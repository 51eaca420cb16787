package lint

import (
	"cmp"
	"os"
	"path/filepath"

	"github.com/immutable-gen/immutable-gen/diag"

	"fmt"
	"slices"
	"strings"
	"testing"
)

// crdWith returns a CRD whose spec has the given properties (JSON) and
// rules (JSON strings), and required fields.
func crdWith(props string, specRules []string, required ...string) string {
	var rules []string
	for _, r := range specRules {
		rules = append(rules, fmt.Sprintf(`{"rule": %q}`, r))
	}
	req := "[]"
	if len(required) > 0 {
		req = `["` + strings.Join(required, `","`) + `"]`
	}
	return fmt.Sprintf(`{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "properties": {
   "spec": {"type": "object", "properties": %s, "required": %s, "x-kubernetes-validations": [%s]}}}}}]}}`,
		props, req, strings.Join(rules, ", "))
}

// optionalSpec makes spec optional in a manifest of crdWith, and adds the
// rules to the root.
func optionalSpec(manifest string, rootRules ...string) string {
	var rules []string
	for _, r := range rootRules {
		rules = append(rules, fmt.Sprintf(`{"rule": %q}`, r))
	}
	return strings.Replace(manifest, `"required": ["spec"],`, `"x-kubernetes-validations": [`+strings.Join(rules, ", ")+`],`, 1)
}

// findings lints the manifest and returns "ID path" per finding.
func findings(t *testing.T, manifest string) []string {
	t.Helper()
	res, err := Manifest("crd.json", []byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		out = append(out, string(f.ID)+" "+f.Path)
	}
	return out
}

const immutableName = `{"name": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": %q}]},
 "profile": {"type": "string", "maxLength": 10}, "other": {"type": "string", "maxLength": 10}}`

// TestPresence checks which rules on the parent make an optional field
// guarded by an immutability rule safe, immutable once set, or removable.
func TestPresence(t *testing.T) {
	cases := []struct {
		name     string
		guard    string
		rules    []string
		required []string
		want     diag.ID // "" clean, else the finding's ID
	}{
		{name: "no presence rule", guard: "self == oldSelf", want: IDPresence},
		{name: "reversed equality", guard: "oldSelf == self", want: IDPresence},
		{name: "guard in a conjunction", guard: "self.size() > 0 && self == oldSelf", want: IDPresence},
		{name: "negated inequality", guard: "!(self != oldSelf)", want: IDPresence},
		// Any transition rule is gone around by removing the field and
		// adding it back (issue 23): not immutability rules, but holes all the same.
		{name: "not a guard: monotonic", guard: "self >= oldSelf", want: IDPresence},
		// Ratcheting: IG037 says it never runs without an old value, not a
		// presence hole (issue 31).
		{name: "not a guard: disjunction", guard: "self == oldSelf || self.startsWith('x')", want: IDRatcheting},
		{name: "not a guard: rejects everything", guard: "self == oldSelf && false", want: IDPresence},
		{name: "not a guard: monotonic, presence kept", guard: "self >= oldSelf", rules: []string{"has(self.name) == has(oldSelf.name)"}},
		{name: "not a guard: set once", guard: "self >= oldSelf", rules: []string{"!has(oldSelf.name) || has(self.name)"}},
		{name: "required", guard: "self == oldSelf", required: []string{"name"}},
		{name: "presence rule", guard: "self == oldSelf", rules: []string{"has(self.name) == has(oldSelf.name)"}},
		{name: "presence rule reversed", guard: "self == oldSelf", rules: []string{"has(oldSelf.name) == has(self.name)"}},
		{name: "presence rule in a conjunction", guard: "self == oldSelf", rules: []string{"self.other != 'x' && has(self.name) == has(oldSelf.name)"}},
		{name: "presence rule as a ternary", guard: "self == oldSelf", rules: []string{"has(oldSelf.name) ? has(self.name) : !has(self.name)"}},
		{name: "presence of another field", guard: "self == oldSelf", rules: []string{"has(self.other) == has(oldSelf.other)"}, want: IDPresence},
		{name: "once set (controller-gen +k8s:immutable)", guard: "self == oldSelf", rules: []string{"!has(oldSelf.name) || has(self.name)"}, want: IDOnceSet},
		{name: "once set, written the other way", guard: "self == oldSelf", rules: []string{"has(self.name) || !has(oldSelf.name)"}, want: IDOnceSet},
		{name: "never added, but removable", guard: "self == oldSelf", rules: []string{"!has(self.name) || has(oldSelf.name)"}, want: IDPresence},
		{name: "both halves in two rules", guard: "self == oldSelf", rules: []string{"!has(oldSelf.name) || has(self.name)", "!has(self.name) || has(oldSelf.name)"}},
		{
			name: "exactly one of two, and no switching (Karpenter's role/instanceProfile)", guard: "self == oldSelf",
			rules: []string{
				"(has(self.name) && !has(self.profile)) || (!has(self.name) && has(self.profile))",
				"(has(oldSelf.name) && has(self.name)) || (has(oldSelf.profile) && has(self.profile))",
			},
		},
		{name: "exactly one of two alone", guard: "self == oldSelf", rules: []string{"(has(self.name) && !has(self.profile)) || (!has(self.name) && has(self.profile))"}, want: IDPresence},
		{name: "no switching alone", guard: "self == oldSelf", rules: []string{"(has(oldSelf.name) && has(self.name)) || (has(oldSelf.profile) && has(self.profile))"}, want: IDPresence},
		{name: "comparing the values on the parent errors when absent", guard: "self == oldSelf", rules: []string{"self.name == oldSelf.name"}},
		{name: "a rule the analysis does not model", guard: "self == oldSelf", rules: []string{"[has(self.name), has(oldSelf.name)].all(b, b)"}, want: IDPresence},
		{name: "must be set on create too: self-only rule", guard: "self == oldSelf", rules: []string{"has(self.name)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findings(t, crdWith(fmt.Sprintf(immutableName, tc.guard), tc.rules, tc.required...))
			// IG038 on spec (a rule reading an optional name without has())
			// is TestAbsentError's.
			got = slices.DeleteFunc(got, func(s string) bool {
				return strings.HasPrefix(s, string(IDRuleInvalid)) || strings.HasPrefix(s, string(IDAbsentError))
			})
			var want []string
			if tc.want != "" {
				want = []string{string(tc.want) + " spec.name"}
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// TestOptionalOldSelf: a guard with optionalOldSelf runs when the field is
// added, so it can forbid that.
func TestOptionalOldSelf(t *testing.T) {
	props := `{"name": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": %q, "optionalOldSelf": true}]}}`
	for guard, want := range map[string][]string{
		// Runs on add with oldSelf none: accepts, so the field can be added
		// (and removed: the rule does not run without self).
		"!oldSelf.hasValue() || self == oldSelf.value()": {string(IDPresence) + " spec.name"},
		// Rejects whenever there is no old value: no adding, but removable.
		"oldSelf.hasValue() && self == oldSelf.value()": {string(IDPresence) + " spec.name"},
	} {
		got := findings(t, crdWith(fmt.Sprintf(props, guard), nil))
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", guard, got, want)
		}
	}
	// With the removal forbidden on the parent, the second form is complete.
	got := findings(t, crdWith(fmt.Sprintf(props, "oldSelf.hasValue() && self == oldSelf.value()"), []string{"!has(oldSelf.name) || has(self.name)"}))
	if len(got) != 0 {
		t.Errorf("got %q, want nothing", got)
	}
}

// TestPresenceNested: rules further up count; the optional parent is a
// cause of its own (IG018: it can be removed and added back with another
// immutable name), reported once, beside the field's own.
func TestPresenceNested(t *testing.T) {
	props := `{"parent": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}`
	if got := findings(t, crdWith(props, nil)); !slices.Equal(got, []string{string(IDOptionalObject) + " spec.parent", string(IDPresence) + " spec.parent.name"}) {
		t.Errorf("no rule: got %q", got)
	}
	// A presence rule on spec for the grandchild, with the parent present.
	rule := "!has(self.parent) || !has(oldSelf.parent) || has(self.parent.name) == has(oldSelf.parent.name)"
	if got := findings(t, crdWith(props, []string{rule})); !slices.Equal(got, []string{string(IDOptionalObject) + " spec.parent"}) {
		t.Errorf("rule on the grandparent: got %q", got)
	}
	// A default keeps the field present.
	defaulted := strings.Replace(props, `"maxLength": 10,`, `"maxLength": 10, "default": "x",`, 1)
	if got := findings(t, crdWith(defaulted, nil)); !slices.Equal(got, []string{string(IDOptionalObject) + " spec.parent"}) {
		t.Errorf("defaulted: got %q", got)
	}
	// The parent's presence kept too: clean.
	kept := []string{rule, "has(self.parent) == has(oldSelf.parent)"}
	if got := findings(t, crdWith(props, kept)); len(got) != 0 {
		t.Errorf("parent kept: got %q", got)
	}
}

func TestListMapOrder(t *testing.T) {
	list := `{"ports": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
 "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 8}}},
 "x-kubernetes-validations": [{"rule": %q}]}}`
	for rule, want := range map[string][]string{
		"self == oldSelf": {string(IDListMapOrder) + " spec.ports"},
		"oldSelf == self": {string(IDListMapOrder) + " spec.ports"},
		// The order is compared too (or may be): not reported.
		"self == oldSelf && self.all(i, x, x.name == oldSelf[i].name)": nil,
	} {
		got := findings(t, crdWith(fmt.Sprintf(list, rule), nil, "ports"))
		if !slices.Equal(got, want) {
			t.Errorf("%s: got %q, want %q", rule, got, want)
		}
	}
	// A list map inside an object compared with ==.
	nested := `{"net": {"type": "object", "x-kubernetes-validations": [{"rule": "self == oldSelf"}], "properties": {"ports": {"type": "array", "maxItems": 4,
 "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
 "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 8}}}}}}}`
	if got := findings(t, crdWith(nested, nil, "net")); !slices.Equal(got, []string{string(IDListMapOrder) + " spec.net"}) {
		t.Errorf("nested: got %q", got)
	}
}

// FuzzRules: any rule text, on a field or on its object, lints without
// panicking, and a rule on the field that is not an immutability rule never
// produces a presence finding.
func FuzzRules(f *testing.F) {
	for _, r := range []string{
		"self == oldSelf", "has(self.name) == has(oldSelf.name)", "!has(oldSelf.name) || has(self.name)",
		"oldSelf.hasValue() ? self == oldSelf.value() : true", "self.?name.orValue('') == ''",
		"self.all(i, x, i >= oldSelf.size() || x == oldSelf[i])", "has(self.name.x)", "(", "self == oldSelf ? 1 : true",
	} {
		f.Add(r, r)
	}
	f.Fuzz(func(t *testing.T, fieldRule, parentRule string) {
		res, err := Manifest("crd.json", []byte(crdWith(fmt.Sprintf(immutableName, fieldRule), []string{parentRule})))
		if err != nil {
			return // Go's %q is not JSON for every string (\x00): not a CRD
		}
		for _, f := range res.Findings {
			if f.ID != IDPresence && f.ID != IDOnceSet {
				continue
			}
			if rule := map[string]string{"spec.name": fieldRule, "spec": parentRule}[f.Path]; !strings.Contains(rule, "oldSelf") {
				t.Errorf("%s without an oldSelf rule at %s: %s", f.ID, f.Path, f)
			}
		}
	})
}

// TestOptionalAncestor: a field under an optional spec that nothing keeps
// can be changed by removing spec and adding it back (IG013, once at spec,
// beside the field's own IG010 or IG011); a deeper optional object is a
// cause too (IG018 when only immutability rules are below it, IG013 for
// any other transition rule); list items come and go by key.
func TestOptionalAncestor(t *testing.T) {
	name := fmt.Sprintf(immutableName, "self == oldSelf")
	cases := []struct {
		name     string
		manifest string
		want     []string
	}{
		{"required field, optional spec", optionalSpec(crdWith(name, nil, "name")), []string{string(IDOptionalAncestor) + " spec"}},
		{"presence rule, optional spec", optionalSpec(crdWith(name, []string{"has(self.name) == has(oldSelf.name)"})), []string{string(IDOptionalAncestor) + " spec"}},
		{"required spec", crdWith(name, nil, "name"), nil},
		{"presence rule on the root", optionalSpec(crdWith(name, nil, "name"), "has(self.spec) == has(oldSelf.spec)"), nil},
		{"set-once rule on the root", optionalSpec(crdWith(name, nil, "name"), "!has(oldSelf.spec) || has(self.spec)"), nil},
		{"rule on the root that forbids only adding", optionalSpec(crdWith(name, nil, "name"), "!has(self.spec) || has(oldSelf.spec)"), []string{string(IDOptionalAncestor) + " spec"}},
		// Two causes, two findings: the field's own presence, and spec's.
		{"optional field without presence rule", optionalSpec(crdWith(name, nil)), []string{string(IDOptionalAncestor) + " spec", string(IDPresence) + " spec.name"}},
		{"once set field", optionalSpec(crdWith(name, []string{"!has(oldSelf.name) || has(self.name)"})), []string{string(IDOptionalAncestor) + " spec", string(IDOnceSet) + " spec.name"}},
		{
			"optional object in between",
			optionalSpec(crdWith(`{"backup": {"type": "object", "required": ["bucket"], "properties": {"bucket": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}`, nil)),
			[]string{string(IDOptionalAncestor) + " spec", string(IDOptionalObject) + " spec.backup"},
		},
		{
			"optional object in between, required spec",
			crdWith(`{"backup": {"type": "object", "required": ["bucket"], "properties": {"bucket": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}`, nil),
			[]string{string(IDOptionalObject) + " spec.backup"},
		},
		{
			"optional object in between, a rule that is not an immutability rule",
			crdWith(`{"backup": {"type": "object", "required": ["generation"], "properties": {"generation": {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= oldSelf", "message": "cannot be decreased"}]}}}}`, nil),
			[]string{string(IDOptionalAncestor) + " spec.backup"},
		},
		{
			"required object in between",
			optionalSpec(crdWith(`{"backup": {"type": "object", "required": ["bucket"], "properties": {"bucket": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}`, nil, "backup")),
			[]string{string(IDOptionalAncestor) + " spec"},
		},
		{
			"list map items in between",
			optionalSpec(crdWith(`{"ports": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
 "items": {"type": "object", "required": ["name", "port"], "properties": {"name": {"type": "string", "maxLength": 8}, "port": {"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}`, nil, "ports")),
			nil,
		},
		{"the rule on spec itself: IG010", optionalSpec(crdWith(`{}`, []string{"self == oldSelf"})), []string{string(IDPresence) + " spec"}},
		{"an index-by-index list rule: emptying is allowed anyway", crdWith(`{"args": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 8}, "x-kubernetes-validations": [{"rule": "self.all(i, x, i >= oldSelf.size() || x == oldSelf[i])"}]}}`, nil), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := findings(t, tc.manifest); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The finding names the ancestor and the fixes.
	res, err := Manifest("crd.json", []byte(optionalSpec(crdWith(name, nil, "name"))))
	if err != nil || len(res.Findings) != 1 {
		t.Fatalf("%v %v", res.Findings, err)
	}
	f := res.Findings[0]
	for _, want := range []string{"spec is optional and nothing compares its presence", "removed and added back", "`self == oldSelf` on spec.name", "make spec required", "`has(self.spec) == has(oldSelf.spec)`", "`!has(oldSelf.spec) || has(self.spec)`"} {
		if !strings.Contains(f.Message+f.Fix, want) {
			t.Errorf("%s: no %q", f, want)
		}
	}
}

// TestSetOnceIntent: an immutability rule whose message says "once set"
// gets the set-once fix, and with its set-once presence rule it is clean.
func TestSetOnceIntent(t *testing.T) {
	props := `{"name": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": %q}]}}`
	for _, tc := range []struct {
		message string
		rules   []string
		want    diag.ID // "" clean
		fix     string
	}{
		{message: "name cannot be changed once set", want: IDPresence, fix: "add the rule `!has(oldSelf.name) || has(self.name)` to the x-kubernetes-validations of spec (name may then be set after creation, never removed"},
		{message: "name is immutable once set", want: IDPresence, fix: "name may then be set after creation, never removed"},
		{message: "Value is immutable once it is set", want: IDPresence, fix: "name may then be set after creation, never removed"},
		{message: "may be set once", want: IDPresence, fix: "name may then be set after creation, never removed"},
		{message: "cannot change after it is set", want: IDPresence, fix: "name may then be set after creation, never removed"},
		{message: "name is immutable", want: IDPresence, fix: "`has(self.name) == has(oldSelf.name)`"},
		{message: "name is immutable once set", rules: []string{"!has(oldSelf.name) || has(self.name)"}},
		{message: "name is immutable once set", rules: []string{"has(self.name) || !has(oldSelf.name)"}},
		{message: "name is immutable once set", rules: []string{"has(self.name) == has(oldSelf.name)"}},
		// controller-gen's +k8s:immutable: the field's rule says "field is
		// immutable", only the parent's says "once set": still IG011.
		{message: "field is immutable", rules: []string{"!has(oldSelf.name) || has(self.name)"}, want: IDOnceSet},
	} {
		t.Run(tc.message+" "+strings.Join(tc.rules, ","), func(t *testing.T) {
			res, err := Manifest("crd.json", []byte(crdWith(fmt.Sprintf(props, tc.message), tc.rules)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, string(f.ID))
				if tc.fix != "" && !strings.Contains(f.Fix, tc.fix) {
					t.Errorf("fix %q, want it to hold %q", f.Fix, tc.fix)
				}
			}
			var want []string
			if tc.want != "" {
				want = []string{string(tc.want)}
			}
			if !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// TestDescribedOnly: descriptions that promise immutability with nothing
// enforcing it are info (IG014); Kubernetes' own texts, rules below the
// field, and subjects other than the field are not.
func TestDescribedOnly(t *testing.T) {
	field := `{%q: {"type": "string", "maxLength": 10, "description": %q%s}}`
	for _, tc := range []struct {
		name, field, desc, rules string
		specRules                []string
		want                     bool
	}{
		{name: "this field is immutable", desc: "Ref names it. This field is immutable.", want: true},
		{name: "Immutable alone", desc: "Immutable.", want: true},
		{name: "Immutable on a line of its own (controller-gen's layout)", desc: "DNSPrefix allows the user to customize dns prefix.\nImmutable.", want: true},
		{name: "Immutable after a line without a period", desc: "The name of the resource group\nImmutable.", want: true},
		{name: "Immutable opening a sentence mid-line", desc: "The region. Immutable, populated at creation.", want: true},
		{name: "immutable once set", desc: "The value is immutable once set.", want: true},
		{name: "cannot be changed after", desc: "It cannot be changed after creation.", want: true},
		{name: "the field's name as the subject", field: "region", desc: "The region is immutable.", want: true},
		{name: "Kubernetes' Cannot be updated", desc: "Cannot be updated."},
		{name: "not a promise", desc: "Mutable; see immutableRef."},
		{name: "another subject: a boolean switch", desc: "If true, the resulting Secret will be immutable."},
		{name: "Kubernetes' own text (PodSpec resources.claims)", field: "claims", desc: "Claims lists the names of resources.\n\nThis field is immutable. It can only be set for containers."},
		{name: "Kubernetes' own text (Job managedBy)", field: "managedBy", desc: "ManagedBy field indicates the controller that manages a Job.\n\nThis field is immutable."},
		{name: "the same sentence on a field of another name", field: "owner", desc: "This field is immutable.", want: true},
		{name: "a rule on the field", desc: "This field is immutable.", rules: `, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]`},
		{name: "a rule above naming it", desc: "This field is immutable.", specRules: []string{"!has(oldSelf.ref) || self.ref == oldSelf.ref"}},
		{name: "an extension on it", desc: "This field is immutable.", rules: `, "x-kubernetes-immutable": true`},
		{name: "all of spec immutable", desc: "This field is immutable.", specRules: []string{"self == oldSelf"}},
		{name: "no-modify on it (immutable while set)", desc: "This field is immutable while set.", rules: `, "x-immutable-gen-no-modify": true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := cmp.Or(tc.field, "ref")
			got := findings(t, crdWith(fmt.Sprintf(field, name, tc.desc, tc.rules), tc.specRules, name))
			got = slices.DeleteFunc(got, func(s string) bool { return !strings.HasPrefix(s, string(IDDescribedOnly)) })
			if (len(got) == 1 && got[0] == string(IDDescribedOnly)+" spec."+name) != tc.want || len(got) > 1 {
				t.Errorf("got %q, want IG014: %v", got, tc.want)
			}
		})
	}
	// A rule below the field: a map whose values are immutable.
	m := `{"labels": {"type": "object", "description": "Labels are immutable.", "maxProperties": 4, "additionalProperties": {"type": "string", "maxLength": 8, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}`
	if got := findings(t, crdWith(m, nil, "labels")); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, string(IDDescribedOnly)) }) {
		t.Errorf("rule below: got %q", got)
	}
}

// TestSilence: an annotation on the CRD silences an ID for the whole CRD;
// a config file silences an ID by CRD and path; both are counted.
func TestSilence(t *testing.T) {
	manifest := crdWith(`{"ref": {"type": "string", "maxLength": 10, "description": "This field is immutable."}, "other": {"type": "string", "maxLength": 10, "description": "Immutable."}}`, nil)
	if got := findings(t, manifest); len(got) != 2 {
		t.Fatalf("got %q, want two IG014", got)
	}
	annotated := strings.Replace(manifest, `"metadata": {"name": "widgets.example.com"}`, `"metadata": {"name": "widgets.example.com", "annotations": {"ignore-check.immutable-gen.io/IG014": "the webhook enforces it"}}`, 1)
	res, err := Manifest("crd.json", []byte(annotated))
	if err != nil || len(res.Findings) != 0 || res.Silenced != 2 {
		t.Errorf("annotation: %v %v, %d silenced", res.Findings, err, res.Silenced)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "lint.yaml")
	crd := filepath.Join(dir, "crd.json")
	os.WriteFile(cfg, []byte("ignore:\n- id: IG014\n  crd: widgets.example.com\n  path: spec.ref\n  reason: the webhook enforces it\n"), 0o644)
	os.WriteFile(crd, []byte(manifest), 0o644)
	opts, err := ReadConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err = FilesWithOptions([]string{crd}, opts)
	if err != nil || len(res.Findings) != 1 || res.Findings[0].Path != "spec.other" || res.Silenced != 1 {
		t.Errorf("config: %v %v, %d silenced", res.Findings, err, res.Silenced)
	}
	os.WriteFile(cfg, []byte("ignore:\n- id: IG014\n"), 0o644)
	if _, err := ReadConfig(cfg); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("no reason: %v", err)
	}
}

// TestCorrelatedConditions: a rule that compares a field under a condition
// is not gone around when another rule keeps the field's presence under
// the same condition (Kueue's ResourceFlavor nodeLabels while topologyName
// is set; Workload priorityClassRef while quota is reserved, a condition
// the interpreter does not model, shared by the rules that hold it); it is
// when nothing keeps the presence under that condition.
func TestCorrelatedConditions(t *testing.T) {
	props := `{"topologyName": {"type": "string", "maxLength": 10}, "nodeLabels": {"type": "string", "maxLength": 10},
 "ref": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10}}},
 "conditions": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 10}}}`
	cond := "(has(oldSelf.conditions) && oldSelf.conditions.exists(c, c == 'Reserved'))"
	for _, tc := range []struct {
		name  string
		rules []string
		want  []string
	}{
		{"presence and value under one presence condition", []string{"!has(oldSelf.topologyName) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && (!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))"}, nil},
		{"value only where present on both sides", []string{"!has(oldSelf.topologyName) || !has(self.nodeLabels) || !has(oldSelf.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels"}, []string{"IG010 spec.nodeLabels"}},
		{
			"presence and value under one opaque condition, in two rules",
			[]string{cond + " ? ((has(oldSelf.ref) && has(self.ref)) || (!has(oldSelf.ref) && !has(self.ref))) : true",
				"(" + cond + " && has(oldSelf.ref) && has(self.ref)) ? oldSelf.ref.name == self.ref.name : true"},
			nil,
		},
		{
			"value under an opaque condition, nothing keeps the presence",
			[]string{"(" + cond + " && has(oldSelf.ref) && has(self.ref)) ? oldSelf.ref.name == self.ref.name : true"},
			[]string{"IG010 spec.ref"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := findings(t, crdWith(props, tc.rules))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestStatusPresenceFix: at status, which the status subresource drops on
// create, the only fix is keeping it once set (placement.PresenceFix):
// never `required` nor the strict presence rule; and the set-once pair is
// clean there, as nothing else works.
func TestStatusPresenceFix(t *testing.T) {
	manifest := func(statusRule string, rootRules ...string) string {
		var rules []string
		for _, r := range rootRules {
			rules = append(rules, fmt.Sprintf(`{"rule": %q}`, r))
		}
		return fmt.Sprintf(`{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
 "metadata": {"name": "widgets.example.com"},
 "spec": {"group": "example.com", "scope": "Namespaced",
  "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
  "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}, "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "x-kubernetes-validations": [%s], "properties": {
   "spec": {"type": "object"},
   "status": {"type": "object", "x-kubernetes-validations": [{"rule": %q}], "properties": {"id": {"type": "string", "maxLength": 8}}}}}}}]}}`,
			strings.Join(rules, ", "), statusRule)
	}
	for _, tc := range []struct {
		name     string
		manifest string
		want     []string // "ID path"
		fix      string   // in the fix of every finding
	}{
		{"immutable status, nothing keeps it", manifest("self == oldSelf"), []string{"IG010 status"}, "add the rule `!has(oldSelf.status) || has(self.status)` to the x-kubernetes-validations of the root schema"},
		{"a rule under status, nothing keeps it", manifest("has(self.id) == has(oldSelf.id) && (!has(self.id) || self.id == oldSelf.id)"), []string{"IG013 status"}, "add the rule `!has(oldSelf.status) || has(self.status)` to the x-kubernetes-validations of the root schema"},
		{"immutable status kept once set", manifest("self == oldSelf", "!has(oldSelf.status) || has(self.status)"), nil, ""},
		{"a rule under status, status kept once set", manifest("has(self.id) == has(oldSelf.id) && (!has(self.id) || self.id == oldSelf.id)", "!has(oldSelf.status) || has(self.status)"), nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Manifest("crd.json", []byte(tc.manifest))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				got = append(got, string(f.ID)+" "+f.Path)
				if !strings.Contains(f.Fix, tc.fix) {
					t.Errorf("%s: fix %q, want it to hold %q", f.ID, f.Fix, tc.fix)
				}
				for _, not := range []string{"or make status required", "add the rule `has(self.status) == has(oldSelf.status)`"} {
					if strings.Contains(f.Fix, not) {
						t.Errorf("%s: the fix offers %q: %s", f.ID, not, f.Fix)
					}
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
}
