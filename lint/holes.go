package lint

import (
	"fmt"
	"slices"
	"strings"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/crdvalidation"
	"github.com/immutable-gen/immutable-gen/placement"
	"github.com/immutable-gen/immutable-gen/schema"
)

// This file finds the presence holes of every transition rule, whatever
// its text. A rule that reads oldSelf runs only where its node exists in
// the old and the new object; a value the rule compares (`self.f ==
// oldSelf.f`, `self >= oldSelf`) is compared only where it exists on both
// sides. So wherever an optional property — the rule's node, an object
// above it up to the nearest list item, map value or the root, or a field
// the rule compares — can be removed and added back (no rule keeps its
// presence), two updates go around the rule: one that removes it, one that
// adds it back with any value. Each such property is one cause, reported
// once: IG013 at an optional ancestor of the rules it lets through, IG010
// at a field a rule compares.

// ruleAt is a transition rule and the node it is written on.
type ruleAt struct {
	node *schema.Node
	r    rule
	// guard: the rule makes its node immutable (see guards).
	guard bool
	// recognized: the rule is one of the one CEL form's, taken whole by
	// celform.Read (immutability and presence rules, nothing else), about
	// the nodes in about.
	recognized bool
	about      []*schema.Node
	// fixOf is set for a presence rule lint suggests (the fix of the
	// finding at fixOf), not one the CRD holds.
	fixOf *schema.Node
}

// cause is an optional property whose presence no rule keeps, and the
// transition rules that its removal and re-addition go around.
type cause struct {
	node               *schema.Node
	removable, addable bool
	// below are rules on nodes strictly below node; on are rules on node
	// itself or above it that compare its value.
	below, on []ruleAt
}

// holes collects the causes of one version's schema, in walk order.
type holes struct {
	a      *celAnalysis
	order  []*cause
	causes map[*schema.Node]*cause
	// own maps the properties whose own immutability rule is reported
	// (IG010 by crdLint.presence) to that finding's index: the rules below
	// them are named there.
	own map[*schema.Node]int
}

func newHoles(a *celAnalysis) *holes {
	return &holes{a: a, causes: map[*schema.Node]*cause{}, own: map[*schema.Node]int{}}
}

func (h *holes) cause(p *schema.Node) *cause {
	c := h.causes[p]
	if c == nil {
		c = &cause{node: p, removable: true}
		h.causes[p] = c
		h.order = append(h.order, c)
	}
	return c
}

// collect records the causes that let updates go around the transition
// rule r on x. ownPresence is set when x's own presence is checked by
// crdLint.presence (x carries an immutability rule).
func (h *holes) collect(x *schema.Node, r ruleAt, ownPresence bool) {
	if emptyOK(r.r.expr) {
		return
	}
	if whileSet().MatchString(r.r.message) {
		// Fixed while present, as its message asks (validation-gen's
		// NoModify; immutable-gen's "field is immutable while set"): a
		// removal, and a later addition with any value, are what it
		// allows, not a way around it.
		return
	}
	// add records p as a cause if two updates (one for an immutability
	// rule: a removal loses the value) go around r through it.
	add := func(p *schema.Node, on bool) {
		both := h.a.bypass(p, x, r.r, false)
		if !both && !(r.guard && h.a.bypass(p, x, r.r, true)) {
			return
		}
		c := h.cause(p)
		c.addable = c.addable || both
		if on {
			c.on = appendRule(c.on, r)
		} else {
			c.below = appendRule(c.below, r)
		}
	}
	// The rule's node and the optional objects above it.
	for p := x; p.Parent != nil && p.Edge == schema.Property; p = p.Parent {
		if p.AlwaysPresent() || (p == x && ownPresence) {
			continue
		}
		add(p, p == x)
	}
	// The fields the rule compares between the old and the new object.
	for _, path := range comparedPaths(r.r.expr) {
		q := x
		for _, name := range path {
			q = child(value{out: isValue, ref: ref{node: q}}, name)
			if q == nil || q.Edge != schema.Property {
				break
			}
			if !q.AlwaysPresent() {
				add(q, true)
			}
		}
	}
}

func appendRule(rules []ruleAt, r ruleAt) []ruleAt {
	for _, x := range rules {
		if x.node == r.node && x.r.text == r.r.text {
			return rules
		}
	}
	return append(rules, r)
}

// comparedPaths returns the field paths P that the rule compares between
// the new and the old object: operands `self.P` and `oldSelf.P` (the same
// P, not empty) of one comparison (==, !=, <, <=, >, >=).
func comparedPaths(e celast.Expr) [][]string {
	var out [][]string
	celast.PostOrderVisit(e, celast.NewExprVisitor(func(x celast.Expr) {
		if x.Kind() != celast.CallKind {
			return
		}
		call := x.AsCall()
		switch call.FunctionName() {
		case operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals, operators.Greater, operators.GreaterEquals:
		default:
			return
		}
		args := call.Args()
		if len(args) != 2 {
			return
		}
		ra, pa := selectChain(args[0])
		rb, pb := selectChain(args[1])
		if len(pa) == 0 || !slicesEqual(pa, pb) || !((ra == "self" && rb == "oldSelf") || (ra == "oldSelf" && rb == "self")) {
			return
		}
		out = append(out, pa)
	}))
	return out
}

// selectChain returns the variable and the field names of `v.a.b.c`
// (field selections, not presence tests).
func selectChain(e celast.Expr) (string, []string) {
	var names []string
	for e.Kind() == celast.SelectKind {
		s := e.AsSelect()
		if s.IsTestOnly() {
			return "", nil
		}
		names = append(names, s.FieldName())
		e = s.Operand()
	}
	if e.Kind() != celast.IdentKind {
		return "", nil
	}
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return e.AsIdent(), names
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// topLevel reports whether n is a property of the root (spec, status…).
func topLevel(n *schema.Node) bool {
	return n.Parent != nil && n.Parent.Parent == nil && n.Edge == schema.Property
}

// report reports each cause once: IG013 at an optional ancestor of rules
// (or at a top-level property), IG010 at a field a rule compares; the
// IG010 findings of immutable fields below an IG013 cause name it.
func (h *holes) report(c *crdLint) {
	h.fixParents(c)
	var ancestors []*schema.Node
	for _, k := range h.order {
		anyGuard := false
		for _, r := range append(slicesClone(k.below), k.on...) {
			anyGuard = anyGuard || r.guard
		}
		// One removal is enough to lose an immutable value; a rule of any
		// other kind is gone around with a removal and an addition.
		if !k.addable && !anyGuard {
			continue
		}
		p := k.node
		once := false
		for _, r := range append(slicesClone(k.below), k.on...) {
			once = once || setOnce(r.r)
		}
		fix := placement.PresenceFix(p, once, placement.Manifest)
		how := "removed and added back with any value"
		if !k.addable {
			how = "removed, and what it holds with it"
		}
		if i, ok := h.own[p]; ok {
			// Its own IG010 names the rules below it too.
			if len(k.below) > 0 {
				c.findings[i].Message += fmt.Sprintf("; removing it also goes around %s below it", describeRules(k.below))
				c.findings[i].Rules = append(c.findings[i].Rules, ruleList(k.below)...)
			}
			continue
		}
		// An optional object below spec whose rules are only the KEP's
		// immutability and presence rules (the generator's own output for
		// an optional object holding immutable fields) may be removed and
		// added back: the KEP's semantics allow it.
		kep := !topLevel(p) && onlyImmutability(k.below) && onlyAboutBelow(k.on, p)
		if len(k.below) > 0 || topLevel(p) || kep {
			ancestors = append(ancestors, p)
			rules := append(slicesClone(k.on), k.below...)
			id := IDOptionalAncestor
			if kep {
				id = IDOptionalObject
			}
			c.report(c.version, p.Path(), id, fix,
				"%s is optional and nothing compares its presence, so it can be %s: that goes around %s, since a transition rule runs only where its value exists in the old and the new object", p.Path(), how, describeRules(rules))
			c.findings[len(c.findings)-1].Rules = ruleList(rules)
			continue
		}
		c.report(c.version, p.Path(), IDPresence, fix,
			"compared by %s, but its presence is not compared: it can be %s, which the rule does not see (it is optional, and a transition rule compares only values that exist in the old and the new object)", describeRules(k.on), how)
		c.findings[len(c.findings)-1].Rules = ruleList(k.on)
	}
	// IG010 findings of fields below an IG013 cause name it, outermost
	// first.
	slices.SortFunc(ancestors, func(a, b *schema.Node) int { return strings.Compare(a.Path(), b.Path()) })
	for i := range c.findings {
		f := &c.findings[i]
		if f.Version != c.version || (f.ID != IDPresence && f.ID != IDOnceSet) {
			continue
		}
		for _, p := range ancestors {
			if strings.HasPrefix(f.Path, p.Path()+".") || strings.HasPrefix(f.Path, p.Path()+"[") {
				f.Message += fmt.Sprintf("; its optional ancestor %s can be removed and added back too (IG013 at %s)", p.Path(), p.Path())
			}
		}
	}
}

// fixParents makes the parent of every cause a cause too when the fix of
// the cause — a presence rule on the parent — would itself be gone around:
// the parent is optional and nothing keeps its presence. So applying every
// fix lint suggests leaves no two-step bypass (TestCorpusFixes), and the
// parent's finding says which fix needs it. Parents of the fields whose
// own immutability rule is reported (IG010 by crdLint.presence) count too.
func (h *holes) fixParents(c *crdLint) {
	var nodes []*schema.Node
	for _, k := range h.order {
		nodes = append(nodes, k.node)
	}
	for n := range h.own {
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b *schema.Node) int { return strings.Compare(a.Path(), b.Path()) })
	for len(nodes) > 0 {
		n := nodes[0]
		nodes = nodes[1:]
		parent := n.Parent
		if parent == nil || parent.Edge != schema.Property || parent.AlwaysPresent() || h.causes[parent] != nil || uncorrelatable(parent) {
			continue
		}
		if h.a.blocked(parent, true, false) || h.a.blocked(parent, false, true) {
			continue
		}
		sel, ok := apiservercel.Escape(n.Name)
		if !ok {
			continue
		}
		fix := rule{text: fmt.Sprintf("has(self.%s) == has(oldSelf.%s)", sel, sel)}
		k := h.cause(parent)
		k.addable = true
		k.on = appendRule(k.on, ruleAt{node: parent, r: fix, fixOf: n})
		nodes = append(nodes, parent)
	}
}

// onlyAboutBelow reports whether every rule is written on p, recognised
// whole as the one CEL form's and about nodes strictly below p: p's
// presence rules for its fields, not a rule that compares p.
func onlyAboutBelow(rules []ruleAt, p *schema.Node) bool {
	for _, r := range rules {
		if r.fixOf != nil || !r.recognized || r.node != p {
			return false
		}
		for _, t := range r.about {
			if !strictlyBelow(t, p) {
				return false
			}
		}
	}
	return true
}

// strictlyBelow reports whether n is a node below p.
func strictlyBelow(n, p *schema.Node) bool {
	for a := n.Parent; a != nil; a = a.Parent {
		if a == p {
			return true
		}
	}
	return false
}

// onlyImmutability reports whether every rule is an immutability rule of
// the KEP's: it makes its node immutable, or it is recognised whole as the
// one CEL form's (immutability and presence rules, as the generator writes
// them for an optional object holding immutable fields).
func onlyImmutability(rules []ruleAt) bool {
	for _, r := range rules {
		if r.fixOf != nil || !r.guard && !r.recognized {
			return false
		}
	}
	return true
}

// emptyOK reports whether the rule is `self.all(…)` (or a conjunction of
// such): it accepts an empty list or map whatever the old value, so
// removing the node and adding it back does nothing the rule forbids
// (immutable-gen's index-by-index rules on atomic lists,
// `self.all(i, x, i >= oldSelf.size() || x == oldSelf[i])`, are of this
// form: truncating and appending is allowed).
func emptyOK(e celast.Expr) bool {
	switch e.Kind() {
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		r := c.IterRange()
		if r.Kind() != celast.IdentKind || r.AsIdent() != "self" || c.AccuInit().Kind() != celast.LiteralKind {
			return false
		}
		return c.AccuInit().AsLiteral() == types.True
	case celast.CallKind:
		call := e.AsCall()
		// The two-variable form, not a macro of the parser.
		if call.FunctionName() == "all" && call.IsMemberFunction() && call.Target().Kind() == celast.IdentKind && call.Target().AsIdent() == "self" {
			return true
		}
		if call.FunctionName() == operators.LogicalAnd && len(call.Args()) == 2 {
			return emptyOK(call.Args()[0]) && emptyOK(call.Args()[1])
		}
	}
	return false
}

func slicesClone(r []ruleAt) []ruleAt { return append([]ruleAt(nil), r...) }

// describeRules names up to three rules and where they are.
func describeRules(rules []ruleAt) string {
	var parts []string
	for i, r := range rules {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("%d more", len(rules)-3))
			break
		}
		part := fmt.Sprintf("`%s` on %s", crdvalidation.ShortRule(r.r.text), r.node.Path())
		if r.fixOf != nil {
			part += fmt.Sprintf(" (the fix lint suggests for %s)", r.fixOf.Path())
		}
		parts = append(parts, part)
	}
	what := "the rule "
	if len(rules) > 1 {
		what = fmt.Sprintf("%d transition rules: ", len(rules))
	}
	return what + strings.Join(parts, ", ")
}
