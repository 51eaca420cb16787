package placement

import (
	"fmt"
	"strings"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/schema"
)

// IDOptionalAncestor: immutable fields under an optional top-level
// property (spec), which may be removed and added back with them.
const IDOptionalAncestor diag.ID = "IG013"

// OptionalAncestors warns about markers under an optional top-level
// property of the object — spec — whose presence nothing keeps. By the
// KEP's semantics (docs/semantics.md 2.3) an optional parent holding immutable
// fields may be removed and set again with them, so removing spec and
// adding it back changes every immutable field below it; most authors do
// not mean that for spec. One warning per such property and version, at
// its first marker, naming the marked paths; the fix is PresenceFix's
// (+required or +k8s:update=NoSet/NoUnset; at status +k8s:update=NoUnset).
// Nothing is reported once the hole is closed: the property is required or
// has a default, a +k8s:update=NoSet or =NoUnset on it keeps it from being
// added back or removed, or a rule on the root compares its presence.
//
// Markers are left alone where their field can change another way that
// the KEP allows: under a deeper optional object, a list item or a map
// value (which come and go by key), and redundant markers. subject names
// the schema (e.g. `widgets.example.com v1`) as in Placement.
func OptionalAncestors(crd, version string, root *schema.Node) diag.List {
	type group struct {
		top   *schema.Node
		first *schema.Node
		paths []string
		// once: every marker below may be set after creation (=once,
		// +k8s:update without NoSet).
		once bool
	}
	var groups []*group
	byTop := map[*schema.Node]*group{}
	root.Walk(func(n *schema.Node) {
		if len(n.Origins) == 0 || n.ImmutableAncestor() != nil || n.OnlyWhilePresent() {
			return // fixed while present (+k8s:update=NoModify) may come and go anyway
		}
		top := pinnedTop(n)
		if top == nil || top.Edge != schema.Property || top.AlwaysPresent() || presenceKept(root, top.Name) {
			return
		}
		if noAdd, noRemove := top.Presence(); noAdd || noRemove {
			return // it cannot be removed, or not added back
		}
		g := byTop[top]
		if g == nil {
			g = &group{top: top, first: n, once: true}
			byTop[top] = g
			groups = append(groups, g)
		}
		g.paths = append(g.paths, n.Path())
		noAdd, _ := n.Presence()
		g.once = g.once && !noAdd
	})
	var out diag.List
	for _, g := range groups {
		paths := g.paths
		more := ""
		if len(paths) > 3 {
			more = fmt.Sprintf(" and %d more", len(paths)-3)
			paths = paths[:3]
		}
		name := g.top.Name
		out = append(out, diag.Diagnostic{
			ID:       IDOptionalAncestor,
			Pos:      g.first.Origins[0].Pos,
			Severity: diag.Warning,
			Marker:   g.first.Origins[0].Marker(),
			CRD:      crd,
			Version:  version,
			Path:     g.first.Path(),
			Message: fmt.Sprintf("%s is optional: removing %s and adding it back changes the immutable fields under it (%s%s); an optional parent may come and go with its immutable fields (KEP), which authors rarely mean for %s",
				name, name, strings.Join(paths, ", "), more, name),
			Fix: PresenceFix(g.top, g.once, GoMarkers),
		})
	}
	return out
}

// pinnedTop returns the top-level property above n (a property of the
// root) when every node between them is a property that is always present,
// so that removing the top-level property is the only way to take n away;
// nil otherwise, and for a top-level n itself.
func pinnedTop(n *schema.Node) *schema.Node {
	top := n.Parent
	if top == nil || top.Parent == nil {
		return nil
	}
	for top.Parent.Parent != nil {
		if top.Edge != schema.Property || !top.AlwaysPresent() {
			return nil
		}
		top = top.Parent
	}
	return top
}

// presenceKept reports whether a rule on the root compares the presence of
// its property name with the old object's (has(oldSelf.NAME)), as
// `has(self.spec) == has(oldSelf.spec)` or its set-once form do.
func presenceKept(root *schema.Node, name string) bool {
	for _, r := range root.Rules() {
		if strings.Contains(strings.ReplaceAll(r.Rule, " ", ""), "has(oldSelf."+name+")") {
			return true
		}
	}
	return false
}
