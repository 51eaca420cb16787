// Package celguard finds where a CEL expression reads an optional field
// without has(): on an object without the field, the read is an error
// ("no such key"), and the API server takes a rule's error as a refusal.
// A condition of +immutable:when that reads `oldSelf.status.conditions`
// unguarded refuses every update of an object without status, a label
// change included.
//
// The analysis follows CEL's semantics for errors: `a && b` is false when
// either side is false, whatever the other (an error included), and `a ||
// b` true when either is true; so a read is guarded by a has() on either
// side of the operator that decides where the field is absent, and by the
// condition of `?:`. A field is present where the schema makes it so
// (required, or defaulted, and not nullable, all the way up) or where a
// has() of it or of a field below it decides the result otherwise.
//
// It is the one reading of unguarded reads: the crd generator reports
// those of an +immutable:when condition (IG046, Root), and lint takes
// those of a transition rule (Steps) as the candidates of IG038, which its
// evaluator narrows to the rules that fail on an update changing nothing.
package celguard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/parser"

	"github.com/immutable-gen/immutable-gen/schema"
)

// Unguarded is a read of an optional field that errors where the field is
// absent.
type Unguarded struct {
	// Read is the expression that reads it, as written
	// (`oldSelf.status.conditions`).
	Read string
	// Field is the optional field whose absence makes it fail
	// (`oldSelf.status`).
	Field string
	// Line and Column are where Read starts in the expression (1-based;
	// Column in bytes).
	Line, Column int
	// Node is Field's schema.
	Node *schema.Node
}

// Fix is the guard to write before the read: `has(oldSelf.status) && …`.
func (u Unguarded) Fix() string {
	return fmt.Sprintf("guard it: `has(%s) && …` (or `!has(%s) || …`), so that an object without %s is not refused", u.Field, u.Field, strings.TrimPrefix(strings.TrimPrefix(u.Field, "oldSelf."), "self."))
}

// Condition checks cond, the +immutable:when condition of the field at
// marked (x-immutable-gen-when there), a node of a kind's schema: Root on
// the kind's root, with the objects above marked present, since the
// lowered rule holds wherever one of them is absent in either object,
// whatever the condition. The crd generator (IG046) and lint read a
// condition so.
func Condition(cond string, marked *schema.Node) ([]Unguarded, error) {
	root := marked
	var names []string
	for ; root.Parent != nil; root = root.Parent {
		names = append([]string{root.Name}, names...)
	}
	var present []string
	for i := range names[:max(len(names)-1, 0)] {
		path := "." + strings.Join(names[:i+1], ".")
		present = append(present, "self"+path, "oldSelf"+path)
	}
	return Root(cond, root, present...)
}

// Refuses says what u does to the updates of the field at marked, whose
// condition reads it: the finding's text, for every tool that reports it.
func (u Unguarded) Refuses(marked string) string {
	return fmt.Sprintf("the condition reads %s, and %s is optional: on an object without it the condition is an error (\"no such key\"), and an error refuses the update (in the API server as in the runtime): every update of such an object that changes %s is refused, where the condition cannot hold", u.Read, u.Field, marked)
}

// Root checks expr, an expression whose variables self and oldSelf are
// objects of the root schema root (a root rule, or an +immutable:when
// condition), and returns its unguarded reads, in the order written.
// present are the fields known present wherever expr's value matters, as
// written (`self.spec`, `oldSelf.spec`): an +immutable:when condition
// matters only where the marked field's objects are present in both (the
// lowered rule holds otherwise, whatever the condition). An expression
// that does not parse is an error (the API server's compiler words it).
func Root(expr string, root *schema.Node, present ...string) ([]Unguarded, error) {
	p, err := parser.NewParser(parser.MaxRecursionDepth(200), parser.Macros(parser.AllMacros...))
	if err != nil {
		return nil, err
	}
	tree, errs := p.Parse(common.NewTextSource(expr))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return nil, fmt.Errorf("%s", errs.ToDisplayString())
	}
	return Parsed(tree, root, present...), nil
}

// Parsed is Root for an expression already parsed, tree, whose variables
// self and oldSelf are objects of the schema at node (the root, or the
// node of a rule below it, as lint reads the rules of every node).
func Parsed(tree *ast.AST, node *schema.Node, present ...string) []Unguarded {
	return parsed(tree, node, false, present)
}

// Steps is Parsed with every optional field on the way of an unguarded
// read, outermost first (`oldSelf.status`, then `oldSelf.status.conditions`
// if it is optional too), where Parsed gives the first: lint asks of each
// whether its absence makes the rule fail (IG038), since an outer field
// may be present on every object the other rules accept.
func Steps(tree *ast.AST, node *schema.Node, present ...string) []Unguarded {
	return parsed(tree, node, true, present)
}

func parsed(tree *ast.AST, node *schema.Node, steps bool, present []string) []Unguarded {
	c := &checker{info: tree.SourceInfo(), vars: map[string]*schema.Node{"self": node, "oldSelf": node}, steps: steps}
	known := facts{}
	for _, p := range present {
		known[p] = true
	}
	c.walk(tree.Expr(), known)
	slices.SortStableFunc(c.found, func(a, b Unguarded) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Column - b.Column
	})
	return c.found
}

// facts are the fields known present, by their path as written
// ("oldSelf.status").
type facts map[string]bool

func (f facts) with(g facts) facts {
	if len(g) == 0 {
		return f
	}
	out := make(facts, len(f)+len(g))
	for k := range f {
		out[k] = true
	}
	for k := range g {
		out[k] = true
	}
	return out
}

type checker struct {
	info  *ast.SourceInfo
	vars  map[string]*schema.Node
	steps bool // every optional step of a read (Steps), not the first
	found []Unguarded
	seen  map[string]bool
}

// walk reports the unguarded reads of e, evaluated where known holds.
func (c *checker) walk(e ast.Expr, known facts) {
	switch e.Kind() {
	case ast.SelectKind:
		c.read(e, known)
	case ast.CallKind:
		call := e.AsCall()
		args := call.Args()
		switch fn := call.FunctionName(); {
		case fn == operators.LogicalAnd && len(args) == 2:
			// Where one side is false the result is false: each side is
			// read where the other is true.
			c.walk(args[0], known.with(whenTrue(args[1])))
			c.walk(args[1], known.with(whenTrue(args[0])))
			return
		case fn == operators.LogicalOr && len(args) == 2:
			c.walk(args[0], known.with(whenFalse(args[1])))
			c.walk(args[1], known.with(whenFalse(args[0])))
			return
		case fn == operators.Conditional && len(args) == 3:
			c.walk(args[0], known)
			c.walk(args[1], known.with(whenTrue(args[0])))
			c.walk(args[2], known.with(whenFalse(args[0])))
			return
		}
		if call.IsMemberFunction() {
			c.walk(call.Target(), known)
		}
		for _, a := range args {
			c.walk(a, known)
		}
	case ast.ComprehensionKind:
		comp := e.AsComprehension()
		c.walk(comp.IterRange(), known)
		// The loop's variable reads items of the range: bind it to the
		// schema of the items (list) or keys (map) where known.
		if n := c.nodeOf(comp.IterRange()); n != nil {
			saved, had := c.vars[comp.IterVar()]
			switch {
			case n.Items != nil:
				c.vars[comp.IterVar()] = n.Items
			default:
				c.vars[comp.IterVar()] = nil
			}
			c.walk(comp.LoopStep(), known)
			c.walk(comp.Result(), known)
			if had {
				c.vars[comp.IterVar()] = saved
			} else {
				delete(c.vars, comp.IterVar())
			}
			return
		}
		c.walk(comp.LoopStep(), known)
		c.walk(comp.Result(), known)
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			c.walk(x, known)
		}
	case ast.MapKind:
		for _, x := range e.AsMap().Entries() {
			en := x.AsMapEntry()
			c.walk(en.Key(), known)
			c.walk(en.Value(), known)
		}
	}
}

// read reports the first optional field, not known present, on the way of
// the selection e (x.a.b…: every step is read).
func (c *checker) read(e ast.Expr, known facts) {
	steps, base := chain(e)
	if base == nil {
		// A selection from a call or an index: its operand is walked.
		c.walk(e.AsSelect().Operand(), known)
		return
	}
	if base.Kind() != ast.IdentKind {
		c.walk(base, known)
		return
	}
	n, ok := c.vars[base.AsIdent()]
	if !ok || n == nil {
		return
	}
	path := base.AsIdent()
	for _, s := range steps {
		child := n.Properties[s]
		if child == nil {
			return // not a field the schema has (the compiler says so)
		}
		path += "." + s
		if !present(child) && !known[path] {
			c.report(e, path, child)
			if !c.steps {
				return
			}
		}
		n = child
	}
}

// chain returns the field names of a selection chain x.a.b and its base
// x; base is nil when a step is a presence test.
func chain(e ast.Expr) ([]string, ast.Expr) {
	var rev []string
	for e.Kind() == ast.SelectKind {
		s := e.AsSelect()
		if s.IsTestOnly() {
			return nil, nil
		}
		rev = append(rev, s.FieldName())
		e = s.Operand()
	}
	slices.Reverse(rev)
	return rev, e
}

// nodeOf is the schema node of a selection from a variable, or nil.
func (c *checker) nodeOf(e ast.Expr) *schema.Node {
	steps, base := chain(e)
	if base == nil || base.Kind() != ast.IdentKind {
		return nil
	}
	n := c.vars[base.AsIdent()]
	for _, s := range steps {
		if n == nil {
			return nil
		}
		n = n.Properties[s]
	}
	return n
}

// present reports whether the schema keeps n present wherever its parent
// is: required or defaulted, and not nullable (CEL sees a null as absent).
func present(n *schema.Node) bool {
	if n.Parent != nil && n.Parent.Parent == nil && (n.Name == "metadata" || n.Name == "apiVersion" || n.Name == "kind") {
		return true // the API server's, on every object
	}
	return n.AlwaysPresent() && !n.Nullable()
}

func (c *checker) report(e ast.Expr, field string, n *schema.Node) {
	read := field
	at := e
	if steps, base := chain(e); base != nil && base.Kind() == ast.IdentKind {
		read = base.AsIdent() + "." + strings.Join(steps, ".")
		at = base
	}
	loc := c.info.GetStartLocation(at.ID())
	key := fmt.Sprintf("%d:%d:%s", loc.Line(), loc.Column(), field)
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.found = append(c.found, Unguarded{Read: read, Field: field, Line: loc.Line(), Column: loc.Column() + 1, Node: n})
}

// whenTrue are the fields known present where e is true.
func whenTrue(e ast.Expr) facts {
	out := facts{}
	switch e.Kind() {
	case ast.CallKind:
		call := e.AsCall()
		args := call.Args()
		switch call.FunctionName() {
		case operators.LogicalAnd:
			for _, a := range args {
				for k := range whenTrue(a) {
					out[k] = true
				}
			}
		case operators.LogicalNot:
			if len(args) == 1 {
				return whenFalse(args[0])
			}
		}
	case ast.SelectKind:
		// has() written as a test-only selection.
		if s := e.AsSelect(); s.IsTestOnly() {
			steps, base := chain(s.Operand())
			if base != nil && base.Kind() == ast.IdentKind {
				path := base.AsIdent()
				for _, st := range steps {
					path += "." + st
					out[path] = true
				}
				out[path+"."+s.FieldName()] = true
			}
		}
	}
	return out
}

// whenFalse are the fields known present where e is false.
func whenFalse(e ast.Expr) facts {
	out := facts{}
	if e.Kind() != ast.CallKind {
		return out
	}
	call := e.AsCall()
	switch call.FunctionName() {
	case operators.LogicalNot:
		if len(call.Args()) == 1 {
			return whenTrue(call.Args()[0])
		}
	case operators.LogicalOr:
		for _, a := range call.Args() {
			for k := range whenFalse(a) {
				out[k] = true
			}
		}
	}
	return out
}
