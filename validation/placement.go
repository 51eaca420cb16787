// Package validation checks an immutability model before anything is
// written: the KEP's placement rules for x-kubernetes-immutable and
// x-kubernetes-immutable-keys (DESIGN.md 2.2), and the API server's own CRD
// validation, with every finding reported at the Go marker that caused it.
package validation

import (
	"fmt"
	"strings"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/markers"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Placement checks every marker in the model rooted at root against the
// KEP's placement rules. subject names the schema (e.g. `widgets.example.com
// v1`) in messages.
func Placement(subject string, root *schema.Node) diag.List {
	var out diag.List
	report := func(n *schema.Node, o markers.Origin, sev diag.Severity, fix, format string, args ...any) {
		out = append(out, diag.Diagnostic{
			Pos:      o.Pos,
			Severity: sev,
			Subject:  fmt.Sprintf("%s (%s: %s)", o.Marker(), subject, n.Path()),
			Message:  fmt.Sprintf(format, args...),
			Fix:      fix,
		})
	}
	root.Walk(func(n *schema.Node) {
		if len(n.Origins) == 0 {
			return
		}
		checkForbiddenPlaces(n, report)
		checkExclusive(n, report)
		for _, o := range n.Origins {
			if o.Keys {
				checkKeys(n, o, report)
			}
		}
		checkEffect(n, report)
	})
	return out
}

type reporter func(n *schema.Node, o markers.Origin, sev diag.Severity, fix, format string, args ...any)

// objectRoot returns the node an object's metadata, apiVersion and kind hang
// from for n: the schema root, or the nearest embedded resource above n.
// It also returns the property of that root n sits under ("" for the root
// itself).
func objectRoot(n *schema.Node) (root *schema.Node, under string) {
	child := n
	for a := n.Parent; a != nil; a = a.Parent {
		if a.Parent == nil || a.EmbeddedResource() {
			if child.Edge == schema.Property {
				return a, child.Name
			}
			return a, ""
		}
		child = a
	}
	return n, ""
}

// Rule 1: not on the root, not on metadata or inside it, not on apiVersion
// or kind (of the object, or of an embedded resource).
func checkForbiddenPlaces(n *schema.Node, report reporter) {
	for _, o := range n.Origins {
		if n.Parent == nil {
			report(n, o, diag.Error, "mark the fields of spec (or spec itself) instead",
				"not allowed on the root type of a kind: the whole object would be immutable, including its metadata and status (KEP: forbidden at the root)")
			continue
		}
		root, under := objectRoot(n)
		what := "the object's"
		if root.Parent != nil {
			what = fmt.Sprintf("the embedded resource %s's", root.Path())
		}
		switch under {
		case "metadata":
			report(n, o, diag.Error, "remove the marker",
				"not allowed on %s metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)", what)
		case "apiVersion", "kind":
			report(n, o, diag.Error, "remove the marker",
				"not allowed on %s %s: it is set by the API machinery, and immutable implicitly", what, under)
		}
	}
}

// Rule 3: +immutable and +immutable=keys exclude each other on one node.
func checkExclusive(n *schema.Node, report reporter) {
	if !n.Immutable() || !n.ImmutableKeys() {
		return
	}
	var imm, keys []string
	for _, o := range n.Origins {
		w := fmt.Sprintf("%s at %s", o.Where(), o.Pos)
		if o.Keys {
			keys = append(keys, w)
		} else {
			imm = append(imm, w)
		}
	}
	for _, o := range n.Origins {
		if o.Keys {
			report(n, o, diag.Error, "keep one of them: +immutable already includes the keys",
				"+immutable and +immutable=keys are exclusive on one node, and +immutable comes from %s", strings.Join(imm, ", "))
		} else {
			report(n, o, diag.Error, "keep one of them: +immutable already includes the keys",
				"+immutable and +immutable=keys are exclusive on one node, and +immutable=keys comes from %s", strings.Join(keys, ", "))
		}
	}
}

// Rules 2 and 4: =keys only where there are keys; on a list map every key
// property must be immutable.
func checkKeys(n *schema.Node, o markers.Origin, report reporter) {
	switch {
	case n.IsMap():
		if n.MapType() == "atomic" {
			report(n, o, diag.Error, "use +immutable, or drop +mapType=atomic",
				"=keys is not allowed on an atomic map: it has no keys of its own to keep")
		}
	case n.IsList():
		switch lt := n.ListType(); lt {
		case "map":
			checkListMapKeys(n, o, report)
		case "set":
			report(n, o, diag.Error, "use +immutable: the items of a set are their own keys",
				"=keys is not allowed on a +listType=set list (KEP: set items are keys, so only +immutable is allowed)")
		default:
			report(n, o, diag.Error, "use +immutable, or make it a list map with +listType=map and +listMapKey=<field>",
				"=keys is not allowed on an atomic list: it has no keys")
		}
	case n.Type() == "object":
		report(n, o, diag.Error, "use +immutable on the struct or on its fields",
			"=keys is not allowed on a struct: only maps and +listType=map lists have keys")
	default:
		t := n.Type()
		if t == "" {
			t = "untyped"
		}
		report(n, o, diag.Error, "use +immutable",
			"=keys is not allowed on a %s value: only maps and +listType=map lists have keys", t)
	}
}

func checkListMapKeys(n *schema.Node, o markers.Origin, report reporter) {
	items := n.Items
	if items == nil {
		return
	}
	for _, key := range n.ListMapKeys() {
		k := items.Properties[key]
		if k == nil {
			continue // the API server's own validation reports a missing key
		}
		if k.Immutable() || immutableBetween(k, n) {
			continue
		}
		goField := ""
		for _, f := range o.ItemFields {
			if f.JSON == key {
				goField = fmt.Sprintf("%s.%s (%s)", f.Type, f.Go, f.Pos)
			}
		}
		fix := fmt.Sprintf("add // +immutable to the list map key field %q of the item type", key)
		if goField != "" {
			fix = fmt.Sprintf("add // +immutable to the key field %s", goField)
		}
		report(n, o, diag.Error, fix,
			"=keys on a list map requires its key %q to be immutable (KEP: the map keys are enforced immutable)", key)
	}
}

// immutableBetween reports whether a node strictly between n and top (top
// excluded, n's parents included) is immutable.
func immutableBetween(n, top *schema.Node) bool {
	for a := n.Parent; a != nil && a != top; a = a.Parent {
		if a.Immutable() {
			return true
		}
	}
	return false
}

// Rules 5 and 6: redundant markers are notes; markers under set items have
// no effect.
func checkEffect(n *schema.Node, report reporter) {
	if anc := n.ImmutableAncestor(); anc != nil {
		for _, o := range n.Origins {
			report(n, o, diag.Note, "",
				"redundant: %s is already immutable as part of %s", n.Path(), anc.Path())
		}
		return
	}
	for a, c := n.Parent, n; a != nil; a, c = a.Parent, a {
		if c.Edge == schema.Items && a.ListType() == "set" {
			for _, o := range n.Origins {
				report(n, o, diag.Warning, fmt.Sprintf("mark the set %s itself with +immutable to forbid any change", a.Path()),
					"has no effect inside the items of the +listType=set list %s: set items are identities, they are added or removed, never changed", a.Path())
			}
			return
		}
	}
}
