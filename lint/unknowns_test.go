package lint

import (
	"slices"
	"testing"
)

// TestUnknownsNeverHide: a sibling rule reading a value lint cannot decide
// (a boolean, an enum, a number read from the object) is true or false,
// not an error, so it never makes lint conclude that a presence is kept
// (issue 31: Grafana's contact point spec.uid, CAPO's spec.bastion.spec,
// both removable and re-addable with another value by two accepted
// updates). Rules that do keep the presence whatever the value still do.
func TestUnknownsNeverHide(t *testing.T) {
	const uid = `"uid": {"type": "string", "maxLength": 40, "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "spec.uid is immutable"}]}`
	const bastion = `{"bastion": {"type": "object", "x-kubernetes-validations": [{"rule": "!self.enabled || has(self.spec)"}], "properties": {
  "enabled": {"type": "boolean", "default": true},
  "spec": {"type": "object", "properties": {"flavor": {"type": "string", "maxLength": 40, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}}}`
	cases := []struct {
		name     string
		manifest string
		want     []string
	}{
		{
			name: "boolean sibling rule (Grafana's allowCrossNamespaceImport)",
			manifest: crdWith(`{"allowCrossNamespaceImport": {"type": "boolean", "default": false}, `+uid+`}`,
				[]string{"!oldSelf.allowCrossNamespaceImport || (oldSelf.allowCrossNamespaceImport && self.allowCrossNamespaceImport)"}),
			want: []string{"IG010 spec.uid"},
		},
		{
			name: "boolean sibling rule, field optional",
			manifest: crdWith(`{"allowCrossNamespaceImport": {"type": "boolean"}, `+uid+`}`,
				[]string{"!has(oldSelf.allowCrossNamespaceImport) || !oldSelf.allowCrossNamespaceImport || self.allowCrossNamespaceImport"}),
			want: []string{"IG010 spec.uid"},
		},
		{
			name:     "boolean guard of an object's presence (CAPO's bastion)",
			manifest: crdWith(bastion, []string{"has(self.bastion) == has(oldSelf.bastion)"}),
			want:     []string{"IG018 spec.bastion.spec", "IG010 spec.bastion.spec.flavor"},
		},
		{
			name: "boolean guard of spec's presence on the root",
			manifest: optionalSpec(crdWith(`{"locked": {"type": "boolean", "default": false}, `+uid+`}`, []string{"has(self.uid) == has(oldSelf.uid)"}),
				"!has(oldSelf.spec) || !oldSelf.spec.locked || has(self.spec)"),
			want: []string{"IG013 spec"},
		},
		{
			name:     "enum sibling rule",
			manifest: crdWith(`{"mode": {"type": "string", "enum": ["a", "b"], "default": "a"}, `+uid+`}`, []string{"self.mode == 'a' || oldSelf.mode == 'b'"}),
			want:     []string{"IG010 spec.uid"},
		},
		{
			name:     "number sibling rule",
			manifest: crdWith(`{"replicas": {"type": "integer", "default": 1}, `+uid+`}`, []string{"self.replicas >= oldSelf.replicas"}),
			want:     []string{"IG010 spec.uid"},
		},
		{
			name:     "boolean-conditioned presence rule: kept only while enabled",
			manifest: crdWith(`{"enabled": {"type": "boolean", "default": false}, `+uid+`}`, []string{"!oldSelf.enabled || has(self.uid) == has(oldSelf.uid)"}),
			want:     []string{"IG010 spec.uid"},
		},
		{
			name:     "presence rule beside a boolean rule: kept",
			manifest: crdWith(`{"enabled": {"type": "boolean", "default": false}, `+uid+`}`, []string{"!oldSelf.enabled || self.enabled", "has(self.uid) == has(oldSelf.uid)"}),
		},
		{
			name:     "presence rule in a ternary on a boolean, both branches keep it",
			manifest: crdWith(`{"enabled": {"type": "boolean", "default": false}, `+uid+`}`, []string{"self.enabled ? has(self.uid) == has(oldSelf.uid) : has(oldSelf.uid) == has(self.uid)"}),
		},
		{
			name:     "oldSelf == null or a presence rule",
			manifest: crdWith(`{`+uid+`}`, []string{"oldSelf == null || has(self.uid) == has(oldSelf.uid)"}),
		},
		{
			name: "deeper presence keeps the parent present",
			manifest: crdWith(`{"p": {"type": "object", "properties": {"f": {"type": "string", "maxLength": 8, "x-kubernetes-validations": [{"rule": "self == oldSelf"}]}}}}`,
				[]string{"(has(self.p) && has(self.p.f)) == (has(oldSelf.p) && has(oldSelf.p.f))"}),
			// f can be neither removed nor added, through p either
			// (TestDeeperPresenceRule checks it on the API server).
			want: nil,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := findings(t, tc.manifest)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
