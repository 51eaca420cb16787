package lint

import (
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/immutable-gen/immutable-gen/schema"
)

// This file is a small abstract interpreter for the CEL rules of a CRD. It
// does not compute values; it computes which outcomes a rule can have —
// true, false, an error, or some other value — when all it knows is which
// fields are present in the new and old object, and (for immutability
// rules) that `self == oldSelf` is false. That is enough to decide, without
// guessing at syntax, whether a rule such as `has(self.f) == has(oldSelf.f)`,
// `!has(oldSelf.f) || has(self.f)` or `self == oldSelf && self.size() < 8`
// rejects a given change of presence or value: it rejects when "true" is
// not among its outcomes (an error rejects the object too). Anything the
// interpreter does not model may have any outcome, so it never proves a
// rejection that a real API server would not make.

// outcome is a set of possible results of an expression.
type outcome uint8

const (
	isTrue outcome = 1 << iota
	isFalse
	isError
	isValue // any value other than a boolean
)

const anything = isTrue | isFalse | isError | isValue

// ref names the value of a schema node in the new or the old object.
type ref struct {
	node *schema.Node
	old  bool
}

// value is an abstract value: its possible outcomes, and when isValue is
// among them and ref.node is set, which schema node's value it is.
type value struct {
	out outcome
	ref ref
	// optional is set for `oldSelf` of a rule with optionalOldSelf: the
	// value is a CEL optional holding ref (none when none is set).
	optional, none bool
}

func (v value) may(o outcome) bool { return v.out&o != 0 }

// accepts reports whether a rule with this result may accept the object.
func (v value) accepts() bool { return v.may(isTrue) }

// presence is what the interpreter knows of a field's presence.
type presence int

const (
	unknown presence = iota
	present
	absent
)

// evaluator evaluates rules written on one schema node.
type evaluator struct {
	self, oldSelf ref
	// hasOldSelf is false when the rule is evaluated without an old object
	// (a rule that does not use oldSelf, or the old object's own validity).
	hasOldSelf bool
	// optionalOldSelf: oldSelf is a CEL optional; oldNone: it is none.
	optionalOldSelf, oldNone bool
	// changed: `self == oldSelf` is known to be false (and `self !=
	// oldSelf` true); same: known to be true.
	changed, same bool
	// presence says whether a property is present on one side.
	presence func(n *schema.Node, old bool) presence
	// opaque, when set, gives the truth of a condition the interpreter
	// does not model (a call or a comprehension in a boolean position)
	// when it is fixed (ok), keyed by the node the rule is on.
	opaque func(node *schema.Node, e celast.Expr) (v, ok bool)
}

// evalBool evaluates x where a boolean is expected: a condition the
// interpreter does not model is a fact of the opaque function, if any.
func (e *evaluator) evalBool(x celast.Expr) value {
	v := e.eval(x)
	if v.out == anything && e.opaque != nil && (x.Kind() == celast.CallKind || x.Kind() == celast.ComprehensionKind) {
		if b, ok := e.opaque(e.self.node, x); ok {
			return bools(b)
		}
	}
	return v
}

func bools(b bool) value {
	if b {
		return value{out: isTrue}
	}
	return value{out: isFalse}
}

func (e *evaluator) eval(x celast.Expr) value {
	switch x.Kind() {
	case celast.LiteralKind:
		if b, ok := x.AsLiteral().(types.Bool); ok {
			return bools(bool(b))
		}
		return value{out: isValue}
	case celast.IdentKind:
		switch x.AsIdent() {
		case "self":
			return value{out: isValue, ref: e.self}
		case "oldSelf":
			if !e.hasOldSelf {
				return value{out: anything}
			}
			return value{out: isValue, ref: e.oldSelf, optional: e.optionalOldSelf, none: e.oldNone}
		}
		return value{out: anything}
	case celast.SelectKind:
		return e.selectField(x.AsSelect())
	case celast.CallKind:
		return e.call(x.AsCall())
	case celast.ListKind, celast.MapKind, celast.StructKind:
		return value{out: isValue}
	}
	return value{out: anything}
}

// child returns the schema node of property name (as written in CEL, where
// names that are not CEL identifiers are escaped) of v's node.
func child(v value, name string) *schema.Node {
	if v.ref.node == nil || v.optional {
		return nil
	}
	if c := v.ref.node.Properties[name]; c != nil {
		return c
	}
	if un, ok := apiservercel.Unescape(name); ok {
		return v.ref.node.Properties[un]
	}
	return nil
}

// selectField evaluates `x.f` and the presence test `has(x.f)`.
func (e *evaluator) selectField(s celast.SelectExpr) value {
	operand := e.eval(s.Operand())
	out := operand.out & isError
	c := child(operand, s.FieldName())
	if !operand.may(isValue) {
		return value{out: out | isError}
	}
	if c == nil {
		// A field the model does not know, or of a value that is not an
		// object of the model.
		if s.IsTestOnly() {
			return value{out: out | isTrue | isFalse | isError}
		}
		return value{out: anything}
	}
	p := e.presence(c, operand.ref.old)
	if s.IsTestOnly() {
		switch p {
		case present:
			return value{out: out | isTrue}
		case absent:
			return value{out: out | isFalse}
		}
		return value{out: out | isTrue | isFalse}
	}
	switch p {
	case present:
		return value{out: out | isValue, ref: ref{c, operand.ref.old}}
	case absent:
		return value{out: out | isError} // no such key
	}
	return value{out: out | isError | isValue, ref: ref{c, operand.ref.old}}
}

func (e *evaluator) call(c celast.CallExpr) value {
	args := c.Args()
	switch name := c.FunctionName(); {
	case name == operators.LogicalAnd && len(args) == 2:
		return logical(e.evalBool(args[0]), e.evalBool(args[1]), isFalse, isTrue)
	case name == operators.LogicalOr && len(args) == 2:
		return logical(e.evalBool(args[0]), e.evalBool(args[1]), isTrue, isFalse)
	case name == operators.LogicalNot && len(args) == 1:
		v := e.evalBool(args[0])
		out := v.out & isError
		if v.may(isTrue) {
			out |= isFalse
		}
		if v.may(isFalse) {
			out |= isTrue
		}
		if v.may(isValue) {
			out |= isError
		}
		return value{out: out}
	case name == operators.Conditional && len(args) == 3:
		cond := e.evalBool(args[0])
		var out value
		if cond.may(isTrue) {
			out = union(out, e.eval(args[1]))
		}
		if cond.may(isFalse) {
			out = union(out, e.eval(args[2]))
		}
		if cond.may(isError | isValue) {
			out.out |= isError
		}
		return out
	case (name == operators.Equals || name == operators.NotEquals) && len(args) == 2:
		return e.equals(args[0], args[1], name == operators.NotEquals)
	case c.IsMemberFunction() && len(args) == 0 && (name == "hasValue" || name == "value"):
		t := e.eval(c.Target())
		if !t.optional {
			return value{out: anything}
		}
		if name == "hasValue" {
			return bools(!t.none)
		}
		if t.none {
			return value{out: isError}
		}
		return value{out: isValue, ref: t.ref}
	}
	return value{out: anything}
}

// logical evaluates && (short: false, long: true) and || (short: true,
// long: false) as CEL does: commutatively, a short-circuiting operand
// decides even when the other one is an error.
func logical(a, b value, short, long outcome) value {
	var out outcome
	if a.may(short) || b.may(short) {
		out |= short
	}
	if a.may(long) && b.may(long) {
		out |= long
	}
	// Neither operand short-circuits and at least one is not a boolean.
	notShort := func(v value) bool { return v.may(long | isError | isValue) }
	bad := func(v value) bool { return v.may(isError | isValue) }
	if (bad(a) && notShort(b)) || (bad(b) && notShort(a)) {
		out |= isError
	}
	return value{out: out}
}

func union(a, b value) value {
	out := value{out: a.out | b.out}
	if a.ref == b.ref || b.ref.node == nil {
		out.ref = a.ref
	} else if a.ref.node == nil {
		out.ref = b.ref
	}
	return out
}

// equals evaluates a == b (negate: a != b).
func (e *evaluator) equals(a, b celast.Expr, negate bool) value {
	va, vb := e.eval(a), e.eval(b)
	out := (va.out | vb.out) & isError
	if va.out == isError || vb.out == isError {
		return value{out: isError}
	}
	switch {
	case (e.changed || e.same) && !va.optional && !vb.optional && va.ref.node != nil && va.ref.node == vb.ref.node && va.ref.old != vb.ref.old &&
		va.ref.node == e.self.node && va.may(isValue) && vb.may(isValue):
		// self == oldSelf (either way round, or with oldSelf.value()) on a
		// change, or on no change.
		return value{out: out | bools(e.same != negate).out}
	case isBool(va) && isBool(vb):
		for _, x := range []outcome{isTrue, isFalse} {
			for _, y := range []outcome{isTrue, isFalse} {
				if va.may(x) && vb.may(y) {
					out |= bools((x == y) != negate).out
				}
			}
		}
		return value{out: out}
	}
	return value{out: out | isTrue | isFalse}
}

// isBool reports whether v is a boolean (or an error).
func isBool(v value) bool { return !v.may(isValue) && v.may(isTrue|isFalse) }
