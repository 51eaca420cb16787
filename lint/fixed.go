package lint

import (
	celast "github.com/google/cel-go/common/ast"

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
