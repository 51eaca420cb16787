package lint

import (
	"fmt"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"

	"github.com/immutable-gen/immutable-gen/runtime/form"
	"github.com/immutable-gen/immutable-gen/schema"
)

// This file finds the values that are the same in every object of an
// update: an immutable, defaulted discriminator (Crossplane's
// `managementPolicy`: `self == oldSelf`, with a default) reads the same in
// the old and the new object, so a rule `self.managementPolicy == 'managed'
// ? has(self.resource) : !has(self.resource)` keeps `resource` present
// where the old object had it. A condition that reads only such values is
// one fact for every object of the update, not one per object.

// fixedWhole reports whether n's value may not change at all: a form
// without a condition that fixes it (recognised from its rules, or an
// immutability extension).
func (a *celAnalysis) fixedWhole(n *schema.Node) (form.Form, bool) {
	if f, ok := a.rec.At[n]; ok && f.When == "" && f.Change == form.NoChange {
		return f, true
	}
	if n.Immutable() {
		return form.Form{Presence: form.Kept, Change: form.NoChange}, true
	}
	return form.Form{}, false
}

// samePresence reports whether property s, its parent present in both
// objects, is present in both or absent in both: required or defaulted,
// inside an object fixed whole, or fixed whole with its presence kept.
func (a *celAnalysis) samePresence(s *schema.Node) bool {
	if s.AlwaysPresent() && !s.Nullable() {
		return true
	}
	for p := s.Parent; p != nil; p = p.Parent {
		if _, ok := a.fixedWhole(p); ok {
			return true
		}
	}
	if f, ok := a.fixedWhole(s); ok && f.Presence == form.Kept {
		return true
	}
	return a.refused(s, true, false) && a.refused(s, false, true)
}

// fixedExpr reports whether e, an expression of a rule on node, reads only
// values that are the same in the old and the new object: every use of
// self and oldSelf is a selection of properties that keep their presence,
// ending at a value fixed whole (or inside one).
func (a *celAnalysis) fixedExpr(node *schema.Node, e celast.Expr) bool {
	ok, reads := true, 0
	var walk func(x celast.Expr)
	walk = func(x celast.Expr) {
		if !ok {
			return
		}
		switch x.Kind() {
		case celast.IdentKind:
			if n := x.AsIdent(); n == "self" || n == "oldSelf" {
				ok = false // the whole object, not one value of it
			}
		case celast.SelectKind:
			v, names := selectChain(x)
			if v != "self" && v != "oldSelf" {
				walk(x.AsSelect().Operand())
				return
			}
			if x.AsSelect().IsTestOnly() {
				ok = false
				return
			}
			t := node
			for _, name := range names {
				if t = t.Properties[name]; t == nil || !a.samePresence(t) {
					ok = false
					return
				}
			}
			fixed := false
			for p := t; p != nil && !fixed; p = p.Parent {
				_, fixed = a.fixedWhole(p)
			}
			ok = fixed
			reads++
		case celast.CallKind:
			c := x.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target())
			}
			for _, arg := range c.Args() {
				walk(arg)
			}
		case celast.ListKind:
			for _, el := range x.AsList().Elements() {
				walk(el)
			}
		case celast.LiteralKind:
		default:
			ok = false
		}
	}
	walk(e)
	return ok && reads > 0
}

// fact is what the analysis enumerates the values of: the presence of a
// field in one object (ref), or the truth of a condition it cannot decide
// (opaque, conditionFact).
type fact struct {
	ref    ref
	opaque string
}

// conditionFact is the fact that condition e, of a rule on node, is when
// it reads the objects named objects: one per node, condition and
// objects, and one for every object where it reads only values they all
// share (fixedExpr: an immutable, defaulted discriminator). negate is set
// when e's truth is the fact's negation (conditionKey).
func (a *celAnalysis) conditionFact(node *schema.Node, objects string, e celast.Expr) (fact, bool) {
	if a.fixedExpr(node, e) {
		objects = "all"
	}
	key, negate := a.conditionKey(node, e)
	return fact{opaque: fmt.Sprintf("%p %s %s", node, objects, key)}, negate
}

// conditionKey is the key of a condition's fact, and whether the fact is
// its negation: a comparison of a field with two allowed values (enum)
// with one of them is the same fact as with the other, negated —
// `self.managementPolicy == 'unmanaged'` is `!(self.managementPolicy ==
// 'managed')` where the enum is [managed, unmanaged] (ORC) — so rules
// written with either value are read as one condition.
func (a *celAnalysis) conditionKey(node *schema.Node, e celast.Expr) (string, bool) {
	if e.Kind() != celast.CallKind {
		return exprKey(e), false
	}
	c := e.AsCall()
	fn := c.FunctionName()
	if (fn != operators.Equals && fn != operators.NotEquals) || len(c.Args()) != 2 {
		return exprKey(e), false
	}
	sel, lit := c.Args()[0], c.Args()[1]
	if sel.Kind() == celast.LiteralKind {
		sel, lit = lit, sel
	}
	v, names := selectChain(sel)
	if (v != "self" && v != "oldSelf") || lit.Kind() != celast.LiteralKind {
		return exprKey(e), false
	}
	t := node
	for _, name := range names {
		if t = t.Properties[name]; t == nil {
			return exprKey(e), false
		}
	}
	enum := t.Enum()
	value, ok := lit.AsLiteral().Value().(string)
	if len(enum) != 2 || !ok {
		return exprKey(e), false
	}
	first, ok1 := enum[0].(string)
	second, ok2 := enum[1].(string)
	if !ok1 || !ok2 || (value != first && value != second) {
		return exprKey(e), false
	}
	negate := (value == second) != (fn == operators.NotEquals)
	return exprKey(sel) + " == " + first, negate
}
