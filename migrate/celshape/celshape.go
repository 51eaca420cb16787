// Package celshape recognises the immutability rules API authors write by
// hand in CEL (x-kubernetes-validations transition rules such as
// `self == oldSelf` or `!has(oldSelf.x) || has(self.x)`), so that they can
// be replaced by markers. It matches the rule's syntax tree, as cel-go's
// parser builds it with no macros expanded, never its text.
//
// Parse splits a rule into its top-level conjuncts and names the
// immutability shape of each (Atoms); the conjuncts it does not recognise
// are kept as CEL text (Rest). A conditional rule (`<condition> ||
// <immutability>`, `<condition> ? <immutability> : true`) is taken apart
// into its immutability (Atoms) and the condition under which it holds
// (When). A rule that holds immutability in a way no marker expresses says
// why in Needs.
package celshape

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/parser"
)

// Kind is the shape of one immutability conjunct. Path is the child the
// conjunct is about, below the node carrying the rule (nil: the node).
type Kind int

const (
	// Equal: `self.p == oldSelf.p` (or `self == oldSelf`): the value may
	// not change. On the node itself, the API server runs it only when the
	// value is present on both sides; on a child path, the rule fails when
	// the child is absent on either side.
	Equal Kind = iota + 1
	// NoModify: `!has(self.p) || !has(oldSelf.p) || self.p == oldSelf.p`:
	// fixed while present, may be cleared and set again (validation-gen's
	// +k8s:update=NoModify).
	NoModify
	// SamePresence: `has(self.p) == has(oldSelf.p)`.
	SamePresence
	// NoRemoval: `!has(oldSelf.p) || has(self.p)`: once present, stays.
	NoRemoval
	// NoAddition: `!has(self.p) || has(oldSelf.p)`: absent stays absent.
	NoAddition
	// SameKeys: the key set of a map or list map may not change, order
	// ignored (`sets.equivalent(self.map(i, i.k), oldSelf.map(i, i.k))`).
	SameKeys
	// KeysInOrder: `self.map(i, i.k) == oldSelf.map(i, i.k)`: the keys of a
	// list map, compared in order (a CEL list made by map is ordered).
	KeysInOrder
	// NoKeyRemoved: `oldSelf.all(k, k in self)` (Keys nil: map keys, or the
	// items of a list) or `oldSelf.all(x, self.exists(y, y.k == x.k))`.
	NoKeyRemoved
	// NoKeyAdded: the same with self and oldSelf swapped.
	NoKeyAdded
	// SameSize: `self.size() == oldSelf.size()`.
	SameSize
	// ItemsEqual: `self.all(i, x, i >= oldSelf.size() || x == oldSelf[i])`:
	// the items of an atomic list at every index both lists have are
	// equal (the generator's lowering of +immutable on the items, where
	// oldSelf is refused under them); appending and truncating are free.
	ItemsEqual
)

var kindNames = map[Kind]string{
	Equal: "equal", NoModify: "no-modify", SamePresence: "same-presence", NoRemoval: "no-removal",
	NoAddition: "no-addition", SameKeys: "same-keys", KeysInOrder: "keys-in-order",
	NoKeyRemoved: "no-key-removed", NoKeyAdded: "no-key-added", SameSize: "same-size",
	ItemsEqual: "items-equal",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// An Atom is one recognised immutability conjunct.
type Atom struct {
	Kind Kind
	// Path is the child the conjunct is about, below the rule's node.
	Path []string
	// Keys are the list map key fields a key conjunct projects the items
	// on (i.k), nil when it compares map keys or whole items.
	Keys []string
	// Guarded are the lengths of the prefixes of Path that the rule's
	// condition guards with has() on both sides (`has(oldSelf.a) &&
	// has(self.a) ? self.a.b == oldSelf.a.b : true`): the conjunct reads
	// them only where both objects have them.
	Guarded []int
}

func (a Atom) String() string {
	s := a.Kind.String()
	if len(a.Path) > 0 {
		s += " " + strings.Join(a.Path, ".")
	}
	if len(a.Keys) > 0 {
		s += " keys=" + strings.Join(a.Keys, ",")
	}
	if len(a.Guarded) > 0 {
		s += fmt.Sprintf(" guarded=%v", a.Guarded)
	}
	return s
}

// NeedsSplit is the Needs of a conditional rule whose condition cannot be
// told apart from its immutability; NeedsMixed the Needs of a rule that
// holds immutability both unconditionally and under a condition;
// NeedsDefault the Needs of a comparison that takes an absent value as a
// default.
const (
	NeedsDefault = "compares the value with absence taken as a default ((has(oldSelf.x) ? oldSelf.x : d) == (has(self.x) ? self.x : d)): a marker tells an absent value from d, so no form means that"
	NeedsMixed   = "holds immutability both unconditionally and under a condition: the rule is not split into two markers (split it by hand, then migrate)"
	NeedsSplit   = "a conditional rule whose condition cannot be separated from its immutability (the condition itself compares self and oldSelf, the rule has several conditional parts, or its immutability is no shape a marker has): no +immutable:when expresses it"
)

// A Shape is a rule taken apart.
type Shape struct {
	// Atoms are the immutability conjuncts, in order.
	Atoms []Atom
	// Rest are the other conjuncts, as CEL, in order.
	Rest []string
	// RestUsesOldSelf reports whether every conjunct of Rest refers to
	// oldSelf (so that, alone, it is still a transition rule).
	RestUsesOldSelf bool
	// When is the condition under which Atoms hold, as CEL relative to
	// the rule's node (self and oldSelf as the rule sees them); "" for an
	// unconditional rule.
	When string
	// Needs is set when the rule holds immutability that no marker
	// expresses (NeedsSplit), with the reason; Atoms is then empty.
	Needs string
}

// Immutability reports whether the rule holds any immutability conjunct.
func (s Shape) Immutability() bool { return len(s.Atoms) > 0 || s.Needs != "" }

// Parse takes rule apart. An error means the rule is not CEL.
func Parse(rule string) (Shape, error) {
	p, err := parser.NewParser(parser.MaxRecursionDepth(200))
	if err != nil {
		return Shape{}, err
	}
	tree, errs := p.Parse(common.NewTextSource(rule))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return Shape{}, fmt.Errorf("not CEL: %s", strings.TrimSpace(errs.ToDisplayString()))
	}
	var s Shape
	s.RestUsesOldSelf = true
	var needs string
	var conditional []Atom
	conditions := 0
	for _, c := range flatten(tree.Expr(), operators.LogicalAnd) {
		if a, ok := atom(c); ok {
			s.Atoms = append(s.Atoms, a...)
			continue
		}
		if containsImmutability(c) {
			a, when, ok := condition(c, tree.SourceInfo())
			if !ok {
				needs = NeedsSplit
				if containsDefaulted(c) {
					needs = NeedsDefault
				}
				continue
			}
			conditional, s.When = a, when
			conditions++
			continue
		}
		text, err := Unparse(c, tree.SourceInfo())
		if err != nil {
			return Shape{}, err
		}
		s.Rest = append(s.Rest, text)
		if !mentions(c, "oldSelf") {
			s.RestUsesOldSelf = false
		}
	}
	switch {
	case needs == "" && conditions > 1:
		needs = NeedsSplit
	case needs == "" && conditions == 1 && len(s.Atoms) > 0:
		// `a == b && (<c> || x == y)`: the rule is not split there.
		needs = NeedsMixed
	}
	if needs != "" {
		// Part of the rule has no marker form: the rule is left whole.
		return Shape{Needs: needs}, nil
	}
	if conditions == 1 {
		s.Atoms = conditional
	}
	return s, nil
}

// atom recognises one conjunct, or a conjunction of conjuncts nested in
// parentheses.
func atom(e ast.Expr) ([]Atom, bool) {
	if inner := flatten(e, operators.LogicalAnd); len(inner) > 1 {
		var out []Atom
		for _, c := range inner {
			a, ok := atom(c)
			if !ok {
				return nil, false
			}
			out = append(out, a...)
		}
		return out, true
	}
	if l, r, ok := call2(e, operators.Equals); ok {
		// self.p == oldSelf.p
		if p, ok := pairedPaths(l, r); ok {
			return []Atom{{Kind: Equal, Path: p}}, true
		}
		// has(self.p) == has(oldSelf.p)
		hl, okl := hasPath(l)
		hr, okr := hasPath(r)
		if okl && okr && hl.root != hr.root && slices.Equal(hl.path, hr.path) {
			return []Atom{{Kind: SamePresence, Path: hl.path}}, true
		}
		// self.size() == oldSelf.size()
		sl, okl := sizeOf(l)
		sr, okr := sizeOf(r)
		if okl && okr && sl.root != sr.root && slices.Equal(sl.path, sr.path) {
			return []Atom{{Kind: SameSize, Path: sl.path}}, true
		}
		// self.map(i, i.k) == oldSelf.map(j, j.k)
		ml, okl := mapKeys(l)
		mr, okr := mapKeys(r)
		if okl && okr && ml.root != mr.root && slices.Equal(ml.path, mr.path) && slices.Equal(ml.keys, mr.keys) {
			return []Atom{{Kind: KeysInOrder, Path: ml.path, Keys: ml.keys}}, true
		}
		return nil, false
	}
	// sets.equivalent(self.map(i, i.k), oldSelf.map(j, j.k))
	if c, ok := callOf(e, "equivalent", 2); ok && c.IsMemberFunction() && isIdent(c.Target(), "sets") {
		ml, okl := mapKeys(c.Args()[0])
		mr, okr := mapKeys(c.Args()[1])
		if okl && okr && ml.root != mr.root && slices.Equal(ml.path, mr.path) && slices.Equal(ml.keys, mr.keys) {
			return []Atom{{Kind: SameKeys, Path: ml.path, Keys: ml.keys}}, true
		}
		return nil, false
	}
	if a, ok := allIn(e); ok {
		return []Atom{a}, true
	}
	if a, ok := itemsEqual(e); ok {
		return []Atom{a}, true
	}
	ds := flatten(e, operators.LogicalOr)
	if len(ds) < 2 {
		return nil, false
	}
	return atomOr(ds)
}

// atomOr recognises the disjunction of ds as one immutability shape.
func atomOr(ds []ast.Expr) ([]Atom, bool) {
	switch len(ds) {
	case 1:
		return atom(ds[0])
	case 2:
		// (!has(oldSelf.p) && !has(self.p)) || (has(oldSelf.p) && has(self.p))
		if p, ok := presenceXNOR(ds[0], ds[1]); ok {
			return []Atom{{Kind: SamePresence, Path: p}}, true
		}
		if p, ok := presenceXNOR(ds[1], ds[0]); ok {
			return []Atom{{Kind: SamePresence, Path: p}}, true
		}
		// !has(oldSelf.p) || has(self.p), and the reverse
		var notHas, has *sel
		for _, d := range ds {
			if x, ok := call1(d, operators.LogicalNot); ok {
				if h, ok := hasPath(x); ok {
					notHas = &h
				}
			} else if h, ok := hasPath(d); ok {
				has = &h
			}
		}
		if notHas != nil && has != nil && notHas.root != has.root && slices.Equal(notHas.path, has.path) {
			if notHas.root == "oldSelf" {
				return []Atom{{Kind: NoRemoval, Path: has.path}}, true
			}
			return []Atom{{Kind: NoAddition, Path: has.path}}, true
		}
		// !has(oldSelf.p) || self.p == oldSelf.p, and
		// !has(oldSelf.p) || (has(self.p) && self.p == oldSelf.p): set once
		// (present before, p must stay and equal). With self and oldSelf
		// swapped (!has(self.p) || self.p == oldSelf.p): p may not be set
		// later (oldSelf.p fails where it is absent), and is fixed while
		// present.
		for i, d := range ds {
			x, ok := call1(d, operators.LogicalNot)
			if !ok {
				continue
			}
			h, ok := hasPath(x)
			if !ok {
				continue
			}
			cs := flatten(ds[1-i], operators.LogicalAnd)
			if len(cs) == 2 {
				if hs, ok := hasPath(cs[0]); !ok || hs.root == h.root || !slices.Equal(hs.path, h.path) {
					continue
				}
				cs = cs[1:]
			}
			if l, r, ok := call2(cs[0], operators.Equals); ok && len(cs) == 1 {
				if p, ok := pairedPaths(l, r); ok && slices.Equal(p, h.path) {
					if h.root == "self" {
						return []Atom{{Kind: NoAddition, Path: p}, {Kind: NoModify, Path: p}}, true
					}
					return []Atom{{Kind: NoRemoval, Path: p}, {Kind: NoModify, Path: p}}, true
				}
			}
		}
	case 3:
		if p, ok := noModify(ds); ok {
			return []Atom{{Kind: NoModify, Path: p}}, true
		}
		if atoms, ok := whilePresent(ds); ok {
			return atoms, true
		}
	}
	return nil, false
}

// whilePresent matches `!has(self.p) || !has(oldSelf.p) || (C1 && C2 …)`,
// comparisons about p or below it that hold only where both objects have
// p — the generator's lowering of a form compared while present under a
// condition (the value and its list maps' keys in order, or the size and
// the keys). It is the conjunction of `!has(self.p) || !has(oldSelf.p) ||
// Ci`: an Equal of p itself is NoModify p, every other conjunct is guarded
// at p.
func whilePresent(ds []ast.Expr) ([]Atom, bool) {
	var path []string
	roots := map[string]bool{}
	var body ast.Expr
	for _, d := range ds {
		if x, ok := call1(d, operators.LogicalNot); ok {
			h, ok := hasPath(x)
			if !ok || (path != nil && !slices.Equal(path, h.path)) {
				return nil, false
			}
			path, roots[h.root] = h.path, true
			continue
		}
		if body != nil {
			return nil, false
		}
		body = d
	}
	cs := flatten(body, operators.LogicalAnd)
	if !roots["self"] || !roots["oldSelf"] || len(path) == 0 || len(cs) < 2 {
		return nil, false
	}
	var out []Atom
	for _, c := range cs {
		atoms, ok := atom(c)
		if !ok {
			return nil, false
		}
		for _, a := range atoms {
			switch {
			case len(a.Path) < len(path) || !slices.Equal(a.Path[:len(path)], path):
				return nil, false
			case a.Kind == Equal && len(a.Path) == len(path):
				a.Kind = NoModify
			case a.Kind == Equal, a.Kind == KeysInOrder, a.Kind == SameKeys, a.Kind == SameSize,
				a.Kind == NoKeyAdded, a.Kind == NoKeyRemoved, a.Kind == ItemsEqual:
				a.Guarded = append(a.Guarded, len(path))
			default:
				return nil, false
			}
			out = append(out, a)
		}
	}
	return out, true
}

// containsImmutability reports whether an immutability shape (or the
// comparison `self.p == oldSelf.p`) stands among the operands of e's
// ||, &&, ! and ?: operators, at any depth.
func containsImmutability(e ast.Expr) bool {
	return amongOperands(e, func(e ast.Expr) bool {
		if _, ok := atom(e); ok {
			return true
		}
		if l, r, ok := call2(e, operators.Equals); ok {
			if _, ok := pairedPaths(l, r); ok {
				return true
			}
		}
		return defaulted(e)
	})
}

// amongOperands reports whether match holds for e or for an operand of
// e's ||, &&, ! and ?: operators, at any depth.
func amongOperands(e ast.Expr, match func(ast.Expr) bool) bool {
	if match(e) {
		return true
	}
	if e.Kind() != ast.CallKind {
		return false
	}
	c := e.AsCall()
	switch c.FunctionName() {
	case operators.LogicalOr, operators.LogicalAnd, operators.LogicalNot, operators.Conditional:
		for _, a := range c.Args() {
			if amongOperands(a, match) {
				return true
			}
		}
	}
	return false
}

// presenceXNOR matches absent (both !has) and present (both has) of one
// path on both sides: the presence does not change.
func presenceXNOR(absent, present ast.Expr) ([]string, bool) {
	as := flatten(absent, operators.LogicalAnd)
	ps := flatten(present, operators.LogicalAnd)
	if len(as) != 2 || len(ps) != 2 {
		return nil, false
	}
	var path []string
	roots := map[string]int{}
	for _, a := range as {
		x, ok := call1(a, operators.LogicalNot)
		if !ok {
			return nil, false
		}
		h, ok := hasPath(x)
		if !ok || (path != nil && !slices.Equal(path, h.path)) {
			return nil, false
		}
		path = h.path
		roots[h.root]++
	}
	for _, p := range ps {
		h, ok := hasPath(p)
		if !ok || !slices.Equal(path, h.path) {
			return nil, false
		}
		roots[h.root] += 10
	}
	return path, roots["self"] == 11 && roots["oldSelf"] == 11
}

// defaulted matches (has(oldSelf.p) ? oldSelf.p : d) == (has(self.p) ?
// self.p : d), in either order.
func defaulted(e ast.Expr) bool {
	l, r, ok := call2(e, operators.Equals)
	if !ok {
		return false
	}
	side := func(x ast.Expr) (sel, ast.Expr, bool) {
		c, ok := callOf(x, operators.Conditional, 3)
		if !ok || c.IsMemberFunction() {
			return sel{}, nil, false
		}
		h, ok := hasPath(c.Args()[0])
		if !ok {
			return sel{}, nil, false
		}
		v, ok := path(c.Args()[1])
		if !ok || v.root != h.root || !slices.Equal(v.path, h.path) {
			return sel{}, nil, false
		}
		return h, c.Args()[2], true
	}
	hl, dl, okl := side(l)
	hr, dr, okr := side(r)
	return okl && okr && hl.root != hr.root && slices.Equal(hl.path, hr.path) && dl.Kind() == ast.LiteralKind && dr.Kind() == ast.LiteralKind && dl.AsLiteral().Equal(dr.AsLiteral()) == types.True
}

// containsDefaulted reports whether a defaulted comparison stands among
// the operands of e's logical operators, at any depth.
func containsDefaulted(e ast.Expr) bool { return amongOperands(e, defaulted) }

// noModify matches the three disjuncts of
// `!has(self.p) || !has(oldSelf.p) || self.p == oldSelf.p`, in any order.
func noModify(ds []ast.Expr) ([]string, bool) {
	var path []string
	roots := map[string]bool{}
	eq := false
	for _, d := range ds {
		if x, ok := call1(d, operators.LogicalNot); ok {
			h, ok := hasPath(x)
			if !ok || (path != nil && !slices.Equal(path, h.path)) {
				return nil, false
			}
			path, roots[h.root] = h.path, true
			continue
		}
		l, r, ok := call2(d, operators.Equals)
		if !ok {
			return nil, false
		}
		p, ok := pairedPaths(l, r)
		if !ok || len(p) == 0 || (path != nil && !slices.Equal(path, p)) {
			return nil, false
		}
		path, eq = p, true
	}
	return path, eq && roots["self"] && roots["oldSelf"]
}

// allIn matches `oldSelf.p.all(k, k in self.p)` and
// `oldSelf.p.all(x, self.p.exists(y, y.k == x.k))` (and with self and
// oldSelf swapped), and `oldSelf.p.all(x, x.k in self.p.map(y, y.k))`.
func allIn(e ast.Expr) (Atom, bool) {
	c, ok := callOf(e, "all", 2)
	if !ok || !c.IsMemberFunction() {
		return Atom{}, false
	}
	outer, ok := path(c.Target())
	if !ok {
		return Atom{}, false
	}
	v, ok := ident(c.Args()[0])
	if !ok {
		return Atom{}, false
	}
	body := c.Args()[1]
	kind := NoKeyRemoved
	if outer.root == "self" {
		kind = NoKeyAdded
	}
	// k in other
	if l, r, ok := call2(body, operators.In); ok {
		if x, ok := ident(l); ok && x == v {
			if in, ok := path(r); ok && in.root != outer.root && slices.Equal(in.path, outer.path) {
				return Atom{Kind: kind, Path: outer.path}, true
			}
		}
		// x.k in other.map(y, y.k)
		if lk, ok := fieldOf(l, v); ok {
			if m, ok := mapKeys(r); ok && m.root != outer.root && slices.Equal(m.path, outer.path) && slices.Equal(m.keys, []string{lk}) {
				return Atom{Kind: kind, Path: outer.path, Keys: m.keys}, true
			}
		}
		return Atom{}, false
	}
	// other.exists(y, y.k == x.k)
	if ex, ok := callOf(body, "exists", 2); ok && ex.IsMemberFunction() {
		in, ok := path(ex.Target())
		if !ok || in.root == outer.root || !slices.Equal(in.path, outer.path) {
			return Atom{}, false
		}
		w, ok := ident(ex.Args()[0])
		if !ok || w == v {
			return Atom{}, false
		}
		l, r, ok := call2(ex.Args()[1], operators.Equals)
		if !ok {
			return Atom{}, false
		}
		kl, okl := fieldOf(l, w)
		kr, okr := fieldOf(r, v)
		if !okl || !okr {
			kl, okl = fieldOf(l, v)
			kr, okr = fieldOf(r, w)
		}
		if okl && okr && kl == kr {
			return Atom{Kind: kind, Path: outer.path, Keys: []string{kl}}, true
		}
	}
	return Atom{}, false
}

// itemsEqual matches `self.p.all(i, x, i >= oldSelf.p.size() || x ==
// oldSelf.p[i])` (the operands of || and == in either order).
func itemsEqual(e ast.Expr) (Atom, bool) {
	c, ok := callOf(e, "all", 3)
	if !ok || !c.IsMemberFunction() {
		return Atom{}, false
	}
	outer, ok := path(c.Target())
	i, oki := ident(c.Args()[0])
	x, okx := ident(c.Args()[1])
	if !ok || !oki || !okx || outer.root != "self" {
		return Atom{}, false
	}
	ds := flatten(c.Args()[2], operators.LogicalOr)
	if len(ds) != 2 {
		return Atom{}, false
	}
	beyond := func(d ast.Expr) bool {
		l, r, ok := call2(d, operators.GreaterEquals)
		if !ok || !isIdent(l, i) {
			return false
		}
		s, ok := sizeOf(r)
		return ok && s.root == "oldSelf" && slices.Equal(s.path, outer.path)
	}
	same := func(d ast.Expr) bool {
		l, r, ok := call2(d, operators.Equals)
		if !ok {
			return false
		}
		if !isIdent(l, x) {
			l, r = r, l
		}
		list, idx, ok := call2(r, operators.Index)
		if !ok || !isIdent(l, x) || !isIdent(idx, i) {
			return false
		}
		old, ok := path(list)
		return ok && old.root == "oldSelf" && slices.Equal(old.path, outer.path)
	}
	if beyond(ds[0]) && same(ds[1]) || beyond(ds[1]) && same(ds[0]) {
		return Atom{Kind: ItemsEqual, Path: outer.path}, true
	}
	return Atom{}, false
}

// Unparse renders e as CEL on one line: cel-go's unparser, which by
// default breaks a text longer than 80 columns after && and ||, would put
// line breaks into the conditions a marker holds on one comment line.
func Unparse(e ast.Expr, info *ast.SourceInfo) (string, error) {
	return parser.Unparse(e, info, parser.WrapOnOperators())
}

// sel is a field path below self or oldSelf.
type sel struct {
	root string
	path []string
}

// path matches self.a.b and oldSelf.a.b (and self, oldSelf).
func path(e ast.Expr) (sel, bool) {
	var rev []string
	for e.Kind() == ast.SelectKind {
		s := e.AsSelect()
		if s.IsTestOnly() {
			return sel{}, false
		}
		rev = append(rev, s.FieldName())
		e = s.Operand()
	}
	root, ok := ident(e)
	if !ok || (root != "self" && root != "oldSelf") {
		return sel{}, false
	}
	slices.Reverse(rev)
	return sel{root: root, path: rev}, true
}

// pairedPaths matches self.p and oldSelf.p, in either order.
func pairedPaths(l, r ast.Expr) ([]string, bool) {
	pl, okl := path(l)
	pr, okr := path(r)
	if !okl || !okr || pl.root == pr.root || !slices.Equal(pl.path, pr.path) {
		return nil, false
	}
	if pl.path == nil {
		return nil, true
	}
	return pl.path, true
}

// hasPath matches has(self.p) and has(oldSelf.p), p not empty.
func hasPath(e ast.Expr) (sel, bool) {
	c, ok := callOf(e, "has", 1)
	if !ok || c.IsMemberFunction() {
		return sel{}, false
	}
	p, ok := path(c.Args()[0])
	if !ok || len(p.path) == 0 {
		return sel{}, false
	}
	return p, true
}

// sizeOf matches self.p.size() and size(self.p).
func sizeOf(e ast.Expr) (sel, bool) {
	c, ok := callOf(e, "size", -1)
	if !ok {
		return sel{}, false
	}
	switch {
	case c.IsMemberFunction() && len(c.Args()) == 0:
		return path(c.Target())
	case !c.IsMemberFunction() && len(c.Args()) == 1:
		return path(c.Args()[0])
	}
	return sel{}, false
}

// keysOf is self.p.map(i, i.k): the keys of a list map, projected.
type keysOf struct {
	sel
	keys []string
}

// mapKeys matches self.p.map(i, i.k), and the same guarded by has() on
// each step of p below the rule's node, absence read as no keys, as the
// generator writes it for a list map deeper in a value compared in order:
// `has(self.a) ? (has(self.a.l) ? self.a.l.map(i, i.k) : []) : []`.
//
// The first guard may stand below the rule's node (`has(self.v.a) ?
// (has(self.v.a.l) ? …) : []`, where a conditional rule compares v while
// present): the steps above it are read as they are, and fail where
// absent, as the comparison of v beside it does.
func mapKeys(e ast.Expr) (keysOf, bool) {
	return guardedMapKeys(e, -1)
}

// guardedMapKeys is mapKeys with the first depth steps of the path already
// guarded (depth -1: none yet, the first guard at any step).
func guardedMapKeys(e ast.Expr, depth int) (keysOf, bool) {
	if c, ok := callOf(e, operators.Conditional, 3); ok && !c.IsMemberFunction() {
		a := c.Args()
		g, ok := hasPath(a[0])
		if !ok || depth >= 0 && len(g.path) != depth+1 || a[2].Kind() != ast.ListKind || len(a[2].AsList().Elements()) != 0 {
			return keysOf{}, false
		}
		k, ok := guardedMapKeys(a[1], len(g.path))
		if !ok || k.root != g.root || len(k.path) < len(g.path) || !slices.Equal(k.path[:len(g.path)], g.path) {
			return keysOf{}, false
		}
		return k, true
	}
	c, ok := callOf(e, "map", 2)
	if !ok || !c.IsMemberFunction() {
		return keysOf{}, false
	}
	t, ok := path(c.Target())
	if !ok {
		return keysOf{}, false
	}
	v, ok := ident(c.Args()[0])
	if !ok {
		return keysOf{}, false
	}
	k, ok := fieldOf(c.Args()[1], v)
	if !ok {
		return keysOf{}, false
	}
	return keysOf{sel: t, keys: []string{k}}, true
}

// fieldOf matches v.k and returns k.
func fieldOf(e ast.Expr, v string) (string, bool) {
	if e.Kind() != ast.SelectKind || e.AsSelect().IsTestOnly() {
		return "", false
	}
	x, ok := ident(e.AsSelect().Operand())
	if !ok || x != v {
		return "", false
	}
	return e.AsSelect().FieldName(), true
}

func isIdent(e ast.Expr, name string) bool {
	x, ok := ident(e)
	return ok && x == name
}

func ident(e ast.Expr) (string, bool) {
	if e.Kind() != ast.IdentKind {
		return "", false
	}
	return e.AsIdent(), true
}

// callOf matches a call of fn with n arguments besides the target (any
// number when n < 0).
func callOf(e ast.Expr, fn string, n int) (ast.CallExpr, bool) {
	if e.Kind() != ast.CallKind {
		return nil, false
	}
	c := e.AsCall()
	if c.FunctionName() != fn || (n >= 0 && len(c.Args()) != n) {
		return nil, false
	}
	return c, true
}

func call1(e ast.Expr, fn string) (ast.Expr, bool) {
	c, ok := callOf(e, fn, 1)
	if !ok || c.IsMemberFunction() {
		return nil, false
	}
	return c.Args()[0], true
}

func call2(e ast.Expr, fn string) (ast.Expr, ast.Expr, bool) {
	c, ok := callOf(e, fn, 2)
	if !ok || c.IsMemberFunction() {
		return nil, nil, false
	}
	return c.Args()[0], c.Args()[1], true
}

// flatten returns the operands of a chain of op (&& or ||), left to right.
func flatten(e ast.Expr, op string) []ast.Expr {
	if l, r, ok := call2(e, op); ok {
		return append(flatten(l, op), flatten(r, op)...)
	}
	// cel-go may balance long chains into one call of many arguments.
	if e.Kind() == ast.CallKind && e.AsCall().FunctionName() == op && len(e.AsCall().Args()) > 2 {
		var out []ast.Expr
		for _, a := range e.AsCall().Args() {
			out = append(out, flatten(a, op)...)
		}
		return out
	}
	return []ast.Expr{e}
}

// mentions reports whether e refers to the variable name.
func mentions(e ast.Expr, name string) bool {
	found := false
	visit(e, func(x ast.Expr) {
		if x.Kind() == ast.IdentKind && x.AsIdent() == name {
			found = true
		}
	})
	return found
}

func visit(e ast.Expr, fn func(ast.Expr)) {
	fn(e)
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		if c.IsMemberFunction() {
			visit(c.Target(), fn)
		}
		for _, a := range c.Args() {
			visit(a, fn)
		}
	case ast.SelectKind:
		visit(e.AsSelect().Operand(), fn)
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			visit(x, fn)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			visit(me.Key(), fn)
			visit(me.Value(), fn)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			visit(f.AsStructField().Value(), fn)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		visit(c.IterRange(), fn)
		visit(c.AccuInit(), fn)
		visit(c.LoopCondition(), fn)
		visit(c.LoopStep(), fn)
		visit(c.Result(), fn)
	}
}

// cond is one conjunct of a rule's condition, negated or not.
type cond struct {
	x   ast.Expr
	neg bool
}

// condition takes a conditional conjunct apart into its immutability and
// the condition under which it holds: `C ? I : true` (I under C),
// `C ? true : I` (I under !C), and a disjunction some of whose operands
// form one immutability shape I while none of the others holds any
// (`!C1 || C2 || I`: I under C1 && !C2). Guards `has(oldSelf.q) &&
// has(self.q)` of the condition over a prefix q of every atom's path go
// into the atoms (Guarded; `has(…q) && has(…q) ? self.q == oldSelf.q` is
// NoModify q). It returns the atoms and the condition as CEL, "" when
// nothing but guards was left of it.
func condition(e ast.Expr, info *ast.SourceInfo) ([]Atom, string, bool) {
	var conds []cond
	var imm []ast.Expr
	if c, ok := callOf(e, operators.Conditional, 3); ok && !c.IsMemberFunction() {
		a := c.Args()
		switch {
		case isBool(a[2], true):
			conds, imm = conjuncts(a[0], false), flatten(a[1], operators.LogicalOr)
		case isBool(a[1], true):
			conds, imm = conjuncts(a[0], true), flatten(a[2], operators.LogicalOr)
		default:
			return nil, "", false
		}
	} else {
		ds := flatten(e, operators.LogicalOr)
		if len(ds) < 2 || len(ds) > 10 {
			return nil, "", false
		}
		// The most operands that form one shape; the others are the
		// condition.
		var rest []ast.Expr
	search:
		for size := len(ds) - 1; size >= 1; size-- {
			for mask := 1; mask < 1<<len(ds); mask++ {
				if bits.OnesCount(uint(mask)) != size {
					continue
				}
				var in, out []ast.Expr
				clean := true
				for i, d := range ds {
					if mask&(1<<i) != 0 {
						in = append(in, d)
					} else {
						out = append(out, d)
						clean = clean && !containsImmutability(d)
					}
				}
				if _, ok := atomOr(in); ok && clean {
					imm, rest = in, out
					break search
				}
			}
		}
		if imm == nil {
			return nil, "", false
		}
		for _, r := range rest {
			conds = append(conds, conjuncts(r, true)...)
		}
	}
	atoms, ok := atomOr(imm)
	if !ok {
		return nil, "", false
	}
	for _, c := range conds {
		if containsImmutability(c.x) {
			return nil, "", false
		}
	}
	conds, atoms = absorbGuards(conds, atoms)
	var parts []string
	for _, c := range conds {
		text, err := Unparse(c.x, info)
		if err != nil {
			return nil, "", false
		}
		compound := false
		if c.x.Kind() == ast.CallKind {
			switch c.x.AsCall().FunctionName() {
			case operators.LogicalOr, operators.Conditional:
				compound = true
			case operators.LogicalAnd, operators.Equals, operators.NotEquals, operators.Less, operators.LessEquals, operators.Greater, operators.GreaterEquals, operators.In:
				compound = c.neg
			}
		}
		if compound {
			text = "(" + text + ")"
		}
		if c.neg {
			text = "!" + text
		}
		parts = append(parts, text)
	}
	return atoms, strings.Join(parts, " && "), true
}

// conjuncts returns the conjuncts of e, or of !e when neg (De Morgan over
// ||, double negations dropped).
func conjuncts(e ast.Expr, neg bool) []cond {
	if x, ok := call1(e, operators.LogicalNot); ok {
		return conjuncts(x, !neg)
	}
	var op string
	if neg {
		op = operators.LogicalOr
	} else {
		op = operators.LogicalAnd
	}
	parts := flatten(e, op)
	if len(parts) == 1 {
		return []cond{{x: e, neg: neg}}
	}
	var out []cond
	for _, p := range parts {
		out = append(out, conjuncts(p, neg)...)
	}
	return out
}

// absorbGuards moves the condition's guards has(oldSelf.q) && has(self.q),
// q a prefix of every atom's path, into the atoms.
func absorbGuards(conds []cond, atoms []Atom) ([]cond, []Atom) {
	type guard struct{ old, new int }
	guards := map[string]*guard{}
	var order []string
	for i, c := range conds {
		h, ok := hasPath(c.x)
		if c.neg || !ok {
			continue
		}
		k := strings.Join(h.path, ".")
		if guards[k] == nil {
			guards[k] = &guard{old: -1, new: -1}
			order = append(order, k)
		}
		if h.root == "oldSelf" {
			guards[k].old = i
		} else {
			guards[k].new = i
		}
	}
	drop := map[int]bool{}
	for _, k := range order {
		g := guards[k]
		if g.old < 0 || g.new < 0 {
			continue
		}
		q := strings.Split(k, ".")
		ok := true
		for _, a := range atoms {
			if len(a.Path) < len(q) || !slices.Equal(a.Path[:len(q)], q) || (len(a.Path) == len(q) && a.Kind != Equal && a.Kind != NoModify) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		drop[g.old], drop[g.new] = true, true
		for i := range atoms {
			if len(atoms[i].Path) == len(q) {
				atoms[i].Kind = NoModify
			} else {
				atoms[i].Guarded = append(atoms[i].Guarded, len(q))
			}
		}
	}
	var kept []cond
	for i, c := range conds {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	return kept, atoms
}

func isBool(e ast.Expr, v bool) bool {
	if e.Kind() != ast.LiteralKind {
		return false
	}
	b, ok := e.AsLiteral().Value().(bool)
	return ok && b == v
}

// Rebase rewrites a condition written for a rule at path (below the
// object's root) into one over the whole objects, as +immutable:when
// reads it: self and oldSelf become self.<path> and oldSelf.<path>.
func Rebase(expr string, path []string) (string, error) {
	if len(path) == 0 {
		return expr, nil
	}
	p, err := parser.NewParser(parser.MaxRecursionDepth(200), parser.PopulateMacroCalls(false))
	if err != nil {
		return "", err
	}
	tree, errs := p.Parse(common.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return "", fmt.Errorf("not CEL: %s", strings.TrimSpace(errs.ToDisplayString()))
	}
	var at []int
	var bad error
	visit(tree.Expr(), func(x ast.Expr) {
		switch x.Kind() {
		case ast.IdentKind:
			if n := x.AsIdent(); n == "self" || n == "oldSelf" {
				r, ok := tree.SourceInfo().GetOffsetRange(x.ID())
				if !ok {
					bad = fmt.Errorf("no position for %s", n)
					return
				}
				at = append(at, int(r.Start)+len(n))
			}
		case ast.CallKind:
			// A comprehension variable named self or oldSelf would shadow
			// them.
			c := x.AsCall()
			if c.IsMemberFunction() && len(c.Args()) >= 2 {
				if v, ok := ident(c.Args()[0]); ok && (v == "self" || v == "oldSelf") {
					bad = fmt.Errorf("a variable named %s", v)
				}
			}
		}
	})
	if bad != nil {
		return "", bad
	}
	runes := []rune(expr)
	slices.Sort(at)
	suffix := []rune("." + strings.Join(path, "."))
	var out []rune
	prev := 0
	for _, i := range at {
		out = append(out, runes[prev:i]...)
		out = append(out, suffix...)
		prev = i
	}
	out = append(out, runes[prev:]...)
	return string(out), nil
}
