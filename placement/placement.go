// Package placement checks where immutability stands in a model, before
// anything is written: the KEP's placement rules for x-kubernetes-immutable
// and x-kubernetes-immutable-keys and this project's for =once
// (docs/semantics.md 2.2, rules 1-6), and markers under an optional spec.
// Each finding is worded once, for a Go marker or for an extension read
// from a manifest by its origin, so the generators and lint print the same
// text.
package placement

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/immutable-gen/immutable-gen/diag"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Rule is one of the placement rules of docs/semantics.md 2.2.
type Rule int

// The placement rules, numbered as in docs/semantics.md 2.2.
const (
	// RuleForbiddenPlace: not on the root, metadata, apiVersion or kind.
	RuleForbiddenPlace Rule = iota + 1
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
	// items or map values (beyond the KEP, docs/semantics.md 2.1).
	RuleOnceProperty
	// RuleOnceRequired: +immutable=once on a required property is
	// +immutable (a note).
	RuleOnceRequired
	// RuleIgnoreOrder: +immutable:ignoreOrder needs a list map at or under
	// the node (beyond the KEP, docs/semantics.md 2.1).
	RuleIgnoreOrder
	// RuleWhen: +immutable:when only on a node reached from the root
	// through properties only.
	RuleWhen
	// RuleSetOnCreate: a form that forbids setting a property after
	// creation on one the status subresource drops on create (status),
	// which its first status write sets (a warning).
	RuleSetOnCreate
)

// The IDs of the placement findings, one per rule: the same whether the
// origin is a marker (the generators) or an extension (lint).
const (
	IDForbiddenPlace diag.ID = "IG002"
	IDNoKeys         diag.ID = "IG003"
	IDExclusive      diag.ID = "IG004"
	IDListMapKey     diag.ID = "IG005"
	IDNoEffect       diag.ID = "IG006"
	IDRedundant      diag.ID = "IG007"
	IDOnceProperty   diag.ID = "IG015"
	IDOnceRequired   diag.ID = "IG016"
	IDIgnoreOrder    diag.ID = "IG019"
	IDWhen           diag.ID = "IG026"
	IDSetOnCreate    diag.ID = "IG036"
)

// ID is the stable ID of the rule's findings.
func (r Rule) ID() diag.ID {
	return [...]diag.ID{"", IDForbiddenPlace, IDNoKeys, IDExclusive, IDListMapKey, IDRedundant, IDNoEffect, IDOnceProperty, IDOnceRequired, IDIgnoreOrder, IDWhen, IDSetOnCreate}[r]
}

// Finding is one placement rule finding about one marker (or
// extension, for a model read with schema.FromExtensions), before it is
// rendered as a diagnostic. Besides the text it says which rule and which
// nodes are involved. The text names what the origin is: the marker
// (`+immutable=keys`, in Go terms) or the extension
// (`x-kubernetes-immutable-keys`, in the schema's terms).
type Finding struct {
	Node     *schema.Node
	Origin   schema.Origin
	Rule     Rule
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
	// Message and Fix are the texts Placement reports. For a marker the
	// message does not name it (a diagnostic's subject does); for an
	// extension it does.
	Message, Fix string
}

// Placement checks every marker in the model rooted at root against the
// KEP's placement rules, and warns about markers under an optional spec
// (OptionalAncestors). subject names the schema (e.g. `widgets.example.com
// v1`) in messages.
func Check(crd, version string, root *schema.Node) diag.List {
	var out diag.List
	for _, f := range Findings(root) {
		out = append(out, diag.Diagnostic{
			ID:       f.Rule.ID(),
			Pos:      f.Origin.Pos,
			Severity: f.Severity,
			Marker:   f.Origin.Marker(),
			CRD:      crd,
			Version:  version,
			Path:     f.Node.Path(),
			Related:  related(f),
			Message:  f.Message,
			Fix:      f.Fix,
		})
	}
	return append(out, OptionalAncestors(crd, version, root)...)
}

// related are the positions of the markers on the node a finding relates
// its node to (the immutable ancestor, the set, the object root).
func related(f Finding) []token.Position {
	var out []token.Position
	if f.Related != nil {
		for _, o := range f.Related.Origins {
			if o.Pos.IsValid() {
				out = append(out, o.Pos)
			}
		}
	}
	return out
}

// Findings checks every marker in the model rooted at root, the
// schema of an object (a kind), against the KEP's placement rules, in the
// order of Walk.
func Findings(root *schema.Node) []Finding {
	return placementFindings(root, true)
}

// PartFindings checks, as Findings does, the markers of a
// schema that objects use as a part rather than the schema of an object: an
// OpenAPI definition of a type that is not a kind, checked once for all its
// uses. Its root is not an object's root, so rule 1 applies only to embedded
// resources below it; what depends on where the part is used (an immutable
// ancestor, the items of a set or list above it) is checked in the trees of
// the objects that use it.
func PartFindings(part *schema.Node) []Finding {
	return placementFindings(part, false)
}

// placementFindings checks the markers in the model rooted at root; object
// says whether root is the root of an object.
func placementFindings(root *schema.Node, object bool) []Finding {
	var out []Finding
	report := func(f Finding, format string, args ...any) {
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
			if o.Extension && !o.Once && !o.Kind().Places.Elements && (n.Edge == schema.Items || n.Edge == schema.Values) {
				// A form the table keeps off list items and map values
				// (a presence rule of its own). The markers refuse
				// +k8s:update on items and values themselves
				// (validation-gen's rule); a manifest can still carry the
				// extension there, which the runtime refuses.
				for _, ext := range o.Kind().Extensions {
					msg, fix := extension.NotOnElements(ext, n.Edge == schema.Values, n.Path())
					report(Finding{Node: n, Origin: o, Rule: RuleOnceProperty, Severity: diag.Error, Fix: fix}, "%s", msg)
				}
			}
			if o.IgnoreOrder {
				checkIgnoreOrder(n, o, report)
			}
			if DroppedOnCreate(n) && o.Form().Presence&form.NoSet != 0 {
				checkSetOnCreate(n, o, report)
			}
			if o.When != "" && !n.ThroughProperties() {
				report(Finding{Node: n, Origin: o, Rule: RuleWhen, Severity: diag.Error,
					Fix: "put the marker with +immutable:when on the list or map field itself, or drop the condition"},
					"+immutable:when is only allowed on a field reached from the object's root through properties only, and %s is inside list items or map values: its condition sees the whole objects, which cannot say which item it is about", n.Path())
			}
		}
		checkEffect(n, report)
	})
	return out
}

type reporter func(f Finding, format string, args ...any)

// words say a finding in the terms of its origin: Go markers, or the
// extensions of a schema read from a manifest (schema.Origin.Extension).
type words struct{ extensions bool }

func wordsOf(o schema.Origin) words { return words{o.Extension} }

// pick is the marker's phrase or the extension's.
func (w words) pick(marker, extension string) string {
	if w.extensions {
		return extension
	}
	return marker
}

// name names an immutability form: `+immutable=keys` or
// `x-kubernetes-immutable-keys`.
func (w words) name(o schema.Origin) string {
	switch {
	case !w.extensions:
		return o.Marker()
	case o.Keys:
		return extension.ImmutableKeys
	case o.Once:
		return extension.ImmutableOnce
	case o.NoModify:
		return extension.NoModify
	}
	return extension.Immutable
}

// subject starts a sentence about the origin o: nothing for a marker (a
// diagnostic's subject names it), `x-kubernetes-immutable ` for an
// extension.
func (w words) subject(o schema.Origin) string { return w.pick("", w.name(o)+" ") }

// write is what to write for +immutable, in a fix.
func (w words) write() string { return w.pick("+immutable", "`"+extension.Immutable+": true`") }

// immutable, keys and once name the three forms.
func (w words) immutable() string { return w.name(schema.Origin{}) }
func (w words) keys() string      { return w.pick("=keys", extension.ImmutableKeys) }
func (w words) once() string      { return w.name(schema.Origin{Once: true}) }

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
		w := wordsOf(o)
		is := w.pick("", w.name(o)+" is ")
		if n.Parent == nil {
			if object {
				report(Finding{Node: n, Origin: o, Rule: RuleForbiddenPlace, Severity: diag.Error, Related: n, Fix: w.pick("mark", "put it on") + " the fields of spec (or spec itself) instead"},
					"%snot allowed %s: the whole object would be immutable, including its metadata and status (KEP: forbidden at the root)", is, w.pick("on the root type of a kind", "at the root of the schema"))
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
		remove := w.pick("remove the marker", "remove it")
		switch under {
		case "metadata":
			report(Finding{Node: n, Origin: o, Rule: RuleForbiddenPlace, Severity: diag.Error, Detail: under, Related: root, Fix: remove},
				"%snot allowed on %s metadata or anything inside it: the API server owns object metadata (KEP: forbidden inside .metadata)", is, what)
		case "apiVersion", "kind":
			report(Finding{Node: n, Origin: o, Rule: RuleForbiddenPlace, Severity: diag.Error, Detail: under, Related: root, Fix: remove},
				"%snot allowed on %s %s: it is set by the API machinery, and immutable implicitly", is, what, under)
		}
	}
}

// Rule 3: +immutable, +immutable=keys and +immutable=once exclude each
// other on one node, also when one comes from the type and another from
// the field. For extensions there is no Go declaration to point to.
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
		w := wordsOf(o)
		f := Finding{Node: n, Origin: o, Rule: RuleExclusive, Severity: diag.Error}
		if !once {
			other := schema.Origin{Keys: !o.Keys}.Marker()
			f.Fix = fmt.Sprintf("keep one of them: %s already includes the keys", w.immutable())
			report(f, "%s and %s are exclusive on one node%s", w.immutable(), w.name(schema.Origin{Keys: true}),
				w.pick(fmt.Sprintf(", and %s comes from %s", other, strings.Join(forms[other], ", ")), " (KEP)"))
			continue
		}
		var others []string
		for _, m := range []string{"+immutable", "+immutable=keys", "+immutable=once"} {
			if m != o.Marker() && len(forms[m]) > 0 {
				others = append(others, fmt.Sprintf("%s comes from %s", m, strings.Join(forms[m], ", ")))
			}
		}
		f.Fix = fmt.Sprintf("keep one of them: %s forbids setting the value later, %s allows it once", w.immutable(), w.once())
		report(f, "%s is exclusive with the other immutability forms on one node%s", w.name(o), w.pick(", and "+strings.Join(others, "; "), ""))
	}
}

// +immutable=once only on a property: list items and map values come and
// go with their index or key, so "set once" means nothing there. On a
// required property it is +immutable (a note).
func checkOnce(n *schema.Node, o schema.Origin, report reporter) {
	w := wordsOf(o)
	switch n.Edge {
	case schema.Items, schema.Values:
		values := n.Edge == schema.Values
		f := Finding{Node: n, Origin: o, Rule: RuleOnceProperty, Severity: diag.Error}
		if w.extensions {
			msg, fix := extension.NotOnElements(extension.ImmutableOnce, values, n.Path())
			f.Fix = fix
			report(f, "%s", msg)
			return
		}
		if values {
			f.Fix = fmt.Sprintf("put %s on the map field instead, or %s on the value type to fix each value", w.once(), w.immutable())
			report(f, "%s is not allowed on map values (%s): values come and go with their key, so they are never set later", w.once(), n.Path())
			return
		}
		f.Fix = fmt.Sprintf("put %s on the list field instead, or %s on the item type to fix each item", w.once(), w.immutable())
		report(f, "%s is not allowed on list items (%s): items come and go with their index or key, so they are never set later", w.once(), n.Path())
	case schema.Property:
		if n.Parent.Required(n.Name) && !n.Nullable() {
			report(Finding{Node: n, Origin: o, Rule: RuleOnceRequired, Severity: diag.Note, Related: n.Parent,
				Fix: w.pick("", fmt.Sprintf("nothing to do; or write %s: true, which says the same", w.immutable()))},
				"%s is required, so it is set at creation: %s is the same as %s here", n.Path(), w.once(), w.immutable())
		}
	}
}

// checkSetOnCreate: with the status subresource on, the API server drops
// status on create and the first status write sets it, so a form that
// forbids setting it after creation refuses that write: status could never
// be written. The set-once form keeps it once written. A warning: without
// the subresource status is written at create.
func checkSetOnCreate(n *schema.Node, o schema.Origin, report reporter) {
	w := wordsOf(o)
	once, _ := form.Named("once")
	fix := once.Marker + " (set by the first status write, then never changed or removed), or // +k8s:update=NoUnset to keep it only present"
	if w.extensions {
		fix = "`" + once.Extensions[0] + ": true` (set by the first status write, then never changed or removed) instead"
	}
	report(Finding{Node: n, Origin: o, Rule: RuleSetOnCreate, Severity: diag.Warning, Fix: fix},
		"%sforbids setting %s after creation, but with the status subresource the API server drops %s on create and the first status write sets it: that write would be refused, and %s could never be written",
		w.subject(o), n.Path(), n.Path(), n.Path())
}

// +immutable:ignoreOrder only where there is an order to ignore: a list
// map at or under the node (sets compare without order anyway).
func checkIgnoreOrder(n *schema.Node, o schema.Origin, report reporter) {
	if n.HasListMap() {
		return
	}
	w := wordsOf(o)
	report(Finding{Node: n, Origin: o, Rule: RuleIgnoreOrder, Severity: diag.Error,
		Fix: w.pick("remove +immutable:ignoreOrder, or put it on the field or type whose value holds the +listType=map list", "remove "+extension.IgnoreOrder)},
		"%s has no list map at or under %s: there is no order to ignore (sets and maps compare without order anyway)", w.pick("+immutable:ignoreOrder", extension.IgnoreOrder), n.Path())
}

// Rules 2 and 4: =keys only where there are keys; on a list map every key
// property must be immutable.
func checkKeys(n *schema.Node, o schema.Origin, report reporter) {
	kind := noKeysKind(n)
	if kind == "" {
		if n.IsList() && o.Spelling == "" {
			// The KEP's rule; validation-gen's NoAddItem/NoRemoveItem
			// has none (a changed key is a removal and an addition,
			// which they refuse anyway).
			checkListMapKeys(n, o, report)
		}
		return
	}
	f := Finding{Node: n, Origin: o, Rule: RuleNoKeys, Severity: diag.Error, Detail: kind}
	w := wordsOf(o)
	if w.extensions {
		// In the extensions' words, the runtime's (runtime/extension).
		msg, fix := extension.NoKeys(kind)
		f.Fix = fix
		report(f, "%s", msg)
		return
	}
	switch kind {
	case "atomic map":
		f.Fix = "use +immutable, or drop +mapType=atomic"
		report(f, "=keys is not allowed on an atomic map: it has no keys of its own to keep")
	case "set":
		f.Fix = "use +immutable: the items of a set are their own keys"
		report(f, "=keys is not allowed on a +listType=set list (KEP: set items are keys, so only +immutable is allowed)")
	case "atomic list":
		f.Fix = "use +immutable, or make it a list map with +listType=map and +listMapKey=<field>"
		report(f, "=keys is not allowed on an atomic list: it has no keys")
	case "struct":
		f.Fix = "use +immutable on the struct or on its fields"
		report(f, "=keys is not allowed on a struct: only maps and +listType=map lists have keys")
	default:
		f.Fix = "use +immutable"
		an := "a"
		if strings.ContainsRune("aeiou", rune(kind[0])) {
			an = "an"
		}
		report(f, "=keys is not allowed on %s %s value: only maps and +listType=map lists have keys", an, kind)
	}
}

// noKeysKind is "" when n has keys (a map that is not atomic, a list map),
// else the kind of node it is, as extension.NoKeys names them.
func noKeysKind(n *schema.Node) string {
	switch {
	case n.IsMap():
		if n.MapType() == "atomic" {
			return "atomic map"
		}
		return ""
	case n.IsList():
		switch n.ListType() {
		case "map":
			return ""
		case "set":
			return "set"
		}
		return "atomic list"
	case n.Type() == "object":
		return "struct"
	case n.Type() == "":
		return "untyped"
	}
	return n.Type()
}

func checkListMapKeys(n *schema.Node, o schema.Origin, report reporter) {
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
		switch {
		case o.Extension:
			fix = fmt.Sprintf("add `%s: true` to the key property %s", extension.Immutable, k.Path())
		case goField != "":
			fix = fmt.Sprintf("add // +immutable to the key field %s", goField)
		}
		report(Finding{Node: n, Origin: o, Rule: RuleListMapKey, Severity: diag.Error, Detail: key, Fix: fix},
			"%s on a list map requires its key %q to be immutable (KEP: the map keys are enforced immutable)", wordsOf(o).keys(), key)
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
func (w words) onceNote(anc *schema.Node) string {
	if anc.Immutable() {
		return ""
	}
	return " (" + w.once() + ": once set, its whole value is fixed)"
}

// Rules 5 and 6: redundant markers are notes; markers under set items have
// no effect.
func checkEffect(n *schema.Node, report reporter) {
	if anc := n.ImmutableAncestor(); anc != nil && anc.When() == "" {
		for _, o := range n.Origins {
			w := wordsOf(o)
			report(Finding{Node: n, Origin: o, Rule: RuleRedundant, Severity: diag.Note, Related: anc, Fix: w.pick("", "remove it; it changes nothing")},
				"redundant%s: %s is already immutable as part of %s%s", w.pick("", " "+w.name(o)), n.Path(), anc.Path(), w.onceNote(anc))
		}
		return
	}
	for a, c := n.Parent, n; a != nil; a, c = a.Parent, a {
		if c.Edge == schema.Items && a.ListType() == "set" {
			for _, o := range n.Origins {
				w := wordsOf(o)
				report(Finding{Node: n, Origin: o, Rule: RuleNoEffect, Severity: diag.Warning, Related: a, Fix: fmt.Sprintf("mark the set %s itself with %s to forbid any change", a.Path(), w.write())},
					"%shas no effect inside the items of the %s %s: set items are identities, they are added or removed, never changed", w.subject(o), w.pick("+listType=set list", "set"), a.Path())
			}
			return
		}
	}
}

// Checks describes the placement findings (for a marker or an extension
// alike).
func Checks() []diag.Check {
	return []diag.Check{
		{ID: IDForbiddenPlace, Severity: diag.Error, Title: "immutability at the root, in metadata, or on apiVersion or kind"},
		{ID: IDNoKeys, Severity: diag.Error, Title: "=keys (x-kubernetes-immutable-keys) on a node without keys (set, atomic list, atomic map, struct, scalar)"},
		{ID: IDExclusive, Severity: diag.Error, Title: "two exclusive forms (+immutable, =keys, =once) on one node"},
		{ID: IDListMapKey, Severity: diag.Error, Title: "=keys on a list map whose key is not immutable"},
		{ID: IDNoEffect, Severity: diag.Warning, Title: "immutability inside the items of a set, where it has no effect"},
		{ID: IDRedundant, Severity: diag.Note, Title: "immutability inside an already immutable subtree"},
		{ID: IDOptionalAncestor, Severity: diag.Warning, Title: "immutable fields under an optional spec, which can be removed and added back"},
		{ID: IDOnceProperty, Severity: diag.Error, Title: "=once (or, in a manifest, x-immutable-gen-no-modify, -no-set, -no-unset) on list items or map values, which come and go with their index or key"},
		{ID: IDOnceRequired, Severity: diag.Note, Title: "=once on a required property, where it is +immutable"},
		{ID: IDIgnoreOrder, Severity: diag.Error, Title: "+immutable:ignoreOrder (x-immutable-gen-ignore-order) with no list map at or under it"},
		{ID: IDWhen, Severity: diag.Error, Title: "+immutable:when on a node inside list items or map values"},
		{ID: IDSetOnCreate, Severity: diag.Warning, Title: "a form that forbids setting status after creation, which the status subresource drops on create"},
	}
}
