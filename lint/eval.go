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
//
// It is sound by construction: the outcomes it computes for an expression
// include every result the API server's CEL can give it. A value read from
// the object that the interpreter cannot decide — a boolean field
// (`!oldSelf.allowCrossNamespaceImport || …`, `!self.enabled ||
// has(self.spec)`), an enum, a number, a string — is unknown: a boolean
// field may be true or false, so both branches of `!`, `||`, `&&` and `?:`
// are taken, never an error. An error is among the outcomes only where
// CEL gives one (a field that may be absent, a non-boolean operand), and
// `||` and `&&` absorb it when their other operand decides, as CEL does
// (`true || error` is true, `false && error` is false, `error || false`
// is an error).

// outcome is a set of possible results of an expression.
type outcome uint8

const (
	isTrue outcome = 1 << iota
	isFalse
	isError
	isValue // any value other than a boolean
)

const anything = isTrue | isFalse | isError | isValue

// valueOf is the outcomes of reading the value of schema node n when it
// exists: true or false for a boolean, any value for a node of no declared
// type (x-kubernetes-int-or-string, x-kubernetes-preserve-unknown-fields),
// which may hold a boolean too, and null besides for a nullable node.
func valueOf(n *schema.Node) outcome {
	if n == nil {
		return isTrue | isFalse | isValue
	}
	var out outcome
	switch n.Type() {
	case "boolean":
		out = isTrue | isFalse
	case "":
		out = isTrue | isFalse | isValue
	default:
		out = isValue
	}
	if n.Nullable() {
		out |= isValue
	}
	return out
}

// exists reports whether the value may be something other than an error.
func (v value) exists() bool { return v.out&^isError != 0 }

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
	// opaque is set when the value is undecided for want of the values
	// of the object (a boolean field, a comparison of strings or numbers,
	// a call the interpreter does not model), not of presences: where a
	// boolean is expected, its truth is a fact (evalBool).
	opaque bool
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
	// cannot decide (see evalBool) when it is fixed (ok), keyed by the
	// node the rule is on and whether self is in the old object.
	opaque func(node *schema.Node, selfOld bool, e celast.Expr) (v, ok bool)
}

// evalBool evaluates x where a boolean is expected. A condition the
// interpreter cannot decide — one it does not model (a call, a
// comprehension), a boolean read from the object (`oldSelf.suspend`), a
// comparison of values it does not know (`self.mode == 'managed'`) — is a
// fact of the opaque function, if any: one truth value for every rule on
// the same node that holds it, in the same objects. Of what it models, the
// fact decides only between true and false: where x may also be an error
// (a field that may be absent, an operand that is not a boolean), it still
// may.
func (e *evaluator) evalBool(x celast.Expr) value {
	v := e.eval(x)
	if e.opaque == nil || !v.opaque || !v.may(isTrue) || !v.may(isFalse) {
		return v
	}
	b, ok := e.opaque(e.self.node, e.self.old, x)
	if !ok {
		return v
	}
	if v.out == anything {
		// A condition the interpreter does not model at all is a boolean
		// (docs/lint.md: one truth value per distinct condition).
		return bools(b)
	}
	out := bools(b).out | v.out&isError
	if v.may(isValue) {
		out |= isError // not a boolean where one is expected
	}
	return value{out: out}
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
			return read(e.self)
		case "oldSelf":
			if !e.hasOldSelf {
				return value{out: anything}
			}
			if e.optionalOldSelf {
				return value{out: isValue, ref: e.oldSelf, optional: true, none: e.oldNone}
			}
			return read(e.oldSelf)
		}
		return value{out: anything}
	case celast.SelectKind:
		return e.selectField(x.AsSelect())
	case celast.CallKind:
		return e.call(x.AsCall())
	case celast.ListKind, celast.MapKind, celast.StructKind:
		return value{out: isValue}
	}
	return value{out: anything, opaque: true}
}

// read is the value of the node r names, when it exists.
func read(r ref) value {
	out := valueOf(r.node)
	return value{out: out, ref: r, opaque: out&(isTrue|isFalse) != 0}
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
			return value{out: out | isTrue | isFalse | isError, opaque: true}
		}
		return value{out: anything, opaque: true}
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
	v := read(ref{c, operand.ref.old})
	switch p {
	case present:
		v.out |= out
	case absent:
		return value{out: out | isError} // no such key
	default:
		v.out |= out | isError
	}
	return v
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
		return read(t.ref)
	}
	return value{out: anything, opaque: true}
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
	case isNull(a) && notNull(vb), isNull(b) && notNull(va):
		// `oldSelf == null || …`: a value of a node that is not nullable
		// is never null (the API server prunes nulls there).
		return value{out: out | bools(negate).out}
	case (e.changed || e.same) && !va.optional && !vb.optional && va.ref.node != nil && va.ref.node == vb.ref.node && va.ref.old != vb.ref.old &&
		va.ref.node == e.self.node && va.exists() && vb.exists():
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
		return value{out: out, opaque: va.opaque || vb.opaque}
	}
	return value{out: out | isTrue | isFalse, opaque: true}
}

// isNull reports whether x is the literal null.
func isNull(x celast.Expr) bool {
	if x.Kind() != celast.LiteralKind {
		return false
	}
	_, ok := x.AsLiteral().(types.Null)
	return ok
}

// notNull reports whether v is the value of a schema node that cannot be
// null (or an error).
func notNull(v value) bool {
	return v.ref.node != nil && !v.optional && !v.ref.node.Nullable() && v.ref.node.Type() != ""
}

// isBool reports whether v is a boolean (or an error).
func isBool(v value) bool { return !v.may(isValue) && v.may(isTrue|isFalse) }
