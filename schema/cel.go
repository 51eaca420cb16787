package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/form"
)

// FixExtensionsMode is the fix offered wherever the CEL rules cannot say
// what the markers say (or the API server cannot afford them): the
// extensions, enforced by the runtime, say it exactly.
const FixExtensionsMode = "generate with crd:immutability=extensions and enforce with the immutable-gen runtime"

// CELResult says what the CEL lowering needed and what it could not do.
type CELResult struct {
	// TwoVariableComprehensions is true when an emitted rule uses `all(i,
	// x, …)`, which API servers accept from Kubernetes 1.33 on (the CEL
	// environment has it from 1.32, and servers accept new expressions at
	// the compatibility version N-1).
	TwoVariableComprehensions bool
	// Floor is what the emitted rule that needs the newest API server
	// needs (the first such rule in walk order); zero when no rule was
	// emitted.
	Floor KubeNeed
	// Inexpressible lists the markers whose semantics CEL cannot express
	// exactly; the lowering wrote nothing weaker for them.
	Inexpressible []Inexpressible
	// Limits lists the markers lowered with a rule that misses one kind of
	// change, which the API server's CEL cannot see (Reason says which).
	Limits []Inexpressible
}

// Inexpressible is a marker the lowering refused.
type Inexpressible struct {
	Node   *Node
	Origin Origin
	Reason string
	Fix    string
}

// MinKubeVersion is the oldest Kubernetes minor version that accepts the
// rules, as "1.N"; "" when no rule was emitted.
func (r CELResult) MinKubeVersion() string { return r.Floor.Version }

// KubeNeed is what an emitted rule needs of the API server: the oldest
// Kubernetes minor version that accepts it (as "1.N"), why, and what to do
// where the target is older (docs/semantics.md, "The Kubernetes floor").
type KubeNeed struct {
	Version, Reason, Fix string
}

// Newer reports whether k needs a newer Kubernetes than other.
func (k KubeNeed) Newer(other KubeNeed) bool { return minorOf(k.Version) > minorOf(other.Version) }

// minorOf is N of "1.N" (0 for "").
func minorOf(v string) int {
	n := 0
	if _, rest, ok := strings.Cut(v, "."); ok {
		fmt.Sscanf(rest, "%d", &n)
	}
	return n
}

// The needs of emitted rules, oldest first, from the form table's
// lowerings (runtime/form): every rule is a CEL transition rule; the rules
// that name their field carry fieldPath and reason; a two-variable
// comprehension needs the newest.
var (
	needTransitionRules = needOf(form.LoweringNamed("transition"), "", FixExtensionsMode)
	needFieldPath       = needOf(form.LoweringNamed("field path"), "", "raise crd:kubeVersion to 1.28, or "+FixExtensionsMode)
)

// needOf is the need of a rule of lowering l, written for why (what the
// rule compares, or "") with fix.
func needOf(l form.Lowering, why, fix string) KubeNeed {
	reason := l.Feature
	if why != "" {
		reason += " " + why
	}
	sep := ", "
	if why != "" {
		sep = "; "
	}
	return KubeNeed{Version: l.MinKubernetes, Reason: reason + sep + l.Since, Fix: fix}
}

// needTwoVar is the need of a rule of lowering name, with a two-variable
// comprehension, written for why (what the rule compares) and fix.
func needTwoVar(name, why, fix string) KubeNeed {
	l := form.LoweringNamed(name)
	return needOf(l, why, fix+", raise crd:kubeVersion to "+l.MinKubernetes+", or "+FixExtensionsMode)
}

// twoVarAtomic is the need of a rule comparing the items of the atomic
// list n index by index.
func twoVarAtomic(n *Node) KubeNeed {
	return needTwoVar("atomic items", fmt.Sprintf("to compare the items of the atomic list %s index by index (the API server refuses oldSelf inside them)", n.Path()),
		fmt.Sprintf("make %s a list map (+listType=map and +listMapKey=<field>), or mark the whole list %s instead of what is inside its items", n.Path(), n.Path()))
}

// twoVarOrder is the need of a rule keeping the order of the list maps at
// or inside the list n.
func twoVarOrder(n *Node) KubeNeed {
	what := "the list map " + n.Path()
	if n.ListType() != "map" {
		what = "the list maps inside the items of " + n.Path()
	}
	return needTwoVar("list map order", "to keep the order of "+what+" (CEL's == ignores it)",
		"add +immutable:ignoreOrder beside the marker if the order of "+what+" need not be kept")
}

// EmitCEL lowers the markers of the model to x-kubernetes-validations
// transition rules that give docs/semantics.md 2.3's verdict on every update:
//
//   - an immutable property: `self == oldSelf` on it (with list maps compared
//     in order, which CEL's == does not do), and `has(self.p) ==
//     has(oldSelf.p)` on its object unless it is required, because a
//     transition rule only runs where the value exists in old and new;
//   - an immutable-once property: the same `self == oldSelf`, and
//     `!has(oldSelf.p) || has(self.p)` on its object unless it is required
//     (it may be set, never removed);
//   - a +immutable:message replaces the message of every rule that
//     enforces the marker it stands beside;
//   - an immutable-keys map or list map: the same presence rule, and a rule
//     on the node that the key sets are equal;
//   - list map items and map values are correlated by the API server, so
//     rules go on them directly; a list map's key fields never differ
//     between correlated items, so markers on them need no rule;
//   - atomic list items are not correlated (oldSelf is refused under them):
//     one rule on the list compares each existing index with a
//     two-variable comprehension, inlining every constraint below;
//   - markers inside set items have no effect (sets have no identity but
//     their items), so nothing is emitted for them.
//
// Redundant markers inside an immutable subtree produce no rule. Markers
// above free-form content and embedded resources are lowered: == sees all
// of it, and no rule ever has to live inside the unknown part.
// Constructs CEL cannot compare exactly (sets whose items contain list
// maps, names CEL cannot address) are reported in the result, at the
// markers whose rules would need them, instead of weakened. Every marker
// ends up enforced by an emitted rule, needing none, or reported.
func EmitCEL(root *Node) CELResult {
	l := &lowering{done: map[originKey]bool{}}
	l.correlated(root)
	l.checkDone(root)
	return l.result
}

// expr is a CEL expression with what it needs from the API server. An
// empty text is no constraint.
type expr struct {
	text string
	// twoVar is set when the expression uses a two-variable
	// comprehension: what that needs of the API server.
	twoVar *KubeNeed
}

func and(parts ...expr) expr {
	var out expr
	var texts []string
	for _, p := range parts {
		if p.text == "" {
			continue
		}
		texts = append(texts, p.text)
		if out.twoVar == nil {
			out.twoVar = p.twoVar
		}
	}
	out.text = strings.Join(texts, " && ")
	return out
}

// refusal says why a constraint cannot be lowered exactly.
type refusal struct {
	reason, fix string
}

type originKey struct {
	pos                                  string
	keys, once, noModify, noSet, noUnset bool
}

func keyOf(o Origin) originKey {
	return originKey{o.Pos.String(), o.Keys, o.Once, o.NoModify, o.NoSet, o.NoUnset}
}

type lowering struct {
	result CELResult
	// done holds the markers that got a rule, need none, or were refused.
	done map[originKey]bool
}

// refuse reports every constraining marker at or below n (the markers whose
// rule would have needed what r names).
func (l *lowering) refuse(n *Node, r *refusal) {
	walkConstraints(n, func(c *Node) {
		for _, o := range c.Origins {
			if !l.done[keyOf(o)] {
				l.done[keyOf(o)] = true
				l.result.Inexpressible = append(l.result.Inexpressible, Inexpressible{Node: c, Origin: o, Reason: r.reason, Fix: r.fix})
			}
		}
	})
}

// refuseOwn reports the markers on n itself.
func (l *lowering) refuseOwn(n *Node, r *refusal) {
	for _, o := range n.Origins {
		if !l.done[keyOf(o)] {
			l.done[keyOf(o)] = true
			l.result.Inexpressible = append(l.result.Inexpressible, Inexpressible{Node: n, Origin: o, Reason: r.reason, Fix: r.fix})
		}
	}
}

// cover records that the constraining markers at or below n are enforced
// (or need no rule).
func (l *lowering) cover(n *Node) {
	walkConstraints(n, func(c *Node) {
		for _, o := range c.Origins {
			l.done[keyOf(o)] = true
		}
	})
}

// walkConstraints calls fn on n and the nodes below it, except inside the
// items of sets, where markers constrain nothing.
func walkConstraints(n *Node, fn func(*Node)) {
	fn(n)
	if n.IsList() && n.ListType() == "set" {
		return
	}
	for _, c := range n.Children() {
		walkConstraints(c, fn)
	}
}

// constraintOrigins are the origins of the markers at or below n that
// constrain anything (the nearest ones on each path).
func constraintOrigins(n *Node) []Origin {
	if len(n.Origins) > 0 {
		return n.Origins
	}
	var out []Origin
	for _, c := range n.Children() {
		out = append(out, constraintOrigins(c)...)
	}
	return out
}

// addRule appends rule e to n's x-kubernetes-validations and records which
// markers it enforces (those at or below about) and what it reads (about,
// or nil for a presence rule).
func (l *lowering) addRule(n *Node, about *Node, reads *Node, e expr, fields map[string]any) {
	rule := map[string]any{"rule": e.text}
	for k, v := range fields {
		rule[k] = v
	}
	rules, _ := n.raw[extension.Validations].([]any)
	n.raw[extension.Validations] = append(rules, rule)
	need := needTransitionRules
	if fields["fieldPath"] != nil || fields["reason"] != nil {
		need = needFieldPath
	}
	if e.twoVar != nil {
		need = *e.twoVar
	}
	n.Emitted = append(n.Emitted, Emitted{Index: len(rules), Origins: constraintOrigins(about), TwoVariableComprehension: e.twoVar != nil, Reads: reads, Needs: need})
	l.result.TwoVariableComprehensions = l.result.TwoVariableComprehensions || e.twoVar != nil
	if l.result.Floor.Version == "" || need.Newer(l.result.Floor) {
		l.result.Floor = need
	}
}

// checkDone reports, at its marker, every constraining marker the lowering
// neither enforced nor refused — a bug in the lowering, never a silent
// drop. Markers the placement rules refuse (on the root; =keys on what has
// no keys) are reported there.
func (l *lowering) checkDone(root *Node) {
	walkConstraints(root, func(n *Node) {
		if n.Parent == nil {
			return
		}
		for _, o := range n.Origins {
			if l.done[keyOf(o)] || (o.Keys && !hasKeys(n)) {
				continue
			}
			l.done[keyOf(o)] = true
			l.result.Inexpressible = append(l.result.Inexpressible, Inexpressible{Node: n, Origin: o,
				Reason: "the CEL lowering produced no rule for this marker (a bug in immutable-gen; please report it)",
				Fix:    FixExtensionsMode})
		}
	})
}

// misplacedOnce reports +immutable=once (alone) on list items or map
// values, which the placement rules refuse: no rule is emitted for it.
func misplacedOnce(n *Node) bool {
	return (n.ImmutableOnce() || n.NoModify() || n.PresenceOnly()) && !n.Immutable() && (n.Edge == Items || n.Edge == Values)
}

// guardedPresence reports whether the presence of property p needs a rule:
// it is marked, not required (or nullable), not a list map key, and not
// fixed only while present (which may come and go).
func guardedPresence(parent, p *Node) bool {
	add, remove := p.Presence()
	return (add || remove) && (!parent.Required(p.Name) || p.Nullable()) && !isListMapKey(p)
}

// presenceExpr says that property sel of a (new) and b (old) is not added
// (noAdd) or removed (noRemove) as p's markers forbid.
func presenceExpr(a, b, sel string, p *Node) string {
	switch add, remove := p.Presence(); {
	case add && remove:
		return fmt.Sprintf("has(%s%s) == has(%s%s)", a, sel, b, sel)
	case remove:
		return fmt.Sprintf("!has(%s%s) || has(%s%s)", b, sel, a, sel)
	default:
		return fmt.Sprintf("!has(%s%s) || has(%s%s)", a, sel, b, sel)
	}
}

// hasKeys reports whether n is a map or a list map.
func hasKeys(n *Node) bool { return n.IsMap() || (n.IsList() && n.ListType() == "map") }

// hasConstraint reports whether a marker at or below n constrains updates
// (markers inside set items constrain nothing).
func hasConstraint(n *Node) bool {
	if n.Fixed() || n.ImmutableKeys() || n.PresenceOnly() {
		return true
	}
	if n.IsList() && n.ListType() == "set" {
		return false
	}
	return slices.ContainsFunc(n.Children(), hasConstraint)
}

// isListMapKey reports whether n is a key field of list map items: items
// are correlated by key, so the field never differs between old and new.
func isListMapKey(n *Node) bool {
	if n.Edge != Property || n.Parent == nil || n.Parent.Edge != Items {
		return false
	}
	list := n.Parent.Parent
	return list.IsList() && list.ListType() == "map" && slices.Contains(list.ListMapKeys(), n.Name)
}

// correlated emits the rules for the subtree of n, a node the API server
// correlates with its old value (the root, properties of correlated
// objects, list map items and map values of correlated nodes).
func (l *lowering) correlated(n *Node) {
	switch {
	case n.Properties != nil:
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasConstraint(p) {
				continue
			}
			if p.When() != "" {
				// The markers below hold on their own where the condition
				// does not: they are lowered as if p were not marked.
				l.whenRule(p)
				l.correlated(p)
				continue
			}
			presence := guardedPresence(n, p)
			if _, r := selector(p); presence && r != nil {
				// Without its presence rule the marker would be weaker.
				l.refuseOwn(p, r)
				l.correlated(p)
				continue
			}
			if ok := l.node(p); ok && presence {
				l.presenceRule(n, p)
			}
		}
	case n.IsMap():
		if hasConstraint(n.Values) {
			l.node(n.Values)
		}
	case n.IsList() && n.ListType() == "map":
		if hasConstraint(n.Items) {
			l.node(n.Items)
		}
	case n.IsList() && n.ListType() == "atomic":
		if n.Items != nil && hasConstraint(n.Items) {
			l.atomicItems(n)
		}
	}
}

// node emits the rules for a correlated node n that may itself be marked,
// and reports whether the markers on n itself were lowered (so that the
// presence rule completes them; a refused marker gets nothing weaker).
func (l *lowering) node(n *Node) bool {
	ok := true
	if misplacedOnce(n) {
		l.cover(n) // the placement rules report it
		return true
	}
	if n.Fixed() {
		if isListMapKey(n) {
			l.cover(n) // always equal in correlated items
			return true
		}
		e, r := l.equal("self", "oldSelf", n, 0)
		if r == nil {
			// A transition rule runs only where the value exists in old
			// and new: for =once that is all of it but removal, which the
			// presence rule on the parent refuses.
			l.addRule(n, n, n, e, map[string]any{"message": messageOr(n, formMessage(n))})
			if !n.Immutable() && n.Nullable() {
				for _, o := range n.Origins {
					if o.Once || o.NoModify {
						l.result.Limits = append(l.result.Limits, Inexpressible{Node: n, Origin: o,
							Reason: "CEL sees a null value as absent, so the rules let a null " + n.Name + " be replaced by a value, which the runtime refuses (null is a value set once)",
							Fix:    "drop +nullable, or also enforce with the immutable-gen runtime (admission webhook)"})
					}
				}
			}
			l.cover(n) // everything below is covered by equality
			l.freeFormLimit(n)
			return true
		}
		// Refused at this marker; the markers below may still be lowered.
		l.refuseOwn(n, r)
		ok = false
	} else if n.ImmutableKeys() {
		if !hasKeys(n) {
			l.cover(n) // the placement rules report it
		} else if e, r := l.keysEqual("self", "oldSelf", n, 0); r != nil {
			l.refuseOwn(n, r)
			ok = false
		} else {
			l.addRule(n, n, n, e, map[string]any{
				"message": messageOr(n, kind("keys").ValueMessage),
				"reason":  "FieldValueForbidden",
			})
			for _, o := range n.Origins {
				l.done[keyOf(o)] = true
			}
		}
	}
	if n.PresenceOnly() {
		for _, o := range n.Origins {
			l.done[keyOf(o)] = true // its presence rule is on the parent
		}
	}
	l.correlated(n)
	return ok
}

// messageOr is the +immutable:message of n's markers, or def.
// formMessage is the default message of the rule that fixes n's value: it
// says which form (lint reads "once set" and "while set" as the author's
// intent).
func formMessage(n *Node) string {
	switch {
	case n.Immutable():
		return kind("immutable").ValueMessage
	case n.ImmutableOnce():
		return kind("once").ValueMessage
	case n.Fixed():
		return kind("noModify").ValueMessage
	}
	return kind("immutable").ValueMessage
}

// kind is the row of the form table called name, which the lowering
// reads the default messages from.
func kind(name string) form.Kind {
	k, ok := form.Named(name)
	if !ok {
		panic("schema: the form table has no form " + name)
	}
	return k
}

func messageOr(n *Node, def string) string {
	if m := n.Message(); m != "" {
		return m
	}
	return def
}

// whenRule lowers the markers on the property p, which carry an
// +immutable:when condition, into one rule on the root: where the
// condition holds (self and oldSelf are the objects, as in any root rule)
// and every object above p is present in both, p's presence and value
// are constrained as its markers say. fieldPath names p. A p not reached
// through properties only is refused by the placement rules.
func (l *lowering) whenRule(p *Node) {
	if !p.ThroughProperties() {
		l.cover(p) // the placement rules report it
		return
	}
	var chain []*Node
	for c := p; c.Parent != nil; c = c.Parent {
		chain = append([]*Node{c}, chain...)
	}
	root := chain[0].Parent
	a, b, path := "self", "oldSelf", ""
	var parts []string
	for _, c := range chain {
		sel, r := selector(c)
		if r != nil {
			l.refuse(p, r)
			return
		}
		path += fieldPath(c.Name)
		if c == p {
			break
		}
		parts = append(parts, fmt.Sprintf("!has(%s%s) || !has(%s%s)", a, sel, b, sel))
		a, b = a+sel, b+sel
	}
	sel, _ := selector(p)
	var constraint []expr
	if guardedPresence(p.Parent, p) {
		constraint = append(constraint, expr{text: "(" + presenceExpr(a, b, sel, p) + ")"})
	}
	var value expr
	var r *refusal
	switch {
	case p.Fixed():
		value, r = l.equal(a+sel, b+sel, p, 0)
	case p.ImmutableKeys() && hasKeys(p):
		value, r = l.keysEqual(a+sel, b+sel, p, 0)
	}
	if r != nil {
		l.refuseOwn(p, r)
		return
	}
	if value.text != "" {
		value.text = fmt.Sprintf("(!has(%s%s) || !has(%s%s) || %s)", a, sel, b, sel, paren(value.text))
		constraint = append(constraint, value)
	}
	c := and(constraint...)
	if c.text == "" {
		l.cover(p)
		return
	}
	parts = append([]string{"!(" + p.When() + ")"}, parts...)
	parts = append(parts, paren(c.text))
	l.addRule(root, p, p, expr{text: strings.Join(parts, " || "), twoVar: c.twoVar}, map[string]any{
		"message":   messageOr(p, formMessage(p)),
		"fieldPath": path,
	})
	for _, o := range p.Origins {
		l.done[keyOf(o)] = true
	}
}

// presenceRule adds, on parent, the rule that property p is not added or
// removed (for +immutable=once: not removed), as the cheapest rule can:
// it reads only presence.
func (l *lowering) presenceRule(parent, p *Node) {
	sel, _ := selector(p) // checked by the caller
	switch add, remove := p.Presence(); {
	case !p.Immutable() && !p.ImmutableKeys() && !p.ImmutableOnce():
		// validation-gen's NoSet and NoUnset, where no form of ours says it.
		var pr form.Presence
		if add {
			pr |= form.NoSet
		}
		if remove {
			pr |= form.NoUnset
		}
		change := form.AnyChange
		if p.NoModify() {
			change = form.NoChange
		}
		k, _ := form.Lookup(pr, change)
		l.addRule(parent, p, nil, expr{text: presenceExpr("self", "oldSelf", sel, p)}, map[string]any{
			"message":   messageOr(p, fmt.Sprintf(k.PresenceMessage, p.Name)),
			"fieldPath": fieldPath(p.Name),
			"reason":    "FieldValueForbidden",
		})
		return
	}
	if p.ImmutableOnce() && !p.Immutable() {
		l.addRule(parent, p, nil, expr{text: fmt.Sprintf("!has(oldSelf%s) || has(self%s)", sel, sel)}, map[string]any{
			"message":   messageOr(p, fmt.Sprintf(kind("once").PresenceMessage, p.Name)),
			"fieldPath": fieldPath(p.Name),
			"reason":    "FieldValueForbidden",
		})
		return
	}
	k := kind("immutable")
	if !p.Immutable() {
		k = kind("keys")
	}
	l.addRule(parent, p, nil, expr{text: fmt.Sprintf("has(self%s) == has(oldSelf%s)", sel, sel)}, map[string]any{
		"message":   messageOr(p, fmt.Sprintf(k.PresenceMessage, p.Name)),
		"fieldPath": fieldPath(p.Name),
		"reason":    "FieldValueForbidden",
	})
}

// freeFormLimit records the one change CEL's == misses in free-form
// content at or below the immutable node n: a top-level key of an object
// with x-kubernetes-preserve-unknown-fields (or of an embedded resource)
// replaced by another, the number of keys unchanged — the API server's
// unstructured map equality compares only the unknown keys both sides
// have. Nested content is compared in full.
func (l *lowering) freeFormLimit(n *Node) {
	var at *Node
	walkConstraints(n, func(c *Node) {
		if b, _ := c.raw[extension.PreserveUnknownFields].(bool); b && at == nil && c.Type() == "object" {
			at = c
		}
	})
	if at == nil {
		return
	}
	for _, o := range n.Origins {
		if !o.Keys { // +immutable or +immutable=once
			l.result.Limits = append(l.result.Limits, Inexpressible{Node: n, Origin: o,
				Reason: fmt.Sprintf("CEL's == does not see a top-level key of the free-form content %s replaced by another while the number of keys stays the same; every other change there is refused", at.Path()),
				Fix:    "to refuse that too, also enforce with the immutable-gen runtime (admission webhook), or give the content a typed schema"})
		}
	}
}

// atomicItems emits one rule on the atomic list n for every constraint in
// its items, compared index by index where both lists have the index.
func (l *lowering) atomicItems(n *Node) {
	i, x := vars(1, "i", "x")
	c, r := l.cond(x, "oldSelf["+i+"]", n.Items, 1)
	if r != nil {
		l.refuse(n.Items, r)
		return
	}
	if c.text != "" {
		l.addRule(n, n.Items, n, expr{
			text:   fmt.Sprintf("self.all(%s, %s, %s >= oldSelf.size() || %s)", i, x, i, paren(c.text)),
			twoVar: ptr(twoVarAtomic(n)),
		}, map[string]any{"message": itemsMessage(n.Items)})
	}
	l.cover(n.Items)
}

// itemsMessage is the message of the one rule enforcing every marker in
// the items of an atomic list: their +immutable:message when they all
// have the same one, else the atomic-items lowering's own.
func itemsMessage(items *Node) string {
	msg := ""
	for i, o := range constraintOrigins(items) {
		if o.Message == "" || i > 0 && o.Message != msg {
			return form.AtomicItemsMessage
		}
		msg = o.Message
	}
	if msg == "" {
		return form.AtomicItemsMessage
	}
	return msg
}

func ptr[T any](v T) *T { return &v }

// vars returns comprehension variable names unique at depth.
func vars(depth int, names ...string) (string, string) {
	out := make([]string, len(names))
	for k, n := range names {
		out[k] = fmt.Sprintf("%s%d", n, depth)
	}
	if len(out) == 1 {
		return out[0], ""
	}
	return out[0], out[1]
}

// cond is the condition that every constraint at or below n holds between a
// (new) and b (old), both present, with comprehension variables deeper
// than depth.
func (l *lowering) cond(a, b string, n *Node, depth int) (expr, *refusal) {
	if misplacedOnce(n) {
		return expr{}, nil // the placement rules report it
	}
	if n.Fixed() { // both present: =once is +immutable here
		if isListMapKey(n) {
			return expr{}, nil // the items were matched by key
		}
		return l.equal(a, b, n, depth)
	}
	var parts []expr
	if n.ImmutableKeys() && hasKeys(n) {
		k, r := l.keysEqual(a, b, n, depth)
		if r != nil {
			return expr{}, r
		}
		parts = append(parts, k)
	}
	switch {
	case n.Properties != nil:
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasConstraint(p) {
				continue
			}
			sel, r := selector(p)
			if r != nil {
				return expr{}, r
			}
			if guardedPresence(n, p) {
				if add, remove := p.Presence(); add && remove {
					parts = append(parts, expr{text: presenceExpr(a, b, sel, p)})
				} else {
					parts = append(parts, expr{text: "(" + presenceExpr(a, b, sel, p) + ")"})
				}
			}
			c, r := l.cond(a+sel, b+sel, p, depth)
			if r != nil {
				return expr{}, r
			}
			if c.text != "" {
				c.text = fmt.Sprintf("(!has(%s%s) || !has(%s%s) || %s)", a, sel, b, sel, paren(c.text))
				parts = append(parts, c)
			}
		}
	case n.IsMap() && hasConstraint(n.Values):
		k, _ := vars(depth+1, "k")
		c, r := l.cond(a+"["+k+"]", b+"["+k+"]", n.Values, depth+1)
		if r != nil {
			return expr{}, r
		}
		if c.text != "" {
			c.text = fmt.Sprintf("%s.all(%s, !(%s in %s) || %s)", a, k, k, b, paren(c.text))
			parts = append(parts, c)
		}
	case n.IsList() && n.ListType() == "map" && hasConstraint(n.Items):
		x, y := vars(depth+1, "x", "y")
		c, r := l.cond(x, y, n.Items, depth+1)
		if r != nil {
			return expr{}, r
		}
		match, r := keyMatch(x, y, n)
		if r != nil {
			return expr{}, r
		}
		if c.text != "" {
			c.text = fmt.Sprintf("%s.all(%s, %s.all(%s, !%s || %s))", a, x, b, y, paren(match), paren(c.text))
			parts = append(parts, c)
		}
	case n.IsList() && n.ListType() == "atomic" && n.Items != nil && hasConstraint(n.Items):
		i, x := vars(depth+1, "i", "x")
		c, r := l.cond(x, b+"["+i+"]", n.Items, depth+1)
		if r != nil {
			return expr{}, r
		}
		if c.text != "" {
			c.text = fmt.Sprintf("%s.all(%s, %s, %s >= %s.size() || %s)", a, i, x, i, b, paren(c.text))
			c.twoVar = ptr(twoVarAtomic(n))
			parts = append(parts, c)
		}
	}
	return and(parts...), nil
}

// equal is strict equality of a and b, the values of the marked node n, as
// the runtime defines it. With +immutable:ignoreOrder on n the list maps
// compare by key, which is CEL's == exactly: no order check, no bound.
func (l *lowering) equal(a, b string, n *Node, depth int) (expr, *refusal) {
	if n.IgnoreOrder() {
		return expr{text: a + " == " + b}, nil
	}
	return l.ordered(a, b, n, depth)
}

// ordered is strict equality of a and b with list maps in order. CEL's ==
// already compares sets without order, maps by key and atomic lists in
// order; list maps it compares by key, so their order is checked on top.
// Free-form content (x-kubernetes-preserve-unknown-fields) and embedded
// resources, metadata included, are values CEL's == compares in full.
func (l *lowering) ordered(a, b string, n *Node, depth int) (expr, *refusal) {
	if !hasListMap(n) {
		return expr{text: a + " == " + b}, nil
	}
	parts := []expr{{text: a + " == " + b}}
	// Where no map lies between n and its list maps, the order of every
	// list map is a list of keys (projected in order), compared in O(n):
	// with a == b, the same projections mean the same order.
	if proj, ok, r := orderProjections("@", n, depth); r != nil {
		return expr{}, r
	} else if ok {
		for _, p := range proj {
			parts = append(parts, expr{text: strings.ReplaceAll(p, "@", a) + " == " + strings.ReplaceAll(p, "@", b)})
		}
		return and(parts...), nil
	}
	switch {
	case n.Properties != nil:
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasListMap(p) {
				continue
			}
			sel, r := selector(p)
			if r != nil {
				return expr{}, r
			}
			e, r := l.ordered(a+sel, b+sel, p, depth)
			if r != nil {
				return expr{}, r
			}
			e.text = fmt.Sprintf("(!has(%s%s) || %s)", a, sel, paren(e.text))
			parts = append(parts, e)
		}
	case n.IsMap():
		k, _ := vars(depth+1, "k")
		e, r := l.ordered(a+"["+k+"]", b+"["+k+"]", n.Values, depth+1)
		if r != nil {
			return expr{}, r
		}
		e.text = fmt.Sprintf("%s.all(%s, %s)", a, k, paren(e.text))
		parts = append(parts, e)
	case n.IsList() && n.ListType() == "set":
		return expr{}, &refusal{fmt.Sprintf("the set %s has list maps inside its items, whose order the runtime compares but CEL's set equality cannot", n.Path()),
			FixExtensionsMode + ", or make the inner lists +listType=atomic"}
	case n.IsList():
		i, x := vars(depth+1, "i", "x")
		var conds []expr
		if n.ListType() == "map" {
			match, r := keyMatch(x, b+"["+i+"]", n)
			if r != nil {
				return expr{}, r
			}
			conds = append(conds, expr{text: match})
		}
		if hasListMap(n.Items) {
			e, r := l.ordered(x, b+"["+i+"]", n.Items, depth+1)
			if r != nil {
				return expr{}, r
			}
			conds = append(conds, e)
		}
		c := and(conds...)
		parts = append(parts, expr{text: fmt.Sprintf("%s.all(%s, %s, %s)", a, i, x, paren(c.text)), twoVar: ptr(twoVarOrder(n))})
	}
	return and(parts...), nil
}

// orderProjections returns expressions of v (a placeholder) that list, in
// order, the keys of every list map in n's subtree, one list per key field,
// such that two values equal by CEL's == have the same list maps in the
// same order exactly when the projections are equal: the item at each
// index is named by its key tuple, and items with equal keys are equal.
// ok is false where a map lies between n and a list map (maps have no
// order to project into a list).
func orderProjections(v string, n *Node, depth int) ([]string, bool, *refusal) {
	if !hasListMap(n) {
		return nil, true, nil
	}
	switch {
	case n.Properties != nil:
		var out []string
		for _, name := range sortedNodeKeys(n.Properties) {
			p := n.Properties[name]
			if !hasListMap(p) {
				continue
			}
			sel, r := selector(p)
			if r != nil {
				return nil, false, r
			}
			sub, ok, r := orderProjections(v+sel, p, depth)
			if !ok || r != nil {
				return nil, ok, r
			}
			for _, s := range sub {
				out = append(out, fmt.Sprintf("(has(%s%s) ? %s : [])", v, sel, s))
			}
		}
		return out, true, nil
	case n.IsList() && n.ListType() == "set":
		return nil, false, &refusal{fmt.Sprintf("the set %s has list maps inside its items, whose order the runtime compares but CEL's set equality cannot", n.Path()),
			FixExtensionsMode + ", or make the inner lists +listType=atomic"}
	case n.IsList():
		x, _ := vars(depth+1, "x")
		var out []string
		if n.ListType() == "map" {
			keys := n.ListMapKeys()
			if len(keys) == 0 {
				return nil, false, &refusal{fmt.Sprintf("the list map %s has no x-kubernetes-list-map-keys", n.Path()), "add +listMapKey"}
			}
			for _, k := range keys {
				sel, ok := escape(k)
				if !ok {
					return nil, false, &refusal{fmt.Sprintf("the key %q of the list map %s cannot be addressed in CEL", k, n.Path()), "rename the key's JSON name to a CEL-compatible identifier, or generate with crd:immutability=extensions"}
				}
				out = append(out, fmt.Sprintf("%s.map(%s, %s.%s)", v, x, x, sel))
			}
		}
		sub, ok, r := orderProjections(x, n.Items, depth+1)
		if !ok || r != nil {
			return nil, ok, r
		}
		for _, s := range sub {
			out = append(out, fmt.Sprintf("%s.map(%s, %s)", v, x, s))
		}
		return out, true, nil
	}
	return nil, false, nil // a map
}

// keysEqual says that the maps or list maps a and b have the same keys.
// List map keys are unique, so equal sizes and every new key tuple in the
// old list make the key sets equal.
func (l *lowering) keysEqual(a, b string, n *Node, depth int) (expr, *refusal) {
	if n.IsMap() {
		k, _ := vars(depth+1, "k")
		return expr{text: fmt.Sprintf("%s.size() == %s.size() && %s.all(%s, %s in %s)", a, b, a, k, k, b)}, nil
	}
	x, y := vars(depth+1, "x", "y")
	match, r := keyMatch(x, y, n)
	if r != nil {
		return expr{}, r
	}
	return expr{text: fmt.Sprintf("%s.size() == %s.size() && %s.all(%s, %s.exists(%s, %s))", a, b, a, x, b, y, match)}, nil
}

// keyMatch says that list map items x and y have the same key tuple.
func keyMatch(x, y string, list *Node) (string, *refusal) {
	var parts []string
	for _, k := range list.ListMapKeys() {
		sel, ok := escape(k)
		if !ok {
			return "", &refusal{fmt.Sprintf("the key %q of the list map %s cannot be addressed in CEL", k, list.Path()), "rename the key's JSON name to a CEL-compatible identifier, or generate with crd:immutability=extensions"}
		}
		parts = append(parts, fmt.Sprintf("%s.%s == %s.%s", x, sel, y, sel))
	}
	if len(parts) == 0 {
		return "", &refusal{fmt.Sprintf("the list map %s has no x-kubernetes-list-map-keys", list.Path()), "add +listMapKey"}
	}
	return strings.Join(parts, " && "), nil
}

// selector is `.name` for property p, CEL-escaped.
func selector(p *Node) (string, *refusal) {
	sel, ok := escape(p.Name)
	if !ok {
		return "", &refusal{fmt.Sprintf("the property name %q (%s) cannot be addressed in CEL", p.Name, p.Path()),
			"use a JSON name of letters, digits, '_', '.', '-' or '/' that does not start with a digit, or generate with crd:immutability=extensions"}
	}
	return "." + sel, nil
}

func escape(name string) (string, bool) { return apiservercel.Escape(name) }

// hasListMap reports whether n's subtree has a list map (compared in order
// by the runtime, by key by CEL).
func hasListMap(n *Node) bool { return n.HasListMap() }

var simpleName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`) })

// fieldPath is the x-kubernetes-validations fieldPath of property name
// relative to its object.
func fieldPath(name string) string {
	if simpleName().MatchString(name) {
		return "." + name
	}
	return "['" + strings.ReplaceAll(name, "'", "\\'") + "']"
}

func paren(s string) string {
	if strings.ContainsAny(s, " ") {
		return "(" + s + ")"
	}
	return s
}
