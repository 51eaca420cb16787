// Package celshape recognises the immutability rules API authors write by
// hand in CEL (x-kubernetes-validations transition rules such as
// `self == oldSelf` or `!has(oldSelf.x) || has(self.x)`), so that they can
// be replaced by markers. It matches the rule's syntax tree, as cel-go's
// parser builds it with no macros expanded, never its text.
//
// Parse splits a rule into its top-level conjuncts and names the
// immutability shape of each (Atoms); the conjuncts it does not recognise
// are kept as CEL text (Rest). A rule that is recognised but needs a form
// immutable-gen does not have yet (upstream's NoModify, a condition) says
// so in Needs.
package celshape

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
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
)

var kindNames = map[Kind]string{
	Equal: "equal", NoModify: "no-modify", SamePresence: "same-presence", NoRemoval: "no-removal",
	NoAddition: "no-addition", SameKeys: "same-keys", KeysInOrder: "keys-in-order",
	NoKeyRemoved: "no-key-removed", NoKeyAdded: "no-key-added", SameSize: "same-size",
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
}

func (a Atom) String() string {
	s := a.Kind.String()
	if len(a.Path) > 0 {
		s += " " + strings.Join(a.Path, ".")
	}
	if len(a.Keys) > 0 {
		s += " keys=" + strings.Join(a.Keys, ",")
	}
	return s
}

// Needs names the forms a recognised rule needs that immutable-gen does not
// have yet.
const (
	NeedsNoModify = "+k8s:update=NoModify"
	NeedsWhen     = "+immutable:when"
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
	// Needs is set when the rule is an immutability rule of a form
	// immutable-gen does not have yet (NeedsWhen: a condition); Atoms is
	// then empty.
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
	for _, c := range flatten(tree.Expr(), operators.LogicalAnd) {
		if a, ok := atom(c); ok {
			s.Atoms = append(s.Atoms, a...)
			continue
		}
		if n := unsupported(c); n != "" {
			needs = n
			continue
		}
		text, err := parser.Unparse(c, tree.SourceInfo())
		if err != nil {
			return Shape{}, err
		}
		s.Rest = append(s.Rest, text)
		if !mentions(c, "oldSelf") {
			s.RestUsesOldSelf = false
		}
	}
	if needs != "" {
		// Part of the rule needs a form that does not exist yet: the rule
		// is left whole.
		return Shape{Needs: needs}, nil
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
	ds := flatten(e, operators.LogicalOr)
	switch len(ds) {
	case 2:
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
		// (present before, p must stay and equal).
		for i, d := range ds {
			x, ok := call1(d, operators.LogicalNot)
			if !ok {
				continue
			}
			h, ok := hasPath(x)
			if !ok || h.root != "oldSelf" {
				continue
			}
			cs := flatten(ds[1-i], operators.LogicalAnd)
			if len(cs) == 2 {
				if hs, ok := hasPath(cs[0]); !ok || hs.root != "self" || !slices.Equal(hs.path, h.path) {
					continue
				}
				cs = cs[1:]
			}
			if l, r, ok := call2(cs[0], operators.Equals); ok && len(cs) == 1 {
				if p, ok := pairedPaths(l, r); ok && slices.Equal(p, h.path) {
					return []Atom{{Kind: NoRemoval, Path: p}, {Kind: NoModify, Path: p}}, true
				}
			}
		}
	case 3:
		if p, ok := noModify(ds); ok {
			return []Atom{{Kind: NoModify, Path: p}}, true
		}
	}
	return nil, false
}

// unsupported names the form a conjunct needs when it is an immutability
// rule immutable-gen cannot express yet: upstream's NoModify, or a
// condition (`<condition> || <immutability>`).
func unsupported(e ast.Expr) string {
	if containsImmutability(e) {
		return NeedsWhen
	}
	return ""
}

// containsImmutability reports whether an immutability shape (or the
// comparison `self.p == oldSelf.p`) stands among the operands of e's
// ||, &&, ! and ?: operators, at any depth.
func containsImmutability(e ast.Expr) bool {
	if _, ok := atom(e); ok {
		return true
	}
	if l, r, ok := call2(e, operators.Equals); ok {
		if _, ok := pairedPaths(l, r); ok {
			return true
		}
	}
	if e.Kind() != ast.CallKind {
		return false
	}
	c := e.AsCall()
	switch c.FunctionName() {
	case operators.LogicalOr, operators.LogicalAnd, operators.LogicalNot, operators.Conditional:
		for _, a := range c.Args() {
			if containsImmutability(a) {
				return true
			}
		}
	}
	return false
}

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

// mapKeys matches self.p.map(i, i.k).
func mapKeys(e ast.Expr) (keysOf, bool) {
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
