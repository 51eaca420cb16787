package placement

import (
	"strings"
	"testing"

	"github.com/immutable-gen/immutable-gen/schema"
)

// TestPresenceFixOptions: the fix for a presence hole offers the same
// options in Go markers and in a manifest, each option worded for its
// medium; at status never required and never the strict presence rule.
func TestPresenceFixOptions(t *testing.T) {
	root, err := schema.Build(obj(map[string]any{
		"spec":   obj(map[string]any{"owner": str(), "a:b": str()}),
		"status": obj(map[string]any{"phase": str()}),
	}))
	if err != nil {
		t.Fatal(err)
	}
	type option struct{ markers, manifest string }
	for _, tc := range []struct {
		name    string
		path    string
		once    bool
		options []option // each option in both media
		never   []string // in neither medium
	}{
		{"spec, fixed at creation", "spec", false, []option{
			{"add // +required to the field \"spec\" of the kind's root type (the CRD gets `required: [spec]`)", "or make spec required"},
			{"// +k8s:update=NoSet and // +k8s:update=NoUnset to keep its presence", "add the rule `has(self.spec) == has(oldSelf.spec)` to the x-kubernetes-validations of the root schema"},
			{"NoUnset alone if spec may be set after creation", "(`!has(oldSelf.spec) || has(self.spec)` if spec may be set after creation)"},
		}, nil},
		{"spec, set once", "spec", true, []option{
			{"add // +k8s:update=NoUnset to the field \"spec\" of the kind's root type (spec may then be set after creation, never removed;", "add the rule `!has(oldSelf.spec) || has(self.spec)` to the x-kubernetes-validations of the root schema (spec may then be set after creation, never removed;"},
			{"with // +k8s:update=NoSet too if only at creation", "`has(self.spec) == has(oldSelf.spec)` if only at creation"},
			{"or // +required", "or make spec required"},
		}, nil},
		{"status", "status", false, []option{
			{"add // +k8s:update=NoUnset to the field \"status\" of the kind's root type: status may then be set after creation (the status subresource drops it on create) and never removed", "add the rule `!has(oldSelf.status) || has(self.status)` to the x-kubernetes-validations of the root schema: status may then be set after creation (the status subresource drops it on create) and never removed"},
		}, []string{"or // +required", "or make status required", "add the rule `has(self.status) == has(oldSelf.status)`", "required: [status]"}},
		{"status, set once", "status", true, []option{
			{"add // +k8s:update=NoUnset to the field \"status\"", "add the rule `!has(oldSelf.status) || has(self.status)` to the x-kubernetes-validations of the root schema:"},
		}, []string{"or // +required", "or make status required", "add the rule `has(self.status) == has(oldSelf.status)`"}},
		{"a field of spec", "spec.owner", false, []option{
			{"add // +required to the field \"owner\", or", "or make owner required"},
			{"// +k8s:update=NoSet and // +k8s:update=NoUnset", "add the rule `has(self.owner) == has(oldSelf.owner)` to the x-kubernetes-validations of spec"},
		}, []string{"of the kind's root type"}},
		{"a field of status is not status", "status.phase", false, []option{
			{"add // +required to the field \"phase\"", "or make phase required"},
			{"// +k8s:update=NoSet and // +k8s:update=NoUnset", "add the rule `has(self.phase) == has(oldSelf.phase)` to the x-kubernetes-validations of status"},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := property(root, tc.path)
			if p == nil {
				t.Fatalf("no node at %s", tc.path)
			}
			markers, manifest := PresenceFix(p, tc.once, GoMarkers), PresenceFix(p, tc.once, Manifest)
			for _, o := range tc.options {
				if !strings.Contains(markers, o.markers) {
					t.Errorf("Go markers: %q lacks %q", markers, o.markers)
				}
				if !strings.Contains(manifest, o.manifest) {
					t.Errorf("manifest: %q lacks %q", manifest, o.manifest)
				}
			}
			for _, n := range tc.never {
				if strings.Contains(markers, n) || strings.Contains(manifest, n) {
					t.Errorf("a fix offers %q:\n%s\n%s", n, markers, manifest)
				}
			}
		})
	}
	// A name CEL cannot address has no rule: only required.
	if got := PresenceFix(property(root, "spec.a:b"), false, Manifest); got != "make a:b required in spec" {
		t.Errorf("unaddressable: %q", got)
	}
}

// property is the node at a path of property names (spec.owner).
func property(root *schema.Node, path string) *schema.Node {
	n := root
	for _, name := range strings.Split(path, ".") {
		if n = n.Properties[name]; n == nil {
			return nil
		}
	}
	return n
}
