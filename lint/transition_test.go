package lint

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/immutable-gen/immutable-gen/preflight"
)

// only keeps the findings of the given IDs.
func only(got []string, ids ...string) []string {
	return slices.DeleteFunc(got, func(s string) bool {
		return !slices.Contains(ids, strings.SplitN(s, " ", 2)[0])
	})
}

// TestRatcheting: `self == oldSelf || <validation>` is ratcheting (IG037),
// not an immutability rule, and not reported as a presence hole.
func TestRatcheting(t *testing.T) {
	const field = `{"size": {"type": "integer", "x-kubernetes-validations": [{"rule": %q}]}}`
	cases := []struct {
		name, rule string
		required   bool
		want       []string
	}{
		{name: "ratcheting", rule: "self == oldSelf || self <= 10", required: true, want: []string{"IG037 spec.size"}},
		{name: "equality the other way round", rule: "oldSelf == self || self <= 10", required: true, want: []string{"IG037 spec.size"}},
		{name: "validation first", rule: "self <= 10 || self == oldSelf", required: true, want: []string{"IG037 spec.size"}},
		{name: "several validations", rule: "self == oldSelf || self <= 10 || self == 100", required: true, want: []string{"IG037 spec.size"}},
		{name: "optional: no presence hole, IG037 says it", rule: "self == oldSelf || self <= 10", want: []string{"IG037 spec.size"}},
		{name: "the other side reads oldSelf: a transition, not a validation", rule: "self == oldSelf || self == oldSelf + 1", want: []string{"IG010 spec.size"}},
		{name: "immutability", rule: "self == oldSelf", want: []string{"IG010 spec.size"}},
		{name: "immutability and a validation", rule: "self == oldSelf && self <= 10", required: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var req []string
			if tc.required {
				req = []string{"size"}
			}
			got := findings(t, crdWith(fmt.Sprintf(field, tc.rule), nil, req...))
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// The message and the fix name the validation.
	res, err := Manifest("crd.json", []byte(crdWith(fmt.Sprintf(field, "self == oldSelf || self <= 10"), nil, "size")))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "a value that breaks `self <= 10` may stay") ||
		!strings.Contains(res.Findings[0].Fix, "`(oldSelf.hasValue() && self == oldSelf.value()) || self <= 10`") {
		t.Errorf("findings %v", res.Findings)
	}
}

// TestAbsentError: a transition rule that reads an optional field without
// has() errors where it is absent, refusing every update of such an
// object (IG038); guarded reads, required fields, and objects the other
// rules forbid are not reported, and the suggested fix clears it.
func TestAbsentError(t *testing.T) {
	spec := `{"mode": {"type": "string", "enum": ["a", "b"]}, "name": {"type": "string", "maxLength": 8}}`
	kong := func(rootRules ...string) string { return optionalSpec(crdWith(spec, nil, "mode"), rootRules...) }
	cases := []struct {
		name, manifest string
		want           []string
	}{
		{name: "root rule reads the optional spec (Kong's MCPServer)", manifest: kong("oldSelf.spec.mode == self.spec.mode"), want: []string{"IG038 <root>"}},
		{name: "spec required", manifest: crdWith(spec, nil, "mode")},
		{name: "the object's metadata is always there", manifest: strings.Replace(kong("oldSelf.metadata.name == self.metadata.name"),
			`"properties": {`+"\n", `"properties": {"metadata": {"type": "object", "properties": {"name": {"type": "string"}}},`+"\n", 1)},
		{name: "guarded with has()", manifest: kong("!has(self.spec) || !has(oldSelf.spec) || oldSelf.spec.mode == self.spec.mode")},
		{name: "an object without spec cannot exist", manifest: kong("has(self.spec)", "oldSelf.spec.mode == self.spec.mode")},
		{name: "rule on spec reads an optional field", manifest: crdWith(spec, []string{"self.name == oldSelf.name"}), want: []string{"IG038 spec"}},
		{name: "rule on spec reads a required field", manifest: crdWith(spec, []string{"self.mode == oldSelf.mode"}, "mode")},
		{name: "ratcheting: true on an update that changes nothing", manifest: kong("self == oldSelf || self.spec.mode == 'a'")},
		{name: "absorbed by ||", manifest: kong("has(self.spec) == has(oldSelf.spec) || oldSelf.spec.mode == self.spec.mode")},
		{name: "the fix", manifest: kong("has(self.spec) == has(oldSelf.spec) && (!has(self.spec) || oldSelf.spec.mode == self.spec.mode)")},
		{name: "the set-once fix", manifest: kong("!has(oldSelf.spec) || (has(self.spec) && oldSelf.spec.mode == self.spec.mode)")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := only(findings(t, tc.manifest), "IG038")
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestAbsentErrorRefusesEveryUpdate proves IG038's claim with the API
// server's validator: an object of the seeded defect without spec is
// created, and an update that only adds a label is refused; with the rule
// lint's fix suggests, it is accepted, and a change of the mode still
// refused.
func TestAbsentErrorRefusesEveryUpdate(t *testing.T) {
	file := filepath.Join(root, "testdata/lint/defects/IG038-absent-optional.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Files([]string{file})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || res.Findings[0].ID != IDAbsentError {
		t.Fatalf("findings %v", res.Findings)
	}
	fix := res.Findings[0].Fix
	start := strings.Index(fix, "`") + 1
	fixed := fix[start : start+strings.Index(fix[start:], "`")]
	obj := func(labels bool, mode string) map[string]any {
		o := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}}
		if labels {
			o["metadata"].(map[string]any)["labels"] = map[string]any{"team": "a"}
		}
		if mode != "" {
			o["spec"] = map[string]any{"mode": mode}
		}
		return o
	}
	for _, tc := range []struct {
		name, rule string
		old, new   map[string]any
		allowed    bool
	}{
		{"a label added, no spec", "", obj(false, ""), obj(true, ""), false},
		{"a label added, with spec", "", obj(false, "a"), obj(true, "a"), true},
		{"the fix: a label added, no spec", fixed, obj(false, ""), obj(true, ""), true},
		{"the fix: mode changed", fixed, obj(false, "a"), obj(false, "b"), false},
		{"the fix: spec added", fixed, obj(false, ""), obj(false, "a"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			manifest := data
			if tc.rule != "" {
				manifest = []byte(strings.Replace(string(data), "rule: oldSelf.spec.mode == self.spec.mode", "rule: '"+tc.rule+"'", 1))
			}
			js, err := yaml.YAMLToJSON(manifest)
			if err != nil {
				t.Fatal(err)
			}
			c, err := preflight.NewChecker([]preflight.CRD{{Source: file, Raw: js}})
			if err != nil {
				t.Fatal(err)
			}
			if r, err := c.Create(tc.old); err != nil || !r.Allowed() {
				t.Fatalf("create: %v %v", r.Errors, err)
			}
			r, err := c.Update(tc.new, tc.old)
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed() != tc.allowed {
				b, _ := json.Marshal(tc.new)
				t.Errorf("update to %s: allowed %v, want %v (%v)", b, r.Allowed(), tc.allowed, r.Errors)
			}
		})
	}
}

// TestAbsentErrorOnSpec: the same on a rule written on spec (an unchanged
// spec is no exemption: a transition rule is not ratcheted).
func TestAbsentErrorOnSpec(t *testing.T) {
	m := crdWith(`{"name": {"type": "string", "maxLength": 8}, "x": {"type": "string", "maxLength": 8}}`, []string{"self.name == oldSelf.name"})
	if got := only(findings(t, m), "IG038"); !slices.Equal(got, []string{"IG038 spec"}) {
		t.Errorf("lint: %q", got)
	}
	c, err := preflight.NewChecker([]preflight.CRD{{Source: "crd.json", Raw: []byte(m)}})
	if err != nil {
		t.Fatal(err)
	}
	meta := func(labels map[string]any) map[string]any {
		return map[string]any{"name": "w", "namespace": "ns", "labels": labels}
	}
	old := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta(nil), "spec": map[string]any{"x": "a"}}
	relabelled := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta(map[string]any{"team": "a"}), "spec": map[string]any{"x": "a"}}
	if r, err := c.Create(old); err != nil || !r.Allowed() {
		t.Fatalf("create: %v %v", r.Errors, err)
	}
	if r, err := c.Update(relabelled, old); err != nil || r.Allowed() {
		t.Errorf("a label-only update of an object without spec.name: allowed %v, want refused (%v)", r.Allowed(), err)
	}
}

// TestRatchetingFix: IG037's claim — the ratcheting rule does not check a
// value added later — and its second fix, with optionalOldSelf, which is
// not reported again: the API server then checks a value on create and a
// value added later, while an unchanged bad value may stay.
func TestRatchetingFix(t *testing.T) {
	obj := func(spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}, "spec": spec}
	}
	orig := crdWith(`{"size": {"type": "integer", "x-kubernetes-validations": [{"rule": "self == oldSelf || self <= 10"}]}}`, nil)
	oc, err := preflight.NewChecker([]preflight.CRD{{Source: "crd.json", Raw: []byte(orig)}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := oc.Update(obj(map[string]any{"size": 11}), obj(map[string]any{})); err != nil || !r.Allowed() {
		t.Errorf("the ratcheting rule, a bad size added later: allowed %v, want allowed (%v %v)", r.Allowed(), r.Errors, err)
	}
	const fixed = `{"size": {"type": "integer", "x-kubernetes-validations": [{"rule": "(oldSelf.hasValue() && self == oldSelf.value()) || self <= 10", "optionalOldSelf": true}]}, "other": {"type": "string", "maxLength": 4}}`
	m := crdWith(fixed, nil)
	if got := only(findings(t, m), "IG037", "IG038", "IG010", "IG013"); len(got) != 0 {
		t.Errorf("lint: %q", got)
	}
	c, err := preflight.NewChecker([]preflight.CRD{{Source: "crd.json", Raw: []byte(m)}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := c.Create(obj(map[string]any{"size": 11})); err != nil || r.Allowed() {
		t.Errorf("create with a bad size: allowed %v, want refused (%v)", r.Allowed(), err)
	}
	if r, err := c.Update(obj(map[string]any{"size": 11}), obj(map[string]any{})); err != nil || r.Allowed() {
		t.Errorf("a bad size added later: allowed %v, want refused (%v)", r.Allowed(), err)
	}
	// The server's own validation of such an object (created under an
	// older schema) lets the unchanged bad value stay.
	if r, err := c.Update(obj(map[string]any{"size": 11, "other": "x"}), obj(map[string]any{"size": 11})); err != nil || !r.Allowed() {
		t.Errorf("an unchanged bad size: allowed %v, want allowed (%v %v)", r.Allowed(), r.Errors, err)
	}
}
