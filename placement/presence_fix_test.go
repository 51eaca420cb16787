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
		"spec": obj(map[string]any{"owner": str(), "a:b": str(), "providerID": str(),
			"nodeRef": described(str(), "NodeRef is set by the machine controller once the node exists.")}),
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
		// A field of status is not status (it may be required, its
		// object's rule compares it), but a controller adds it in a later
		// status write: set-once first (FilledLater).
		{"a field of status, set-once first", "status.phase", false, []option{
			{"add // +k8s:update=NoUnset to the field \"phase\" (phase may then be set after creation, never removed — a controller adds it in a status write;", "add the rule `!has(oldSelf.phase) || has(self.phase)` to the x-kubernetes-validations of status (phase may then be set after creation, never removed — a controller adds it in a status write;"},
			{"or // +required", "or make phase required"},
		}, []string{"add the rule `has(self.phase) == has(oldSelf.phase)`"}},
		{"providerID, set-once first", "spec.providerID", false, []option{
			{"add // +k8s:update=NoUnset to the field \"providerID\"", "add the rule `!has(oldSelf.providerID) || has(self.providerID)` to the x-kubernetes-validations of spec (providerID may then be set after creation, never removed — a provider fills a providerID in once the machine exists;"},
		}, []string{"add the rule `has(self.providerID) == has(oldSelf.providerID)`"}},
		{"a field its description says a controller sets, set-once first", "spec.nodeRef", false, []option{
			{"add // +k8s:update=NoUnset to the field \"nodeRef\"", "add the rule `!has(oldSelf.nodeRef) || has(self.nodeRef)` to the x-kubernetes-validations of spec (nodeRef may then be set after creation, never removed — its description says who fills it in;"},
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

// described is the schema node n with a description.
func described(n map[string]any, d string) map[string]any {
	n["description"] = d
	return n
}

// TestFilledLater: which optional properties the schema says are filled in
// after creation, each case a reason (docs/lint.md, "Set-once first").
func TestFilledLater(t *testing.T) {
	for _, tc := range []struct {
		name        string
		description string
		prop        string // under spec, or "status.x"
		later       bool
	}{
		{"a field under status", "", "status.phase", true},
		{"status itself is DroppedOnCreate's, not FilledLater's", "", "status", false},
		{"providerID", "ProviderID is the identification ID of the machine.", "spec.providerID", true},
		{"providerId, another case", "", "spec.providerId", true},
		{"set by the controller", "Set by the controller after the instance is created.", "spec.x", true},
		{"is populated by the machine controller", "NodeRef is populated by the machine controller.", "spec.x", true},
		{"will be filled in by the system", "The address will be filled in by the system.", "spec.x", true},
		{"gets assigned by the cloud provider", "The ID gets assigned by the cloud provider.", "spec.x", true},
		{"set by the user is not a controller", "The name is set by the user at creation.", "spec.x", false},
		{"a plain description", "Name of the bucket.", "spec.x", false},
		{"a name like providerID is not providerID", "", "spec.providerIDs", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			leaf := str()
			if tc.description != "" {
				leaf = described(leaf, tc.description)
			}
			props := map[string]any{"spec": obj(map[string]any{}), "status": obj(map[string]any{})}
			parent, name, _ := strings.Cut(tc.prop, ".")
			if name == "" {
				props[parent] = described(obj(map[string]any{}), tc.description)
			} else {
				props[parent].(map[string]any)["properties"].(map[string]any)[name] = leaf
			}
			root, err := schema.Build(obj(props))
			if err != nil {
				t.Fatal(err)
			}
			why := FilledLater(property(root, tc.prop))
			if (why != "") != tc.later {
				t.Errorf("FilledLater(%s) = %q, want filled in later: %v", tc.prop, why, tc.later)
			}
		})
	}
}
