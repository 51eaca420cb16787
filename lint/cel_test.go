package lint

import (
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
  "versions": [{"name": "v1", "served": true, "storage": true, "schema": {"openAPIV3Schema": {"type": "object", "properties": {
   "spec": {"type": "object", "properties": %s, "required": %s, "x-kubernetes-validations": [%s]}}}}}]}}`,
		props, req, strings.Join(rules, ", "))
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
		out = append(out, f.ID+" "+f.Path)
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
		want     string // "" clean, else the finding's ID
	}{
		{name: "no presence rule", guard: "self == oldSelf", want: IDPresence},
		{name: "reversed equality", guard: "oldSelf == self", want: IDPresence},
		{name: "guard in a conjunction", guard: "self.size() > 0 && self == oldSelf", want: IDPresence},
		{name: "negated inequality", guard: "!(self != oldSelf)", want: IDPresence},
		{name: "not a guard: monotonic", guard: "self >= oldSelf"},
		{name: "not a guard: disjunction", guard: "self == oldSelf || self.startsWith('x')"},
		{name: "not a guard: rejects everything", guard: "self == oldSelf && false"},
		{name: "not a guard: not boolean (and refused)", guard: "oldSelf", want: IDRuleInvalid},
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
			var want []string
			if tc.want != "" {
				want = []string{tc.want + " spec.name"}
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
		"!oldSelf.hasValue() || self == oldSelf.value()": {IDPresence + " spec.name"},
		// Rejects whenever there is no old value: no adding, but removable.
		"oldSelf.hasValue() && self == oldSelf.value()": {IDPresence + " spec.name"},
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

// TestPresenceNested: rules further up count, and fields under optional
// parents are not findings when their parent's presence is what varies.
func TestPresenceNested(t *testing.T) {
	props := `{"parent": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 10, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}`
	if got := findings(t, crdWith(props, nil)); !slices.Equal(got, []string{IDPresence + " spec.parent.name"}) {
		t.Errorf("no rule: got %q", got)
	}
	// A presence rule on spec for the grandchild, with the parent present.
	rule := "!has(self.parent) || !has(oldSelf.parent) || has(self.parent.name) == has(oldSelf.parent.name)"
	if got := findings(t, crdWith(props, []string{rule})); len(got) != 0 {
		t.Errorf("rule on the grandparent: got %q", got)
	}
	// A default keeps the field present.
	defaulted := strings.Replace(props, `"maxLength": 10,`, `"maxLength": 10, "default": "x",`, 1)
	if got := findings(t, crdWith(defaulted, nil)); len(got) != 0 {
		t.Errorf("defaulted: got %q", got)
	}
}

func TestListMapOrder(t *testing.T) {
	list := `{"ports": {"type": "array", "maxItems": 4, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
 "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "maxLength": 8}}},
 "x-kubernetes-validations": [{"rule": %q}]}}`
	for rule, want := range map[string][]string{
		"self == oldSelf": {IDListMapOrder + " spec.ports"},
		"oldSelf == self": {IDListMapOrder + " spec.ports"},
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
	if got := findings(t, crdWith(nested, nil, "net")); !slices.Equal(got, []string{IDListMapOrder + " spec.net"}) {
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
			t.Fatal(err)
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
