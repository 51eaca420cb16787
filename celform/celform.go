// Package celform is the one CEL form of immutability: a Constraint, one
// form of the form table (runtime/form) at one schema node, with its
// condition, ignoreOrder and message. The generator lowers constraints to
// x-kubernetes-validations rules (Lower, the crd generator's EmitCEL), and
// rules, hand-written or generated, are recognised as constraints
// (Recognize) or left with the reason. The two are inverse: for every form
// at every placement, Recognize(Lower(c)) is c once both are made
// canonical (Canonical: a form where the node is always present is the
// form it means there), which this package's tests prove; migrate and lint
// read hand-written rules through Recognize.
//
// CEL's own semantics are part of the form a rule is recognised as:
//
//   - a transition rule on a node runs only where the node is present in
//     the old and the new object, so `self == oldSelf` alone on an optional
//     property fixes it only while present (noModify), and the presence
//     rules on its parent (`has(self.p) == has(oldSelf.p)`,
//     `!has(oldSelf.p) || has(self.p)`) make it immutable or set-once;
//   - CEL's == ignores the order of x-kubernetes-list-type set and map
//     lists, so `self == oldSelf` on a value holding a list map is the form
//     with ignoreOrder, unless the same rule also compares the list map's
//     keys in order (`self.map(x, x.k) == oldSelf.map(x, x.k)`), as the
//     generator writes for a list map compared in order.
package celform

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"

	"github.com/immutable-gen/immutable-gen/migrate/celshape"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// Constraint is one form at one schema node.
type Constraint struct {
	// Path is the node's path, as schema.Node.Path renders it.
	Path string
	Form form.Form
}

func (c Constraint) String() string { return c.Path + ": " + c.Form.String() }

// Left is a rule about immutability that Recognize does not take, with the
// reason.
type Left struct {
	Path   string
	Rule   string
	Reason string
}

// Lower writes the generator's rules for the markers of root's model into
// its schema: the CEL form's lowering is the crd generator's.
func Lower(root *schema.Node) schema.CELResult { return schema.EmitCEL(root) }

// AlwaysPresent reports whether n can never be absent from an object that
// has its parent: a required, non-nullable property, or list items and map
// values (whose presence is their index's or key's).
func AlwaysPresent(n *schema.Node) bool {
	switch n.Edge {
	case schema.Items, schema.Values:
		return true
	case schema.Property:
		return n.Parent.Required(n.Name) && !n.Nullable()
	}
	return false
}

// Constraints are the constraints the markers (or extensions) of root's
// model state, canonical, one a node, in walk order. A node with several
// origins gets the form they state together.
func Constraints(root *schema.Node) []Constraint {
	var out []Constraint
	root.Walk(func(n *schema.Node) {
		if len(n.Origins) == 0 {
			return
		}
		var f form.Form
		for _, o := range n.Origins {
			of := o.Form()
			f.Presence |= of.Presence
			if of.Change > f.Change {
				f.Change = of.Change
			}
			f.IgnoreOrder = f.IgnoreOrder || of.IgnoreOrder
			if of.When != "" {
				f.When = of.When
			}
			if of.Message != "" {
				f.Message = of.Message
			}
		}
		if f = Canonical(n, f); f.Presence != 0 || f.Change != form.AnyChange {
			// (A presence rule alone where the node is always present
			// forbids nothing.)
			out = append(out, Constraint{Path: n.Path(), Form: f})
		}
	})
	return out
}

// Canonical is the form f means at n: form.Canonical where n is always
// present, and ignoreOrder only where n holds a list map (elsewhere there
// is no order it could ignore).
func Canonical(n *schema.Node, f form.Form) form.Form {
	f = f.Canonical(AlwaysPresent(n))
	if f.IgnoreOrder && !n.HasListMap() {
		f.IgnoreOrder = false
	}
	f.When = Condition(f.When)
	return f
}

// Condition is the canonical text of a condition: CEL's own rendering of
// its syntax tree (parentheses and spacing as cel-go's unparser writes
// them), or the text as it is where it is not CEL.
func Condition(expr string) string {
	if expr == "" {
		return ""
	}
	p, err := parser.NewParser(parser.MaxRecursionDepth(200))
	if err != nil {
		return expr
	}
	tree, errs := p.Parse(common.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return expr
	}
	text, err := celshape.Unparse(tree.Expr(), tree.SourceInfo())
	if err != nil {
		return expr
	}
	return text
}

// claims gathers what the recognised conjuncts say about one node.
type claims struct {
	node  *schema.Node
	kinds map[celshape.Kind]bool
	// ordered: a conjunct compares a list map's keys in order, beside an
	// Equal on the same node.
	ordered bool
	when    string
	message string
	rules   []string
	// written are the rules about the node, where each is written.
	written []writtenRule
	// whens are the conditions of the rules about the node ("" for an
	// unconditional one): a form has one.
	whens map[string]bool
}

// writtenRule is a rule and the node it is written on.
type writtenRule struct {
	node *schema.Node
	rule string
}

// aboutRule is a rule (where it is written) and a node it is about.
type aboutRule struct {
	writtenRule
	about *schema.Node
}

// Reading is what Recognize reads in a schema, by node: for a caller that
// reasons on the recognised constraints beside the rules they come from
// (lint).
type Reading struct {
	Constraints []Constraint
	Left        []Left
	// At is the recognised form of each node a constraint is about.
	At map[*schema.Node]form.Form
	// taken are the rules recognised whole, by the node they are written
	// on, and the nodes each is about.
	taken map[*schema.Node]map[string][]*schema.Node
}

// Took reports whether the rule, written on n, was recognised whole (what
// it says is the forms in At of the nodes it is about, nothing more), and
// the nodes it is about.
func (r Reading) Took(n *schema.Node, rule string) ([]*schema.Node, bool) {
	about, ok := r.taken[n][rule]
	return about, ok
}

// Recognize returns the constraints the x-kubernetes-validations rules of
// root's schema state, canonical, in walk order of the nodes they are
// about, and the rules about immutability it cannot take (with the
// reason). Rules that say nothing about immutability are neither.
func Recognize(root *schema.Node) ([]Constraint, []Left) {
	r := Read(root)
	return r.Constraints, r.Left
}

// Read is Recognize, by node.
func Read(root *schema.Node) Reading {
	var left []Left
	leftRules := map[writtenRule]bool{}
	var written []aboutRule
	about := map[*schema.Node]*claims{}
	var order []*schema.Node
	poisoned := map[*schema.Node]string{}
	claimsOf := func(t *schema.Node) *claims {
		c := about[t]
		if c == nil {
			c = &claims{node: t, kinds: map[celshape.Kind]bool{}, whens: map[string]bool{}}
			about[t] = c
			order = append(order, t)
		}
		return c
	}
	root.Walk(func(n *schema.Node) {
		for _, r := range n.Rules() {
			if schema.IsCarrier(r.Rule) {
				continue
			}
			sh, err := celshape.Parse(r.Rule)
			if err != nil || !sh.Immutability() {
				continue
			}
			reason := sh.Needs
			if reason == "" && len(sh.Rest) > 0 {
				reason = "the rule says more than immutability (" + strings.Join(sh.Rest, " && ") + "): no marker replaces it whole"
			}
			when := sh.When
			if reason == "" && when != "" {
				// The condition over the whole objects, as
				// +immutable:when reads it.
				if path, ok := propertyPath(n); !ok {
					reason = "a condition inside list items or map values: +immutable:when stands only on nodes reached from the root through properties"
				} else if when, err = celshape.Rebase(when, path); err != nil {
					reason = "its condition cannot be rebased onto the whole objects: " + err.Error()
				}
			}
			// The nodes the conjuncts are about.
			targets := make([]*schema.Node, len(sh.Atoms))
			for i, a := range sh.Atoms {
				t := n
				for _, p := range a.Path {
					if t = t.Properties[p]; t == nil {
						break
					}
				}
				if t != nil && a.Kind == celshape.ItemsEqual {
					// About the items of the list at the path.
					t = t.Items
				}
				if t == nil && reason == "" {
					reason = "it is about " + strings.Join(a.Path, ".") + ", which the schema does not have"
				}
				targets[i] = t
			}
			ordered, allOrdered := orderedByRule(n, sh.Atoms)
			if reason != "" {
				left = append(left, Left{n.Path(), r.Rule, reason})
				leftRules[writtenRule{n, r.Rule}] = true
				// What else is said about these nodes cannot be read as
				// their form: the rule left may say more.
				poisoned[n] = reason
				for _, t := range targets {
					if t != nil {
						poisoned[t] = reason
					}
				}
				continue
			}
			for i, a := range sh.Atoms {
				t := targets[i]
				if a.Kind == celshape.KeysInOrder && allOrdered {
					// Part of an ordered comparison (below).
					continue
				}
				c := claimsOf(t)
				c.ordered = c.ordered || ordered[t]
				kind := a.Kind
				if kind == celshape.ItemsEqual {
					// Each item equal where both lists have it: the items'
					// Equal (their presence is their index's).
					kind = celshape.Equal
				}
				if kind == celshape.Equal && len(a.Path) > 0 && len(a.Guarded) == 0 {
					// self.p == oldSelf.p on the parent fails where p is
					// absent on either side: it keeps p present too.
					c.kinds[celshape.SamePresence] = true
				}
				c.kinds[kind] = true
				if when != "" {
					c.when = dropPresentGuards(root, when, nil)
				}
				c.whens[when] = true
				if r.Message != "" && !defaultMessage(r.Message, t.Name) {
					c.message = r.Message
				}
				if !slices.Contains(c.rules, r.Rule) {
					c.rules = append(c.rules, r.Rule)
				}
				c.written = append(c.written, writtenRule{n, r.Rule})
				written = append(written, aboutRule{writtenRule{n, r.Rule}, t})
			}
		}
	})
	var out []Constraint
	at := map[*schema.Node]form.Form{}
	for _, n := range order {
		c := about[n]
		why, ok := poisoned[n]
		var f form.Form
		if ok {
			why = "another rule about " + n.Path() + " was left: " + why
		} else {
			f, why = formOf(root, c)
		}
		if why != "" {
			for _, r := range c.rules {
				left = append(left, Left{n.Path(), r, why})
			}
			for _, w := range c.written {
				leftRules[w] = true
			}
			continue
		}
		out = append(out, Constraint{Path: n.Path(), Form: f})
		at[n] = f
	}
	slices.SortStableFunc(out, func(a, b Constraint) int { return strings.Compare(a.Path, b.Path) })
	taken := map[*schema.Node]map[string][]*schema.Node{}
	for _, w := range written {
		if leftRules[w.writtenRule] {
			continue
		}
		if taken[w.node] == nil {
			taken[w.node] = map[string][]*schema.Node{}
		}
		if !slices.Contains(taken[w.node][w.rule], w.about) {
			taken[w.node][w.rule] = append(taken[w.node][w.rule], w.about)
		}
	}
	return Reading{Constraints: out, Left: left, At: at, taken: taken}
}

// formOf is the form the conjuncts about one node state together, with
// their condition and message, canonical; or why none does.
func formOf(root *schema.Node, c *claims) (form.Form, string) {
	if len(c.whens) > 1 {
		return form.Form{}, "the rules about it hold under different conditions (or one under a condition and one always): a form has one +immutable:when"
	}
	f, reason := FormOf(c.kinds, c.ordered, c.node.HasListMap())
	if reason != "" {
		return f, reason
	}
	f.When, f.Message = c.when, c.message
	if f.Presence == 0 && f.When != "" {
		f.When = dropPresentGuards(root, f.When, c.node)
	}
	f = Canonical(c.node, f)
	if _, ok := f.Kind(); !ok {
		return f, fmt.Sprintf("presence %s and change %s: no form means that", f.Presence, f.Change)
	}
	return f, ""
}

// FormOf is the form that conjuncts of these kinds (celshape's), all about
// one node, state together — as CEL evaluates them, before any condition
// or canonical form — or why no form means that. ordered is set when the
// conjuncts comparing the node's value also compare the keys of every list
// map under it in order; listMap when a list map is at or under the node
// (CEL's == ignores its order). migrate and Recognize both read rules
// through it.
func FormOf(kinds map[celshape.Kind]bool, ordered, listMap bool) (form.Form, string) {
	has := kinds
	var f form.Form
	if has[celshape.SamePresence] || has[celshape.NoAddition] {
		f.Presence |= form.NoSet
	}
	if has[celshape.SamePresence] || has[celshape.NoRemoval] {
		f.Presence |= form.NoUnset
	}
	switch {
	case has[celshape.Equal] || has[celshape.NoModify]:
		f.Change = form.NoChange
		// CEL's == ignores the order of list maps, unless the rule
		// compares the keys in order too.
		f.IgnoreOrder = !ordered && listMap
	case has[celshape.SameKeys] || has[celshape.NoKeyRemoved] && has[celshape.NoKeyAdded] ||
		has[celshape.SameSize] && (has[celshape.NoKeyRemoved] || has[celshape.NoKeyAdded]):
		// (Equal sizes and no key added: no key removed either.)
		f.Change = form.NoKeyChange
	case has[celshape.KeysInOrder]:
		return f, "compares a list map's keys in order (a CEL list made by map() is ordered): no form compares keys in order"
	case has[celshape.NoKeyRemoved] || has[celshape.NoKeyAdded]:
		return f, "keys may be added or removed, not both: no form means that"
	case has[celshape.SameSize]:
		return f, "compares sizes only: no form means that"
	}
	return f, ""
}

// defaultMessage reports whether msg is a default message of the form
// table (a value rule's, or a presence rule's about the property name):
// the generator's own wording, not an +immutable:message.
func defaultMessage(msg, name string) bool {
	if msg == form.AtomicItemsMessage {
		return true
	}
	for _, k := range form.Kinds() {
		if msg == k.ValueMessage || k.PresenceMessage != "" && msg == fmt.Sprintf(k.PresenceMessage, name) {
			return true
		}
	}
	return false
}

// orderedByRule returns the nodes that atoms, the conjuncts of one rule
// on n, compare whole (self.p == oldSelf.p) together with the keys of
// every list map under them in order (self.p.l.map(x, x.k) ==
// oldSelf.p.l.map(x, x.k)), the generator's lowering of a form without
// ignoreOrder; and whether every KeysInOrder conjunct is part of one.
func orderedByRule(n *schema.Node, atoms []celshape.Atom) (map[*schema.Node]bool, bool) {
	ordered := map[*schema.Node]bool{}
	used := 0
	for _, a := range atoms {
		if a.Kind != celshape.Equal && a.Kind != celshape.NoModify {
			continue
		}
		t := n
		for _, p := range a.Path {
			if t = t.Properties[p]; t == nil {
				break
			}
		}
		if t == nil {
			continue
		}
		var inOrder [][]string
		for _, b := range atoms {
			if b.Kind == celshape.KeysInOrder && len(b.Path) >= len(a.Path) && slices.Equal(b.Path[:len(a.Path)], a.Path) {
				inOrder = append(inOrder, b.Path[len(a.Path):])
			}
		}
		if len(inOrder) > 0 && listMapsIn(t, inOrder) {
			ordered[t] = true
			used += len(inOrder)
		}
	}
	keysInOrder := 0
	for _, a := range atoms {
		if a.Kind == celshape.KeysInOrder {
			keysInOrder++
		}
	}
	return ordered, used == keysInOrder
}

// listMapsIn reports whether paths name every list map under t (through
// properties; a list map inside items or values is ordered by a
// comprehension, no shape of celshape's).
func listMapsIn(t *schema.Node, paths [][]string) bool {
	all := true
	var walk func(m *schema.Node, path []string)
	walk = func(m *schema.Node, path []string) {
		if m.IsList() && m.ListType() == "map" {
			all = all && slices.ContainsFunc(paths, func(p []string) bool { return slices.Equal(p, path) })
			return
		}
		for name, c := range m.Properties {
			walk(c, append(slices.Clone(path), name))
		}
		if m.Items != nil || m.Values != nil {
			all = all && !m.HasListMap()
		}
	}
	walk(t, nil)
	return all
}

// dropPresentGuards removes from when, a condition over the root objects,
// the conjuncts has(self.p) and has(oldSelf.p) where p is always present
// in its parent: a constraint about a node applies only where its parent
// is present in both objects, so such a guard adds nothing (the generator
// writes them to read a value safely, and celshape takes them for the
// condition).
//
// also is a node whose own has() guards are dropped too: the target of a
// form without a presence rule, which holds only where the node is present
// in both objects anyway.
func dropPresentGuards(root *schema.Node, when string, also *schema.Node) string {
	p, err := parser.NewParser(parser.MaxRecursionDepth(200))
	if err != nil {
		return when
	}
	tree, errs := p.Parse(common.NewTextSource(when))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return when
	}
	var keep []string
	var flat func(e ast.Expr)
	flat = func(e ast.Expr) {
		if e.Kind() == ast.CallKind && e.AsCall().FunctionName() == operators.LogicalAnd {
			for _, a := range e.AsCall().Args() {
				flat(a)
			}
			return
		}
		if n := hasOf(root, e); n != nil && (AlwaysPresent(n) || n == also) {
			return
		}
		text, err := celshape.Unparse(e, tree.SourceInfo())
		if err != nil {
			text = when
		}
		if e.Kind() == ast.CallKind && (e.AsCall().FunctionName() == operators.LogicalOr || e.AsCall().FunctionName() == operators.Conditional) {
			text = "(" + text + ")"
		}
		keep = append(keep, text)
	}
	flat(tree.Expr())
	return strings.Join(keep, " && ")
}

// hasOf returns the node of has(self.p) or has(oldSelf.p), p below root
// through properties, or nil.
func hasOf(root *schema.Node, e ast.Expr) *schema.Node {
	if e.Kind() != ast.CallKind || e.AsCall().FunctionName() != "has" || len(e.AsCall().Args()) != 1 {
		return nil
	}
	var rev []string
	x := e.AsCall().Args()[0]
	for x.Kind() == ast.SelectKind {
		rev = append(rev, x.AsSelect().FieldName())
		x = x.AsSelect().Operand()
	}
	if x.Kind() != ast.IdentKind || x.AsIdent() != "self" && x.AsIdent() != "oldSelf" || len(rev) == 0 {
		return nil
	}
	n := root
	for i := len(rev) - 1; i >= 0 && n != nil; i-- {
		n = n.Properties[rev[i]]
	}
	return n
}

// propertyPath returns the property names from the root to n, and false
// where the way passes through list items or map values.
func propertyPath(n *schema.Node) ([]string, bool) {
	var rev []string
	for ; n.Parent != nil; n = n.Parent {
		if n.Edge != schema.Property {
			return nil, false
		}
		rev = append(rev, n.Name)
	}
	slices.Reverse(rev)
	return rev, true
}
