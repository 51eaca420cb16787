package lint

import (
	"fmt"
	"slices"
	"strings"

	celcommon "github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/celform"
	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/runtime/extension"
	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// rule is one parsed entry of a node's x-kubernetes-validations.
type rule struct {
	text string
	// message is the rule's message (or messageExpression).
	message string
	// expr is nil when the rule does not parse (the API server check
	// reports it).
	expr            celast.Expr
	usesOldSelf     bool
	optionalOldSelf bool
}

// maxPresenceVars bounds the presence facts the analysis enumerates
// (2^n combinations); facts beyond it stay unknown, which can only make
// the analysis report a hole it cannot rule out, never hide one.
const maxPresenceVars = 10

// cel finds the CEL immutability rules of one version's schema and what
// they fail to enforce: presence (IG010, IG011) and the order of list
// maps (IG012).
func (c *crdLint) cel(root *schema.Node) {
	rules := map[*schema.Node][]rule{}
	eachNode(root, func(n *schema.Node) { rules[n] = c.parseRules(n) })
	a := &celAnalysis{rules: rules, rec: celform.Read(root)}
	h := newHoles(a)
	imm := map[string]string{}
	immRules := map[string]string{}
	c.immutableRules[c.version] = immRules
	c.immutable[c.version] = imm
	root.Walk(func(n *schema.Node) {
		var guard *rule
		var transition []ruleAt
		for i, r := range rules[n] {
			if r.expr == nil || !r.usesOldSelf {
				continue
			}
			if _, ok := ratcheting(r.expr); ok {
				continue // not a presence hole: IG037 says it never runs without an old value
			}
			g := guards(n, r)
			about, recognized := a.rec.Took(n, r.text)
			transition = append(transition, ruleAt{node: n, r: r, guard: g, recognized: recognized, about: about})
			if !g {
				continue
			}
			if guard == nil {
				guard = &rules[n][i]
				imm[n.Path()] = "the rule `" + crdvalidation.ShortRule(r.text) + "`"
				immRules[n.Path()] = r.text
			}
			if isPlainEquality(r.expr) {
				c.listMapOrder(n, r)
			}
		}
		if n.ExtensionTrue(extension.Immutable) || n.ExtensionTrue(extension.ImmutableOnce) {
			imm[n.Path()] = "an immutability extension"
		}
		if uncorrelatable(n) {
			return // the API server refuses these rules (IG020)
		}
		if guard != nil {
			before := len(c.findings)
			c.presence(a, n, *guard)
			if len(c.findings) > before && c.findings[before].ID == IDPresence {
				h.own[n] = before
			}
		}
		for _, r := range transition {
			h.collect(n, r, guard != nil)
		}
	})
	h.report(c)
	c.describedOnly(root, rules)
}

func (c *crdLint) parseRules(n *schema.Node) []rule {
	var out []rule
	for _, v := range n.Rules() {
		text := v.Rule
		r := rule{text: text, message: v.Message, optionalOldSelf: v.OptionalOldSelf}
		if r.message == "" {
			r.message = v.MessageExpression
		}
		if ast, errs := c.parser.Parse(celcommon.NewTextSource(text)); errs == nil || len(errs.GetErrors()) == 0 {
			r.expr = ast.Expr()
			r.usesOldSelf = usesIdent(r.expr, "oldSelf")
		}
		out = append(out, r)
	}
	return out
}

// usesIdent reports whether the expression refers to the variable name.
func usesIdent(e celast.Expr, name string) bool {
	found := false
	celast.PostOrderVisit(e, celast.NewExprVisitor(func(x celast.Expr) {
		found = found || (x.Kind() == celast.IdentKind && x.AsIdent() == name)
	}))
	return found
}

// isPlainEquality reports whether the rule is exactly `self == oldSelf` or
// `oldSelf == self`.
func isPlainEquality(e celast.Expr) bool {
	if e.Kind() != celast.CallKind || e.AsCall().FunctionName() != operators.Equals {
		return false
	}
	args := e.AsCall().Args()
	if len(args) != 2 || args[0].Kind() != celast.IdentKind || args[1].Kind() != celast.IdentKind {
		return false
	}
	a, b := args[0].AsIdent(), args[1].AsIdent()
	return (a == "self" && b == "oldSelf") || (a == "oldSelf" && b == "self")
}

// celAnalysis reasons on a version's rules: on the constraints of the one
// CEL form (celform.Read) where it takes them, by abstract evaluation of
// the rules (eval.go) for the rest.
type celAnalysis struct {
	rules map[*schema.Node][]rule
	rec   celform.Reading
}

// refused reports whether the recognised forms refuse every update in
// which property n's presence goes from oldPresent to newPresent, the
// objects above it present in both: n's own presence rules, or an object
// above it, up to the nearest list item, map value or the root, that may
// not change at all (n's presence is part of its value). Only a form
// without a condition decides; what it leaves is the abstract
// evaluation's.
func (a *celAnalysis) refused(n *schema.Node, oldPresent, newPresent bool) bool {
	if oldPresent == newPresent {
		return false
	}
	if f, ok := a.rec.At[n]; ok && f.When == "" {
		if oldPresent && f.Presence&form.NoUnset != 0 || newPresent && f.Presence&form.NoSet != 0 {
			return true
		}
	}
	for p := n.Parent; p != nil; p = p.Parent {
		if f, ok := a.rec.At[p]; ok && f.When == "" && f.Change == form.NoChange {
			return true
		}
		if p.Edge != schema.Property {
			break
		}
	}
	return false
}

// guards reports whether r, a rule on n, makes n immutable: whenever n
// exists in the old and the new object with different values, the rule
// rejects the update (`self == oldSelf`, `oldSelf == self`, a conjunction
// holding one of them, `!oldSelf.hasValue() || self == oldSelf.value()`…),
// and it may accept an update that leaves n as it was (a rule that rejects
// everything, or is not boolean, is broken, not an immutability rule).
func guards(n *schema.Node, r rule) bool {
	ev := evaluator{
		self: ref{n, false}, oldSelf: ref{n, true}, hasOldSelf: true,
		optionalOldSelf: r.optionalOldSelf, changed: true,
		presence: func(*schema.Node, bool) presence { return unknown },
	}
	if ev.eval(r.expr).accepts() {
		return false
	}
	ev.changed, ev.same = false, true
	return ev.eval(r.expr).accepts()
}

// uncorrelatable reports whether n is under the items of an atomic list or
// a set, where the API server refuses transition rules.
func uncorrelatable(n *schema.Node) bool {
	for a := n; a.Parent != nil; a = a.Parent {
		if a.Edge == schema.Items && a.Parent.ListType() != "map" {
			return true
		}
	}
	return false
}

// presence reports an immutable property n whose presence no rule
// compares: a transition rule runs only where the value exists in the old
// and the new object, so without a rule on an object above it an optional
// field can be removed (and set again to anything), or added later. It
// returns whether n is pinned within its parent: always present, or its
// presence kept both ways by the rules (nothing reported), so that the only
// way left to change it goes through its ancestors.
func (c *crdLint) presence(a *celAnalysis, n *schema.Node, guard rule) bool {
	if uncorrelatable(n) {
		return false
	}
	if n.Edge != schema.Property || n.AlwaysPresent() {
		return n.Edge == schema.Property
	}
	removable := !a.blocked(n, true, false)
	addable := !a.blocked(n, false, true)
	parent := n.Parent
	sel, _ := apiservercel.Escape(n.Name)
	// The rule's message may ask for set-once: the strict presence rule
	// would refuse the controller or user that sets the field later.
	once := setOnce(guard)
	fix := placement.PresenceFix(n, once, placement.Manifest)
	const why = "it is optional, and a transition rule runs only where the field exists in the old and the new object"
	switch {
	case !removable && addable && (once || placement.DroppedOnCreate(n)):
		// A complete set-once pair, as its message asks; at status the only
		// pair that works: the server drops status on create, and its
		// first write adds it (placement.PresenceFix).
		return false
	case !removable && !addable:
		return true
	case removable && whileSet().MatchString(guard.message):
		return false // fixed while present, as its message asks: it may be removed
	case removable && addable:
		c.report(c.version, n.Path(), IDPresence, fix,
			"immutable by the rule `%s`, but its presence is not compared: it can be removed and set again later with any value (%s)", crdvalidation.ShortRule(guard.text), why)
	case removable:
		c.report(c.version, n.Path(), IDPresence, fix,
			"immutable by the rule `%s`, but it can be removed (the rules forbid adding it, not removing it; %s)", crdvalidation.ShortRule(guard.text), why)
	case addable:
		c.report(c.version, n.Path(), IDOnceSet,
			fmt.Sprintf("if it may be set only at creation, use `has(self.%s) == has(oldSelf.%s)` on %s instead", sel, sel, parent.Path()),
			"immutable once set: it can be added after creation, then never changed or removed (the rules forbid removing it, not adding it, as controller-gen's +k8s:immutable does)")
	}
	return false
}

// blocked reports whether the rules on the objects above property n (up to
// the nearest list item, map value or root) and n's own rules with
// optionalOldSelf reject every update of those objects in which n's
// presence goes from oldPresent to newPresent. It assumes that the old
// object satisfied the rules that do not use oldSelf.
func (a *celAnalysis) blocked(n *schema.Node, oldPresent, newPresent bool) bool {
	if a.refused(n, oldPresent, newPresent) {
		return true
	}
	var chain []*schema.Node
	for p := n.Parent; p != nil; p = p.Parent {
		chain = append(chain, p)
		if p.Edge != schema.Property {
			break
		}
	}
	unknowns := newFacts[fact]()
	// A condition lint cannot decide is one fact per rule node, condition
	// and object it reads (conditionFact).
	opaque := func(node *schema.Node, selfOld bool, e celast.Expr) (bool, bool) {
		objects := "new"
		switch {
		case usesIdent(e, "oldSelf"):
			objects = "transition"
		case selfOld:
			objects = "old"
		}
		f, negate := a.conditionFact(node, objects, e)
		v, ok := unknowns.lookup(f)
		return v != negate, ok
	}
	var pres func(x *schema.Node, old bool) presence
	pres = func(x *schema.Node, old bool) presence {
		switch {
		case x == n && old:
			return presenceOf(oldPresent)
		case x == n:
			return presenceOf(newPresent)
		case slices.Contains(chain, x):
			return present
		case x.Edge != schema.Property || x.Parent == nil:
			return unknown
		}
		switch pres(x.Parent, old) {
		case absent:
			return absent
		case present:
			if x.AlwaysPresent() {
				return present
			}
		}
		if v, ok := unknowns.lookup(fact{ref: ref{x, old}}); ok {
			return presenceOf(v)
		}
		return unknown
	}
	rejects := func() bool {
		for _, x := range chain {
			for _, r := range a.rules[x] {
				if r.expr == nil {
					continue
				}
				if r.usesOldSelf {
					ev := evaluator{self: ref{x, false}, oldSelf: ref{x, true}, hasOldSelf: true, optionalOldSelf: r.optionalOldSelf, presence: pres, opaque: opaque}
					if !ev.eval(r.expr).accepts() {
						return true
					}
					continue
				}
				for _, old := range []bool{false, true} {
					ev := evaluator{self: ref{x, old}, presence: pres, opaque: opaque}
					if !ev.eval(r.expr).accepts() {
						return true // the new object is invalid, or the old one cannot have existed
					}
				}
			}
		}
		if !oldPresent && newPresent {
			for _, r := range a.rules[n] {
				if r.expr != nil && r.usesOldSelf && r.optionalOldSelf {
					ev := evaluator{self: ref{n, false}, oldSelf: ref{n, true}, hasOldSelf: true, optionalOldSelf: true, oldNone: true, presence: pres}
					if !ev.eval(r.expr).accepts() {
						return true
					}
				}
			}
		}
		return false
	}
	// Blocked unless some presence of the other fields lets it through.
	return !unknowns.exists(func() bool { return !rejects() })
}

func presenceOf(b bool) presence {
	if b {
		return present
	}
	return absent
}

// listMapOrder reports `self == oldSelf` on a node holding list maps: CEL
// compares list maps by key, the KEP's equality in order.
func (c *crdLint) listMapOrder(n *schema.Node, r rule) {
	var lists []*schema.Node
	n.Walk(func(x *schema.Node) {
		if x.IsList() && x.ListType() == "map" {
			lists = append(lists, x)
		}
	})
	if len(lists) == 0 {
		return
	}
	what := "the list map " + lists[0].Path()
	if len(lists) > 1 {
		what = fmt.Sprintf("the list maps %s and %d more", lists[0].Path(), len(lists)-1)
	}
	fix := "if reordering must count as a change, compare the order too (immutable-gen crd:immutability=cel generates such rules); otherwise nothing to do"
	if lists[0] == n {
		var conds []string
		for _, key := range n.ListMapKeys() {
			k, ok := apiservercel.Escape(key)
			if !ok {
				conds = nil
				break
			}
			conds = append(conds, fmt.Sprintf("x.%s == oldSelf[i].%s", k, k))
		}
		if len(conds) > 0 {
			fix = fmt.Sprintf("if reordering must count as a change, use `self == oldSelf && self.all(i, x, %s)` (Kubernetes 1.33 or later); otherwise nothing to do", strings.Join(conds, " && "))
		}
	}
	c.report(c.version, n.Path(), IDListMapOrder, fix,
		"`%s` compares %s by key and ignores the order of its items; the KEP's immutability (and immutable-gen's runtime) compares list maps in order", crdvalidation.ShortRule(r.text), what)
}

// eachNode calls fn on n and every node below it, in no particular order:
// Walk's order (properties sorted by name) costs a sort per node, which
// matters on large CRDs, and these callers do not need it.
func eachNode(n *schema.Node, fn func(*schema.Node)) {
	fn(n)
	for _, c := range n.Properties {
		eachNode(c, fn)
	}
	if n.Items != nil {
		eachNode(n.Items, fn)
	}
	if n.Values != nil {
		eachNode(n.Values, fn)
	}
}
