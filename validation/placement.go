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

// PlacementRule is one of the placement rules of DESIGN.md 2.2.
type PlacementRule int

// The placement rules, numbered as in DESIGN.md 2.2.
const (
	// RuleForbiddenPlace: not on the root, metadata, apiVersion or kind.
	RuleForbiddenPlace PlacementRule = iota + 1
	// RuleNoKeys: =keys only on maps and list maps.
	RuleNoKeys
	// RuleExclusive: +immutable and +immutable=keys exclude each other.
	RuleExclusive
	// RuleListMapKey: =keys on a list map needs immutable keys.
	RuleListMapKey
	// RuleRedundant: a marker inside an immutable subtree (a note).
	RuleRedundant
	// RuleNoEffect: a marker inside the items of a set (a warning).
	RuleNoEffect
	// RuleOnceProperty: +immutable=once only on properties, not on list
	// items or map values (beyond the KEP, DESIGN.md 2.1).
	RuleOnceProperty
	// RuleOnceRequired: +immutable=once on a required property is
	// +immutable (a note).
	RuleOnceRequired
)

// PlacementFinding is one placement rule finding about one marker, before
// it is rendered as a diagnostic. Besides the rendered text it says which
// rule and which nodes are involved, for callers that word findings
// differently (the lint command speaks of extensions, not markers).
type PlacementFinding struct {
	Node     *schema.Node
	Origin   markers.Origin
	Rule     PlacementRule
	Severity diag.Severity
	// Detail qualifies the finding: for RuleForbiddenPlace the property of
	// the object the node is at or under ("metadata", "apiVersion", "kind";
	// "" for the root itself); for RuleNoKeys what the node is ("atomic
	// map", "set", "atomic list", "struct", or its scalar type); for
	// RuleListMapKey the key that is not immutable.
	Detail string
	// Related is, for RuleForbiddenPlace, the object root (the schema root
	// or an embedded resource); for RuleRedundant the immutable ancestor;
	// for RuleNoEffect the set.
	Related *schema.Node
	// Message and Fix are the texts Placement reports.
	Message, Fix string
}

// Placement checks every marker in the model rooted at root against the
// KEP's placement rules, and warns about markers under an optional spec
// (OptionalAncestors). subject names the schema (e.g. `widgets.example.com
// v1`) in messages.
func Placement(subject string, root *schema.Node) diag.List {
	var out diag.List
	for _, f := range PlacementFindings(root) {
		out = append(out, diag.Diagnostic{
			Pos:      f.Origin.Pos,
			Severity: f.Severity,
			Subject:  fmt.Sprintf("%s (%s: %s)", f.Origin.Marker(), subject, f.Node.Path()),
			Message:  f.Message,
			Fix:      f.Fix,
		})
	}
	return append(out, OptionalAncestors(subject, root)...)
}

// PlacementFindings checks every marker in the model rooted at root, the
// schema of an object (a kind), against the KEP's placement rules, in the
// order of Walk.
func PlacementFindings(root *schema.Node) []PlacementFinding {
	return placementFindings(root, true)
}

// PartPlacementFindings checks, as PlacementFindings does, the markers of a
// schema that objects use as a part rather than the schema of an object: an
// OpenAPI definition of a type that is not a kind, checked once for all its
// uses. Its root is not an object's root, so rule 1 applies only to embedded
// resources below it; what depends on where the part is used (an immutable
// ancestor, the items of a set or list above it) is checked in the trees of
// the objects that use it.
func PartPlacementFindings(part *schema.Node) []PlacementFinding {
	return placementFindings(part, false)
}

// placementFindings checks the markers in the model rooted at root; object
// says whether root is the root of an object.
func placementFindings(root *schema.Node, object bool) []PlacementFinding {
	var out []PlacementFinding
	report := func(f PlacementFinding, format string, args ...any) {
		f.Message = fmt.Sprintf(format, args...)
		out = append(out, f)
	}
	root.Walk(func(n *schema.Node) {
		if len(n.Origins) == 0 {
			return
		}
		checkForbiddenPlaces(n, object, report)
		checkExclusive(n, report)
		for _, o := range n.Origins {
			if o.Keys {
				checkKeys(n, o, report)
			}
			if o.Once {
				checkOnce(n, o, report)
			}
		}
		checkEffect(n, report)
	})
	return out
}

type reporter func(f PlacementFinding, format string, args ...any)

// objectRoot returns the node an object's metadata, apiVersion and kind hang
// from for n: the schema root when it is an object's (object), or the
// nearest embedded resource above n; nil when there is none. It also returns
// the property of that root n sits under ("" for the root itself).
func objectRoot(n *schema.Node, object bool) (root *schema.Node, under string) {
	child := n
	for a := n.Parent; a != nil; a = a.Parent {
		if (a.Parent == nil && object) || a.EmbeddedResource() {
			if child.Edge == schema.Property {
				return a, child.Name
			}
			return a, ""
		}
		child = a
	}
	return nil, ""
}

// Rule 1: not on the root, not on metadata or inside it, not on apiVersion
// or kind (of the object, or of an embedded resource). object says whether
// the tree's root is an object's.
func checkForbiddenPlaces(n *schema.Node, object bool, report reporter) {
	for _, o := range n.Origins {
		if n.Parent == nil {
			if object {
				report(PlacementFinding{Node: n, Origin: o, Rule: RuleForbiddenPlace, Severity: diag.Error, Related: n, Fix: "mark the fields of spec (or spec itself) instead"},
					"not allowed on the root type of a kind: the whole object would be immutable, including its metadata and status (KEP: forbidden at the root)")
			}
			continue
		}
		root, under := objectRoot(n, object)
		if root == nil {
			continue
		}
		what := "the object's"
		if root.Parent != nil {
			what = fmt.Sprintf("the embedded resource %s's", root.Path())
		}
		switch under {
		case "metadata":
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleForbiddenPlace, Severity: diag.Error, Detail: under, Related: root, Fix: "remove the marker"},
				"not allowed on %s metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)", what)
		case "apiVersion", "kind":
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleForbiddenPlace, Severity: diag.Error, Detail: under, Related: root, Fix: "remove the marker"},
				"not allowed on %s %s: it is set by the API machinery, and immutable implicitly", what, under)
		}
	}
}

// Rule 3: +immutable, +immutable=keys and +immutable=once exclude each
// other on one node, also when one comes from the type and another from
// the field.
func checkExclusive(n *schema.Node, report reporter) {
	forms := map[string][]string{} // marker → where it comes from
	once := false
	for _, o := range n.Origins {
		forms[o.Marker()] = append(forms[o.Marker()], fmt.Sprintf("%s at %s", o.Where(), o.Pos))
		once = once || o.Once
	}
	if len(forms) < 2 {
		return
	}
	for _, o := range n.Origins {
		f := PlacementFinding{Node: n, Origin: o, Rule: RuleExclusive, Severity: diag.Error}
		if !once {
			other := "+immutable=keys"
			if o.Keys {
				other = "+immutable"
			}
			f.Fix = "keep one of them: +immutable already includes the keys"
			report(f, "+immutable and +immutable=keys are exclusive on one node, and %s comes from %s", other, strings.Join(forms[other], ", "))
			continue
		}
		var others []string
		for _, m := range []string{"+immutable", "+immutable=keys", "+immutable=once"} {
			if m != o.Marker() && len(forms[m]) > 0 {
				others = append(others, fmt.Sprintf("%s comes from %s", m, strings.Join(forms[m], ", ")))
			}
		}
		f.Fix = "keep one of them: +immutable forbids setting the value later, +immutable=once allows it once"
		report(f, "%s is exclusive with the other immutability forms on one node, and %s", o.Marker(), strings.Join(others, "; "))
	}
}

// +immutable=once only on a property: list items and map values come and
// go with their index or key, so "set once" means nothing there. On a
// required property it is +immutable (a note).
func checkOnce(n *schema.Node, o markers.Origin, report reporter) {
	switch n.Edge {
	case schema.Items:
		report(PlacementFinding{Node: n, Origin: o, Rule: RuleOnceProperty, Severity: diag.Error, Fix: "put +immutable=once on the list field instead, or +immutable on the item type to fix each item"},
			"+immutable=once is not allowed on list items (%s): items come and go with their index or key, so they are never set later", n.Path())
	case schema.Values:
		report(PlacementFinding{Node: n, Origin: o, Rule: RuleOnceProperty, Severity: diag.Error, Fix: "put +immutable=once on the map field instead, or +immutable on the value type to fix each value"},
			"+immutable=once is not allowed on map values (%s): values come and go with their key, so they are never set later", n.Path())
	case schema.Property:
		if n.Parent.Required(n.Name) && !n.Nullable() {
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleOnceRequired, Severity: diag.Note, Related: n.Parent},
				"%s is required, so it is set at creation: +immutable=once is the same as +immutable here", n.Path())
		}
	}
}

// Rules 2 and 4: =keys only where there are keys; on a list map every key
// property must be immutable.
func checkKeys(n *schema.Node, o markers.Origin, report reporter) {
	switch {
	case n.IsMap():
		if n.MapType() == "atomic" {
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleNoKeys, Severity: diag.Error, Detail: "atomic map", Fix: "use +immutable, or drop +mapType=atomic"},
				"=keys is not allowed on an atomic map: it has no keys of its own to keep")
		}
	case n.IsList():
		switch lt := n.ListType(); lt {
		case "map":
			checkListMapKeys(n, o, report)
		case "set":
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleNoKeys, Severity: diag.Error, Detail: "set", Fix: "use +immutable: the items of a set are their own keys"},
				"=keys is not allowed on a +listType=set list (KEP: set items are keys, so only +immutable is allowed)")
		default:
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleNoKeys, Severity: diag.Error, Detail: "atomic list", Fix: "use +immutable, or make it a list map with +listType=map and +listMapKey=<field>"},
				"=keys is not allowed on an atomic list: it has no keys")
		}
	case n.Type() == "object":
		report(PlacementFinding{Node: n, Origin: o, Rule: RuleNoKeys, Severity: diag.Error, Detail: "struct", Fix: "use +immutable on the struct or on its fields"},
			"=keys is not allowed on a struct: only maps and +listType=map lists have keys")
	default:
		t := n.Type()
		if t == "" {
			t = "untyped"
		}
		report(PlacementFinding{Node: n, Origin: o, Rule: RuleNoKeys, Severity: diag.Error, Detail: t, Fix: "use +immutable"},
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
		if k.Fixed() || immutableBetween(k, n) {
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
		report(PlacementFinding{Node: n, Origin: o, Rule: RuleListMapKey, Severity: diag.Error, Detail: key, Fix: fix},
			"=keys on a list map requires its key %q to be immutable (KEP: the map keys are enforced immutable)", key)
	}
}

// immutableBetween reports whether a node strictly between n and top (top
// excluded, n's parents included) is immutable.
func immutableBetween(n, top *schema.Node) bool {
	for a := n.Parent; a != nil && a != top; a = a.Parent {
		if a.Fixed() {
			return true
		}
	}
	return false
}

// onceNote qualifies the redundancy note when the immutable ancestor is
// immutable once set: its value, once there, is compared whole, so markers
// below add nothing.
func onceNote(anc *schema.Node) string {
	if anc.Immutable() {
		return ""
	}
	return " (+immutable=once: once set, its whole value is fixed)"
}

// Rules 5 and 6: redundant markers are notes; markers under set items have
// no effect.
func checkEffect(n *schema.Node, report reporter) {
	if anc := n.ImmutableAncestor(); anc != nil {
		for _, o := range n.Origins {
			report(PlacementFinding{Node: n, Origin: o, Rule: RuleRedundant, Severity: diag.Note, Related: anc},
				"redundant: %s is already immutable as part of %s%s", n.Path(), anc.Path(), onceNote(anc))
		}
		return
	}
	for a, c := n.Parent, n; a != nil; a, c = a.Parent, a {
		if c.Edge == schema.Items && a.ListType() == "set" {
			for _, o := range n.Origins {
				report(PlacementFinding{Node: n, Origin: o, Rule: RuleNoEffect, Severity: diag.Warning, Related: a, Fix: fmt.Sprintf("mark the set %s itself with +immutable to forbid any change", a.Path())},
					"has no effect inside the items of the +listType=set list %s: set items are identities, they are added or removed, never changed", a.Path())
			}
			return
		}
	}
}
