package lint

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// TestJSONRules: -o json lists every rule a cause goes around, each at its
// node's path, where the text message names three and "N more" (issue
// 31); the rules lint suggests as a fix say for which finding.
func TestJSONRules(t *testing.T) {
	immutable := func(names ...string) string {
		var props []string
		for _, n := range names {
			props = append(props, fmt.Sprintf(`%q: {"type": "string", "maxLength": 8, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}`, n))
		}
		return "{" + strings.Join(props, ", ") + "}"
	}
	for _, tc := range []struct {
		name     string
		manifest string
		// path and id of the finding checked; rules its JSON lists.
		path  string
		id    diag.ID
		more  string // in the message, when it names only three
		rules []diag.RuleAt
	}{
		{
			name:     "an optional spec around five rules: all five",
			manifest: optionalSpec(crdWith(immutable("a", "b", "c", "d", "e"), nil, "a", "b", "c", "d", "e")),
			path:     "spec", id: IDOptionalAncestor, more: "2 more",
			rules: []diag.RuleAt{
				{Path: "spec.a", Rule: "self == oldSelf"}, {Path: "spec.b", Rule: "self == oldSelf"}, {Path: "spec.c", Rule: "self == oldSelf"},
				{Path: "spec.d", Rule: "self == oldSelf"}, {Path: "spec.e", Rule: "self == oldSelf"},
			},
		},
		{
			name:     "a field's own IG010 names its rule",
			manifest: crdWith(immutable("a"), nil),
			path:     "spec.a", id: IDPresence,
			rules: []diag.RuleAt{{Path: "spec.a", Rule: "self == oldSelf"}},
		},
		{
			name:     "a field compared from above",
			manifest: crdWith(`{"a": {"type": "string", "maxLength": 8}}`, []string{"!has(self.a) || !has(oldSelf.a) || self.a == oldSelf.a"}),
			path:     "spec.a", id: IDPresence,
			rules: []diag.RuleAt{{Path: "spec", Rule: "!has(self.a) || !has(oldSelf.a) || self.a == oldSelf.a"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Manifest("crd.json", []byte(tc.manifest))
			if err != nil {
				t.Fatal(err)
			}
			b, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Findings []struct {
					Path, ID, Message string
					Rules             []diag.RuleAt
				}
			}
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			i := slices.IndexFunc(out.Findings, func(f struct {
				Path, ID, Message string
				Rules             []diag.RuleAt
			}) bool {
				return f.Path == tc.path && f.ID == string(tc.id)
			})
			if i < 0 {
				t.Fatalf("no %s at %s in %s", tc.id, tc.path, b)
			}
			f := out.Findings[i]
			if !slices.Equal(f.Rules, tc.rules) {
				t.Errorf("rules %+v, want %+v", f.Rules, tc.rules)
			}
			if tc.more != "" && !strings.Contains(f.Message, tc.more) {
				t.Errorf("the message %q does not say %q: keep it as it was", f.Message, tc.more)
			}
		})
	}
}

// TestRuleListSuggested: a rule lint suggests (the fix of another finding)
// is listed with the path of that finding, so JSON readers can tell it
// from the CRD's own rules.
func TestRuleListSuggested(t *testing.T) {
	root := schema.FromExtensions(map[string]any{"type": "object", "properties": map[string]any{
		"spec": map[string]any{"type": "object", "properties": map[string]any{
			"x": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}},
		}},
	}})
	x := root.Properties["spec"].Properties["x"]
	got := ruleList([]ruleAt{
		{node: x.Properties["a"], r: rule{text: "self == oldSelf"}, guard: true},
		{node: x, r: rule{text: "has(self.a) == has(oldSelf.a)"}, fixOf: x.Properties["a"]},
	})
	want := []diag.RuleAt{{Path: "spec.x.a", Rule: "self == oldSelf"}, {Path: "spec.x", Rule: "has(self.a) == has(oldSelf.a)", FixFor: "spec.x.a"}}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
