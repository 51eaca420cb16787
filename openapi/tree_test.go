package openapi

import (
	"slices"
	"testing"

	"sigs.k8s.io/controller-tools/pkg/loader"
	ctmarkers "sigs.k8s.io/controller-tools/pkg/markers"

	"github.com/immutable-gen/immutable-gen/schema"
)

// TestTree checks the model the generator builds of the test API's
// definitions: openapi-gen's view of the Go types (property names, inline
// embedding, required properties, +listType/+mapType/+listMapKey from the
// field only), the markers on each node, the definitions used inlined with
// the site where openapi-gen writes each node, and a kind's tree with the
// object's paths.
func TestTree(t *testing.T) {
	roots := load(t, "./testdata/apis/openapi/v1")
	reg := &ctmarkers.Registry{}
	if err := (Generator{}).RegisterMarkers(reg); err != nil {
		t.Fatal(err)
	}
	a := newAnalyzer(&ctmarkers.Collector{Registry: reg}, roots)
	(&loader.TypeChecker{NodeFilters: []loader.NodeFilter{Generator{}.CheckFilter()}}).Check(roots[0])
	roots[0].NeedTypesInfo()
	res := a.analyzePackage(roots[0])
	if res == nil || !res.enabled {
		t.Fatal("the test API is not analyzed")
	}
	trees := map[string]*objectTree{}
	for _, d := range res.defs {
		tr, err := a.tree(d)
		if err != nil {
			t.Fatal(err)
		}
		trees[d.typeName] = tr
	}

	spec := trees["GadgetSpec"]
	node := func(tr *objectTree, path string) *schema.Node {
		t.Helper()
		var found *schema.Node
		tr.root.Walk(func(n *schema.Node) {
			if n.Path() == path {
				found = n
			}
		})
		if found == nil {
			t.Fatalf("%s has no node %s", tr.def.typeName, path)
		}
		return found
	}
	for _, tc := range []struct {
		path string
		want func(n *schema.Node) bool
	}{
		{"name", func(n *schema.Node) bool { return n.Type() == "string" && n.Immutable() && n.Parent.Required("name") }},
		{"size", func(n *schema.Node) bool {
			return n.Type() == "integer" && !n.Parent.Required("size") && len(n.Origins) == 0
		}},
		{"ports", func(n *schema.Node) bool {
			return n.IsList() && n.ListType() == "map" && slices.Equal(n.ListMapKeys(), []string{"name"}) && n.ImmutableKeys()
		}},
		{"ports[*].name", func(n *schema.Node) bool { return n.Immutable() }},
		{"tags", func(n *schema.Node) bool { return n.ListType() == "set" && n.Immutable() }},
		{"labels", func(n *schema.Node) bool { return n.IsMap() && n.MapType() == "granular" && n.ImmutableKeys() }},
		{"sidecars[*]", func(n *schema.Node) bool { return n.Parent.ListType() == "atomic" && n.Immutable() }},
		{"registries[*][*]", func(n *schema.Node) bool { return n.Immutable() }},
		{"source", func(n *schema.Node) bool { return n.Type() == "object" && n.Immutable() }},
		{"source.url", func(n *schema.Node) bool { return n.Type() == "string" && len(n.Origins) == 0 }},
		{"owner", func(n *schema.Node) bool { return n.Immutable() && n.Parent.Parent == nil }},
		{"zones", func(n *schema.Node) bool { return n.ImmutableOnce() }},
		{"claim", func(n *schema.Node) bool { return n.ImmutableOnce() }},
	} {
		if n := node(spec, tc.path); !tc.want(n) {
			t.Errorf("GadgetSpec %s: %+v", tc.path, n)
		}
	}
	if spec.root.Properties["scratch"] != nil || spec.root.Properties["Scratch"] != nil {
		t.Error(`a json:"-" field has a property`)
	}

	// Sites: where openapi-gen writes each node, the patch's place.
	for _, tc := range []struct{ path, def, pointer string }{
		{"name", "GadgetSpec", "/properties/name"},
		{"registries[*][*]", "GadgetSpec", "/properties/registries/additionalProperties/items"},
		{"owner", "GadgetSpec", "/properties/owner"},
		{"source", "GadgetSpec", "/properties/source"},
		{"source.url", "Source", "/properties/url"},
		{"fallbacks[*].revision", "Source", "/properties/revision"},
	} {
		s := spec.nodes[node(spec, tc.path).Pointer()].site
		if s.def == nil || s.def.typeName != tc.def || s.pointer != tc.pointer {
			t.Errorf("GadgetSpec %s: written at %+v, want %s %s", tc.path, s, tc.def, tc.pointer)
		}
	}

	// A kind's tree has the object's paths, down to the markers of the
	// definitions it uses; metav1.ObjectMeta is not generated here.
	gadget := trees["Gadget"]
	if !gadget.def.kind || trees["GadgetSpec"].def.kind {
		t.Error("Gadget is a kind, GadgetSpec is not")
	}
	if n := node(gadget, "spec.ports[*].name"); !n.Immutable() {
		t.Errorf("Gadget spec.ports[*].name: %+v", n)
	}
	if s := gadget.nodes[node(gadget, "metadata.name").Pointer()].site; s.def != nil {
		t.Errorf("metadata.name is written in %s", s.def.typeName)
	}
}
