package lint

import (
	"fmt"
	"slices"
	"strings"

	celast "github.com/google/cel-go/common/ast"

	"github.com/immutable-gen/immutable-gen/schema"
)

// bypass reports whether two updates go around the transition rule r (on
// node x) through the optional property p — p is x, an object above x, or
// a field r compares — with every other fact the rules depend on held the
// same: the presence of other fields, and conditions the interpreter does
// not model (`oldSelf.status.conditions.exists(…)`), each one boolean
// shared by every rule on the same node that holds it. There must be such
// facts under which r can reject a direct change (p present on both
// sides), removing p is accepted by the rules above it, and (unless
// removeOnly) adding it back is accepted too. Correlating the facts keeps
// a rule that guards p's presence under the same condition as r (Kueue's
// "priorityClassRef is immutable while quota reserved", its presence and
// its fields compared by three rules under one condition) from being
// taken for a hole.
func (a *celAnalysis) bypass(p, x *schema.Node, r rule, removeOnly bool) bool {
	if a.refused(p, true, false) || !removeOnly && a.refused(p, false, true) {
		return false
	}
	var chain []*schema.Node // the objects above p, up to a list item, map value or the root
	for q := p.Parent; q != nil; q = q.Parent {
		chain = append(chain, q)
		if q.Edge != schema.Property {
			break
		}
	}
	// Nodes present when r is evaluated on a direct change: x, p and
	// everything above them.
	onPath := map[*schema.Node]bool{}
	for _, q := range []*schema.Node{x, p} {
		for ; q != nil; q = q.Parent {
			onPath[q] = true
		}
	}
	// The nodes from x up to p, below p, when x is at or below p: the
	// removal of p goes around r only where it takes x's value with it
	// (x present in the old object), and its addition only where it
	// brings x back (x present in the new one). A presence rule over the
	// deeper path (`(has(self.p) && has(self.p.f)) == (has(oldSelf.p) &&
	// has(oldSelf.p.f))`) refuses exactly those.
	carried := map[*schema.Node]bool{}
	if strictlyBelow(x, p) {
		for q := x; q != p; q = q.Parent {
			carried[q] = true
		}
	}
	unknowns := newFacts[fact]()
	lookup := unknowns.lookup
	// presence of a field: mode 0 evaluates the direct change (p present on
	// both sides), 1 the removal of p, 2 its addition.
	pres := func(mode int) func(y *schema.Node, old bool) presence {
		var f func(y *schema.Node, old bool) presence
		f = func(y *schema.Node, old bool) presence {
			switch {
			case y == p && mode == 1, carried[y] && mode == 1 && old:
				return presenceOf(old)
			case y == p && mode == 2, carried[y] && mode == 2 && !old:
				return presenceOf(!old)
			case mode == 0 && onPath[y], mode != 0 && (y == p || slices.Contains(chain, y)):
				return present
			case y.Edge != schema.Property || y.Parent == nil:
				return unknown
			}
			switch f(y.Parent, old) {
			case absent:
				return absent
			case present:
				if y.AlwaysPresent() {
					return present
				}
			}
			if v, ok := lookup(fact{ref: ref{y, old}}); ok {
				return presenceOf(v)
			}
			return unknown
		}
		return f
	}
	// A condition's truth is one fact per node, expression and objects
	// it reads (stepObjects).
	opaque := func(mode int) func(node *schema.Node, selfOld bool, e celast.Expr) (bool, bool) {
		return func(node *schema.Node, selfOld bool, e celast.Expr) (bool, bool) {
			f, negate := a.conditionFact(node, objectsRead(mode, selfOld, e), e)
			v, ok := lookup(f)
			return v != negate, ok
		}
	}
	// active: r may reject a direct change.
	active := func() bool {
		ev := evaluator{self: ref{x, false}, oldSelf: ref{x, true}, hasOldSelf: true, optionalOldSelf: r.optionalOldSelf, presence: pres(0), opaque: opaque(0)}
		return ev.eval(r.expr).out != isTrue
	}
	// accepted: the rules above p may accept its removal (mode 1) or
	// addition (mode 2); the old object satisfied the rules without oldSelf.
	accepted := func(mode int) bool {
		for _, y := range chain {
			for _, q := range a.rules[y] {
				if q.expr == nil {
					continue
				}
				if q.usesOldSelf {
					ev := evaluator{self: ref{y, false}, oldSelf: ref{y, true}, hasOldSelf: true, optionalOldSelf: q.optionalOldSelf, presence: pres(mode), opaque: opaque(mode)}
					if !ev.eval(q.expr).accepts() {
						return false
					}
					continue
				}
				for _, old := range []bool{false, true} {
					ev := evaluator{self: ref{y, old}, presence: pres(mode), opaque: opaque(mode)}
					if !ev.eval(q.expr).accepts() {
						return false
					}
				}
			}
		}
		if mode == 2 {
			for _, q := range a.rules[p] {
				if q.expr != nil && q.usesOldSelf && q.optionalOldSelf {
					ev := evaluator{self: ref{p, false}, oldSelf: ref{p, true}, hasOldSelf: true, optionalOldSelf: true, oldNone: true, presence: pres(mode), opaque: opaque(mode)}
					if !ev.eval(q.expr).accepts() {
						return false
					}
				}
			}
		}
		return true
	}
	holds := func() bool {
		return active() && accepted(1) && (removeOnly || accepted(2))
	}
	// Some values of the facts the rules depend on let the change through.
	return unknowns.exists(holds)
}

// exprKey renders an expression's structure, so that the same condition
// written in two rules is one fact.
func exprKey(e celast.Expr) string {
	var b strings.Builder
	var walk func(e celast.Expr)
	walk = func(e celast.Expr) {
		switch e.Kind() {
		case celast.IdentKind:
			b.WriteString(e.AsIdent())
		case celast.LiteralKind:
			fmt.Fprintf(&b, "%v", e.AsLiteral().Value())
		case celast.SelectKind:
			s := e.AsSelect()
			if s.IsTestOnly() {
				b.WriteString("has(")
			}
			walk(s.Operand())
			b.WriteString("." + s.FieldName())
			if s.IsTestOnly() {
				b.WriteString(")")
			}
		case celast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target())
				b.WriteString(".")
			}
			b.WriteString(c.FunctionName() + "(")
			for i, x := range c.Args() {
				if i > 0 {
					b.WriteString(",")
				}
				walk(x)
			}
			b.WriteString(")")
		case celast.ListKind:
			b.WriteString("[")
			for _, x := range e.AsList().Elements() {
				walk(x)
				b.WriteString(",")
			}
			b.WriteString("]")
		case celast.ComprehensionKind:
			c := e.AsComprehension()
			fmt.Fprintf(&b, "comp(%s,%s,%s,", c.IterVar(), c.IterVar2(), c.AccuVar())
			for _, x := range []celast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
				walk(x)
				b.WriteString(";")
			}
			b.WriteString(")")
		default:
			fmt.Fprintf(&b, "?%d", e.Kind())
		}
	}
	walk(e)
	return b.String()
}
